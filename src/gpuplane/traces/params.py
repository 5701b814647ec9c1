"""Typed defaults of the synthetic generator, loaded from `generator_defaults.yaml` in the package.

Numbers live in the data file (with their source) so that changing a default is a data change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

Z90 = 1.2815515655446004  # standard normal quantile at 0.9 (a constant of mathematics)


@dataclass(frozen=True)
class Lognormal:
    """A lognormal given by its median and 90th percentile, capped at `max_s`."""

    mu: float
    sigma: float
    max_s: float

    @classmethod
    def from_percentiles(cls, p50: float, p90: float, max_s: float) -> Lognormal:
        """The lognormal with this median and 90th percentile, capped at `max_s`."""
        if not 0 < p50 < p90:
            raise ValueError(f"need 0 < p50 < p90, got {p50}, {p90}")
        return cls(math.log(p50), (math.log(p90) - math.log(p50)) / Z90, max_s)

    @property
    def mean(self) -> float:
        """Mean of the uncapped distribution."""
        return math.exp(self.mu + self.sigma**2 / 2)


@dataclass(frozen=True)
class JobClassParams:
    """Duration and gang-size mix of one job class."""

    duration: Lognormal
    gang_sizes: tuple[tuple[int, float], ...]
    gpus_per_pod_max: int

    @property
    def mean_gang(self) -> float:
        """Mean gang size, weighted."""
        total = sum(w for _, w in self.gang_sizes)
        return sum(g * w for g, w in self.gang_sizes) / total


@dataclass(frozen=True)
class CheckpointParams:
    """How the synthetic week's training jobs checkpoint (share, intervals, write costs)."""

    share: float
    intervals_s: tuple[float, ...]
    write_base_s: float
    write_per_gpu_s: float
    restore_factor: float


@dataclass(frozen=True)
class ServiceRequest:
    """What one inference replica asks for: a MIG device or `gpus` (whole or a fraction)."""

    mig: str | None
    gpus: float
    weight: float


@dataclass(frozen=True)
class InferenceParams:
    """How the synthetic week's inference services are drawn (per team, extra ones, replicas)."""

    services_per_team: int
    extra_per_day: float
    extra_lifetime: Lognormal
    replicas: tuple[tuple[int, float], ...]
    requests: tuple[ServiceRequest, ...]
    cpu_milli: int
    memory_mib: int


@dataclass(frozen=True)
class GeneratorParams:
    """All knobs of `generate`; `default_params()` reads them from the packaged YAML."""

    training_share: float
    priorities: dict[str, int]
    training: JobClassParams
    batch: JobClassParams
    checkpoint: CheckpointParams
    failed_share: float
    killed_share: float
    cpu_milli_per_gpu: int
    memory_mib_per_gpu: int
    cpu_milli_min: int
    memory_mib_min: int
    inference: InferenceParams
    users_per_team: int
    builtin_duration_s: float
    builtin_capacity_gpus: float
    builtin_load: float

    def mean_job_gpu_seconds(self) -> float:
        """Expected GPU-seconds of one arriving job, ignoring the cap (used to size arrival rates).

        Failed jobs stop after on average 1/3 of their run, killed ones after 1/2 (see generator).
        """
        train = self.training.mean_gang * self.training.duration.mean
        batch = self.batch.mean_gang * self.batch.duration.mean
        per_job = self.training_share * train + (1 - self.training_share) * batch
        completed = 1 - self.failed_share - self.killed_share
        return per_job * (completed + self.failed_share / 3 + self.killed_share / 2)


def _job_class(raw: dict[str, Any]) -> JobClassParams:
    return JobClassParams(
        duration=Lognormal.from_percentiles(
            float(raw["duration_p50_s"]), float(raw["duration_p90_s"]), float(raw["max_duration_s"])
        ),
        gang_sizes=tuple((int(k), float(v)) for k, v in raw["gang_sizes"].items()),
        gpus_per_pod_max=int(raw["gpus_per_pod_max"]),
    )


def _inference(raw: dict[str, Any]) -> InferenceParams:
    return InferenceParams(
        services_per_team=int(raw["services_per_team"]),
        extra_per_day=float(raw["extra_services_per_day"]),
        extra_lifetime=Lognormal.from_percentiles(
            float(raw["extra_lifetime_p50_s"]), float(raw["extra_lifetime_p90_s"]), math.inf
        ),
        replicas=tuple((int(k), float(v)) for k, v in raw["replicas"].items()),
        requests=tuple(
            ServiceRequest(mig=r.get("mig"), gpus=float(r.get("gpus", 1)), weight=float(r["weight"]))
            for r in raw["requests"]
        ),
        cpu_milli=int(raw["cpu_milli"]),
        memory_mib=int(raw["memory_mib"]),
    )


def params_from_dict(raw: dict[str, Any]) -> GeneratorParams:
    """Build typed parameters from the YAML structure of `generator_defaults.yaml`."""
    tr = raw["training"]
    res = raw["pod_resources"]
    shares = raw["class_shares"]
    return GeneratorParams(
        training_share=float(shares["training"]) / (float(shares["training"]) + float(shares["batch"])),
        priorities={str(k): int(v) for k, v in raw["priorities"].items()},
        training=_job_class(tr),
        batch=_job_class(raw["batch"]),
        checkpoint=CheckpointParams(
            share=float(tr["checkpoint_share"]),
            intervals_s=tuple(float(x) for x in tr["checkpoint_interval_s"]),
            write_base_s=float(tr["checkpoint_write_s_base"]),
            write_per_gpu_s=float(tr["checkpoint_write_s_per_gpu"]),
            restore_factor=float(tr["checkpoint_restore_factor"]),
        ),
        failed_share=float(raw["status"]["failed"]),
        killed_share=float(raw["status"]["killed"]),
        cpu_milli_per_gpu=int(res["cpu_milli_per_gpu"]),
        memory_mib_per_gpu=int(res["memory_mib_per_gpu"]),
        cpu_milli_min=int(res["cpu_milli_min"]),
        memory_mib_min=int(res["memory_mib_min"]),
        inference=_inference(raw["inference"]),
        users_per_team=int(raw["users_per_team"]),
        builtin_duration_s=float(raw["builtin"]["duration_s"]),
        builtin_capacity_gpus=float(raw["builtin"]["capacity_gpus"]),
        builtin_load=float(raw["builtin"]["load"]),
    )


@lru_cache(maxsize=1)
def default_params() -> GeneratorParams:
    """The packaged defaults (read once)."""
    text = resources.files("gpuplane.traces").joinpath("generator_defaults.yaml").read_text("utf-8")
    return params_from_dict(yaml.safe_load(text))
