"""What `explain` prints: the documented JSON shape and the terminal tables (names wrap, never cut)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from gpuplane.durations import format_duration
from gpuplane.kube.quantity import format_quantity
from gpuplane.kueue.results import AdmittedPodSet, CycleResult
from gpuplane.kueue.snapshot import Snapshot
from gpuplane.vocab import QUEUE_NAME_LABEL

if TYPE_CHECKING:
    from gpuplane.explain.command import Explanation
    from gpuplane.explain.eta import Eta
    from gpuplane.explain.jobframework import JobWorkload

EMPTY_INPUT = (
    "nothing to schedule: the input has no Workload and no job Kueue would queue. Give it the cluster's "
    "Kueue objects (kubectl get resourceflavors,clusterqueues,cohorts,localqueues,workloads,"
    "workloadpriorityclasses -A -o yaml) and/or the job file you plan to submit (a Job, JobSet, "
    f"PyTorchJob, RayJob... with the {QUEUE_NAME_LABEL} label)"
)


def _requests(per_pod: dict[str, int]) -> str:
    return ", ".join(f"{r}={format_quantity(v)}" for r, v in sorted(per_pod.items()))


def job_json(job: JobWorkload) -> dict[str, Any]:
    """The Workload built for one job object, spelled out."""
    wl = job.workload
    return {
        "job": job.job,
        "source": job.source,
        "workload": wl.key,
        "new": job.new,
        "queueName": wl.queue_name,
        "priority": wl.priority,
        "podSets": [
            {
                "name": ps.name,
                "count": ps.count,
                "minCount": ps.min_count,
                "requestsPerPod": {r: format_quantity(v) for r, v in sorted(ps.per_pod.items())},
                "resourceClaimTemplates": job.claim_templates.get(ps.name, []),
            }
            for ps in wl.pod_sets
        ],
        "notes": [n for n in (job.name_note, job.queue_note, wl.problem or "") if n],
    }


def _topology_text(ta: Any) -> str:
    """' on a/1, b/2' for a topology assignment (values of its levels / pods), at most 4 domains."""
    shown = ", ".join(f"{'/'.join(d.values)}:{d.count}" for d in ta.domains[:4])
    more = f" (+{len(ta.domains) - 4} more)" if len(ta.domains) > 4 else ""
    return f" on {shown}{more}"


def _admitted_pod_set(p: AdmittedPodSet) -> dict[str, Any]:
    """An admitted pod set; with TAS, its topologyAssignment in Kueue's v1beta1 shape."""
    out: dict[str, Any] = {"name": p.name, "count": p.count, "flavors": p.flavors}
    if p.topology is not None:
        out["topologyAssignment"] = p.topology.to_v1beta1()
    return out


def _cycle_json(r: CycleResult, jobs: dict[str, str], unfit: dict[str, str]) -> dict[str, Any]:
    admitted = []
    for a in r.admitted:
        entry: dict[str, Any] = {
            "workload": a.workload,
            "clusterQueue": a.cluster_queue,
            "podSets": [_admitted_pod_set(p) for p in a.pod_sets],
            "borrowingLevel": a.borrowing,
        }
        if a.workload in jobs:
            entry["job"] = jobs[a.workload]
        if a.workload in unfit:
            entry["unschedulable"] = unfit[a.workload]
        admitted.append(entry)
    pending = []
    for p in r.pending:
        item: dict[str, Any] = {
            "workload": p.workload,
            "clusterQueue": p.cluster_queue,
            "queue": p.queue,
            "reason": p.reason,
        }
        if p.workload in jobs:
            item["job"] = jobs[p.workload]
        pending.append(item)
    preempted = [
        {
            "workload": p.workload,
            "preemptor": p.preemptor,
            "reason": p.reason,
            "clusterQueue": p.cluster_queue,
            "priority": p.priority,
        }
        for p in r.preempted
    ]
    return {"cycle": r.cycle, "admitted": admitted, "preempted": preempted, "pending": pending}


