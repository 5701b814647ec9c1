"""`gpuplane acceptance render|run|score` without typer: the engine's front door.

`cli/acceptance.py` parses the options, calls one of these and prints what it returns:

- `render_to(spec_file, output, options, warn)` writes the suite of one pool (the folder replaced
  only when it is a suite gpuplane wrote) and returns it;
- `run(request, confirm, say)` connects through `gpuplane.kube`'s client, asks (`confirm`), writes
  the evidence as the run goes, drives the seven steps (`runner.Runner`), cleans up, scores and
  finishes the bundle; `say` gets the lines about what may remain in the cluster;
- `rescore(source, suite_dir, report)` scores a bundle or saved logs again offline.

The user interface (the prompt, stdout and stderr) stays in the CLI; the orchestration is here,
so it can be driven without a command line.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuplane.acceptance.bundle import Evidence, load_bundle, skeleton_files
from gpuplane.acceptance.observations import Observations, from_logs
from gpuplane.acceptance.options import SuiteOptions
from gpuplane.acceptance.results import Results
from gpuplane.acceptance.score import score
from gpuplane.acceptance.suite import SUITE_MARKER, Suite, render_suite
from gpuplane.errors import GpuplaneError
from gpuplane.inputs import read_text
from gpuplane.outputs import check_tree_target, write_text_atomic, write_tree_atomic
from gpuplane.render.output import to_json
from gpuplane.spec import load_spec_with_warnings

__all__ = ["RunRequest", "RunResult", "render_to", "rescore", "run"]


def render_to(
    spec_file: Path, output: Path, options: Callable[[], SuiteOptions], warn: Callable[[str], None]
) -> Suite:
    """Write the acceptance suite of one pool to `output`; `warn` gets the spec's warnings first.

    `options` is called after the target is checked, so a folder gpuplane did not write is refused
    before any problem with the options is reported."""
    check_tree_target(output, SUITE_MARKER, inputs=[spec_file])
    suite_options = options()
    spec, warnings = load_spec_with_warnings(spec_file)
    for warning in warnings:
        warn(str(warning))
    suite = render_suite(spec, suite_options)
    write_tree_atomic(output, suite.files, SUITE_MARKER, inputs=[spec_file])
    return suite


@dataclass(frozen=True)
class RunRequest:
    """What `acceptance run` was asked: the suite, the cluster, the bundle, the deadline."""

    directory: Path
    kubeconfig: str
    output: Path
    context: str | None = None
    prometheus: str | None = None
    timeout: float = 7200.0


@dataclass(frozen=True)
class RunResult:
    """A finished run: its scored results and what they were scored from."""

    results: Results
    obs: Observations


def _prometheus(url: str | None, suite: dict[str, object], obs: Observations) -> None:
    if url is None or obs.submitted is None:
        return
    from gpuplane.acceptance.series import check_series
    from gpuplane.account.prom import PromClient

    end = obs.finished or time.time()
    try:
        with PromClient(url) as client:
            obs.series = check_series(client, dict(suite), obs.submitted, end)
    except GpuplaneError as exc:
        obs.prometheus_error = " ".join(exc.lines())


def run(request: RunRequest, confirm: Callable[[list[str]], None], say: Callable[[str], None]) -> RunResult:
    """Run the suite on the cluster (after `confirm` of what it will create), clean up, write the
    evidence bundle. `say` gets the lines about what may remain when the run is interrupted."""
    from gpuplane.acceptance.cluster import connect
    from gpuplane.acceptance.runner import Runner, load_plan

    plan = load_plan(request.directory)
    evidence = Evidence(request.output)
    evidence.check()
    cluster = connect(request.kubeconfig, request.context, request.timeout)
    evidence.secrets = cluster.secrets
    run_id = secrets.token_hex(4)
    confirm(
        [
            f"gpuplane acceptance run {run_id} will, in cluster {cluster.name}:",
            *(f"  {line}" for line in plan.describe(run_id)),
        ]
    )
    evidence.start(skeleton_files(plan.info, plan.manifests))
    cluster.client.start()  # the deadline counts from here, not from the prompt
    runner = Runner(
        cluster,
        plan,
        clock=time.time,
        sleep=time.sleep,
        deadline_s=request.timeout,
        run_id=run_id,
        on_log=evidence.log,
    )
    try:
        obs = runner.run()
    except BaseException:
        if runner.namespace_sent and not runner.remains():
            say(
                f"gpuplane acceptance run: stopped; namespace {runner.namespace} was deleted, "
                "nothing this run created remains"
            )
        raise
    finally:
        cluster.close()
        for line in runner.remains():
            say(f"gpuplane acceptance run: {line}")
        evidence.add("observations.json", to_json(runner.obs.as_dict()))
    _prometheus(request.prometheus, {**plan.info, "namespace": runner.namespace}, obs)  # the series are there
    results = score(plan.info, obs)
    evidence.finish(results, obs)
    return RunResult(results, obs)


def rescore(source: Path, suite_dir: Path | None, report: Path | None) -> Results:
    """Score a run again offline, from its bundle (a folder) or from saved logs and the suite;
    with `report`, write the HTML report there."""
    from gpuplane.errors import UsageError

    if source.is_dir():
        suite, obs = load_bundle(source)
    else:
        if suite_dir is None:
            raise UsageError("scoring logs needs the suite they came from", option="--suite")
        obs = from_logs(read_text(source))
        suite = {}
    if suite_dir is not None:
        from gpuplane.acceptance.runner import load_plan

        suite = load_plan(suite_dir).info
    results = score(suite, obs)
    if report is not None:
        from gpuplane.acceptance.report import report_page

        write_text_atomic(report, report_page(results, obs, []).render())
    return results
