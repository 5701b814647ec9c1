"""Cases transcribed from Kueue's pkg/scheduler/preemption/preemption_hierarchical_test.go."""

from __future__ import annotations

from gpuplane.kueue import ClusterQueue, ResourceGroup, schedule_cycle

from .kueue_builders import admit, cohort, cq, flavors, group, preempted, wl, world

ZERO = group(("default", {"cpu": 0}))


def _cq(
    name: str, quota: ResourceGroup, cohort: str, *, bwc: str = "Never", threshold: int | None = None
) -> ClusterQueue:
    """A ClusterQueue with the cases' policy: LowerPriority within itself, Any in its cohort."""
    return cq(name, quota, cohort=cohort, within="LowerPriority", reclaim="Any", bwc=bwc, threshold=threshold)


def _tree(*extra: object) -> list[object]:
    return [
        *flavors("default"),
        cohort("r"),
        cohort("c", group(("default", {"cpu": 2})), parent="r"),
        _cq("q", ZERO, cohort="c"),
        _cq("q_borrowing", ZERO, cohort="r"),
        *extra,
    ]


def _run(
    objs: list[object],
    admitted: list[tuple[str, str, int, int]],
    incoming: tuple[int, int],
    cq_name: str = "q",
) -> dict[str, str]:
    for name, q, prio, cpu in admitted:
        objs.append(admit(wl(name, q, ns="", priority=prio, cpu=cpu), q, "default", reserved_at=100.0))
    prio, cpu = incoming
    objs.append(wl("in", cq_name, ns="", priority=prio, cpu=cpu))
    return preempted(schedule_cycle(world(objs)))


def test_preempt_with_hierarchical_advantage() -> None:
    assert _run(_tree(), [("admitted2", "q_borrowing", 0, 2)], (0, 2)) == {
        "/admitted2": "InCohortReclamation"
    }


def test_avoid_queues_within_nominal_quota() -> None:
    objs = _tree(_cq("q_nominal", group(("default", {"cpu": 2})), cohort="r"))
    got = _run(objs, [("admitted1", "q_nominal", -10, 2), ("admitted2", "q_borrowing", 0, 2)], (0, 2))
    assert got == {"/admitted2": "InCohortReclamation"}


def test_preempt_multiple_with_hierarchical_advantage_regardless_of_priority() -> None:
    got = _run(_tree(), [("admitted1", "q_borrowing", 1, 1), ("admitted2", "q_borrowing", 2, 1)], (0, 2))
    assert got == {"/admitted1": "InCohortReclamation", "/admitted2": "InCohortReclamation"}


def test_preempt_in_cohort_and_own_cluster_queue() -> None:
    objs: list[object] = [
        *flavors("default"),
        cohort("r"),
        cohort("c", group(("default", {"cpu": 3})), parent="r"),
        _cq("q", ZERO, cohort="c", bwc="LowerPriority", threshold=0),
        _cq("q_same_cohort", ZERO, cohort="c"),
    ]
    admitted = [
        ("admitted_not_preemptible", "q_same_cohort", 1, 1),
        ("admitted_preemptible", "q_same_cohort", 0, 2),
        ("admitted_own_queue", "q", -1, 1),
    ]
    got = _run(objs, admitted, (1, 2))
    assert got == {
        "/admitted_preemptible": "InCohortReclaimWhileBorrowing",
        "/admitted_own_queue": "InClusterQueue",
    }
