"""Where TAS meets flavor assignment and the cycle: flavor match, placement after quota, re-checks.

Modelled on kubernetes-sigs/kueue v0.19.2:
- `pkg/scheduler/flavorassigner/tas_flavorassigner.go`: `checkPodSetAndFlavorMatchForTAS` (a TAS
  pod set needs a TAS flavor with the level, a non-TAS pod set skips TAS flavors; a ClusterQueue
  whose flavors are all TAS flavors implies TAS for every pod set), `WorkloadsTopologyRequests`
  (count-0 pod sets skipped; exactly one TAS flavor per pod set);
- `flavorassigner.go assignFlavors`: once quota says Fit, the placement runs; a pod set that
  does not fit turns the assignment into Preempt with Kueue's reason; on Preempt the placement is
  tried on an empty cluster (`WithSimulateEmpty`), and if even that fails the mode is NoFit;
- `scheduler.go updateAssignmentForTAS`: with preemption targets the placement is computed as
  if they were gone; without targets on an empty cluster (capacity reserved for the preemptor);
- `scheduler.go fits` (`FitsCheckNoTAS`): a workload whose domains were taken by another
  admission in the same cycle is skipped.
Pod sets of one workload in one flavor are placed in order, each seeing what the previous took
(`FindTopologyAssignmentsForFlavor` assumed usage). Preemption victims are chosen by quota only
(Kueue also asks the placement when choosing them): documented in docs/explain.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuplane.kueue.flavor_assigner import MODE_FIT, MODE_NOFIT, MODE_PREEMPT, Assignment
from gpuplane.kueue.objects import PodSet, ResourceFlavor, ResourceGroup, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot
from gpuplane.kueue.tas.leader import find_group
from gpuplane.kueue.tas.model import TASPodSetRequest, TopologyAssignment
from gpuplane.kueue.tas.placement import LeafKey, leaf_key_of
from gpuplane.kueue.tas.state import TASState


def tas_only(snap: Snapshot, state: CQState) -> bool:
    """ClusterQueueSnapshot.IsTASOnly: every flavor of the ClusterQueue is a TAS flavor."""
    names = [f.name for g in state.spec.resource_groups for f in g.flavors]
    if not names:
        return False
    for name in names:
        flavor = snap.flavors.get(name)
        if flavor is None or flavor.topology_name is None:
            return False
    return True


def requested(snap: Snapshot, state: CQState, ps: PodSet) -> tuple[bool, bool]:
    """(TAS requested, implied) for a pod set in a ClusterQueue."""
    explicit = ps.topology is not None and ps.topology.explicit
    implied = not explicit and tas_only(snap, state)
    return explicit or implied, implied


def flavor_mismatch(
    snap: Snapshot, state: CQState, flavor: ResourceFlavor, ps: PodSet, group: ResourceGroup
) -> str | None:
    """checkPodSetAndFlavorMatchForTAS: why a pod set cannot use this flavor for TAS reasons."""
    wants, implied = requested(snap, state, ps)
    if wants:
        if implied:
            return None
        if flavor.topology_name is None:
            if not any(res in group.covered_resources for res in ps.per_pod):
                return None
            return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
        tas: TASState | None = snap.tas
        tree = tas.tree(flavor) if tas is not None else None
        if tree is None:
            return f'Flavor "{flavor.name}" information missing in TAS cache'
        if not tree.has_level(_request(ps, ps.count, False)):
            return f'Flavor "{flavor.name}" does not contain the requested level'
        return None
    if flavor.topology_name is not None:
        return f'Flavor "{flavor.name}" supports only TopologyAwareScheduling'
    return None


def _request(ps: PodSet, count: int, implied: bool) -> TASPodSetRequest:
    from gpuplane.kueue.tas.model import TopologyRequest

    return TASPodSetRequest(
        name=ps.name,
        count=count,
        per_pod=dict(ps.per_pod),
        request=ps.topology if ps.topology is not None else TopologyRequest(),
        implied=implied,
        node_selector=ps.node_selector,
        tolerations=ps.tolerations,
        affinity_terms=ps.affinity_terms,
    )


def fit_check(snap: Snapshot, wl: Workload, state: CQState, a: Assignment) -> Callable[[], bool] | None:
    """For a preemption search: whether the workload's placement fits the TAS usage as it is now."""
    if snap.tas is None:
        return None
    reqs = _requests(snap, wl, state, a, quiet=True)
    if not reqs:
        return None
    return lambda: find(snap, reqs, False)[1] is None


def _requests(
    snap: Snapshot, wl: Workload, state: CQState, a: Assignment, quiet: bool = False
) -> list[tuple[int, str, TASPodSetRequest]]:
    """WorkloadsTopologyRequests: (pod set index, TAS flavor, request) in pod set order."""
    out: list[tuple[int, str, TASPodSetRequest]] = []
    for i, ps in enumerate(wl.pod_sets):
        if i >= len(a.podsets):
            break
        result = a.podsets[i]
        wants, implied = requested(snap, state, ps)
        if not wants or result.failed or result.count == 0:
            continue
        flavors = sorted(
            {
                fc.flavor
                for fc in result.flavors.values()
                if (f := snap.flavors.get(fc.flavor)) and f.topology_name
            }
        )
        if len(flavors) != 1:
            if quiet:
                continue
            a.reasons.append(
                f"couldn't assign flavors to pod set {ps.name}: "
                + ("no TAS flavor assigned" if not flavors else f"multiple TAS flavors assigned: {flavors}")
            )
            result.failed = True
            continue
        out.append((i, flavors[0], _request(ps, result.count, implied)))
    return out


