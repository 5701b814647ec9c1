"""Shared helpers of the acceptance tests: suites rendered from the examples."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from gpuplane.acceptance.options import SuiteOptions
from gpuplane.acceptance.suite import Suite, render_suite
from gpuplane.spec import PlatformSpec, load_spec

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*.yaml"))
FIXTURES = Path(__file__).parent / "fixtures"
IMAGE = "registry.example.com/llm/train@sha256:" + "5d" * 32


def example_pools() -> list[tuple[Path, str]]:
    """(example, pool) for every GPU pool of every example (DRA pools excepted: the suite's pods
    request extended resources)."""
    from gpuplane.spec import derived

    out = []
    for example in EXAMPLES:
        spec = load_spec(example)
        out += [(example, p.name) for p in spec.node_pools if p.is_gpu and not derived.is_dra(p)]
    return out


def options_for(spec: PlatformSpec, pool: str, **extra: Any) -> SuiteOptions:
    """Options that render for `pool`: one MIG resource chosen where the pool offers several;
    `extra` sets further SuiteOptions fields."""
    from gpuplane.spec import derived

    node_pool = spec.pool(pool)
    assert node_pool is not None
    resources = sorted(derived.resources_per_node(node_pool))
    options = SuiteOptions(
        pool=pool,
        image=IMAGE,
        command=("torchrun", "--nproc-per-node=8", "train.py", "--config", "prod.yaml"),
        dataset="s3://datasets/sample/",
        weights="https://models.example.com/base/model.safetensors",
        resource=resources[0] if len(resources) > 1 else None,
    )
    return replace(options, **extra)


def suite_for(example: Path, pool: str, **extra: Any) -> tuple[PlatformSpec, Suite]:
    spec = load_spec(example)
    return spec, render_suite(spec, options_for(spec, pool, **extra))
