"""The platform spec as pydantic v2 models: one declarative description of a GPU cluster.

YAML uses camelCase keys (kubectl habit); Python attributes are snake_case. Unknown keys are
errors, so a typo never silently does nothing.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from gpuplane.catalog.providers import renderable_names
from gpuplane.vocab import GPU_RESOURCE, GPU_SHARED_RESOURCE, GPU_TAINT_KEY, GPU_TAINT_VALUE, SPEC_API_VERSION

GpuStack = Literal["operator", "provider"]
DeviceApi = Literal["devicePlugin", "dra"]
WorkloadClass = Literal["training", "inference", "batch"]
TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
SharingMode = Literal["exclusive", "mig", "time-slicing", "mps"]
MigStrategy = Literal["single", "mixed"]
QueueingStrategy = Literal["BestEffortFIFO", "StrictFIFO"]
WithinClusterQueue = Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"]
ReclaimWithinCohort = Literal["Never", "LowerPriority", "Any"]
BorrowWithinCohortPolicy = Literal["Never", "LowerPriority"]
FairSharingStrategy = Literal["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
Waiver = Literal["inference-on-spot", "no-taints", "quota-above-capacity"]
DefaultPriorityBy = Literal["auto", "mutatingAdmissionPolicy", "kyverno", "none"]
EgressProtocol = Literal["TCP", "UDP", "SCTP"]
FabricType = Literal["none", "EFA", "InfiniBand", "RoCE", "TCPXO"]
PurchaseKind = Literal[
    "on-demand",
    "spot",
    "reserved",
    "capacity-block",
    "calendar-reservation",
    "capacity-reservation",
    "flex-start",
]
ReservationTerm = Literal["1y", "3y"]
PaymentOption = Literal["all-upfront", "partial-upfront", "no-upfront"]

DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
# The taint NVIDIA's docs and Kubernetes' ExtendedResourceToleration admission plugin pair with
# whole-GPU resource requests (key = the extended resource name, vocab.GPU_RESOURCE).
DEFAULT_GPU_TAINT = (GPU_TAINT_KEY, GPU_TAINT_VALUE)


class SpecModel(BaseModel):
    """Base: camelCase aliases, unknown keys rejected, population by field name allowed."""

    # allow_inf_nan=False: "inf" or "nan" written as a string is refused too (JSON outputs stay JSON).
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=False, allow_inf_nan=False
    )


class Cluster(SpecModel):
    """The cluster itself."""

    name: str = Field(pattern=DNS_LABEL, max_length=63, description="Cluster name (DNS label).")
    provider: str = Field(
        description="Where node pools are provisioned: "
        + ", ".join(renderable_names())
        + " (`gpuplane providers` lists what each does).",
        json_schema_extra={"enum": list(renderable_names())},
    )
    region: str = Field(
        default="", description="Cloud region (e.g. eastus, us-central1); prices are looked up here."
    )
    kubernetes_version: str = Field(
        default="1.30",
        pattern=r"^1\.[0-9]{2}$",
        description='Kubernetes minor version, e.g. "1.30" (a patch version such as 1.30.4 is cut to its minor).',
    )

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _minor_version(cls, value: object) -> object:
        # 1.30 written as a YAML number, or a patch release: keep major.minor, as the schemas key on it.
        if isinstance(value, float):
            value = f"{value:.2f}"
        if isinstance(value, str) and re.fullmatch(r"v?1\.[0-9]{2}\.[0-9]+", value):
            value = value.lstrip("v").rsplit(".", 1)[0]
        return value

    resource_group: str = Field(default="", description="AKS resource group (used in `az` commands).")
    gpu_stack: GpuStack = Field(
        default="operator",
        description="Who runs the GPU stack: operator (the NVIDIA GPU Operator: device plugin, MIG "
        "Manager, DCGM; the provider's facts say who brings the driver) or provider (the provider's own "
        "driver, MIG and sharing switches, e.g. AKS --gpu-instance-profile, GKE gpu-partition-size).",
    )
    device_api: DeviceApi = Field(
        default="devicePlugin",
        description=f"How pods get GPUs: devicePlugin (extended resources such as {GPU_RESOURCE}) or dra "
        "(Dynamic Resource Allocation with NVIDIA's DRA driver); a pool may override it.",
    )
    default_priority_by: DefaultPriorityBy = Field(
        default="auto",
        description="What gives a team's jobs that name no priority class the team's priorityClass: "
        "auto (a MutatingAdmissionPolicy where Kubernetes runs it by default, 1.36+; else nothing), "
        "mutatingAdmissionPolicy (also on 1.32-1.35, where you turned its feature gate and API on), "
        "kyverno (a Kyverno ClusterPolicy; Kyverno must be installed) or none.",
    )

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        names = renderable_names()
        if value not in names:
            raise ValueError(f"unknown provider {value!r}; expected one of {', '.join(names)}")
        return value


class Taint(SpecModel):
    """A node taint."""

    key: str = Field(min_length=1, description=f"Taint key, e.g. {GPU_TAINT_KEY}.")
    value: str = Field(default="", description="Taint value.")
    effect: TaintEffect = Field(
        default="NoSchedule", description="NoSchedule, PreferNoSchedule or NoExecute."
    )


def _parse_taint(text: str) -> dict[str, str]:
    """`key=value:Effect` or `key:Effect` as kubectl writes taints; pydantic checks the parts."""
    head, _, effect = text.rpartition(":")
    if not head:
        return {"key": text}
    key, _, taint_value = head.partition("=")
    return {"key": key, "value": taint_value, "effect": effect}


class Spot(SpecModel):
    """Spot / preemptible capacity for a pool."""

    enabled: bool = Field(default=False, description="Run the pool on spot / preemptible VMs.")
    max_price: float = Field(
        default=-1, description="Max hourly price; -1 means pay up to on-demand (AKS convention)."
    )


class Sharing(SpecModel):
    """How a pool shares its GPUs between pods."""

    mode: SharingMode = "exclusive"
    strategy: MigStrategy = Field(default="single", description="MIG strategy: single or mixed.")
    layout: list[str] | None = Field(
        default=None,
        min_length=1,
        description="MIG: profiles of one GPU, e.g. [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb].",
    )
    config: str | None = Field(
        default=None, description="MIG: name of a GPU Operator default MIG config, e.g. all-1g.10gb."
    )
    replicas: int = Field(default=1, ge=1, description="time-slicing / mps: replicas per GPU.")
    rename_shared: bool = Field(
        default=False,
        description=f"Advertise shared GPUs as {GPU_SHARED_RESOURCE} instead of {GPU_RESOURCE}.",
    )


class PoolFabric(SpecModel):
    """The pool's multi-node fabric."""

    type: FabricType = Field(default="none", description="none, EFA, InfiniBand, RoCE or TCPXO.")
    nics_per_node: int = Field(default=0, ge=0, description="Fabric NICs (EFA devices, HCAs) per node.")


