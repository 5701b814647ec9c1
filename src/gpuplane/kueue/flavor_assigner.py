"""Flavor assignment: pick a ResourceFlavor per pod set and resource group (kueue.md §5).

Mirrors `pkg/scheduler/flavorassigner/flavorassigner.go`: flavors are tried in order, each is
checked for eligibility (taints, node labels) and quota (`fits_resource_quota`), modes are
ranked by the fungibility preference and the stop rule decides when to stop searching.

Later flavors first (issue 23; kubernetes-sigs/kueue @ff69552e, v0.20.0-devel after v0.19.2:
`findFlavorForPodSets`, `shouldTryNextFlavor`, `isPreferred`, `fitsResourceQuota` in
flavorassigner.go, `PreemptionOracle.SimulatePreemption` in pkg/scheduler/preemption/
preemption_oracle.go, and the `FlavorFungibility` defaults in apis/kueue/v1beta2/
clusterqueue_types.go: whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor, no preference):
the search stops at the first flavor whose representative mode `shouldTryNextFlavor` rejects, and
then takes that flavor whatever came before. When whenCanPreempt is TryNextFlavor (and, with
preference PreemptionOverBorrowing, whenCanBorrow too), a flavor whose quota check needs the
preemption oracle never stops the search, whatever the oracle answers: the oracle's modes are
NoCandidates/Preempt/Reclaim, never NoFit, so which resources are checked does not depend on it,
and the representative mode is then one of those modes (or, with PreemptionOverBorrowing, Fit
while borrowing), all of which try the next flavor (`_may_skip_oracle`). So before simulating
preemption in such a flavor, the assigner looks for a later flavor that fits outright and stops
the search (`_later_stop`): when there is one, Kueue's search ends there, and the oracle's
answers for the flavors before it cannot change the chosen flavor, mode, borrowing or scan
position; they are not computed. Only the reason text ("preempting ... would make room") could
differ, so the skipped simulations are recorded (`Assignment.deferred`): an assignment that is not
Fit is recomputed in full at once, and a Fit one whose reasons could still be shown (its head
might be skipped later in the cycle) is recomputed by `assignment.settle_deferred` before any
admission. `use_later_flavors_first(False)` (the reference engine) switches this off.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from gpuplane.kube.quantity import format_quantity
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.objects import FR, FlavorFungibility, PodSet, ResourceFlavor, ResourceGroup, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot

# Granular preemption modes, worst to best (flavorassigner.go). Final: the compiled twin reads
# them as constants, not from the module's globals.
NOFIT: Final = 0
NO_CANDIDATES: Final = 1
PREEMPT: Final = 2
RECLAIM: Final = 3
FIT: Final = 4
# Representative modes of an assignment.
MODE_NOFIT: Final = 0
MODE_PREEMPT: Final = 1
MODE_FIT: Final = 2
_NO_BORROW: Final = 1 << 30  # the borrowing level of `_WORST`
_WORST: Final = (NOFIT, _NO_BORROW)
_BEST: Final = (FIT, 0)

Oracle = Callable[[FR, int], tuple[int, int, list[str]]]
"""Preemption oracle: (fr, quantity) -> (NO_CANDIDATES|PREEMPT|RECLAIM, borrow after, victim keys)."""

#: Whether flavor assigners look for a later flavor that fits before simulating preemption
#: (module docstring); the reference engine (kueue/reference.py) switches it off.
LATER_FLAVORS_FIRST = True


def use_later_flavors_first(on: bool) -> None:
    """Switch the later-flavors-first shortcut on or off for assigners created from now on."""
    global LATER_FLAVORS_FIRST
    LATER_FLAVORS_FIRST = on


Deferred = tuple[int, FR, int]
"""A preemption simulation left out: (position in `Assignment.reasons`, fr, quantity)."""


class QuotaNote:
    """A quota shortfall reason whose text is formatted only when read (issue 23).

    Most failed heads' reasons are never shown (a simulation reads only the workloads still
    waiting at its end), so the assigner records the figures the text quotes, as they are when
    the quota is checked, and `text` formats them into exactly what `quota_text` and
    `fits_resource_quota` wrote before: `over_max` for "more than the maximum capacity" (`bound`
    the maximum capacity), else "more needed" (`bound` what the ClusterQueue has available).
    Of the figures the text quotes, only the ClusterQueue's usage and its cohort's free quota
    change with usage: those two are recorded; the names, nominal quota and limits are fixed once
    the quota tree is built and are read when the text is. `parent_free`, when given, is
    `available` of the ClusterQueue's parent for `fr` as the quota check already computed it.
    """

    __slots__ = ("bound", "fr", "free", "over_max", "state", "usage", "val")

    def __init__(
        self, over_max: bool, fr: FR, val: int, bound: int, state: CQState, parent_free: int | None = None
    ) -> None:
        self.over_max = over_max
        self.fr = fr
        self.val = val
        self.bound = bound
        self.state = state
        node = state.node
        self.usage = node.usage.get(fr, 0)
        parent = node.parent
        if parent is None:
            self.free = 0
        else:
            self.free = max(0, rn.available(parent, fr) if parent_free is None else parent_free)

    def text(self) -> str:
        """The reason as `fits_resource_quota` words it."""
        fr, val = self.fr, self.val
        quota = _format_quota(_figures(self.state, fr, self.usage, self.free))
        if self.over_max:
            return (
                f"insufficient quota for {fr[1]} in flavor {fr[0]}: needs {format_quantity(val)}, "
                f"more than the maximum capacity {format_quantity(self.bound)} ({quota})"
            )
        return (
            f"needs {format_quantity(val)} {fr[1]} in flavor {fr[0]}; {quota}; "
            f"{format_quantity(val - self.bound)} more needed"
        )


Reason = str | QuotaNote
"""One flavor-assignment reason: its text, or the figures of a quota shortfall (`QuotaNote`)."""

# FlavorChoice, PodSetResult and Assignment are built several times per nomination, so they are
# plain classes with their own `__init__`: a dataclass's generated `__init__` is interpreted
# Python even in the compiled twin (mypyc keeps it), about a third of their construction cost.


class FlavorChoice:
    """The flavor given to one resource of one pod set."""

    __slots__ = ("borrow", "flavor", "mode", "tried_idx")

    def __init__(self, flavor: str, mode: int, borrow: int, tried_idx: int = -1) -> None:
        self.flavor = flavor
        self.mode = mode
        self.borrow = borrow
        self.tried_idx = tried_idx

    def __repr__(self) -> str:
        return f"FlavorChoice({self.flavor!r}, mode={self.mode}, borrow={self.borrow}, tried_idx={self.tried_idx})"


class PodSetResult:
    """Flavors chosen for one pod set (empty when it failed) and its total requests."""

    __slots__ = ("count", "failed", "first_reason", "flavors", "name", "requests")

    def __init__(
        self,
        name: str,
        count: int,
        requests: dict[str, int],
        flavors: dict[str, FlavorChoice] | None = None,
        failed: bool = False,
        first_reason: int = 0,
    ) -> None:
        self.name = name
        self.count = count
        self.requests = requests
        self.flavors: dict[str, FlavorChoice] = {} if flavors is None else flavors
        self.failed = failed
        self.first_reason = first_reason  # index of this pod set's first reason in `Assignment.reasons`

    def __repr__(self) -> str:
        return (
            f"PodSetResult({self.name!r}, count={self.count}, requests={self.requests!r}, "
            f"flavors={self.flavors!r}, failed={self.failed})"
        )

    def mode(self) -> int:
        """Worst mode over the pod set's resources."""
        if self.failed:
            return MODE_NOFIT
        if not self.flavors:
            return MODE_FIT if not any(self.requests.values()) else MODE_NOFIT
        mode = MODE_FIT
        for fc in self.flavors.values():
            if fc.mode < mode:
                mode = fc.mode
        return mode


