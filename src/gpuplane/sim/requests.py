"""What a trace workload asks Kubernetes for: resources per pod, node affinity, tolerations.

The same requests go to Kueue (quota) and to placement (nodes), as they would in a cluster. A
trace's pod set is first read in the device plugin's names (`gpuplane.vocab`, `gpuplane.sharing`):
- whole GPUs -> n of the GPU resource (`vocab.GPU_RESOURCE`);
- a MIG profile -> n of that profile's MIG resource (`vocab.mig_resource`);
- a GPU fraction (0 < f < 1) -> one unit of the shared resource (the GPU resource, or the renamed
  shared one where a pool advertises it, `sharing.resources.shared_resource_name`): a
  time-slicing/MPS replica on a shared pool, a whole GPU on an exclusive one, since Kubernetes
  cannot request part of a device.
Each pool then names the request as `render` does (`spec.derived.request_resource`, through
`PoolModel.request_name`): itself on a device-plugin pool, the quota name of the DRA claim that
gives the device on a DRA pool (`sharing.dra`: a whole GPU -> the pool's GPU kind, a MIG profile ->
its MIG kind). A pod asks either extended resources or claims, not both, so a
workload is written in one form: the one that reaches the most of its pools (ties: the first pool
in spec order), and its pods keep to the pools of that form.
- the workload class restricts pods to the pools whose `workloadClasses` include it, and a GPU
  model constraint to pools with a matching accelerator (node affinity on gpuplane's labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from gpuplane.sharing.resources import shared_resource_name
from gpuplane.sim.pools import PoolModel
from gpuplane.traces import Workload
from gpuplane.vocab import GPU_RESOURCE, mig_resource

GPU = GPU_RESOURCE
#: What shared GPUs are advertised as when a pool renames them (derived by `gpuplane.sharing`).
GPU_SHARED = shared_resource_name(True)


@dataclass(frozen=True, slots=True)
class PodRequest:
    """One pod set as requested: name, pods, resource and units per pod."""

    name: str
    count: int
    resource: str
    units: int


def shared_resource(pools: list[PoolModel]) -> str:
    """The resource a fractional pod asks for: the renamed shared resource where a pool advertises
    it (its GPUs are shared under that name, so whole-GPU pods stay off it), else the GPU resource."""
    offered = {res for p in pools for res, _ in p.per_gpu}
    return GPU_SHARED if GPU_SHARED in offered else GPU


def pod_requests(w: Workload, shared: str = GPU) -> tuple[PodRequest, ...]:
    """Per-pod requests of every GPU pod set of `w` (CPU-only pod sets are left out)."""
    out: list[PodRequest] = []
    for ps in w.pod_sets:
        if ps.mig_profile:
            out.append(
                PodRequest(ps.name, ps.count, mig_resource(ps.mig_profile), max(1, round(ps.gpus_per_pod)))
            )
        elif ps.gpus_per_pod >= 1:
            out.append(PodRequest(ps.name, ps.count, GPU, round(ps.gpus_per_pod)))
        elif ps.gpus_per_pod > 0:
            out.append(PodRequest(ps.name, ps.count, shared, 1))
    return tuple(out)


def allowed_pools(w: Workload, pools: list[PoolModel]) -> tuple[int, ...]:
    """Pools the workload's pods may land on: its class is allowed and its GPU model matches.

    A GPU-model constraint that no pool's accelerator matches is ignored (traces name models the
    spec may not have, e.g. Alibaba's `G2`); `model_ignored` tells callers when that happened.
    """
    by_class = [p for p in pools if w.klass in p.workload_classes]
    models = [m.lower() for m in w.allowed_gpu_models]
    if models:
        matching = [p for p in by_class if _model_matches(p.accelerator, models)]
        if matching:
            by_class = matching
    return tuple(p.index for p in by_class)


def on_pool(requests: tuple[PodRequest, ...], pool: PoolModel) -> tuple[PodRequest, ...] | None:
    """The requests as this pool names them (`PoolModel.request_name`), or None when the pool
    offers no device for one of them or none of its nodes holds a pod's request."""
    out: list[PodRequest] = []
    per_node = pool.per_node
    for r in requests:
        name = pool.request_name(r.resource)
        if name is None or per_node.get(name, 0) < r.units:
            return None
        out.append(r if name == r.resource else PodRequest(r.name, r.count, name, r.units))
    return tuple(out)


def allowed_pods(
    w: Workload, pools: list[PoolModel], shared: str = GPU
) -> tuple[tuple[PodRequest, ...], tuple[int, ...]]:
    """The workload's pod requests and the pools its pods may use and fit on.

    A pool qualifies when the class and GPU model allow it and one of its nodes offers every
    request of a pod (a 1g.10gb MIG device on a MIG pool, 8 GPUs on an 8-GPU node...). Pools that
    name the requests differently (device plugin vs DRA claims) are forms of the workload; it takes
    the form of the most pools (ties: the first in spec order). An empty pool tuple means no node
    of this platform can ever run the workload (the requests are then the device plugin's names).
    """
    wanted = pod_requests(w, shared)
    forms: dict[tuple[PodRequest, ...], list[int]] = {}
    for i in allowed_pools(w, pools):
        named = on_pool(wanted, pools[i])
        if named is not None:
            forms.setdefault(named, []).append(i)
    if not forms:
        return wanted, ()
    best = max(forms.items(), key=lambda item: (len(item[1]), -item[1][0]))
    return best[0], tuple(best[1])


