"""`explain`: job objects to Workloads, N scheduling cycles, answers for submitted jobs, node fit, ETAs.

`run_explain` is the engine step (cycles over parsed objects); `explain_input` is the whole
command: it converts job objects (`jobframework`), assumes the namespaces the input does not show,
runs the cycles, checks admitted pods against node shapes (`fit`), answers for submitted jobs
(`whatif`) and, when asked, runs the snapshot forward for ETAs (`eta`). Output: `explain_output`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuplane.errors import UsageError
from gpuplane.explain import eta as eta_mod
from gpuplane.explain.fit import NodeShape, Unfit, check, nodes_from_objects
from gpuplane.explain.jobframework import Conversion, add_job_workloads
from gpuplane.explain.output import dumps, print_tables, to_json
from gpuplane.explain.whatif import Answer, answers
from gpuplane.kube.client import checked_timeout
from gpuplane.kube.runtime import runtime_seconds
from gpuplane.kueue.objects import Namespace, Workload
from gpuplane.kueue.parse import Parsed
from gpuplane.kueue.scheduler import CycleResult, pending_report, schedule_cycle
from gpuplane.kueue.snapshot import Snapshot
from gpuplane.kueue.tas import attach_tas
from gpuplane.vocab import NAMESPACE_NAME_LABEL

__all__ = [
    "ExplainOptions",
    "Explanation",
    "Sources",
    "assume_runtime",
    "dumps",
    "explain_input",
    "print_tables",
    "run",
    "run_explain",
    "to_json",
]


def _latest_time(parsed: Parsed) -> float:
    times = [0.0]
    for obj in parsed.objects:
        if isinstance(obj, Workload):
            times.append(obj.creation_time)
            if obj.quota_reserved_time is not None:
                times.append(obj.quota_reserved_time)
    return max(times)


def run_explain(
    parsed: Parsed, cycles: int = 1, fair_sharing: bool | None = None
) -> tuple[Snapshot, list[CycleResult]]:
    """Build a snapshot and run `cycles` cycles; victims are released between cycles."""
    snap = Snapshot.from_objects(parsed.objects, fair_sharing=True if fair_sharing else None)
    attach_tas(snap, parsed)
    snap.notes = [*parsed.notes, *snap.notes]
    snap.now = _latest_time(parsed) + 1.0
    results = []
    for i in range(cycles):
        if i:
            snap.release_preempted()
            snap.now += 1.0
        results.append(schedule_cycle(snap, explain_pending=True))
    return snap, results


@dataclass
class ExplainOptions:
    """What `explain_input` does beyond the cycles: node shapes to check, ETAs."""

    cycles: int = 1
    fair_sharing: bool | None = None
    eta: eta_mod.EtaOptions | None = None
    nodes: list[NodeShape] = field(default_factory=list)


@dataclass
class Explanation:
    """Everything `explain` reports."""

    snap: Snapshot
    results: list[CycleResult]
    conversion: Conversion
    answers: list[Answer] = field(default_factory=list)
    unfit: list[Unfit] = field(default_factory=list)
    nodes_checked: bool = False
    etas: dict[str, eta_mod.Eta] = field(default_factory=dict)
    eta_assumptions: list[str] = field(default_factory=list)
    empty: bool = False

    def json(self) -> dict[str, Any]:
        """The explanation as explain's JSON output."""
        return to_json(self.snap, self.results, self)


def assume_namespaces(parsed: Parsed) -> None:
    """Namespaces the Workloads live in but the input does not show exist, with only their name label.

    Only when the input has Namespace objects at all (otherwise selectors are not checked)."""
    known = {o.name for o in parsed.objects if isinstance(o, Namespace)}
    if not known:
        return
    missing = sorted({o.namespace for o in parsed.objects if isinstance(o, Workload)} - known)
    for ns in missing:
        parsed.objects.append(Namespace(ns, {NAMESPACE_NAME_LABEL: ns}))
    if missing:
        parsed.notes.append(
            f"namespace(s) {', '.join(missing)} not in the input: taken to exist with only the "
            f"{NAMESPACE_NAME_LABEL} label"
        )


