"""`gpuplane acceptance render|run|score`: the seven-step acceptance test of one pool."""

from __future__ import annotations

import json
import math
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuplane.acceptance.nccl import METRICS
from gpuplane.acceptance.options import MULTI_NODE_KINDS, SuiteOptions
from gpuplane.acceptance.results import Results
from gpuplane.errors import EXIT_FAILED, UsageError
from gpuplane.render.kueue import KUEUE_APIS

acceptance_app = typer.Typer(
    help="The acceptance test of one pool: render the suite, run it (the one command that writes to a "
    "cluster, and it asks first), score it. Exit 0 when every step passes, 1 when one fails.",
    no_args_is_help=True,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)


def _number(value: float | None, option: str, *, positive: bool = False) -> None:
    """A numeric option must be a finite number, not negative (not zero either when `positive`)."""
    if value is None:
        return
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        wanted = "a finite number above 0" if positive else "a finite number, 0 or more"
        raise UsageError(f"expected {wanted}, got {value!r}", option=option)


def _command(text: str | None) -> tuple[str, ...]:
    if text is None:
        raise UsageError(
            "give the production training command (step 4 runs it for the window)", option="--command"
        )
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"cannot split {text!r}: {exc}", option="--command") from None


@acceptance_app.command("render", no_args_is_help=True)
def render_command(
    spec_file: Annotated[Path, typer.Argument(metavar="SPEC", help="The platform spec (YAML).")],
    pool: Annotated[str, typer.Option("--pool", help="The GPU pool to accept.")],
    image: Annotated[str, typer.Option("--image", help="The production training image (pin a digest).")],
    output: Annotated[
        Path, typer.Option("-o", "--output", metavar="DIR", help="Directory to write the suite to.")
    ],
    command: Annotated[
        str | None,
        typer.Option("--command", help="The production training command, as one shell-quoted string."),
    ] = None,
    dataset: Annotated[
        str | None,
        typer.Option(
            help="Dataset sample: https://..., s3://BUCKET/KEY (a KEY ending in / is a prefix) or pvc://CLAIM/PATH."
        ),
    ] = None,
    weights: Annotated[
        str | None, typer.Option(help="Base model weights (same schemes as --dataset).")
    ] = None,
    nodes: Annotated[int, typer.Option(help="Nodes; above 1 adds the NCCL benchmark and a JobSet.")] = 1,
    team: Annotated[
        str | None, typer.Option(help="Team whose queue admits the suite (default: first with quota).")
    ] = None,
    resource: Annotated[
        str | None, typer.Option(help="GPU resource on pools that offer several (MIG mixed).")
    ] = None,
    window: Annotated[float, typer.Option(help="Seconds the training command runs (step 4).")] = 600.0,
    checkpoint_size: Annotated[str, typer.Option(help="Size of the checkpoint PVC.")] = "100Gi",
    storage_class: Annotated[str | None, typer.Option(help="StorageClass of the checkpoint PVC.")] = None,
    s3_secret: Annotated[
        str | None, typer.Option(help="Secret with AWS_* variables for s3:// sources.")
    ] = None,
    fabric: Annotated[
        str | None, typer.Option(help="Inter-node fabric (efa, infiniband, tcpxo, nvlink).")
    ] = None,
    nccl_min_busbw: Annotated[
        float | None, typer.Option(help="Step 3 threshold in GB/s (replaces the data's).")
    ] = None,
    nccl_metric: Annotated[
        str, typer.Option(help=f"Metric --nccl-min-busbw bounds: {', '.join(METRICS)}.")
    ] = "busbw_at_max",
    max_admission_wait: Annotated[float | None, typer.Option(help="Step 1 threshold in seconds.")] = None,
    min_copy_mbps: Annotated[float | None, typer.Option(help="Step 2 threshold in MB/s.")] = None,
    max_resume: Annotated[float | None, typer.Option(help="Step 5 threshold in seconds.")] = None,
    api_price_per_unit: Annotated[
        float | None, typer.Option(help="Model-API price of one unit (step 7).")
    ] = None,
    unit: Annotated[str, typer.Option(help="What one unit of progress is (for reports).")] = "steps",
    progress_regex: Annotated[
        str | None, typer.Option(help="Regex whose group 1 is the progress count.")
    ] = None,
    kueue_api: Annotated[
        str, typer.Option(help="Kueue API version of the LocalQueue: v1beta2 or v1beta1.")
    ] = "v1beta2",
    multi_node_kind: Annotated[
        str, typer.Option(help=f"Training workload across nodes: {', '.join(MULTI_NODE_KINDS)}.")
    ] = "jobset",
) -> None:
    """Write the acceptance suite of one pool: namespace, LocalQueue, helper, PVC and workloads."""
    if kueue_api not in KUEUE_APIS:
        raise UsageError(f"expected one of {', '.join(KUEUE_APIS)}, got {kueue_api!r}", option="--kueue-api")
    if nccl_metric not in METRICS:
        raise UsageError(f"expected one of {', '.join(METRICS)}, got {nccl_metric!r}", option="--nccl-metric")
    for value, option, positive in (
        (window, "--window", True),
        (nccl_min_busbw, "--nccl-min-busbw", True),
        (max_admission_wait, "--max-admission-wait", False),
        (min_copy_mbps, "--min-copy-mbps", True),
        (max_resume, "--max-resume", False),
        (api_price_per_unit, "--api-price-per-unit", False),
    ):
        _number(value, option, positive=positive)
    from gpuplane.acceptance.command import render_to

    def options() -> SuiteOptions:
        return SuiteOptions(
            pool=pool, image=image, command=_command(command), dataset=dataset, weights=weights,
            nodes=nodes, team=team, resource=resource, window_s=window, checkpoint_size=checkpoint_size,
            storage_class=storage_class, s3_secret=s3_secret, fabric=fabric, nccl_min_busbw=nccl_min_busbw,
            nccl_metric=nccl_metric, max_admission_wait_s=max_admission_wait,
            min_copy_mb_per_s=min_copy_mbps, max_resume_s=max_resume, api_price_per_unit=api_price_per_unit,
            unit=unit, progress_regex=progress_regex, kueue_api=kueue_api, multi_node_kind=multi_node_kind,
        )  # fmt: skip

    suite = render_to(spec_file, output, options, lambda line: err.print(line, markup=False))
    out.print(
        f"wrote the acceptance suite of pool {pool} to {output} ({len(suite.files)} files); see {output / 'README.md'}"
    )
    for note in suite.notes:
        out.print(f"note: {note}", markup=False)


