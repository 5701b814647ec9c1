"""Shared M/M/c inputs for the plan tests (written once per session)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.queueing import write_mmc

#: Offered load 8 Erlangs (8 arrivals and 1 completion per GPU-hour), pools of 9 to 14 GPUs.
LAM_PER_H, MU_PER_H = 8.0, 1.0
SIZES = list(range(9, 15))


@pytest.fixture(scope="session")
def mmc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(trace, spec, plan.yaml) of an M/M/c load: 4,000 jobs."""
    folder = tmp_path_factory.mktemp("mmc")
    return write_mmc(folder, lam_per_h=LAM_PER_H, mu_per_h=MU_PER_H, jobs=4000, seed=7, sizes=SIZES)


@pytest.fixture(scope="session")
def mmc_small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A smaller M/M/c load (1,500 jobs) for the runner tests."""
    folder = tmp_path_factory.mktemp("mmc-small")
    return write_mmc(
        folder, lam_per_h=LAM_PER_H, mu_per_h=MU_PER_H, jobs=1500, seed=11, sizes=[10, 11, 12, 13]
    )


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    """One real local Ray for the tests that use it (plan reuses a Ray that is already running)."""
    import ray

    # "local": a new Ray of this process, never a cluster `ray start` left on the machine (a test
    # of test_ray_guarantees.py starts one while this runs under -n 2).
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def mmc_tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A tiny M/M/c load (150 jobs, two designs) for the folder and option tests."""
    folder = tmp_path_factory.mktemp("mmc-tiny")
    return write_mmc(folder, lam_per_h=LAM_PER_H, mu_per_h=MU_PER_H, jobs=150, seed=5, sizes=[10, 11])
