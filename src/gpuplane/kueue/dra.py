"""Kueue's ResourceClaimTemplate path for DRA: a pod's claims become quota requests.

Mirrors kubernetes-sigs/kueue @ff69552e (v0.19.2): `pkg/dra/claims.go`
(GetResourceRequestsForResourceClaimTemplates, countDevicesPerClass) and
`pkg/controller/core/workload_controller.go` (handleDRA). For each `resourceClaims` entry of a pod
that names a ResourceClaimTemplate, Kueue reads the template's device requests and charges, per
DeviceClass, the sum of their `count` (`exactly.count`, default 1) to the quota name
`resources.deviceClassMappings` maps the class to. Kueue makes the workload inadmissible when
a pod references a ResourceClaim directly, a template is missing, a request uses `firstAvailable`
or `allocationMode: All`, or a class is not mapped; `adminAccess` requests are not charged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplane.kueue.objects import PodSet, Workload

DEFAULT_COUNT = 1


@dataclass
class DraContext:
    """What a claim needs to be charged: the namespace's templates, Kueue's mappings, and the pods of
    each Workload that claim devices (charged once the whole input is read)."""

    templates: dict[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)
    mappings: dict[str, str] = field(default_factory=dict)
    claims: dict[int, list[tuple[PodSet, Mapping[str, Any]]]] = field(default_factory=dict)

    def note_claims(self, wl: Workload, spec: Mapping[str, Any]) -> None:
        """Remember the pod specs of a Workload's pod sets that claim DRA devices."""
        if wl.problem:
            return
        by_name = {ps.name: ps for ps in wl.pod_sets}
        pod_sets = spec.get("podSets")
        for ps in pod_sets if isinstance(pod_sets, list) else []:
            ps = _as_map(ps)
            pod_spec = _as_map(_as_map(ps.get("template")).get("spec"))
            pod_set = by_name.get(str(ps.get("name", "main")))
            if pod_set is not None and pod_spec.get("resourceClaims"):
                self.claims.setdefault(id(wl), []).append((pod_set, pod_spec))

    def charge_claims(self, objects: Iterable[object]) -> None:
        """Add each pod set's claims to its per-pod requests (milli-units) under their mapped quota
        names; a claim Kueue cannot count makes the Workload inadmissible, as in Kueue."""
        for obj in objects:
            if not isinstance(obj, Workload) or id(obj) not in self.claims:
                continue
            for pod_set, pod_spec in self.claims[id(obj)]:
                try:
                    units = pod_claim_units(pod_spec, obj.namespace, self)
                except ClaimError as exc:
                    obj.problem = f"Inadmissible: {exc}"
                    obj.admission = None
                    break
                for quota_name, n in units.items():
                    pod_set.per_pod[quota_name] = pod_set.per_pod.get(quota_name, 0) + n * 1000

    def add_template(self, namespace: str, name: str, template_spec: Mapping[str, Any]) -> None:
        """Record a ResourceClaimTemplate's `spec` (its `spec.spec` is the claim spec)."""
        self.templates[(namespace, name)] = template_spec

    def add_mappings(self, mappings: object) -> None:
        """Record `resources.deviceClassMappings` of a Kueue Configuration."""
        for mapping in mappings if isinstance(mappings, list) else []:
            if not isinstance(mapping, Mapping):
                continue
            names = mapping.get("deviceClassNames")
            for device_class in names if isinstance(names, list) else []:
                self.mappings.setdefault(str(device_class), str(mapping.get("name")))


class ClaimError(Exception):
    """A claim Kueue cannot count: the workload is inadmissible (the message says why, as Kueue does)."""


def _as_map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _count(value: object) -> int:
    if value is None:
        return DEFAULT_COUNT
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ClaimError(f"device request count {value!r} is not a whole number")
    return value


def devices_per_class(claim_spec: Mapping[str, Any]) -> dict[str, int]:
    """Devices the claim spec requests per DeviceClass (countDevicesPerClass). The v1/v1beta2 shape
    keeps them under `exactly`; v1beta1 has the request fields inline."""
    out: dict[str, int] = {}
    requests = _as_map(claim_spec.get("devices")).get("requests") or []
    for i, req in enumerate(requests if isinstance(requests, list) else []):
        req = _as_map(req)
        if req.get("firstAvailable") is not None:
            raise ClaimError(f"devices.requests[{i}]: FirstAvailable device selection is not supported")
        exact = _as_map(req.get("exactly")) if "exactly" in req else req
        if not exact:
            raise ClaimError(f"devices.requests[{i}]: Exactly must be set if FirstAvailable is nil")
        if exact.get("adminAccess") is True:
            continue
        mode = exact.get("allocationMode") or "ExactCount"
        if mode != "ExactCount":
            raise ClaimError(
                f"devices.requests[{i}].exactly.allocationMode: AllocationMode '{mode}' is not supported"
            )
        device_class = str(exact.get("deviceClassName") or "")
        if device_class:
            out[device_class] = out.get(device_class, 0) + _count(exact.get("count"))
    return out


def pod_claim_units(pod_spec: Mapping[str, Any], namespace: str, ctx: DraContext) -> dict[str, int]:
    """Quota units (not milli-units) one pod's claims are charged, by mapped quota name.

    Raises ClaimError for a claim Kueue would make the workload inadmissible for.
    """
    units: dict[str, int] = {}
    claims = pod_spec.get("resourceClaims") or []
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        claim = _as_map(claim)
        where = f"resourceClaims[{i}]"
        if claim.get("resourceClaimName"):
            raise ClaimError(
                f"{where}: DRA resource claims not supported (Kueue admits only ResourceClaimTemplates)"
            )
        name = claim.get("resourceClaimTemplateName")
        if not name:
            continue
        template = ctx.templates.get((namespace, str(name)))
        if template is None:
            raise ClaimError(f"{where}: ResourceClaimTemplate {namespace}/{name} not found")
        try:
            per_class = devices_per_class(_as_map(_as_map(template).get("spec")))
        except ClaimError as exc:
            raise ClaimError(f"ResourceClaimTemplate {name}: {exc}") from None
        for device_class, count in per_class.items():
            quota_name = ctx.mappings.get(device_class)
            if quota_name is None:
                raise ClaimError(f"DeviceClass {device_class} is not mapped in DRA configuration")
            units[quota_name] = units.get(quota_name, 0) + count
    return units