def _eta_options(opt: eta_mod.EtaOptions, parsed: Parsed) -> eta_mod.EtaOptions:
    """The ETA options with every runtime the input declares (jobs' limits, annotations)."""
    runtimes = dict(opt.runtimes)
    for obj in parsed.objects:
        if isinstance(obj, Workload) and obj.runtime_hint is not None:
            runtimes.setdefault(obj.key, obj.runtime_hint)
    return eta_mod.EtaOptions(opt.assume_runtime, runtimes, opt.resolution, opt.horizon, opt.progress)


def explain_input(parsed: Parsed, options: ExplainOptions | None = None) -> Explanation:
    """Run the whole explanation on parsed input (`parsed` gains the jobs' Workloads)."""
    opt = options or ExplainOptions()
    conversion = add_job_workloads(parsed)
    assume_namespaces(parsed)
    empty = not any(isinstance(o, Workload) for o in parsed.objects) and not conversion.unmanaged
    snap, results = run_explain(parsed, opt.cycles, opt.fair_sharing)
    out = Explanation(snap, results, conversion, empty=empty)
    # What Kueue decides within seconds, nothing ending: cycles until one changes nothing.
    snap.release_preempted()
    loops: list[str] = []
    later = eta_mod.settle(snap, loops=loops)
    snap.notes.extend(loops)
    decided = [*results, *later]
    nodes = [*nodes_from_objects(parsed.k8s), *opt.nodes]
    if nodes:
        out.nodes_checked = True
        newly = sorted({a.workload for r in decided for a in r.admitted})
        out.unfit = check([snap.workloads[k] for k in newly if k in snap.workloads], snap.flavors, nodes)
    out.answers = answers(conversion, decided, out.unfit, pending_report(snap), shown=results)
    if opt.eta is not None:
        eta_opt = _eta_options(opt.eta, parsed)
        targets = [w.key for w in snap.pending()]
        met: list[str] = []
        out.etas = eta_mod.estimate(snap, targets, eta_opt, met)
        out.eta_assumptions = [*eta_mod.assumptions_for(eta_opt), *met]
    return out


@dataclass
class Sources:
    """Where `run` reads the cluster from: files (`-` is stdin) and/or a live cluster (read-only)."""

    files: list[str] = field(default_factory=list)
    kubeconfig: str | None = None
    context: str | None = None
    timeout: float | None = None  # overall deadline of the live reads, seconds


def assume_runtime(text: str) -> float:
    """`--assume-runtime` in seconds (e.g. 45m, 2h); a UsageError for anything else."""
    seconds = runtime_seconds(text)
    if seconds is None:
        raise UsageError(f"--assume-runtime: {text!r} is not a duration (e.g. 45m, 2h, 1d)")
    return seconds


def run(sources: Sources, options: ExplainOptions, spec: Path | None = None) -> Explanation:
    """The explain command's one entry: read the sources (live first), take node shapes from the
    platform `spec` when given, and explain (`explain_input`)."""
    if not (sources.kubeconfig or sources.files):
        raise UsageError("give -f FILE|DIR|- or --kubeconfig PATH")
    if sources.timeout is not None:
        checked_timeout(sources.timeout)
    platform = None
    if spec is not None:
        from gpuplane.explain.fit import nodes_from_spec
        from gpuplane.spec import load_spec

        platform = load_spec(spec)
        options.nodes = nodes_from_spec(platform)
    parsed = Parsed()
    if sources.kubeconfig:
        from gpuplane.explain.live import read_cluster

        parsed = read_cluster(sources.kubeconfig, sources.context, sources.timeout)
    if sources.files:
        from gpuplane.explain.load import load_paths

        parsed.extend(load_paths(sources.files))
    if platform is not None:
        from gpuplane.kueue.tas.spec_nodes import add_spec_nodes

        add_spec_nodes(parsed, platform)
    return explain_input(parsed, options)
