"""Kueue's API objects as plain typed records (the subset admission depends on).

Field names follow Kueue's v1beta2 API (`vocab.KUEUE_GROUP`); `parse.py` also reads v1beta1.
Quantities are integers in milli-units (see `quantity.py`). A `Workload` can be built directly in Python
(the simulator does) or parsed from YAML; `Workload.problem` carries a misconfiguration that
makes it inadmissible instead of crashing the run.

The compiled twin compiles this module with mypyc (`gpuplane.twinbuild`), so these records are
native classes there: fields are C struct slots the compiled engine reads directly, no instance
`__dict__`, no attribute that is not declared here, and field types are checked when set (a float
field stores an int as a float). mypyc compiles a dataclass's fields but not the `__init__`
`dataclasses` generates (that one runs interpreted: mypyc/irbuild/classdef.py `DataClassBuilder`),
so the records built on every submit and admission (PodSet, PodSetAssignment, Admission, Workload)
write theirs out with the generated one's parameters, order and defaults (a dataclass keeps a
written `__init__`; a `default_factory` field takes None for a new empty container). Copies and
pickles go through `Record.__reduce__`: mypyc's own route calls `__init__` without arguments or
sets fields one by one, which a written `__init__` or a frozen dataclass refuses (mypyc docs:
differences_from_python.rst "Pickling and copying objects", native_classes.rst; python/mypy at
136cfb4). tests/kueue/test_records_copy.py checks both builds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from gpuplane.kube.quantity import parse_quantity

FR = tuple[str, str]
"""A (flavor, resource) pair: the unit every quota and usage is counted in."""


class Record:
    """Base of the records: copies and pickles rebuild a record through its `__init__`."""

    def __reduce__(self) -> tuple[Any, ...]:
        """(class, `__init__` arguments[, the other fields]): the `__init__` fields in order (as the
        generated and the written `__init__`s take them), then the memo fields set afterwards."""
        every = fields(self)  # type: ignore[arg-type]
        args = tuple(getattr(self, f.name) for f in every if f.init)
        state = {f.name: getattr(self, f.name) for f in every if not f.init}
        return (type(self), args, state) if state else (type(self), args)


@dataclass(frozen=True)
class Toleration(Record):
    """A pod or flavor toleration (core/v1 semantics)."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        """True when this toleration tolerates `taint` (apimachinery `ToleratesTaint`)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if not self.key and self.operator != "Exists":
            return False
        if self.operator == "Exists":
            return True
        return self.value == taint.value

    # Written out (what `dataclass` generates, as mypyc compiles it): TAS keys its per-shape
    # caches by pod sets' tolerations and affinity terms, hashed and compared on every placement.
    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.value, self.effect))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Toleration)
        return (self.key, self.operator, self.value, self.effect) == (
            other.key,
            other.operator,
            other.value,
            other.effect,
        )


@dataclass(frozen=True)
class Taint(Record):
    """A flavor node taint."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclass(frozen=True)
class SelectorRequirement(Record):
    """One `matchExpressions` item of a label or node selector."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Evaluate against a label set (In, NotIn, Exists, DoesNotExist, Gt, Lt)."""
        present = self.key in labels
        op = self.operator
        if op == "In":
            return present and labels[self.key] in self.values
        if op == "NotIn":
            return not present or labels[self.key] not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        if op in ("Gt", "Lt") and present and self.values:
            try:
                have, want = int(labels[self.key]), int(self.values[0])
            except ValueError:
                return False
            return have > want if op == "Gt" else have < want
        return False

    # Written out, as Toleration's: part of the affinity terms TAS keys its caches by.
    def __hash__(self) -> int:
        return hash((self.key, self.operator, self.values))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, SelectorRequirement)
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)


@dataclass(frozen=True)
class LabelSelector(Record):
    """A metav1.LabelSelector; an empty one matches everything."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[SelectorRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when every label and expression matches."""
        if any(labels.get(k) != v for k, v in self.match_labels):
            return False
        return all(req.matches(labels) for req in self.match_expressions)


@dataclass(frozen=True)
class ResourceFlavor(Record):
    """A ResourceFlavor: node labels, taints and tolerations."""

    name: str
    node_labels: Mapping[str, str] = field(default_factory=dict)
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    topology_name: str | None = None
    """`spec.topologyName`: a TAS flavor (see `gpuplane.kueue.tas`)."""