def find(
    snap: Snapshot,
    reqs: list[tuple[int, str, TASPodSetRequest]],
    simulate_empty: bool,
    usage: dict[LeafKey, dict[str, int]] | None = None,
) -> tuple[dict[str, TopologyAssignment], tuple[str, str] | None]:
    """FindTopologyAssignmentsForWorkload: assignments per pod set, or (pod set, reason) of the first failure."""
    tas: TASState = snap.tas
    used = tas.usage if usage is None else usage
    assumed: dict[LeafKey, dict[str, int]] = {}
    out: dict[str, TopologyAssignment] = {}
    # Pod sets of one podSetGroupName (in one flavor) are placed together, in order of first
    # appearance (FindTopologyAssignmentsForFlavor's groupsOrder); the others one by one.
    groups: dict[tuple[str, str], list[TASPodSetRequest]] = {}
    for i, fname, req in reqs:
        groups.setdefault((fname, req.request.group or f"#{i}"), []).append(req)
    for (fname, _), members in groups.items():
        tree = tas.tree(snap.flavors[fname])
        if tree is None:
            return out, (members[0].name, f'Flavor "{fname}" information missing in TAS cache')
        if len(members) > 2:
            return out, (
                members[0].name,
                "a pod-set group of more than two pod sets (Kueue allows a leader and workers)",
            )
        if len(members) == 2:
            workers, leader = members  # findLeaderAndWorkers: the second is the leader unless it is larger
            if leader.count > workers.count:
                workers, leader = leader, workers
            pair, reason = find_group(tree, workers, leader, used, assumed, simulate_empty)
            if pair is None:
                return out, (members[0].name, reason)
            placed = [(workers, pair[0]), (leader, pair[1])]
        else:
            req = members[0]
            live = usage is None
            got, reason = tree.find(
                req,
                used,
                assumed,
                simulate_empty,
                tas.version if live else None,
                tas.changes if live else None,
            )
            if got is None:
                return out, (req.name, reason)
            placed = [(req, got)]
        for req, got in placed:
            out[req.name] = got
            for d in got.domains:
                key = leaf_key_of(got.levels, d.values, tree.hostname_lowest)
                acc = assumed.setdefault(key, {})
                for res, q in req.per_pod.items():
                    acc[res] = acc.get(res, 0) + q * d.count
                acc["pods"] = acc.get("pods", 0) + 1000 * d.count
    return out, None


def _set_mode(a: Assignment, index: int, mode: int) -> None:
    result = a.podsets[index]
    if mode == MODE_NOFIT:
        result.failed = True
        return
    for fc in result.flavors.values():
        fc.mode = min(fc.mode, mode)


def after_assign(snap: Snapshot, wl: Workload, state: CQState, a: Assignment) -> None:
    """The TAS step of assignFlavors, applied to a quota assignment."""
    if snap.tas is None or a.mode() == MODE_NOFIT:
        return
    reqs = _requests(snap, wl, state, a)
    if not reqs:
        return
    index = {req.name: i for i, _, req in reqs}
    if a.mode() == MODE_FIT:
        got, failure = find(snap, reqs, False)
        if failure is None:
            a.topology = got
            return
        a.reasons.append(f"couldn't assign flavors to pod set {failure[0]}: {failure[1]}")
        _set_mode(a, index[failure[0]], MODE_PREEMPT)
    if a.mode() == MODE_PREEMPT:
        _, failure = find(snap, reqs, True)
        if failure is not None:
            if not any(r.startswith(f"couldn't assign flavors to pod set {failure[0]}") for r in a.reasons):
                a.reasons.append(f"couldn't assign flavors to pod set {failure[0]}: {failure[1]}")
            _set_mode(a, index[failure[0]], MODE_NOFIT)
            return
        for i in index.values():
            _set_mode(a, i, MODE_PREEMPT)


def for_targets(snap: Snapshot, wl: Workload, state: CQState, a: Assignment, victims: list[Any]) -> None:
    """updateAssignmentForTAS: the placement as if the victims were gone (or on an empty cluster)."""
    if snap.tas is None or a.mode() != MODE_PREEMPT:
        return
    reqs = _requests(snap, wl, state, a)
    if not reqs:
        return
    tas: TASState = snap.tas
    if victims:
        usage = {k: dict(v) for k, v in tas.usage.items()}
        for t in victims:
            for key, amount in tas.charged.get(t.wl.key, []):
                acc = usage.setdefault(key, {})
                for res, q in amount.items():
                    acc[res] = acc.get(res, 0) - q
        got, _ = find(snap, reqs, False, usage)
    else:
        got, _ = find(snap, reqs, True)
    a.topology = got


def still_fits(snap: Snapshot, wl: Workload, a: Assignment) -> bool:
    """cq.Fits for TAS: every domain chosen this cycle still holds its pods."""
    tas: TASState | None = snap.tas
    if tas is None or not a.topology:
        return True
    by_name = {ps.name: ps for ps in wl.pod_sets}
    for result in a.podsets:
        ta = a.topology.get(result.name)
        if ta is None:
            continue
        fname = next((fc.flavor for fc in result.flavors.values() if _is_tas(snap, fc.flavor)), None)
        flavor = snap.flavors.get(fname or "")
        tree = tas.tree(flavor) if flavor is not None else None
        if tree is None or not tree.fits(ta, by_name[result.name].per_pod, tas.usage):
            return False
    return True


def _is_tas(snap: Snapshot, name: str) -> bool:
    f = snap.flavors.get(name)
    return f is not None and f.topology_name is not None


__all__ = ["MODE_FIT", "after_assign", "find", "flavor_mismatch", "for_targets", "still_fits", "tas_only"]
