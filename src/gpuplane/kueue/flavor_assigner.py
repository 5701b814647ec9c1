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
from dataclasses import dataclass, field
from typing import Any

from gpuplane.kube.quantity import format_quantity
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.objects import FR, FlavorFungibility, PodSet, ResourceFlavor, ResourceGroup, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot

# Granular preemption modes, worst to best (flavorassigner.go).
NOFIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = 0, 1, 2, 3, 4
# Representative modes of an assignment.
MODE_NOFIT, MODE_PREEMPT, MODE_FIT = 0, 1, 2
_WORST = (NOFIT, 1 << 30)
_BEST = (FIT, 0)

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
    """

    def __init__(self, over_max: bool, fr: FR, val: int, bound: int, state: CQState) -> None:
        self.over_max = over_max
        self.fr = fr
        self.val = val
        self.bound = bound
        self.quota = _quota_figures(state, fr)

    def text(self) -> str:
        """The reason as `fits_resource_quota` words it."""
        fr, val = self.fr, self.val
        quota = _format_quota(self.quota)
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


@dataclass(slots=True)
class FlavorChoice:
    """The flavor given to one resource of one pod set."""

    flavor: str
    mode: int
    borrow: int
    tried_idx: int = -1


@dataclass(slots=True)
class PodSetResult:
    """Flavors chosen for one pod set (empty when it failed) and its total requests."""

    name: str
    count: int
    requests: dict[str, int]
    flavors: dict[str, FlavorChoice] = field(default_factory=dict)
    failed: bool = False
    first_reason: int = 0  # index of this pod set's first reason in `Assignment.reasons`

    def mode(self) -> int:
        """Worst mode over the pod set's resources."""
        if self.failed:
            return MODE_NOFIT
        if not self.flavors:
            return MODE_FIT if not any(self.requests.values()) else MODE_NOFIT
        return min(fc.mode for fc in self.flavors.values())


@dataclass(slots=True)
class Assignment:
    """The outcome of flavor assignment for a whole workload."""

    podsets: list[PodSetResult] = field(default_factory=list)
    usage: dict[FR, int] = field(default_factory=dict)
    borrowing: int = 0
    #: The reasons, some still unformatted (`QuotaNote`); read them through `reasons`.
    notes: list[Reason] = field(default_factory=list)
    last_tried: dict[tuple[int, str], int] = field(default_factory=dict)
    #: Topology assignment per pod set name (`gpuplane.kueue.tas`), when TAS placed it.
    topology: dict[str, Any] | None = None
    #: Preemption simulations skipped by later-flavors-first (their victims are missing from
    #: `reasons`; nothing else depends on them). Only ever non-empty on a Fit assignment.
    deferred: list[Deferred] = field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        """Why flavors were not found, as text (formatted now, once; appending to it adds one)."""
        notes = self.notes
        for i, note in enumerate(notes):
            if not isinstance(note, str):
                notes[i] = note.text()
        return notes  # type: ignore[return-value]  # every item is now a str

    def mode(self) -> int:
        """RepresentativeMode: the worst mode over all pod sets."""
        mode = MODE_FIT
        for ps in self.podsets:
            mode = min(mode, ps.mode())
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
    if a[0] == NOFIT:
        return False
    if b[0] == NOFIT:
        return True
    a_none, b_none = a[0] == NO_CANDIDATES, b[0] == NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if fung.preference == "PreemptionOverBorrowing":
        if a[1] != b[1]:
            return a[1] < b[1]
        return a[0] > b[0]
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1]


def should_try_next(mode: tuple[int, int], fung: FlavorFungibility) -> bool:
    """shouldTryNextFlavor: the stop rule of the flavor search."""
    if mode[0] in (NOFIT, NO_CANDIDATES):
        return True
    if mode[0] in (PREEMPT, RECLAIM) and fung.when_can_preempt == "TryNextFlavor":
        return True
    return mode[1] > 0 and fung.when_can_borrow == "TryNextFlavor"


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


