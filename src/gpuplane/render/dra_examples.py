"""Example Jobs for the DRA pools (dra/example-workloads.yaml): what a platform engineer runs first to
see a claim admitted and a device handed out, so each must be admissible as rendered.

One Job per kind of device the DRA pools offer, in the first namespace of the first team (spec order)
that holds nominal quota for the kind on a pool offering it, with enough cpu and memory quota there for
the Job's small requests: Kueue then admits it without anyone lending. A kind no team can be admitted
to gets no Job and a note instead (a MIG profile in a layout that no quota names is capacity nobody
can use through Kueue).
"""

from __future__ import annotations

from typing import Any

from gpuplane.kube.quantity import parse_quantity
from gpuplane.render.common import gpu_pools, k8s_object, metadata
from gpuplane.render.dra import dra_facts, dra_kinds
from gpuplane.render.quotas import FlavorQuota, team_flavor_quotas
from gpuplane.sharing.dra import DraKind
from gpuplane.spec import derived
from gpuplane.spec.models import PlatformSpec, Team
from gpuplane.vocab import LABEL_CLASS, LABEL_TEAM, QUEUE_NAME_LABEL


def example_requests() -> dict[str, str]:
    """The cpu and memory each example container requests (render/data/dra.yaml)."""
    return {str(k): str(v) for k, v in dra_facts()["example_resources"].items()}


def _holds(fq: FlavorQuota, kind: DraKind) -> bool:
    """The flavor offers the kind and gives the team nominal quota for it (whole device counts)."""
    quota = fq.resources.get(kind.resource)
    held = quota is not None and isinstance(quota.nominal, int) and quota.nominal > 0
    return held and kind in derived.dra_kinds_per_gpu(fq.pool)


def _covers(fq: FlavorQuota, requests: dict[str, str]) -> bool:
    """The flavor's nominal cpu and memory quota cover the example's requests."""
    for name, amount in requests.items():
        quota = fq.resources.get(name)
        if quota is None or parse_quantity(quota.nominal) < parse_quantity(amount):
            return False
    return True


def example_team(spec: PlatformSpec, kind: DraKind, *, need_cpu_memory: bool = True) -> Team | None:
    """The team an example Job of `kind` runs as (None when no team can be admitted for it)."""
    requests = example_requests()
    for team in spec.teams:
        if not team.namespaces:
            continue
        for fq in team_flavor_quotas(spec, team):
            if _holds(fq, kind) and (not need_cpu_memory or _covers(fq, requests)):
                return team
    return None


def _job(spec: PlatformSpec, kind: DraKind, team: Team) -> dict[str, Any]:
    small = example_requests()
    container = {
        "name": "cuda",
        "image": dra_facts()["example_image"],
        "command": ["nvidia-smi", "-L"],
        "resources": {"requests": small, "limits": dict(small), "claims": [{"name": "gpu"}]},
    }
    pod: dict[str, Any] = {"restartPolicy": "Never"}
    if team.priority_class:
        pod["priorityClassName"] = team.priority_class
    pod["containers"] = [container]
    pod["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": kind.template}]
    labels = {QUEUE_NAME_LABEL: derived.local_queue_name(team), LABEL_CLASS: "batch"}
    template = {"metadata": {"labels": {LABEL_TEAM: team.name}}, "spec": pod}
    body = {"backoffLimit": 0, "activeDeadlineSeconds": 600, "template": template}
    meta = metadata(f"dra-example-{kind.kind}".replace(".", "-"), namespace=team.namespaces[0], labels=labels)
    return k8s_object("batch/v1", "Job", meta, spec=body)


def example_workloads(spec: PlatformSpec) -> list[dict[str, Any]]:
    """One example Job per DRA kind some team can be admitted for: a pod claiming one device through
    its team's template and LocalQueue."""
    out = []
    for kind in dra_kinds(spec):
        team = example_team(spec, kind)
        if team is not None:
            out.append(_job(spec, kind, team))
    return out


def example_notes(spec: PlatformSpec) -> list[str]:
    """Why a kind of device has no example Job: no team's quota names it, or the teams holding it
    have too little cpu/memory quota there for even the example's requests."""
    notes = []
    starved = []
    for kind in dra_kinds(spec):
        if example_team(spec, kind, need_cpu_memory=False) is None:
            pools = [p.name for p in gpu_pools(spec) if kind in derived.dra_kinds_per_gpu(p)]
            notes.append(
                f"pool(s) {', '.join(pools)} offer DRA devices of kind {kind.kind} (DeviceClass "
                f"{kind.device_class}), but no team holds nominal quota for {kind.resource}: Kueue admits "
                "nothing that claims one, so no example Job is written for it; give a team a quota with "
                f"resource {kind.resource}, or drop the kind from the pool"
            )
        elif example_team(spec, kind) is None:
            starved.append(kind.kind)
    if starved:
        wanted = ", ".join(f"{k} {v}" for k, v in example_requests().items())
        notes.append(
            f"no example Job for DRA kind(s) {', '.join(starved)}: the teams holding their quota have less "
            f"cpu or memory quota on those pools than the example's requests ({wanted}); set the pools' "
            "cpuPerNode and memoryGiBPerNode (or a VM size the catalog knows)"
        )
    return notes
