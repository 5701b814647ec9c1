"""Cases transcribed from Kueue's pkg/scheduler/preemption/preemption_test.go (TestPreemption).

Kueue's test calls GetTargets with a hand-made assignment; here the incoming workload goes
through a full cycle (flavor assignment included), which picks the same flavors.
"""

from __future__ import annotations

import pytest

from gpuplane.kueue import PodSet, Workload, schedule_cycle

from .kueue_builders import admit, cohort, cq, flavors, group, preempted, ps, wl, world

MEM = ("alpha", {"memory": "3Gi"}), ("beta", {"memory": "3Gi"})
# (name, priority, ClusterQueue, per-pod requests) of each admitted workload
Admitted = list[tuple[str, int, str, dict[str, object]]]


def queues() -> list[object]:
    return [
        *flavors("default", "alpha", "beta"),
        cq("standalone", group(("default", {"cpu": 6})), group(*MEM), within="LowerPriority"),
        cq(
            "c1",
            group(("default", {"cpu": (6, 6), "memory": ("3Gi", "3Gi")})),
            cohort="cohort",
            within="LowerPriority",
            reclaim="LowerPriority",
        ),
        cq(
            "c2",
            group(("default", {"cpu": (6, 6), "memory": ("3Gi", "3Gi")})),
            cohort="cohort",
            within="Never",
            reclaim="Any",
        ),
        cq("preventStarvation", group(("default", {"cpu": 6})), within="LowerOrNewerEqualPriority"),
        cq(
            "a_standard",
            group(("default", {"cpu": (1, 12)})),
            cohort="with_shared_cq",
            within="Never",
            reclaim="LowerPriority",
            bwc="LowerPriority",
            threshold=0,
        ),
        cq(
            "b_standard",
            group(("default", {"cpu": (1, 12)})),
            cohort="with_shared_cq",
            within="LowerPriority",
            reclaim="Any",
            bwc="LowerPriority",
            threshold=0,
        ),
        cq(
            "a_best_effort",
            group(("default", {"cpu": (1, 12)})),
            cohort="with_shared_cq",
            within="Never",
            reclaim="LowerPriority",
            bwc="LowerPriority",
            threshold=0,
        ),
        cq(
            "b_best_effort",
            group(("default", {"cpu": (0, 13)})),
            cohort="with_shared_cq",
            within="Never",
            reclaim="LowerPriority",
            bwc="LowerPriority",
            threshold=0,
        ),
        cq("shared", group(("default", {"cpu": 10})), cohort="with_shared_cq"),
        cq(
            "lend1",
            group(("default", {"cpu": (6, None, 4)})),
            cohort="cohort-lend",
            within="LowerPriority",
            reclaim="LowerPriority",
        ),
        cq(
            "lend2",
            group(("default", {"cpu": (6, None, 2)})),
            cohort="cohort-lend",
            within="LowerPriority",
            reclaim="LowerPriority",
        ),
        cq(
            "a",
            group(("default", {"cpu": 2, "memory": 2})),
            cohort="cohort-three",
            within="LowerPriority",
            reclaim="Any",
        ),
        cq("b", group(("default", {"cpu": 2, "memory": 2})), cohort="cohort-three"),
        cq("c", group(("default", {"cpu": 2, "memory": 2})), cohort="cohort-three"),
        cohort("cohort-left", parent="root"),
        cohort("cohort-right", parent="root"),
        cq("cq-left", group(("default", {"cpu": 10})), cohort="cohort-left", reclaim="Any"),
        cq("cq-right", group(("default", {"cpu": 0})), cohort="cohort-right"),
    ]


def run(
    admitted: Admitted,
    incoming: Workload,
    t: dict[str, float] | None = None,
) -> dict[str, str]:
    t = t or {}
    objs = queues()
    for name, prio, cq_name, req in admitted:
        flavor = "alpha" if "alpha" in name else "beta" if "beta" in name and "memory" in req else "default"
        w = wl(name, cq_name, PodSet("main", 1, req), ns="", priority=prio)
        objs.append(admit(w, cq_name, flavor, reserved_at=t.get(name, 100.0)))
    objs.append(incoming)
    return preempted(schedule_cycle(world(objs)))