class Assignment:
    """The outcome of flavor assignment for a whole workload."""

    __slots__ = ("borrowing", "deferred", "last_tried", "notes", "podsets", "rep", "topology", "usage")

    def __init__(self) -> None:
        self.podsets: list[PodSetResult] = []
        self.usage: dict[FR, int] = {}
        self.borrowing = 0
        #: The reasons, some still unformatted (`QuotaNote`); read them through `reasons`.
        self.notes: list[Reason] = []
        self.last_tried: dict[tuple[int, str], int] = {}
        #: Topology assignment per pod set name (`gpuplane.kueue.tas`), when TAS placed it.
        self.topology: dict[str, Any] | None = None
        #: Preemption simulations skipped by later-flavors-first (their victims are missing from
        #: `reasons`; nothing else depends on them). Only ever non-empty on a Fit assignment.
        self.deferred: list[Deferred] = []
        #: The representative mode once the assigner is done with it, -1 while it may still
        #: change (`mode`); never set when topology-aware scheduling may still change the modes.
        self.rep = -1

    def __repr__(self) -> str:
        return f"Assignment(podsets={self.podsets!r}, usage={self.usage!r}, borrowing={self.borrowing})"

    @property
    def reasons(self) -> list[str]:
        """Why flavors were not found, as text (formatted now, once; appending to it adds one)."""
        notes = self.notes
        for i, note in enumerate(notes):
            if not isinstance(note, str):
                notes[i] = note.text()
        return notes  # type: ignore[return-value]  # every item is now a str

    def mode(self) -> int:
        """RepresentativeMode: the worst mode over all pod sets (cached once final, as Kueue's
        `Assignment.RepresentativeMode` caches `representativeMode`, flavorassigner.go)."""
        rep = self.rep
        if rep >= 0:
            return rep
        return self.computed_mode()

    def computed_mode(self) -> int:
        """The worst mode over all pod sets, computed now (what `mode` caches)."""
        mode = MODE_FIT
        for ps in self.podsets:
            m = ps.mode()
            if m < mode:
                mode = m
        return mode

    def frs_need_preemption(self) -> set[FR]:
        """(flavor, resource) pairs whose assigned mode is Preempt."""
        return {
            (fc.flavor, res)
            for ps in self.podsets
            for res, fc in ps.flavors.items()
            if fc.mode == MODE_PREEMPT
        }

    def pending_flavors(self) -> bool:
        """True when some resource's flavor scan stopped before the last flavor."""
        return any(idx != -1 for idx in self.last_tried.values())

    def counts(self) -> list[int]:
        """Pod counts per pod set."""
        return [ps.count for ps in self.podsets]