class PoolTopology(SpecModel):
    """Where the pool's nodes sit: topology levels for Kueue's TAS, domain sizes, fabric."""

    levels: list[str] | None = Field(
        default=None,
        description="Node labels, coarse to fine, kubernetes.io/hostname last; default: the provider's "
        "topology labels (gke, eks: catalog providers.yaml, fact topology). aks and generic must list them.",
    )
    domain_sizes: dict[str, int] = Field(
        default_factory=dict,
        description="Nodes per domain of a level (level label -> nodes), for the twin's placement; "
        "levels not given hold every node of the pool.",
    )
    fabric: PoolFabric = Field(default_factory=PoolFabric, description="The multi-node fabric.")
    slowdown: dict[str, float] = Field(
        default_factory=dict,
        description="Runtime factor of a multi-node job whose pods span a domain of this level "
        "(level label, or `cluster` for several top domains); default: fabric.yaml's per-tier figures.",
    )
    compact_placement: bool = Field(
        default=True,
        description="Ask the provider for dense placement (eksctl placement group, GKE compact placement).",
    )


class Placement(SpecModel):
    """Which topology level a team's multi-node jobs require or prefer (Kueue TAS annotations)."""

    required: str | None = Field(default=None, description="Level label every pod must share a domain of.")
    preferred: str | None = Field(default=None, description="Level label Kueue tries first, then climbs.")


