"""Answers for submitted jobs: admitted now (where), preempts first (whom), or waits (why).

A job is "submitted" when the input holds no Workload for it: its Workload is the one Kueue
would create, and the answer is read off the cycles explain ran, with what the node-fit check
found (`fit.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.explain.fit import Unfit
from gpuplane.explain.jobframework import Conversion, JobWorkload
from gpuplane.kueue.results import CycleResult, Pending, Preempted

ADMIT, PREEMPT, WAIT, UNMANAGED, UNSCHEDULABLE = (
    "admitted",
    "preempts",
    "waits",
    "not managed",
    "unschedulable",
)


@dataclass
class Answer:
    """The answer for one submitted job's Workload."""

    job: str
    workload: str
    status: str
    text: str
    cluster_queue: str = ""
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    victims: list[str] = field(default_factory=list)
    cycle: int | None = None

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of one answer."""
        return {
            "job": self.job,
            "workload": self.workload,
            "status": self.status,
            "answer": self.text,
            "clusterQueue": self.cluster_queue,
            "flavors": self.flavors,
            "wouldPreempt": list(self.victims),
            "cycle": self.cycle,
        }


def _victims(key: str, results: list[CycleResult]) -> list[Preempted]:
    return [p for r in results for p in r.preempted if p.preemptor == key]


def _admitted(job: JobWorkload, results: list[CycleResult], unfit: list[Unfit]) -> Answer | None:
    key = job.workload.key
    for r in results:
        for a in r.admitted:
            if a.workload != key:
                continue
            flavors = {p.name: dict(p.flavors) for p in a.pod_sets}
            where = "; ".join(
                f"{p.name} x{p.count}: " + ", ".join(f"{k}={v}" for k, v in sorted(p.flavors.items()))
                for p in a.pod_sets
            )
            borrow = f", borrowing (level {a.borrowing})" if a.borrowing else ""
            victims = _victims(key, results)
            after = (
                " after preempting " + ", ".join(f"{p.workload} ({p.reason})" for p in victims)
                if victims
                else ""
            )
            text = f"admitted now{after} in ClusterQueue {a.cluster_queue}{borrow}: {where}"
            gone = [p.workload for p in victims]
            bad = [u for u in unfit if u.workload == key]
            if bad:
                reasons = "; ".join(f"pod set {u.pod_set}: {u.message}" for u in bad)
                text = f"Kueue would admit it ({text}), but its pods cannot be scheduled: {reasons}"
                return Answer(job.job, key, UNSCHEDULABLE, text, a.cluster_queue, flavors, gone, r.cycle)
            return Answer(job.job, key, ADMIT, text, a.cluster_queue, flavors, gone, r.cycle)
    return None


def _preempting(job: JobWorkload, results: list[CycleResult]) -> Answer | None:
    key = job.workload.key
    victims = _victims(key, results)
    if not victims:
        return None
    names = ", ".join(f"{p.workload} (priority {p.priority}, {p.reason})" for p in victims)
    text = f"admitted once it has preempted {names}: Kueue evicts them first, then admits it"
    return Answer(
        job.job, key, PREEMPT, text, victims[0].cluster_queue, victims=[p.workload for p in victims]
    )


def answers(
    conversion: Conversion,
    results: list[CycleResult],
    unfit: list[Unfit],
    still: list[Pending],
    shown: list[CycleResult] | None = None,
) -> list[Answer]:
    """One answer per submitted job's Workload, plus one per job Kueue would not manage.

    `results`: every cycle run at this instant; `still`: who waits after the last of them;
    `shown`: the cycles the output's tables show. A job that waits is answered with its row of the
    last shown cycle (the same reason, pod set, flavor and heap/inadmissible state), so the one-line
    answer never contradicts the table under it; `still` answers only for jobs that row lacks."""
    out: list[Answer] = []
    pending = {p.workload: p for p in still}
    if shown:
        pending.update({p.workload: p for p in shown[-1].pending})
    for job in conversion.jobs:
        if not job.new:
            continue
        found = _admitted(job, results, unfit) or _preempting(job, results)
        if found is None:
            p = pending.get(job.workload.key)
            reason = p.reason if p is not None else "not scheduled"
            where = (
                f" ({p.queue} in ClusterQueue {p.cluster_queue})" if p is not None and p.cluster_queue else ""
            )
            found = Answer(
                job.job, job.workload.key, WAIT, f"waits{where}: {reason}", p.cluster_queue if p else ""
            )
        out.append(found)
    for label, why in conversion.unmanaged:
        out.append(Answer(label, "", UNMANAGED, why))
    return out