def is_preferred(a: tuple[int, int], b: tuple[int, int], fung: FlavorFungibility) -> bool:
    """isPreferred: whether granular mode `a` beats `b` under the fungibility preference."""
    return _preferred(a[0], a[1], b[0], b[1], fung.preference == "PreemptionOverBorrowing")


def _preferred(a_mode: int, a_borrow: int, b_mode: int, b_borrow: int, pob: bool) -> bool:
    """`is_preferred` on unpacked modes, `pob` the PreemptionOverBorrowing preference."""
    if a_mode == NOFIT:
        return False
    if b_mode == NOFIT:
        return True
    a_none, b_none = a_mode == NO_CANDIDATES, b_mode == NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if pob:
        if a_borrow != b_borrow:
            return a_borrow < b_borrow
        return a_mode > b_mode
    if a_mode != b_mode:
        return a_mode > b_mode
    return a_borrow < b_borrow


def should_try_next(mode: tuple[int, int], fung: FlavorFungibility) -> bool:
    """shouldTryNextFlavor: the stop rule of the flavor search."""
    return _try_next(
        mode[0], mode[1], fung.when_can_preempt == "TryNextFlavor", fung.when_can_borrow == "TryNextFlavor"
    )


def _try_next(mode: int, borrow: int, preempt_tries: bool, borrow_tries: bool) -> bool:
    """`should_try_next` on an unpacked mode and the two fungibility settings it reads."""
    if mode <= NO_CANDIDATES:  # NoFit or NoCandidates
        return True
    if NO_CANDIDATES < mode < FIT and preempt_tries:  # Preempt or Reclaim
        return True
    return borrow > 0 and borrow_tries