class PurchaseSegment(SpecModel):
    """How some of a pool's nodes are bought; options per provider: catalog purchase_options.yaml."""

    option: PurchaseKind = Field(
        description="on-demand or spot (burst, up to maxNodes), reserved (1y/3y commitment, paid whether used), "
        "capacity-block (AWS: nodes only inside [start, end), terminated at the end), calendar-reservation "
        "(GCP, paid whether used), capacity-reservation (AKS CRG / AWS ODCR), flex-start (GCP DWS)."
    )
    count: int | None = Field(
        default=None,
        ge=1,
        description="Nodes bought (reserved, capacity-block, calendar-reservation, flex-start).",
    )
    max: int | None = Field(default=None, ge=1, description="flex-start: at most this many nodes at once.")
    term: ReservationTerm | None = Field(default=None, description="reserved: commitment term, 1y or 3y.")
    payment: PaymentOption | None = Field(default=None, description="reserved: how the commitment is paid.")
    hourly: float | None = Field(
        default=None,
        ge=0,
        description="Price per node-hour (amortised: an up-front payment spread over the hours it buys). "
        "Required when the catalog publishes none (every reservation and block today).",
    )
    start: datetime.datetime | None = Field(
        default=None, description="capacity-block / calendar-reservation start (UTC)."
    )
    end: datetime.datetime | None = Field(
        default=None, description="capacity-block / calendar-reservation end (UTC)."
    )
    provisioning_delay: str | None = Field(
        default=None,
        description="flex-start: time from request to node (a duration, e.g. 2h); none is published.",
    )
    reservation: str | None = Field(
        default=None,
        description="The provider reservation the nodes consume (render): GKE reservation name "
        "(--reservation-affinity=specific), AKS capacity reservation group resource id (--crg-id).",
    )
    max_run: str | None = Field(
        default=None,
        description="flex-start: longest a node runs (duration); default and ceiling: the catalog's.",
    )