def _summary(results: Results) -> None:
    for step in results.steps:
        out.print(f"step {step.number} {step.status:>7}  {step.name}", markup=False)
    for line in results.failures():
        err.print(line, markup=False)
    out.print(f"verdict: {'pass' if results.passed else 'fail'}", markup=False)


def _confirm(lines: list[str], yes: bool) -> None:
    for line in lines:
        err.print(line, markup=False)
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(
            "not confirmed: stdin is not a terminal; pass --yes to run without asking", option="--yes"
        )
    if not typer.confirm("create these objects in the cluster?", err=True):
        raise typer.Exit(EXIT_FAILED)


@acceptance_app.command("run", no_args_is_help=True)
def run_command(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="A suite written by acceptance render.")],
    kubeconfig: Annotated[str, typer.Option(help="Kubeconfig of the cluster.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", metavar="BUNDLE", help="Directory for the evidence bundle.")
    ],
    context: Annotated[str | None, typer.Option(help="Kubeconfig context.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask before creating objects.")] = False,
    prometheus: Annotated[
        str | None, typer.Option(help="Prometheus URL for step 6's series and step 7's activity.")
    ] = None,
    timeout: Annotated[
        float, typer.Option(help="Seconds the whole run may take, cleanup included.")
    ] = 7200.0,
) -> None:
    """Run the suite on the cluster (asks first), clean up, and write the evidence bundle.

    The run creates its own namespace (the suite's name plus a run id, labelled with the run id)
    and deletes only that namespace, checked by label and UID. Every API call has a connect and
    read timeout; --timeout bounds the whole run, cleanup included. If the run is interrupted
    before cleanup finishes, it prints what may remain and the kubectl command that deletes it.
    """
    from gpuplane.acceptance.command import RunRequest, run

    _number(timeout, "--timeout", positive=True)
    request = RunRequest(directory, kubeconfig, output, context, prometheus, timeout)
    results = run(
        request, lambda lines: _confirm(lines, yes), lambda line: err.print(line, markup=False)
    ).results
    _summary(results)
    out.print(f"evidence bundle: {output} (report {output / 'report.html'})")
    if not results.passed:
        raise typer.Exit(EXIT_FAILED)


@acceptance_app.command("score", no_args_is_help=True)
def score_command(
    source: Annotated[
        Path, typer.Argument(metavar="BUNDLE|LOGS", help="An evidence bundle, or saved pod logs.")
    ],
    suite_dir: Annotated[
        Path | None, typer.Option("--suite", metavar="DIR", help="The suite (needed for LOGS).")
    ] = None,
    report: Annotated[Path | None, typer.Option(metavar="FILE", help="Write the HTML report here.")] = None,
    output_format: Annotated[str, typer.Option("-o", "--output", help="table or json.")] = "table",
) -> None:
    """Score a run again offline, from its bundle or from saved logs and the suite."""
    if output_format not in ("table", "json"):
        raise UsageError(f"expected table or json, got {output_format!r}", option="--output")
    from gpuplane.acceptance.command import rescore

    results = rescore(source, suite_dir, report)
    if output_format == "json":
        sys.stdout.write(json.dumps(results.as_dict(), indent=2, sort_keys=True) + "\n")
    else:
        _summary(results)
    if not results.passed:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add `gpuplane acceptance` to the app."""
    app.add_typer(acceptance_app, name="acceptance")
