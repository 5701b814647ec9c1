"""Acceptance: rendering every example pool's suite, parsing a long nccl-tests output, scoring."""

from __future__ import annotations

import time
from pathlib import Path

from gpuplane.acceptance.nccl import parse_nccl
from gpuplane.acceptance.observations import Observations
from gpuplane.acceptance.options import SuiteOptions
from gpuplane.acceptance.score import score
from gpuplane.acceptance.suite import render_suite
from gpuplane.spec import derived, load_spec

REPO = Path(__file__).resolve().parents[1]
ROW = "  {size:>10}  {count:>12}     float     sum      -1  6708.65  160.05  300.10       0  6688.59  160.53  301.00       0"
HEADER = "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"


def _suites() -> tuple[int, int, float]:
    """Suites rendered for every GPU pool of every example, and how many DRA pools were skipped
    (the suite's pods request extended resources; `acceptance render` refuses a DRA pool)."""
    started = time.perf_counter()
    count = dra = 0
    for example in sorted((REPO / "examples").glob("*.yaml")):
        spec = load_spec(example)
        for pool in (p for p in spec.node_pools if p.is_gpu):
            if derived.is_dra(pool):
                dra += 1
                continue
            resources = sorted(derived.resources_per_node(pool))
            options = SuiteOptions(
                pool=pool.name, image="img", command=("python3", "train.py"), dataset="https://x/y",
                resource=resources[0] if len(resources) > 1 else None,
            )  # fmt: skip
            render_suite(spec, options)
            count += 1
    return count, dra, time.perf_counter() - started


def _multi_node_pool() -> str:
    """The first non-DRA GPU pool of the AKS example (a two-node suite is scored)."""
    spec = load_spec(REPO / "examples" / "aks-platform.yaml")
    return next(p.name for p in spec.node_pools if p.is_gpu and not derived.is_dra(p))


def run() -> list[tuple[str, str]]:
    """Figures: suites rendered per second, nccl-tests rows parsed per second, scoring time."""
    count, dra, seconds = _suites()
    text = HEADER + ("\n".join(ROW.format(size=8 << i, count=2 << i) for i in range(40)) + "\n") * 500
    started = time.perf_counter()
    parsed = parse_nccl(text)
    parse_s = time.perf_counter() - started
    suite = render_suite(load_spec(REPO / "examples" / "aks-platform.yaml"), SuiteOptions(
        pool=_multi_node_pool(), image="img", command=("t",), nodes=2, dataset="https://x/y"
    )).info  # fmt: skip
    started = time.perf_counter()
    for _ in range(200):
        score(suite, Observations(nccl_log=text[:20000]))
    score_ms = (time.perf_counter() - started) / 200 * 1000
    return [
        ("suites rendered (every example GPU pool)", f"{count} in {seconds:.2f} s ({dra} DRA pools skipped)"),
        (
            "nccl-tests rows parsed",
            f"{len(parsed.rows):,} in {parse_s:.3f} s ({len(parsed.rows) / parse_s:,.0f}/s)",
        ),
        ("score one run (7 steps)", f"{score_ms:.2f} ms"),
    ]