def _may_skip_oracle(fung: FlavorFungibility) -> bool:
    """Whether a flavor that needs the preemption oracle tries the next flavor whatever it answers.

    The oracle answers NoCandidates, Preempt or Reclaim. The representative mode is then one of
    those (each tries the next flavor when whenCanPreempt is TryNextFlavor; NoCandidates always)
    or, with PreemptionOverBorrowing, possibly Fit while borrowing (tries the next flavor when
    whenCanBorrow is TryNextFlavor), never Fit without borrowing (`isPreferred`).
    """
    if fung.when_can_preempt != "TryNextFlavor":
        return False
    return fung.preference != "PreemptionOverBorrowing" or fung.when_can_borrow == "TryNextFlavor"


def _to_assignment_mode(mode: int) -> int:
    if mode == FIT:
        return MODE_FIT
    if mode == NOFIT:
        return MODE_NOFIT
    return MODE_PREEMPT


def flavor_mismatch(flavor: ResourceFlavor, ps: PodSet) -> str | None:
    """Why a pod set cannot use a flavor (untolerated taint, node labels), or None.

    Both are fixed once built, so the verdict is memoised on the pod set per flavor object.
    """
    hit = ps.mismatch.get(flavor.name)
    if hit is not None and hit[0] is flavor:
        return hit[1]
    why = _mismatch(flavor, ps)
    ps.mismatch[flavor.name] = (flavor, why)
    return why


def _mismatch(flavor: ResourceFlavor, ps: PodSet) -> str | None:
    tolerations = (*ps.tolerations, *flavor.tolerations)
    for taint in flavor.node_taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(t.tolerates(taint) for t in tolerations):
            return f"untolerated taint {taint.key}={taint.value}:{taint.effect} in flavor {flavor.name}"
    labels = flavor.node_labels
    for key, value in ps.node_selector.items():
        if key in labels and labels[key] != value:
            return f"flavor {flavor.name} doesn't match node affinity (nodeSelector {key}={value})"
    if ps.affinity_terms is not None:
        terms = []
        for term in ps.affinity_terms:
            kept = tuple(req for req in term if req.key in labels)
            if not kept:
                return None
            terms.append(kept)
        if terms and not any(all(req.matches(labels) for req in term) for term in terms):
            return f"flavor {flavor.name} doesn't match node affinity"
    return None


class GroupPlan:
    """What a resource group's flavor search reads that never changes: the flavors in order, by
    name and as the snapshot's objects (None: not found), which of them are TAS flavors, which
    match every pod set (`matches_all`), and the resources the group covers."""

    __slots__ = ("covered", "flavors", "group", "matches_all", "names", "topology")

    def __init__(self, group: ResourceGroup, flavors: dict[str, ResourceFlavor]) -> None:
        self.group = group
        self.covered = frozenset(group.covered_resources)
        self.names = [fq.name for fq in group.flavors]
        self.flavors = [flavors.get(name) for name in self.names]
        self.topology = [f is not None and f.topology_name is not None for f in self.flavors]
        self.matches_all = [f is not None and _matches_every_pod_set(f) for f in self.flavors]


def _matches_every_pod_set(flavor: ResourceFlavor) -> bool:
    """Whether `flavor_mismatch(flavor, ps)` is None for every pod set: the flavor has no node
    labels (so no nodeSelector or affinity term can contradict it, `_mismatch`) and no taint a pod
    must tolerate (NoSchedule or NoExecute)."""
    if flavor.node_labels:
        return False
    return all(taint.effect not in ("NoSchedule", "NoExecute") for taint in flavor.node_taints)


class CQPlan:
    """A ClusterQueue's fixed inputs to flavor assignment, read once (issue 23): its flavor
    fungibility as flags, whether it has a `pods` quota, and a `GroupPlan` per covered resource
    (`CQState.group_of`). Built on first use and kept on the ClusterQueue's quota node
    (`plan_of`), checked against the spec, resource-group map and flavor map it was built from;
    nothing in it depends on usage."""

    __slots__ = (
        "borrow_tries",
        "flavor_map",
        "group_of",
        "groups",
        "has_pods",
        "may_skip_oracle",
        "pob",
        "preempt_tries",
        "spec",
    )

    def __init__(self, snap: Snapshot, state: CQState) -> None:
        spec = state.spec
        fung = spec.flavor_fungibility
        self.spec = spec
        self.group_of = state.group_of
        self.flavor_map = snap.flavors
        self.pob = fung.preference == "PreemptionOverBorrowing"
        self.preempt_tries = fung.when_can_preempt == "TryNextFlavor"
        self.borrow_tries = fung.when_can_borrow == "TryNextFlavor"
        self.may_skip_oracle = _may_skip_oracle(fung)
        self.has_pods = "pods" in state.group_of
        by_group: dict[int, GroupPlan] = {}
        self.groups: dict[str, GroupPlan] = {}
        for res, group in state.group_of.items():
            plan = by_group.get(id(group))
            if plan is None:
                plan = by_group[id(group)] = GroupPlan(group, snap.flavors)
            self.groups[res] = plan