def _unfit_text(expl: Explanation | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for u in expl.unfit if expl else []:
        out[u.workload] = "; ".join(
            filter(None, [out.get(u.workload, ""), f"pod set {u.pod_set}: {u.message}"])
        )
    return out


def to_json(snap: Snapshot, results: list[CycleResult], expl: Explanation | None = None) -> dict[str, Any]:
    """The documented JSON shape: {"cycles": [{admitted, preempted, pending}], ...}."""
    jobs = {j.workload.key: j.job for j in expl.conversion.jobs} if expl else {}
    unfit = _unfit_text(expl)
    out: dict[str, Any] = {
        "fairSharing": snap.fair_sharing is not None,
        "cycles": [_cycle_json(r, jobs, unfit) for r in results],
        "notes": list(snap.notes),
    }
    if expl is None:
        return out
    out["whatIf"] = [a.as_dict() for a in expl.answers]
    out["jobs"] = [job_json(j) for j in expl.conversion.jobs]
    out["notManaged"] = [{"job": label, "reason": why} for label, why in expl.conversion.unmanaged]
    if expl.nodes_checked:
        out["unschedulable"] = [
            {"workload": u.workload, "podSet": u.pod_set, "reason": u.message} for u in expl.unfit
        ]
    if expl.etas or expl.eta_assumptions:
        out["eta"] = [expl.etas[k].as_dict() for k in sorted(expl.etas)]
        out["etaAssumptions"] = list(expl.eta_assumptions)
    return out


def dumps(snap: Snapshot, results: list[CycleResult], expl: Explanation | None = None) -> str:
    """Stable JSON text (sorted keys inside objects are kept as built; lists are ordered)."""
    return json.dumps(to_json(snap, results, expl), indent=2) + "\n"


def _table(title: str, *columns: str) -> Table:
    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c, overflow="fold")
    return t


def _print_jobs(console: Console, expl: Explanation) -> None:
    if expl.answers:
        console.rule("what happens to the jobs you submit")
        for a in expl.answers:
            head = f"{a.job}" + (f" -> Workload {a.workload}" if a.workload else "")
            console.print(head, style="bold", markup=False)
            eta = expl.etas.get(a.workload) if a.workload else None
            text = a.text if a.status != "not managed" else f"not managed: {a.text}"
            console.print(f"  {text}", markup=False)
            if eta is not None:
                console.print(f"  --eta: {_eta_text(eta)}", markup=False)
    if expl.conversion.jobs:
        t = _table(
            "Workloads Kueue creates for the job objects",
            "job",
            "Workload",
            "queue",
            "priority",
            "pod sets (count: requests per pod)",
        )
        for j in expl.conversion.jobs:
            wl = j.workload
            sets = "; ".join(
                f"{ps.name} x{ps.count}"
                + (f" (min {ps.min_count})" if ps.min_count is not None else "")
                + f": {_requests(ps.per_pod)}"
                for ps in wl.pod_sets
            )
            t.add_row(j.job, wl.key, wl.queue_name or "-", str(wl.priority), sets)
        console.print(t)


def _print_cycle(console: Console, snap: Snapshot, r: CycleResult, unfit: dict[str, str]) -> None:
    console.rule(f"cycle {r.cycle}" + (" (fair sharing)" if snap.fair_sharing else ""))
    if r.admitted:
        t = _table("admitted", "workload", "ClusterQueue", "pod sets (count: flavors)")
        for a in r.admitted:
            ps = "; ".join(
                f"{p.name} x{p.count}: "
                + ", ".join(f"{k}={v}" for k, v in p.flavors.items())
                + (_topology_text(p.topology) if p.topology is not None else "")
                for p in a.pod_sets
            )
            if a.workload in unfit:
                ps += f" -- UNSCHEDULABLE: {unfit[a.workload]}"
            t.add_row(a.workload, a.cluster_queue, ps)
        console.print(t)
    if r.preempted:
        t = _table("preempted", "victim", "ClusterQueue", "priority", "preemptor", "reason")
        for p in r.preempted:
            t.add_row(p.workload, p.cluster_queue, str(p.priority), p.preemptor, p.reason)
        console.print(t)
    if r.pending:
        t = _table("pending", "workload", "ClusterQueue", "queue", "why it waits")
        for q in r.pending:
            t.add_row(q.workload, q.cluster_queue, q.queue, q.reason)
        console.print(t)
    if not (r.admitted or r.preempted or r.pending):
        console.print("nothing to schedule")


def _eta_text(e: Eta) -> str:
    if e.seconds is not None:
        return "now" if e.seconds == 0 else f"admitted in about {format_duration(e.seconds)}"
    return e.reason or e.status


def _print_eta(console: Console, expl: Explanation) -> None:
    t = _table("estimated admission (--eta)", "workload", "when")
    for key in sorted(expl.etas):
        t.add_row(key, _eta_text(expl.etas[key]))
    console.print(t)
    for line in expl.eta_assumptions:
        console.print(f"assuming: {line}", style="dim", markup=False)


def print_tables(
    console: Console, snap: Snapshot, results: list[CycleResult], expl: Explanation | None = None
) -> None:
    """Rich tables: answers for submitted jobs, the jobs' Workloads, then per cycle admitted,
    preempted and pending workloads with reasons, then ETAs."""
    for note in snap.notes:
        console.print(f"note: {note}", style="dim", markup=False)
    if expl is not None and expl.empty:
        console.print(EMPTY_INPUT, markup=False)
        return
    if expl is not None:
        _print_jobs(console, expl)
    unfit = _unfit_text(expl)
    for r in results:
        _print_cycle(console, snap, r, unfit)
    if expl is not None and (expl.etas or expl.eta_assumptions):
        _print_eta(console, expl)