@dataclass(frozen=True)
class ResourceQuota(Record):
    """Quota of one resource in one flavor: milli-units; None limits mean unlimited / lend all."""

    name: str
    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(frozen=True)
class FlavorQuotas(Record):
    """One flavor entry of a resource group."""

    name: str
    resources: tuple[ResourceQuota, ...]


@dataclass(frozen=True)
class ResourceGroup(Record):
    """Resources that always get the same flavor, with flavors in preference order."""

    covered_resources: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True)
class PreemptionPolicy(Record):
    """ClusterQueue `spec.preemption`; empty strings behave as Never (kueue.md §10.11)."""

    within_cluster_queue: str = "Never"
    reclaim_within_cohort: str = "Never"
    borrow_within_cohort: str = "Never"
    max_priority_threshold: int | None = None


@dataclass(frozen=True)
class FlavorFungibility(Record):
    """ClusterQueue `spec.flavorFungibility` (v1beta1 Borrow/Preempt mapped to MayStopSearch)."""

    when_can_borrow: str = "MayStopSearch"
    when_can_preempt: str = "TryNextFlavor"
    preference: str | None = None


@dataclass(frozen=True)
class ClusterQueue(Record):
    """A ClusterQueue spec. `namespace_selector=None` matches no namespace (as in Kueue)."""

    name: str
    cohort: str | None = None
    resource_groups: tuple[ResourceGroup, ...] = ()
    namespace_selector: LabelSelector | None = LabelSelector()
    queueing_strategy: str = "BestEffortFIFO"
    preemption: PreemptionPolicy = PreemptionPolicy()
    flavor_fungibility: FlavorFungibility = FlavorFungibility()
    fair_weight: float = 1.0
    stop_policy: str = "None"


@dataclass(frozen=True)
class Cohort(Record):
    """A Cohort object: optional parent, own (shared) quota and fair-sharing weight."""

    name: str
    parent: str | None = None
    resource_groups: tuple[ResourceGroup, ...] = ()
    fair_weight: float = 1.0


@dataclass(frozen=True)
class LocalQueue(Record):
    """A namespaced LocalQueue pointing at a ClusterQueue."""

    namespace: str
    name: str
    cluster_queue: str
    stop_policy: str = "None"


@dataclass(frozen=True)
class PriorityClass(Record):
    """A WorkloadPriorityClass or a core PriorityClass (`kind` tells which)."""

    name: str
    value: int
    kind: str = "WorkloadPriorityClass"
    global_default: bool = False


@dataclass(frozen=True)
class Namespace(Record):
    """A Namespace and its labels (for ClusterQueue namespaceSelector)."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass
class PodSet(Record):
    """A group of identical pods. `requests` are per pod: quantities (`"16Gi"`) or numbers of units."""

    name: str
    count: int
    requests: Mapping[str, Any] = field(default_factory=dict)
    min_count: int | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()
    affinity_terms: tuple[tuple[SelectorRequirement, ...], ...] | None = None
    topology: Any = None
    """The pod set's `topologyRequest` (`gpuplane.kueue.tas.model.TopologyRequest`), or None."""
    per_pod: dict[str, int] = field(init=False, repr=False)
    #: Memo of `flavor_assigner.flavor_mismatch` per flavor name: (flavor, verdict). The pod
    #: set's selectors and tolerations never change, so the verdict holds for that flavor object.
    mismatch: dict[str, tuple[object, str | None]] = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        name: str,
        count: int,
        requests: Mapping[str, Any] | None = None,
        min_count: int | None = None,
        node_selector: Mapping[str, str] | None = None,
        tolerations: tuple[Toleration, ...] = (),
        affinity_terms: tuple[tuple[SelectorRequirement, ...], ...] | None = None,
        topology: Any = None,
    ) -> None:
        # Written out (the dataclass keeps it) so mypyc compiles it: a generated one runs interpreted.
        self.name = name
        self.count = count
        self.requests = {} if requests is None else requests
        self.min_count = min_count
        self.node_selector = {} if node_selector is None else node_selector
        self.tolerations = tolerations
        self.affinity_terms = affinity_terms
        self.topology = topology
        self.per_pod = {res: parse_quantity(q) for res, q in self.requests.items()}
        self.mismatch = {}