class NodePool(SpecModel):
    """One GPU (or CPU) node pool."""

    name: str = Field(
        pattern=DNS_LABEL, max_length=40, description="Pool name (DNS label); also its Kueue flavor name."
    )
    accelerator: str | None = Field(
        default=None, description="Catalog accelerator name; empty for CPU pools."
    )
    vm_size: str = Field(default="", description="VM size / machine type / instance type.")
    gpus_per_node: int | None = Field(
        default=None, ge=0, description="Derived from the catalog when omitted."
    )
    min_nodes: int = Field(default=0, ge=0, description="Autoscaler minimum; 0 lets the pool scale to zero.")
    max_nodes: int = Field(default=1, ge=0, description="Autoscaler maximum.")
    spot: Spot = Field(
        default_factory=Spot, description="Spot capacity settings; `spot: true` is short for {enabled: true}."
    )
    zones: list[str] = Field(default_factory=list, description="Availability zones the pool spans.")
    taints: list[Taint] = Field(
        default_factory=list,
        description=f"Omitted on a GPU pool: {GPU_TAINT_KEY}={GPU_TAINT_VALUE}:NoSchedule. "
        "An explicit [] needs the no-taints waiver.",
    )
    labels: dict[str, str] = Field(
        default_factory=dict, description="Extra node labels (gpuplane adds its own schema)."
    )
    workload_classes: list[WorkloadClass] = Field(
        default_factory=lambda: list[WorkloadClass](["training", "batch"]),
        description="Work the pool serves: training, inference, batch.",
    )
    driver_version: str | None = Field(default=None, description="NVIDIA driver version, e.g. 550.90.07.")
    device_api: DeviceApi | None = Field(
        default=None,
        description="devicePlugin or dra for this pool; default: cluster.deviceApi.",
    )
    sharing: Sharing = Field(default_factory=Sharing, description="How pods share the pool's GPUs.")
    waivers: list[Waiver] = Field(
        default_factory=list,
        description="Accepted risks: inference-on-spot, no-taints, quota-above-capacity.",
    )
    cpu_per_node: float | None = Field(
        default=None, gt=0, description="vCPUs per node; from the catalog when known."
    )
    memory_gib_per_node: float | None = Field(
        default=None,
        gt=0,
        alias="memoryGiBPerNode",
        description="Memory per node; from the catalog when known.",
    )
    topology: PoolTopology | None = Field(
        default=None,
        description="Topology levels, domain sizes and fabric; renders a Kueue Topology and a TAS flavor.",
    )
    purchase: list[PurchaseSegment] = Field(
        default_factory=list,
        description="How the pool's nodes are bought, e.g. a reserved base plus on-demand or spot burst; "
        "empty: all on-demand (or spot with spot: true).",
    )

    @field_validator("spot", mode="before")
    @classmethod
    def _spot_shorthand(cls, value: object) -> object:
        return {"enabled": value} if isinstance(value, bool) else value

    @field_validator("sharing", mode="before")
    @classmethod
    def _sharing_shorthand(cls, value: object) -> object:
        return {"mode": value} if isinstance(value, str) else value

    @field_validator("taints", mode="before")
    @classmethod
    def _kubectl_taints(cls, value: object) -> object:
        # kubectl's `key=value:Effect` (or `key:Effect`) strings, as az/gcloud/kubectl take them.
        if not isinstance(value, list):
            return value
        return [_parse_taint(item) if isinstance(item, str) else item for item in value]

    @model_validator(mode="after")
    def _default_gpu_taint(self) -> NodePool:
        # A GPU pool with no taints given gets the taint that ExtendedResourceToleration tolerates
        # for every pod requesting a whole GPU, so CPU pods never land on GPU nodes.
        if "taints" not in self.model_fields_set and self.accelerator:
            self.taints = [Taint(key=DEFAULT_GPU_TAINT[0], value=DEFAULT_GPU_TAINT[1], effect="NoSchedule")]
        return self

    @property
    def is_gpu(self) -> bool:
        """Whether the pool has GPUs."""
        return bool(self.accelerator)

    @property
    def gpus(self) -> int:
        """GPUs per node (0 for CPU pools or when unknown before catalog resolution)."""
        return self.gpus_per_node or 0

    @property
    def taints_explicitly_empty(self) -> bool:
        """Whether the spec says `taints: []` (no taints) rather than leaving them unset."""
        return "taints" in self.model_fields_set and not self.taints


def _cidr(value: str) -> str:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise ValueError(f"{value!r} is not a CIDR (e.g. 10.0.0.0/16 or 2001:db8::/32)") from None
    if "/" not in value:
        raise ValueError(f"{value!r} has no prefix length (e.g. {value}/32)")
    return value


class EgressPort(SpecModel):
    """A destination port (or range) an egress rule opens."""

    port: int = Field(ge=1, le=65535, description="Port number, e.g. 443.")
    end_port: int | None = Field(
        default=None, ge=1, le=65535, description="Last port of a range starting at `port`."
    )
    protocol: EgressProtocol = Field(default="TCP", description="TCP, UDP or SCTP.")

    @model_validator(mode="after")
    def _range(self) -> EgressPort:
        if self.end_port is not None and self.end_port < self.port:
            raise ValueError(f"endPort {self.end_port} is below port {self.port}")
        return self


