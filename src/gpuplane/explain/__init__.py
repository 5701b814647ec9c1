"""`gpuplane explain`: Kueue admission (`gpuplane.kueue`) run on real objects (`gpuplane.workloads`).

Why is my GPU job waiting, would it be admitted now, and when? Modules: `load` (files and stdin to
parsed objects) and `live` (the same from a cluster, read-only), `jobframework`/`jobcontext` (job
objects to Kueue Workloads as Kueue's job framework builds them), `whatif` (answers for submitted
jobs), `fit` (admitted but unschedulable on any node), `eta` (the snapshot run forward in time),
`output` (JSON and tables) and `command` (the front door: `explain_input`, `run_explain`).

Programmatic use::

    from gpuplane.explain import ExplainOptions, explain_input, load_paths

    result = explain_input(load_paths(["cluster.yaml", "job.yaml"]), ExplainOptions(cycles=2))
    result.results   # one CycleResult per cycle; result.answers: what happens to each submitted job
"""

from __future__ import annotations

from gpuplane.explain.command import (
    ExplainOptions,
    Explanation,
    dumps,
    explain_input,
    print_tables,
    run_explain,
    to_json,
)
from gpuplane.explain.load import load_paths

__all__ = [
    "ExplainOptions",
    "Explanation",
    "dumps",
    "explain_input",
    "load_paths",
    "print_tables",
    "run_explain",
    "to_json",
]