def plan_of(snap: Snapshot, state: CQState) -> CQPlan:
    """The ClusterQueue's `CQPlan`, built now when it has none or its inputs were replaced."""
    node = state.node
    held = node.assign_plan
    if held is not None:
        plan = cast(CQPlan, held)
        if plan.spec is state.spec and plan.group_of is state.group_of and plan.flavor_map is snap.flavors:
            return plan
    plan = CQPlan(snap, state)
    node.assign_plan = plan
    return plan


class FlavorAssigner:
    """Assigns flavors to one workload in one ClusterQueue against the current snapshot."""

    def __init__(
        self, snap: Snapshot, wl: Workload, state: CQState, oracle: Oracle, fast: bool | None = None
    ) -> None:
        self.snap = snap
        self.wl = wl
        self.state = state
        self.oracle = oracle
        self.plan = plan = plan_of(snap, state)
        scan = snap.scan.get(wl.key) if snap.scan else None
        self.resume: dict[tuple[int, str], int] = (
            scan.last_tried if scan is not None and scan.generation == state.generation else {}
        )
        on = LATER_FLAVORS_FIRST if fast is None else fast
        self.fast = on and snap.tas is None and plan.may_skip_oracle
        # While one resource group's flavors are searched with the shortcut: the flavor index being
        # tried, its pod set, group and requests, and the first later flavor known to stop the search.
        self._probe: tuple[int, PodSet, GroupPlan, dict[str, int], Assignment] | None = None
        self._stop: tuple[int, int] | None = None  # (searched from index, stopping index or -1)

    def assign(self, counts: list[int] | None = None) -> Assignment:
        """Assign flavors to every pod set, with `counts` overriding pod counts (partial admission)."""
        out = self._assign(counts)
        mode = out.computed_mode()
        if out.deferred and mode != MODE_FIT:
            # Its reasons will be shown: compute the skipped simulations as Kueue does.
            self.fast = False
            out = self._assign(counts)
            self.fast = True
            mode = out.computed_mode()
        if self.snap.tas is None:  # (TAS's hook may still lower the modes: not cached then)
            out.rep = mode
        return out

    def _assign(self, counts: list[int] | None) -> Assignment:
        out = Assignment()
        has_pods = self.plan.has_pods
        for i, ps in enumerate(self.wl.pod_sets):
            count = ps.count if counts is None else counts[i]
            requests = {res: q * count for res, q in ps.per_pod.items()}
            if has_pods:
                requests["pods"] = count * 1000
            result = PodSetResult(ps.name, count, requests, None, False, len(out.notes))
            out.podsets.append(result)
            if not self._assign_podset(i, ps, result, out):
                result.failed = True
                return out
            usage = out.usage
            for res, fc in result.flavors.items():
                fr = (fc.flavor, res)
                usage[fr] = usage.get(fr, 0) + requests.get(res, 0)
                if fc.borrow > out.borrowing:
                    out.borrowing = fc.borrow
                out.last_tried[(i, res)] = fc.tried_idx
        return out

    def _assign_podset(self, idx: int, ps: PodSet, result: PodSetResult, out: Assignment) -> bool:
        requests = result.requests
        groups = self.plan.groups
        for res in sorted(requests) if len(requests) > 1 else requests:
            gp = groups.get(res)
            if gp is None:
                if requests[res] == 0:
                    continue
                out.notes.append(f"resource {res} unavailable in ClusterQueue {self.state.name}")
                return False
            flavors = result.flavors
            if res in flavors:
                continue
            covered = gp.covered
            reqs = requests
            for r in requests:
                if r not in covered:  # (read only below: the requests themselves when all covered)
                    reqs = {r: q for r, q in requests.items() if r in covered}
                    break
            chosen = self._find_flavor(idx, ps, gp, reqs, out)
            if chosen is None:
                return False
            if flavors:
                flavors.update(chosen)
            else:
                result.flavors = chosen  # (a fresh map of this search: no copy needed)
        return True

    def _find_flavor(
        self, idx: int, ps: PodSet, gp: GroupPlan, reqs: dict[str, int], out: Assignment
    ) -> dict[str, FlavorChoice] | None:
        plan = self.plan
        pob = plan.pob
        best: dict[str, FlavorChoice] | None = None
        best_mode, best_borrow = _WORST
        start = 0
        resume = self.resume
        if resume:
            first_res = min(reqs) if reqs else ""
            start = resume.get((idx, first_res), -1) + 1
        attempted = -1
        names = gp.names
        n = len(names)
        topology_request = ps.topology
        fast = self.fast and n > 1 and topology_request is None
        self._stop = None
        for fidx in range(start if start < n else 0, n):
            attempted = fidx
            flavor = gp.flavors[fidx]
            if flavor is None:
                out.notes.append(f"flavor {names[fidx]} not found")
                continue
            why = None if gp.matches_all[fidx] else flavor_mismatch(flavor, ps)
            if why is None and (gp.topology[fidx] or topology_request is not None):
                from gpuplane.kueue.tas.hook import flavor_mismatch as tas_mismatch

                why = tas_mismatch(self.snap, self.state, flavor, ps, gp.group)
                why = None if why is None else f"couldn't assign flavors to pod set {ps.name}: {why}"
            if why is not None:
                out.notes.append(why)
                continue
            self._probe = (fidx, ps, gp, reqs, out) if fast and fidx < n - 1 else None
            choices, rep_mode, rep_borrow = self._try_flavor(names[fidx], reqs, out)
            self._probe = None
            if not _try_next(rep_mode, rep_borrow, plan.preempt_tries, plan.borrow_tries):
                best = choices
                break
            if _preferred(rep_mode, rep_borrow, best_mode, best_borrow, pob):
                best, best_mode, best_borrow = choices, rep_mode, rep_borrow
        if best is None:
            return None
        tried = -1 if attempted == n - 1 else attempted
        for fc in best.values():
            fc.tried_idx = tried
        return best

    def _try_flavor(
        self, fname: str, reqs: dict[str, int], out: Assignment
    ) -> tuple[dict[str, FlavorChoice], int, int]:
        pob = self.plan.pob
        rep_mode, rep_borrow = _BEST
        choices: dict[str, FlavorChoice] = {}
        usage = out.usage
        for res in sorted(reqs) if len(reqs) > 1 else reqs:
            fr = (fname, res)
            mode, borrow = self.fits_resource_quota(fr, usage.get(fr, 0) if usage else 0, reqs[res], out)
            if _preferred(rep_mode, rep_borrow, mode, borrow, pob):
                rep_mode, rep_borrow = mode, borrow
            if rep_mode == NOFIT:
                break
            choices[res] = FlavorChoice(fname, _to_assignment_mode(mode), borrow)
        return choices, rep_mode, rep_borrow

    def fits_resource_quota(self, fr: FR, assumed: int, request: int, out: Assignment) -> tuple[int, int]:
        """How `fr` could be used: (granular mode, borrowing level); appends reasons to `out`
        (a shortfall as a `QuotaNote`: its figures now, its text when read)."""
        node = self.state.node
        avail, parent_free = rn.available_with_parent(node, fr)
        if avail < 0:
            avail = 0  # cq_available
        maxcap = rn.potential_available(node, fr)
        val = assumed + request
        if val > maxcap:
            out.notes.append(QuotaNote(True, fr, val, maxcap, self.state, parent_free))
            return NOFIT, 0
        borrow, may_reclaim = rn.lowest_subtree_height(node, fr, val)
        if val <= avail:
            return FIT, borrow
        out.notes.append(QuotaNote(False, fr, val, avail, self.state, parent_free))
        if node.nominal.get(fr, 0) >= val or may_reclaim or self._can_preempt_while_borrowing():
            if self._probe is not None and self._later_stop() >= 0:
                # A later flavor ends the search: this answer cannot be chosen (module docstring).
                out.deferred.append((len(out.notes), fr, val))
                return NO_CANDIDATES, borrow
            mode, borrow_after, victims = self.oracle(fr, val)
            if victims:
                out.notes.append(f"preempting {', '.join(victims)} would make room in flavor {fr[0]}")
            return mode, borrow_after
        return NOFIT, borrow

    def _later_stop(self) -> int:
        """The first flavor after the one being tried that fits outright and stops the search, or -1.

        The flavors in between either do not match, need the oracle (and so try the next flavor,
        `_may_skip_oracle`) or fit without stopping; the flavor found is where Kueue's search ends.
        """
        assert self._probe is not None
        fidx, ps, gp, reqs, out = self._probe
        known = self._stop
        if known is not None and (known[1] > fidx or (known[1] < 0 and known[0] <= fidx)):
            return known[1]
        stop = -1
        for j in range(fidx + 1, len(gp.names)):
            flavor = gp.flavors[j]
            if flavor is None:
                continue
            if gp.topology[j]:
                break  # the topology check could end the search here: no shortcut
            if not gp.matches_all[j] and flavor_mismatch(flavor, ps) is not None:
                continue
            if self._stops_outright(gp.names[j], reqs, out):
                stop = j
                break
        self._stop = (fidx, stop)
        return stop

    def _stops_outright(self, fname: str, reqs: dict[str, int], out: Assignment) -> bool:
        """Whether every resource fits in `fname` without preemption and the search stops there."""
        node = self.state.node
        worst = 0
        for res, q in reqs.items():
            fr = (fname, res)
            val = out.usage.get(fr, 0) + q
            if val > rn.potential_available(node, fr) or val > rn.cq_available(node, fr):
                return False
            worst = max(worst, rn.lowest_subtree_height(node, fr, val)[0])
        plan = self.plan
        return not _try_next(FIT, worst, plan.preempt_tries, plan.borrow_tries)

    def _can_preempt_while_borrowing(self) -> bool:
        pol = self.state.spec.preemption
        if pol.borrow_within_cohort not in ("", "Never"):
            return True
        # Kueue compares with Never only, so an unset ("") reclaimWithinCohort counts here.
        return self.snap.fair_sharing is not None and pol.reclaim_within_cohort != "Never"