CASES: dict[str, tuple[Admitted, Workload, dict[str, str]]] = {
    "preempt lowest priority": (
        [
            ("low", -1, "standalone", {"cpu": 2}),
            ("mid", 0, "standalone", {"cpu": 2}),
            ("high", 1, "standalone", {"cpu": 2}),
        ],
        wl("in", "standalone", ns="", priority=1, cpu=2),
        {"/low": "InClusterQueue"},
    ),
    "preempt multiple": (
        [
            ("low", -1, "standalone", {"cpu": 2}),
            ("mid", 0, "standalone", {"cpu": 2}),
            ("high", 1, "standalone", {"cpu": 2}),
        ],
        wl("in", "standalone", ns="", priority=1, cpu=3),
        {"/low": "InClusterQueue", "/mid": "InClusterQueue"},
    ),
    "no preemption for low priority": (
        [("low", -1, "standalone", {"cpu": 3}), ("mid", 0, "standalone", {"cpu": 3})],
        wl("in", "standalone", ns="", priority=-1, cpu=1),
        {},
    ),
    "not enough low priority workloads": (
        [("low", -1, "standalone", {"cpu": 3}), ("mid", 0, "standalone", {"cpu": 3})],
        wl("in", "standalone", ns="", cpu=4),
        {},
    ),
    "some free quota, preempt low priority": (
        [
            ("low", -1, "standalone", {"cpu": 1}),
            ("mid", 0, "standalone", {"cpu": 1}),
            ("high", 1, "standalone", {"cpu": 3}),
        ],
        wl("in", "standalone", ns="", priority=1, cpu=2),
        {"/low": "InClusterQueue"},
    ),
    "minimal set excludes low priority": (
        [
            ("low", -1, "standalone", {"cpu": 1}),
            ("mid", 0, "standalone", {"cpu": 2}),
            ("high", 1, "standalone", {"cpu": 3}),
        ],
        wl("in", "standalone", ns="", priority=1, cpu=2),
        {"/mid": "InClusterQueue"},
    ),
    "do not reclaim borrowed quota from same priority for LowerPriority": (
        [("c1", 0, "c1", {"cpu": 2}), ("c2-1", 0, "c2", {"cpu": 4}), ("c2-2", 0, "c2", {"cpu": 4})],
        wl("in", "c1", ns="", cpu=4),
        {},
    ),
    "reclaim borrowed quota from same priority for Any": (
        [("c1-1", 0, "c1", {"cpu": 4}), ("c1-2", 1, "c1", {"cpu": 4}), ("c2", 0, "c2", {"cpu": 2})],
        wl("in", "c2", ns="", cpu=4),
        {"/c1-1": "InCohortReclamation"},
    ),
    "preempt from all ClusterQueues in cohort": (
        [
            ("c1-low", -1, "c1", {"cpu": 3}),
            ("c1-mid", 0, "c1", {"cpu": 2}),
            ("c2-low", -1, "c2", {"cpu": 3}),
            ("c2-mid", 0, "c2", {"cpu": 4}),
        ],
        wl("in", "c1", ns="", cpu=4),
        {"/c1-low": "InClusterQueue", "/c2-low": "InCohortReclamation"},
    ),
    "cannot preempt in ClusterQueue with withinClusterQueue Never": (
        [("c2-low", -1, "c2", {"cpu": 3})],
        wl("in", "c2", ns="", priority=1, cpu=4),
        {},
    ),
    "each podset preempts a different flavor": (
        [
            ("low-alpha", -1, "standalone", {"memory": "2Gi"}),
            ("low-beta", -1, "standalone", {"memory": "2Gi"}),
        ],
        wl("in", "standalone", ps("launcher", 1, memory="2Gi"), ps("workers", 2, memory="1Gi"), ns=""),
        {"/low-alpha": "InClusterQueue", "/low-beta": "InClusterQueue"},
    ),
    "BorrowWithinCohort: preempt lower priority in other ClusterQueue while borrowing": (
        [
            ("a_best_effort_low", -1, "a_best_effort", {"cpu": 10}),
            ("b_best_effort_low", -1, "b_best_effort", {"cpu": 1}),
        ],
        wl("in", "a_standard", ns="", cpu=10),
        {"/a_best_effort_low": "InCohortReclaimWhileBorrowing"},
    ),
    "BorrowWithinCohort: not above threshold when borrowing is still needed": (
        [("b_standard", 1, "b_standard", {"cpu": 10})],
        wl("in", "a_standard", ns="", priority=2, cpu=10),
        {},
    ),
    "BorrowWithinCohort: above threshold when no borrowing is needed after": (
        [("b_standard", 1, "b_standard", {"cpu": 13})],
        wl("in", "a_standard", ns="", priority=2, cpu=1),
        {"/b_standard": "InCohortReclamation"},
    ),
    "BorrowWithinCohort: not from the same ClusterQueue with withinClusterQueue Never": (
        [("a_standard", 1, "a_standard", {"cpu": 13})],
        wl("in", "a_standard", ns="", priority=2, cpu=1),
        {},
    ),
    "BorrowWithinCohort: only from own ClusterQueue when above nominal and none below threshold": (
        [
            ("a_standard_1", 1, "a_standard", {"cpu": 10}),
            ("a_standard_2", 1, "a_standard", {"cpu": 1}),
            ("b_standard_1", 1, "b_standard", {"cpu": 1}),
            ("b_standard_2", 2, "b_standard", {"cpu": 1}),
        ],
        wl("in", "b_standard", ns="", priority=3, cpu=1),
        {"/b_standard_1": "InClusterQueue"},
    ),
    "BorrowWithinCohort: own ClusterQueue and other ClusterQueues below threshold": (
        [
            ("b_standard_high", 2, "b_standard", {"cpu": 10}),
            ("b_standard_mid", 1, "b_standard", {"cpu": 1}),
            ("a_best_effort_low", -1, "a_best_effort", {"cpu": 1}),
            ("a_best_effort_lower", -2, "a_best_effort", {"cpu": 1}),
        ],
        wl("in", "b_standard", ns="", priority=2, cpu=2),
        {"/b_standard_mid": "InClusterQueue", "/a_best_effort_lower": "InCohortReclaimWhileBorrowing"},
    ),
    "reclaim quota from lender": (
        [
            ("lend1-low", -1, "lend1", {"cpu": 3}),
            ("lend2-mid", 0, "lend2", {"cpu": 3}),
            ("lend2-high", 1, "lend2", {"cpu": 4}),
        ],
        wl("in", "lend1", ns="", priority=1, cpu=3),
        {"/lend2-mid": "InCohortReclamation"},
    ),
    "preempt from all ClusterQueues in cohort-lend": (
        [
            ("lend1-low", -1, "lend1", {"cpu": 3}),
            ("lend1-mid", 0, "lend1", {"cpu": 2}),
            ("lend2-low", -1, "lend2", {"cpu": 3}),
            ("lend2-mid", 0, "lend2", {"cpu": 4}),
        ],
        wl("in", "lend1", ns="", cpu=4),
        {"/lend1-low": "InClusterQueue", "/lend2-low": "InCohortReclamation"},
    ),
    "cannot preempt beyond requestable quota including lending limit": (
        [("lend2-low", -1, "lend2", {"cpu": 10})],
        wl("in", "lend1", ns="", cpu=9),
        {},
    ),
    "preemptions from cq when target queue is exhausted for the single requested resource": (
        [
            ("a1", -2, "a", {"cpu": 1}),
            ("a2", -2, "a", {"cpu": 1}),
            ("a3", -1, "a", {"cpu": 1}),
            ("b1", 0, "b", {"cpu": 1}),
            ("b2", 0, "b", {"cpu": 1}),
            ("b3", 0, "b", {"cpu": 1}),
        ],
        wl("in", "a", ns="", cpu=2),
        {"/a1": "InClusterQueue", "/a2": "InClusterQueue"},
    ),
    "preemptions from cq when target queue is exhausted for two requested resources": (
        [
            (n, p, q, {"cpu": 1, "memory": 1})
            for n, p, q in (
                ("a1", -2, "a"),
                ("a2", -2, "a"),
                ("a3", -1, "a"),
                ("b1", 0, "b"),
                ("b2", 0, "b"),
                ("b3", 0, "b"),
            )
        ],
        wl("in", "a", ns="", cpu=2, memory=2),
        {"/a1": "InClusterQueue", "/a2": "InClusterQueue"},
    ),
    "preemptions from cq when target queue is exhausted for one resource but not the other": (
        [
            ("a1", -2, "a", {"cpu": 1}),
            ("a2", -2, "a", {"cpu": 1}),
            ("a3", -1, "a", {"cpu": 1}),
            ("b1", 0, "b", {"cpu": 1}),
            ("b2", 0, "b", {"cpu": 1}),
            ("b3", 0, "b", {"cpu": 1}),
        ],
        wl("in", "a", ns="", cpu=2, memory=2),
        {"/a1": "InClusterQueue", "/a2": "InClusterQueue"},
    ),
    "allow preemption from other cluster queues if target cq is not exhausted": (
        [
            ("a1", -1, "a", {"cpu": 1}),
            ("b1", 0, "b", {"cpu": 1}),
            ("b2", 0, "b", {"cpu": 1}),
            ("b3", 0, "b", {"cpu": 1}),
            ("b4", 0, "b", {"cpu": 1}),
            ("b5", -1, "b", {"cpu": 1}),
        ],
        wl("in", "a", ns="", cpu=2),
        {"/a1": "InClusterQueue", "/b5": "InCohortReclamation"},
    ),
    "long range preemption": (
        [("to-be-preempted", 0, "cq-right", {"cpu": 5})],
        wl("incoming", "cq-left", ns="", cpu=8),
        {"/to-be-preempted": "InCohortReclamation"},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_kueue_preemption_case(name: str) -> None:
    admitted, incoming, want = CASES[name]
    assert run(admitted, incoming) == want


def test_preempts_newer_workloads_with_the_same_priority() -> None:
    got = run(
        [
            ("wl1", 2, "preventStarvation", {"cpu": 2}),
            ("wl2", 1, "preventStarvation", {"cpu": 2}),
            ("wl3", 1, "preventStarvation", {"cpu": 2}),
        ],
        wl("in", "preventStarvation", ns="", priority=1, t=-15, cpu=2),
        t={"wl1": 100.0, "wl2": 101.0, "wl3": 100.0},
    )
    assert got == {"/wl2": "InClusterQueue"}
