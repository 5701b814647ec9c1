"""`gpuplane simulate` without typer: options in; runs, and the outputs written, out.

Kept out of the CLI module so it can be tested without a command line. Everything is checked
(options, specs, workload) and every output rendered before the first file is written.
"""

from __future__ import annotations

from pathlib import Path

from gpuplane.baselines import ApiPrices
from gpuplane.sim.engine import Progress
from gpuplane.sim.options import Options, build_config, workload_source
from gpuplane.sim.output import Targets, check_targets, write_outputs
from gpuplane.sim.whatif import RunResult, platforms_from, run_all


def execute(o: Options, progress: Progress | None = None) -> tuple[list[RunResult], list[Path]]:
    """Run the session and write every requested output; returns the results and written paths."""
    config = build_config(o)
    targets = Targets(json=o.json_out, csv=o.csv_out, report=o.report_path)
    check_targets(targets, max(1, len(o.specs)))  # before the run, not after it
    source = workload_source(o)
    prices = ApiPrices.parse(o.api_prices)
    results = run_all(platforms_from(o.specs), source, config, progress, prices)
    return results, write_outputs(results, targets)