def quota_text(state: CQState, fr: FR) -> str:
    """'team-a has nominal 16, uses 12, may borrow 0; cohort c has 2 free' for one (flavor, resource)."""
    return _format_quota(_quota_figures(state, fr))


QuotaFigures = tuple[str, int, int, str | None, int | None, int | None, int]
"""What `quota_text` quotes: ClusterQueue, nominal, usage, cohort (None: none), borrowing limit,
lending limit, the cohort's free quota (0 without a cohort)."""


def _quota_figures(state: CQState, fr: FR) -> QuotaFigures:
    node = state.node
    parent = node.parent
    free = 0 if parent is None else max(0, rn.available(parent, fr))
    return _figures(state, fr, node.usage.get(fr, 0), free)


def _figures(state: CQState, fr: FR, usage: int, free: int) -> QuotaFigures:
    """The figures `quota_text` quotes, with the two that change with usage given."""
    node = state.node
    parent = node.parent
    nominal = node.nominal.get(fr, 0)
    if parent is None:
        return (state.name, nominal, usage, None, None, None, 0)
    return (
        state.name,
        nominal,
        usage,
        parent.name,
        node.borrowing_limit.get(fr),
        node.lending_limit.get(fr),
        free,
    )


def _format_quota(q: QuotaFigures) -> str:
    name, nominal, usage, cohort, limit, lend, free = q
    text = f"{name} has nominal {format_quantity(nominal)}, uses {format_quantity(usage)}"
    if cohort is None:
        return text + ", no cohort to borrow from"
    text += ", may borrow " + ("without limit" if limit is None else format_quantity(limit))
    if lend is not None:
        text += f", lends at most {format_quantity(lend)}"
    return text + f"; cohort {cohort} has {format_quantity(free)} free"