class FlavorAssigner:
    """Assigns flavors to one workload in one ClusterQueue against the current snapshot."""

    def __init__(
        self, snap: Snapshot, wl: Workload, state: CQState, oracle: Oracle, fast: bool | None = None
    ) -> None:
        self.snap = snap
        self.wl = wl
        self.state = state
        self.oracle = oracle
        scan = snap.scan.get(wl.key)
        self.resume = scan.last_tried if scan and scan.generation == state.generation else {}
        on = LATER_FLAVORS_FIRST if fast is None else fast
        self.fast = on and snap.tas is None and _may_skip_oracle(state.spec.flavor_fungibility)
        # While one resource group's flavors are searched with the shortcut: the flavor index being
        # tried, its pod set, group and requests, and the first later flavor known to stop the search.
        self._probe: tuple[int, PodSet, ResourceGroup, dict[str, int], Assignment] | None = None
        self._stop: tuple[int, int] | None = None  # (searched from index, stopping index or -1)

    def assign(self, counts: list[int] | None = None) -> Assignment:
        """Assign flavors to every pod set, with `counts` overriding pod counts (partial admission)."""
        out = self._assign(counts)
        if out.deferred and out.mode() != MODE_FIT:
            # Its reasons will be shown: compute the skipped simulations as Kueue does.
            self.fast = False
            out = self._assign(counts)
            self.fast = True
        return out

    def _assign(self, counts: list[int] | None) -> Assignment:
        out = Assignment()
        has_pods = "pods" in self.state.group_of
        for i, ps in enumerate(self.wl.pod_sets):
            count = ps.count if counts is None else counts[i]
            requests = {res: q * count for res, q in ps.per_pod.items()}
            if has_pods:
                requests["pods"] = count * 1000
            result = PodSetResult(ps.name, count, requests, first_reason=len(out.notes))
            out.podsets.append(result)
            if not self._assign_podset(i, ps, result, out):
                result.failed = True
                return out
            for res, fc in result.flavors.items():
                fr = (fc.flavor, res)
                out.usage[fr] = out.usage.get(fr, 0) + requests.get(res, 0)
                out.borrowing = max(out.borrowing, fc.borrow)
                out.last_tried[(i, res)] = fc.tried_idx
        return out

    def _assign_podset(self, idx: int, ps: PodSet, result: PodSetResult, out: Assignment) -> bool:
        requests = result.requests
        for res in sorted(requests) if len(requests) > 1 else requests:
            qty = result.requests[res]
            group = self.state.group_of.get(res)
            if group is None:
                if qty == 0:
                    continue
                out.notes.append(f"resource {res} unavailable in ClusterQueue {self.state.name}")
                return False
            if res in result.flavors:
                continue
            reqs = {r: q for r, q in result.requests.items() if r in group.covered_resources}
            chosen = self._find_flavor(idx, ps, group, reqs, out)
            if chosen is None:
                return False
            result.flavors.update(chosen)
        return True

    def _find_flavor(
        self, idx: int, ps: PodSet, group: ResourceGroup, reqs: dict[str, int], out: Assignment
    ) -> dict[str, FlavorChoice] | None:
        fung = self.state.spec.flavor_fungibility
        best: dict[str, FlavorChoice] | None = None
        best_mode = _WORST
        first_res = min(reqs) if reqs else ""
        start = self.resume.get((idx, first_res), -1) + 1
        attempted = -1
        n = len(group.flavors)
        fast = self.fast and n > 1 and ps.topology is None
        self._stop = None
        for fidx in range(start if start < n else 0, n):
            attempted = fidx
            fname = group.flavors[fidx].name
            flavor = self.snap.flavors.get(fname)
            if flavor is None:
                out.notes.append(f"flavor {fname} not found")
                continue
            why = flavor_mismatch(flavor, ps)
            if why is None and (flavor.topology_name is not None or ps.topology is not None):
                from gpuplane.kueue.tas.hook import flavor_mismatch as tas_mismatch

                why = tas_mismatch(self.snap, self.state, flavor, ps, group)
                why = None if why is None else f"couldn't assign flavors to pod set {ps.name}: {why}"
            if why is not None:
                out.notes.append(why)
                continue
            self._probe = (fidx, ps, group, reqs, out) if fast and fidx < n - 1 else None
            choices, rep = self._try_flavor(fname, reqs, out)
            self._probe = None
            if not should_try_next(rep, fung):
                best, best_mode = choices, rep
                break
            if is_preferred(rep, best_mode, fung):
                best, best_mode = choices, rep
        if best is None:
            return None
        tried = -1 if attempted == n - 1 else attempted
        for fc in best.values():
            fc.tried_idx = tried
        return best

    def _try_flavor(
        self, fname: str, reqs: dict[str, int], out: Assignment
    ) -> tuple[dict[str, FlavorChoice], tuple[int, int]]:
        fung = self.state.spec.flavor_fungibility
        rep = _BEST
        choices: dict[str, FlavorChoice] = {}
        for res in sorted(reqs) if len(reqs) > 1 else reqs:
            fr = (fname, res)
            mode, borrow = self.fits_resource_quota(fr, out.usage.get(fr, 0), reqs[res], out)
            gm = (mode, borrow)
            if is_preferred(rep, gm, fung):
                rep = gm
            if rep[0] == NOFIT:
                break
            choices[res] = FlavorChoice(fname, _to_assignment_mode(mode), borrow)
        return choices, rep

    def fits_resource_quota(self, fr: FR, assumed: int, request: int, out: Assignment) -> tuple[int, int]:
        """How `fr` could be used: (granular mode, borrowing level); appends reasons to `out`
        (a shortfall as a `QuotaNote`: its figures now, its text when read)."""
        node = self.state.node
        avail = rn.cq_available(node, fr)
        maxcap = rn.potential_available(node, fr)
        val = assumed + request
        if val > maxcap:
            out.notes.append(QuotaNote(True, fr, val, maxcap, self.state))
            return NOFIT, 0
        borrow, may_reclaim = rn.lowest_subtree_height(node, fr, val)
        if val <= avail:
            return FIT, borrow
        out.notes.append(QuotaNote(False, fr, val, avail, self.state))
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
        fidx, ps, group, reqs, out = self._probe
        known = self._stop
        if known is not None and (known[1] > fidx or (known[1] < 0 and known[0] <= fidx)):
            return known[1]
        stop = -1
        for j in range(fidx + 1, len(group.flavors)):
            fname = group.flavors[j].name
            flavor = self.snap.flavors.get(fname)
            if flavor is None:
                continue
            if flavor.topology_name is not None:
                break  # the topology check could end the search here: no shortcut
            if flavor_mismatch(flavor, ps) is not None:
                continue
            if self._stops_outright(fname, reqs, out):
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
        return not should_try_next((FIT, worst), self.state.spec.flavor_fungibility)

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
    nominal = node.nominal.get(fr, 0)
    usage = node.usage.get(fr, 0)
    if parent is None:
        return (state.name, nominal, usage, None, None, None, 0)
    free = max(0, rn.available(parent, fr))
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