class EgressRule(SpecModel):
    """Somewhere team pods may connect to outside the cluster: object storage, a registry, a model hub."""

    name: str = Field(pattern=DNS_LABEL, max_length=63, description="What it reaches, e.g. object-storage.")
    cidrs: list[str] = Field(min_length=1, description="Destination CIDRs, e.g. [10.20.0.0/16].")
    except_cidrs: list[str] = Field(
        default_factory=list, alias="except", description="CIDRs inside `cidrs` that stay closed."
    )
    ports: list[EgressPort] = Field(
        default_factory=list, description="Ports opened (`443` is short for {port: 443}); empty: every port."
    )

    @field_validator("cidrs", "except_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        return [_cidr(v) for v in value]

    @field_validator("ports", mode="before")
    @classmethod
    def _port_shorthand(cls, value: object) -> object:
        if isinstance(value, list):
            return [{"port": v} if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value

    @model_validator(mode="after")
    def _except_inside(self) -> EgressRule:
        nets = [ipaddress.ip_network(c, strict=False) for c in self.cidrs]
        for text in self.except_cidrs:
            ex = ipaddress.ip_network(text, strict=False)
            if not any(
                ex.version == n.version and ex.subnet_of(n) and ex != n  # type: ignore[arg-type]
                for n in nets
            ):
                raise ValueError(f"except {text} is not strictly inside one of the cidrs {self.cidrs}")
        return self


class Network(SpecModel):
    """What every team namespace may reach beyond DNS and its own pods."""

    egress: list[EgressRule] = Field(
        default_factory=list,
        description="Egress every team namespace gets (teams[].egress adds per team); none: DNS only.",
    )


class Quota(SpecModel):
    """A team's GPU quota in one pool (Kueue nominal / borrowing / lending limits)."""

    pool: str = Field(description="Name of the node pool.")
    resource: str | None = Field(
        default=None,
        description="Resource name when the pool exposes several (MIG mixed); default: the pool's.",
    )
    nominal: int = Field(ge=0, description="Guaranteed units (GPUs, MIG instances or shared replicas).")
    borrowing_limit: int | None = Field(
        default=None, ge=0, description="Most it may borrow from the cohort; none = unlimited."
    )
    lending_limit: int | None = Field(
        default=None, ge=0, description="Most of its nominal it lends to the cohort; none = all."
    )


class Team(SpecModel):
    """A tenant: namespaces, identity groups, quotas and priority."""

    name: str = Field(pattern=DNS_LABEL, max_length=40, description="Team name; also its ClusterQueue name.")
    namespaces: list[str] = Field(
        default_factory=list, description="Namespaces the team owns (one LocalQueue each)."
    )
    groups: list[str] = Field(
        default_factory=list, description="Identity groups bound to the team's namespaces."
    )
    cohort: str | None = Field(default=None, description="Kueue cohort; default queueing.defaultCohort.")
    quotas: list[Quota] = Field(default_factory=list, description="Per-pool GPU quotas.")
    priority_class: str | None = Field(
        default=None, description="Default priority class (a queueing.priorityClasses name)."
    )
    spot_allowed: bool = Field(default=True, description="Whether the team may hold quota on spot pools.")
    placement: Placement | None = Field(
        default=None, description="Topology level the team's multi-node jobs require or prefer."
    )
    fair_sharing_weight: float = Field(
        default=1.0, ge=0, description="Fair-sharing weight of the team's ClusterQueue."
    )
    egress: list[EgressRule] = Field(
        default_factory=list, description="Egress the team's namespaces get beyond network.egress."
    )

    @field_validator("namespaces")
    @classmethod
    def _dns_namespaces(cls, value: list[str]) -> list[str]:
        for ns in value:
            if not re.fullmatch(DNS_LABEL, ns) or len(ns) > 63:
                raise ValueError(f"namespace {ns!r} is not a valid DNS label")
        return value


class Cohort(SpecModel):
    """A Kueue cohort; `parent` makes a hierarchy."""

    name: str = Field(pattern=DNS_LABEL, description="Cohort name.")
    parent: str | None = Field(default=None, description="Parent cohort (hierarchical cohorts).")


class BorrowWithinCohort(SpecModel):
    """Preemption while borrowing."""

    policy: BorrowWithinCohortPolicy = Field(default="Never", description="Never or LowerPriority.")
    max_priority_threshold: int | None = Field(
        default=None, description="Only preempt workloads at or below this priority."
    )


class Preemption(SpecModel):
    """Kueue ClusterQueue preemption policy, applied to every team's ClusterQueue."""

    within_cluster_queue: WithinClusterQueue = Field(
        default="LowerPriority", description="Never, LowerPriority or LowerOrNewerEqualPriority."
    )
    reclaim_within_cohort: ReclaimWithinCohort = Field(
        default="Any", description="Never, LowerPriority or Any."
    )
    borrow_within_cohort: BorrowWithinCohort = Field(
        default_factory=BorrowWithinCohort, description="Preemption while borrowing."
    )


class FairSharing(SpecModel):
    """Kueue fair sharing (dominant resource share with weights)."""

    enabled: bool = Field(
        default=False, description="Turn fair sharing on (Kueue Configuration fairSharing)."
    )
    preemption_strategies: list[FairSharingStrategy] = Field(
        default_factory=lambda: list[FairSharingStrategy](
            ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
        )
    )


class PriorityClass(SpecModel):
    """A priority class, rendered as both a Kubernetes PriorityClass and a Kueue WorkloadPriorityClass."""

    name: str = Field(pattern=DNS_LABEL, description="Priority class name.")
    value: int = Field(description="Priority value; higher preempts lower.")
    description: str = Field(default="", description="Free text.")
    preemption_policy: Literal["PreemptLowerPriority", "Never"] = "PreemptLowerPriority"


class Queueing(SpecModel):
    """Kueue queueing policy."""

    default_cohort: str | None = Field(
        default="gpu", description="Cohort of teams that name none; null: no cohort."
    )
    cohorts: list[Cohort] = Field(default_factory=list, description="Cohorts with optional parents.")
    queueing_strategy: QueueingStrategy = Field(
        default="BestEffortFIFO", description="BestEffortFIFO or StrictFIFO."
    )
    preemption: Preemption = Field(
        default_factory=Preemption, description="Preemption policy of every ClusterQueue."
    )
    fair_sharing: FairSharing = Field(default_factory=FairSharing, description="Fair sharing.")
    priority_classes: list[PriorityClass] = Field(default_factory=list, description="Priority classes.")
    flavor_fungibility: Literal["Borrow", "Preempt"] = Field(
        default="Borrow", description="whenCanBorrow: try borrowing before the next flavor (Kueue default)."
    )


class Alerts(SpecModel):
    """Alert thresholds for the rendered PrometheusRules."""

    idle_util_percent: float = Field(
        default=5, ge=0, le=100, description="An allocated GPU below this utilisation is idle."
    )
    idle_minutes: int = Field(
        default=30, ge=1, description="How long an allocated GPU may idle before alerting."
    )
    pending_minutes: int = Field(
        default=60, ge=1, description="How long a GPU workload may pend before alerting."
    )
    pool_at_max_minutes: int = Field(
        default=15, ge=1, description="How long a pool may sit at maxNodes before alerting."
    )


class Monitoring(SpecModel):
    """Monitoring: where the rules and exporter go, and the alert thresholds."""

    namespace: str = Field(
        default="gpu-monitoring", pattern=DNS_LABEL, description="Namespace of monitoring objects."
    )
    alerts: Alerts = Field(default_factory=Alerts, description="Alert thresholds.")


class PoolPriceOverride(SpecModel):
    """Per node-hour price overrides for one pool."""

    on_demand_hourly: float | None = Field(default=None, ge=0)
    spot_hourly: float | None = Field(default=None, ge=0)


class StorageVolume(SpecModel):
    """A volume the platform pays for whether used or not (shared filesystem, checkpoints, data)."""

    name: str = Field(description="What it is (for reports).")
    gib: float = Field(gt=0, description="Provisioned size in GiB, billed at storagePerGiBMonth.")
    team: str | None = Field(default=None, description="The team it belongs to (its share of the cost).")
    pool: str | None = Field(default=None, description="The pool it serves (e.g. local checkpoints).")


class NetworkTraffic(SpecModel):
    """Traffic the platform's work moves, billed at networkPerGiB."""

    per_accepted_unit_gib: float | None = Field(
        default=None, ge=0, alias="perAcceptedUnitGiB", description="GiB moved per accepted unit."
    )
    per_gpu_hour_gib: float | None = Field(
        default=None, ge=0, alias="perGpuHourGiB", description="GiB moved per allocated GPU-hour."
    )


class Costs(SpecModel):
    """Prices and overheads for the cost model shared by simulate and account."""

    currency: str = Field(default="USD", description="Currency of every price.")
    pools: dict[str, PoolPriceOverride] = Field(
        default_factory=dict, description="Per-pool node-hour price overrides."
    )
    support_monthly: float = Field(default=0, ge=0, description="Monthly support contract, prorated.")
    operations_monthly: float = Field(
        default=0, ge=0, description="Monthly operations staff/tooling, prorated."
    )
    storage_per_gib_month: float = Field(
        default=0,
        ge=0,
        alias="storagePerGiBMonth",
        description="Storage price per GiB-month (checkpoints, data).",
    )
    network_per_gib: float = Field(
        default=0, ge=0, alias="networkPerGiB", description="Network price per GiB moved."
    )
    storage: list[StorageVolume] = Field(
        default_factory=list, description="Volumes billed at storagePerGiBMonth, pro rata over the window."
    )
    network: NetworkTraffic | None = Field(
        default=None, description="Traffic billed at networkPerGiB (per accepted unit or per GPU-hour)."
    )
    control_plane_tier: str | None = Field(
        default=None,
        description="Managed control-plane tier whose fee applies (aks: free/standard/premium; gke: standard; "
        "eks: standard/extended); fees in the catalog (control_plane.yaml).",
    )


class PlatformSpec(SpecModel):
    """The whole platform: the one input every gpuplane engine reads."""

    api_version: str = Field(
        default=SPEC_API_VERSION, description="Spec version.", json_schema_extra={"const": SPEC_API_VERSION}
    )
    kind: Literal["Platform"] = Field(default="Platform", description="Always Platform.")
    cluster: Cluster = Field(description="The cluster.")
    node_pools: list[NodePool] = Field(min_length=1, description="GPU and CPU node pools.")
    teams: list[Team] = Field(default_factory=list, description="Tenants.")
    queueing: Queueing = Field(default_factory=Queueing, description="Kueue queueing policy.")
    monitoring: Monitoring = Field(default_factory=Monitoring, description="Monitoring and alerts.")
    costs: Costs = Field(default_factory=Costs, description="Prices and overheads.")
    network: Network = Field(default_factory=Network, description="Egress open to team namespaces.")

    @field_validator("api_version", mode="before")
    @classmethod
    def _known_api_version(cls, value: object) -> object:
        # The one version there is; the message is pydantic's Literal one, which the loader
        # shows with the value given (a non-string value included).
        if value != SPEC_API_VERSION:
            raise ValueError(f"Input should be {SPEC_API_VERSION!r} (got {value!r})")
        return value

    def pool(self, name: str) -> NodePool | None:
        """The pool called `name`, if any."""
        return next((p for p in self.node_pools if p.name == name), None)

    def team(self, name: str) -> Team | None:
        """The team called `name` (None when the spec has none)."""
        return next((t for t in self.teams if t.name == name), None)