@dataclass
class PodSetAssignment(Record):
    """One pod set of `status.admission`: flavors per resource, total usage and admitted count."""

    name: str
    flavors: dict[str, str]
    resource_usage: dict[str, int]
    count: int
    topology_assignment: Any = None
    """`topologyAssignment` (`gpuplane.kueue.tas.model.TopologyAssignment`), or None."""

    def __init__(
        self,
        name: str,
        flavors: dict[str, str],
        resource_usage: dict[str, int],
        count: int,
        topology_assignment: Any = None,
    ) -> None:
        self.name = name
        self.flavors = flavors
        self.resource_usage = resource_usage
        self.count = count
        self.topology_assignment = topology_assignment


@dataclass
class Admission(Record):
    """`status.admission`: the ClusterQueue and the pod set assignments."""

    cluster_queue: str
    pod_set_assignments: list[PodSetAssignment]

    def __init__(self, cluster_queue: str, pod_set_assignments: list[PodSetAssignment]) -> None:
        self.cluster_queue = cluster_queue
        self.pod_set_assignments = pod_set_assignments


@dataclass
class Workload(Record):
    """A Workload: what it asks for, and (when admitted) what it holds.

    `creation_time` is in seconds (any epoch); `priority` is the effective priority. `admission`
    set means the workload holds quota (QuotaReserved). `evicted` marks a workload already told to
    leave that still holds its quota until released.
    """

    namespace: str
    name: str
    queue_name: str
    priority: int = 0
    creation_time: float = 0.0
    pod_sets: list[PodSet] = field(default_factory=list)
    uid: str = ""
    active: bool = True
    admission: Admission | None = None
    evicted: bool = False
    quota_reserved_time: float | None = None
    problem: str | None = None
    source: str = ""
    requeue_time: float | None = None
    owners: tuple[tuple[str, str, str], ...] = ()
    """`metadata.ownerReferences` as (kind, name, uid): the job object a Workload belongs to."""
    runtime_hint: tuple[float, str] | None = None
    """(seconds, source) the workload is known or expected to run, for `explain --eta`."""
    #: `namespace/name`, the identity used everywhere (set once: both are fixed at creation).
    key: str = field(init=False, repr=False, compare=False)
    #: Scheduling-equivalence shape, memoised by `queues.shape_of` (pod sets are fixed at creation).
    shape: tuple[object, ...] | None = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        namespace: str,
        name: str,
        queue_name: str,
        priority: int = 0,
        creation_time: float = 0.0,
        pod_sets: list[PodSet] | None = None,
        uid: str = "",
        active: bool = True,
        admission: Admission | None = None,
        evicted: bool = False,
        quota_reserved_time: float | None = None,
        problem: str | None = None,
        source: str = "",
        requeue_time: float | None = None,
        owners: tuple[tuple[str, str, str], ...] = (),
        runtime_hint: tuple[float, str] | None = None,
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.queue_name = queue_name
        self.priority = priority
        self.creation_time = creation_time
        self.pod_sets = [] if pod_sets is None else pod_sets
        self.uid = uid
        self.active = active
        self.admission = admission
        self.evicted = evicted
        self.quota_reserved_time = quota_reserved_time
        self.problem = problem
        self.source = source
        self.requeue_time = requeue_time
        self.owners = owners
        self.runtime_hint = runtime_hint
        self.key = f"{namespace}/{name}"
        self.shape = None

    @property
    def order_time(self) -> float:
        """Queue-order timestamp: creation, or the eviction time for timeout/check evictions."""
        return self.creation_time if self.requeue_time is None else self.requeue_time

    def can_be_partially_admitted(self) -> bool:
        """True when some pod set declares a minCount below its count."""
        return any(ps.min_count is not None and ps.min_count < ps.count for ps in self.pod_sets)

    def admitted_usage(self) -> dict[FR, int]:
        """Quota held per (flavor, resource), from `status.admission` (empty when not admitted)."""
        usage: dict[FR, int] = {}
        if self.admission is None:
            return usage
        for psa in self.admission.pod_set_assignments:
            for res, amount in psa.resource_usage.items():
                flavor = psa.flavors.get(res)
                if flavor is None:
                    continue
                fr = (flavor, res)
                usage[fr] = usage.get(fr, 0) + amount
        return usage


@dataclass(frozen=True)
class FairSharingConfig(Record):
    """The `fairSharing` section of a Kueue Configuration."""

    enable: bool = True
    preemption_strategies: tuple[str, ...] = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
