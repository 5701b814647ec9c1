"""An exact test that a classical preemption search cannot find victims, read off the quota tree.

Issue 23, Deliver 1 asks to wake a parked shape group only when a release covers its shortfall.
That cannot be exact (see `shape_queue`'s docstring for the counter-example): a head that is
certain to fail still takes its turn, and which heads meet in a cycle decides admissions. What can
be exact is replaying the failure cheaply when the head does take its turn. Its flavor assignment
must still run (cheap, O(resources x tree depth)): the reasons it records quote the live usage of
the ClusterQueue and cohort, which every release changes. The search for preemption victims it
asks for (twice per head in Preempt mode: the flavor assigner's oracle, then `get_targets`) is the
expensive part; on Philly's trace on the undersized 96-GPU platform the heads that fail again
(51,587 of 66,359 failures on 8,000 rows) always fail with the same decision.

`cannot_find_victims` proves, without walking a candidate, that `preemption.classical_targets`
returns [] for this context. It follows `classical_targets` step by step:

1. Candidates of other ClusterQueues are collected only with a cohort and reclaimWithinCohort not
   Never. Those with hierarchical advantage are collected at an ancestor only after
   `quantities_fit_in_quota` said the request fits below it (`adv`); the test replays that chain of
   quota checks (no candidate is looked at) and gives up when `adv` holds at any ancestor.
2. Without hierarchical candidates and with borrowWithinCohort Never, the attempt that allows
   borrowing never takes priority-based candidates (`_prio_cap` is -inf), so it can only take the
   ClusterQueue's own candidates: `candidates.source` with withinClusterQueue, the very call the
   search makes; none (or none with usage in the flavors) means that attempt finds nothing.
3. The attempt without borrowing runs only when the ClusterQueue is under nominal in every flavor
   needing preemption; it then needs `usage + request <= subtree quota` in every requested flavor
   after removals (`workload_fits(allow_borrowing=False)`). Usage never drops below 0, so a request
   larger than the ClusterQueue's own subtree quota can never fit that way: the attempt finds
   nothing whatever it removes. Otherwise the test gives up.

Fair sharing (`fair_preemption`) and topology-aware placement (a TAS fit check inside the search)
are not covered: the test answers False and the search runs. `kueue.reference` turns it off.
"""

from __future__ import annotations

from gpuplane.kueue.candidates import Source, source
from gpuplane.kueue.preemption import PreemptionCtx, advantage_chain

#: Whether `assignment.get_targets` asks this test before a classical search (off in the reference
#: engine the differential tests compare with, see `kueue.reference`).
ENABLED = True

#: How often the test settled a search (`saved`) or let it run (`ran`); read by benchmarks.
COUNTS = {"saved": 0, "ran": 0}


def use_no_victims_test(on: bool) -> None:
    """Ask the test before classical searches (`on`, the default) or never (reference engine)."""
    global ENABLED
    ENABLED = on


def cannot_find_victims(ctx: PreemptionCtx) -> bool:
    """True only when `classical_targets(ctx)` is certain to return [] (see the module docstring)."""
    return _verdict(ctx)[0]


def cannot_find_victims_or_own(ctx: PreemptionCtx) -> tuple[bool, Source | None, bool]:
    """`cannot_find_victims(ctx)`, and, when the test got as far as step 2, the ClusterQueue's own
    candidates it computed (`candidates.source` with withinClusterQueue: what
    `preemption.classical_targets` computes first, on the same snapshot) and True; else (.., None,
    False). The search that runs next takes them instead of computing them again."""
    return _verdict(ctx)


def _verdict(ctx: PreemptionCtx) -> tuple[bool, Source | None, bool]:
    if ctx.tas_fits is not None or ctx.snap.fair_sharing is not None or ctx.snap.tas is not None:
        return False, None, False
    state = ctx.state
    pol = state.spec.preemption
    if pol.borrow_within_cohort not in ("", "Never"):
        return False, None, False
    node = state.node
    if node.parent is not None and pol.reclaim_within_cohort not in ("", "Never"):
        # 1. No candidate with hierarchical advantage: `adv` never holds where one is collected.
        if any(advantage_chain(node, ctx.requests)):
            return False, None, False
        # 3. The attempt without borrowing (only when under nominal) cannot fit whatever it removes.
        under = all(node.usage.get(fr, 0) < node.nominal.get(fr, 0) for fr in ctx.frs)
        if under and all(v <= node.subtree.get(fr, 0) for fr, v in ctx.requests.items()):
            return False, None, False
    # 2. No candidate of the ClusterQueue's own.
    own = source(ctx.snap, state, ctx.frs, pol.within_cluster_queue, ctx.wl)
    return own is None or not own.any(), own, True