def model_ignored(w: Workload, pools: list[PoolModel]) -> bool:
    """True when `w` names GPU models and no pool matches any of them."""
    models = [m.lower() for m in w.allowed_gpu_models]
    return bool(models) and not any(_model_matches(p.accelerator, models) for p in pools)


def _model_matches(accelerator: str, models: list[str]) -> bool:
    acc = accelerator.lower()
    return any(acc == m or acc.startswith(m + "-") or m.startswith(acc) for m in models)


def pods_for_placement(requests: tuple[PodRequest, ...]) -> list[tuple[str, int]]:
    """The gang as a flat list of (resource, units) per pod."""
    return [(r.resource, r.units) for r in requests for _ in range(r.count)]


def tolerated(pool: PoolModel, tolerations: frozenset[tuple[str, str]], resources: AbstractSet[str]) -> bool:
    """Whether pods tolerate every NoSchedule/NoExecute taint of the pool.

    `tolerations` are (key, value) pairs ("" value = operator Exists) a ResourceFlavor adds. The
    twin's GPU pods tolerate the GPU resource's taint key (as NVIDIA's docs tell users to) and, through
    Kubernetes' ExtendedResourceToleration admission plugin, every extended resource they request.
    """
    for key, value, effect in pool.taints:
        if effect == "PreferNoSchedule":
            continue
        if key == GPU or key in resources or (key, "") in tolerations or (key, value) in tolerations:
            continue
        return False
    return True


@dataclass(frozen=True)
class Ask:
    """Everything the twin derives from a workload's pod sets, class and GPU model, once per shape:
    its requests, the pools it may use, its pods for placement, the resources it asks for, and
    whether a GPU-model constraint was ignored. Equal shapes share one `Ask`."""

    requests: tuple[PodRequest, ...]
    pools: tuple[int, ...]
    pods: list[tuple[str, int]]
    resources: frozenset[str]
    model_ignored: bool
    #: GPUs (or MIG devices) the pod sets request together (`Workload.total_gpus`, equal for
    #: every workload with these pod sets).
    total_gpus: float
    _gpu_eq: dict[int, float] = field(default_factory=dict, compare=False, repr=False)
    _tolerated: dict[int, bool] = field(default_factory=dict, compare=False, repr=False)

    def tolerates(self, pool: PoolModel, tolerations: frozenset[tuple[str, str]]) -> bool:
        """`tolerated` for this workload's pods on `pool` (the pool's flavor tolerations are fixed)."""
        got = self._tolerated.get(pool.index)
        if got is None:
            got = self._tolerated[pool.index] = tolerated(pool, tolerations, self.resources)
        return got

    def gpu_eq(self, pool: PoolModel) -> float:
        """GPU-equivalents the workload holds on `pool` (a MIG 3g slice is 3/7, a replica 1/replicas)."""
        got = self._gpu_eq.get(pool.index)
        if got is None:
            got = self._gpu_eq[pool.index] = sum(
                r.count * r.units * pool.fraction(r.resource) for r in self.requests
            )
        return got


def ask_for(w: Workload, pools: list[PoolModel], shared: str = GPU) -> Ask:
    """The `Ask` of a workload on these pools."""
    requests, fitting = allowed_pods(w, pools, shared)
    return Ask(
        requests,
        fitting,
        pods_for_placement(requests),
        frozenset(r.resource for r in requests),
        model_ignored(w, pools),
        w.total_gpus,
    )


def cpu_only_pod_sets(w: Workload) -> tuple[str, ...]:
    """Names of `w`'s pod sets that request no GPU (Ray heads and submitters, MPI launchers...)."""
    return tuple(ps.name for ps in w.pod_sets if ps.count > 0 and ps.gpus_per_pod <= 0 and not ps.mig_profile)


def cpu_pod_note(
    workloads: Sequence[Workload],
    admitted: Mapping[str, int] | None,
    cpu_pools: AbstractSet[str] = frozenset(),
) -> str | None:
    """What the twin says about CPU-only pod sets it did not place, or None when there are none.

    The twin's Kueue admits them with their cpu and memory (so they take the flavor and quota
    Kueue gives them: render's CPU flavors come first, so a CPU pool's), `admitted` counting those
    admissions by flavor. Those admitted to a CPU pool's flavor (`cpu_pools`) are placed on its
    nodes and costed (sim/cpu_nodes.py); the others (no CPU pool in the spec, so a GPU flavor)
    are not placed on nodes nor costed, and the note says so.
    """
    with_cpu = [w for w in workloads if cpu_only_pod_sets(w)]
    elsewhere = {f: n for f, n in (admitted or {}).items() if f not in cpu_pools}
    if not with_cpu or (cpu_pools and not elsewhere):
        return None
    names = sorted({name for w in with_cpu for name in cpu_only_pod_sets(w)})
    where = ", ".join(f"{flavor or 'no resources'} x{n}" for flavor, n in sorted(elsewhere.items()))
    return (
        f"{len(with_cpu)} workloads have CPU-only pod sets ({', '.join(names[:5])}"
        f"{', ...' if len(names) > 5 else ''}): Kueue admitted them to flavors {where or '(none yet)'}; "
        "the twin places CPU-only pods on CPU pools' nodes only, so these are not placed on nodes or costed"
    )
