"""DRA rules: claims Kueue cannot admit or count (GPU026-GPU030).

Kueue's stated DRA limits: kubernetes-sigs/kueue site/content/en/docs/concepts/
dynamic_resource_allocation.md ("Limitations", "Path separation") and the code that enforces
them, pkg/controller/core/workload_controller.go handleDRA and pkg/dra/claims.go
(countDevicesPerClass, GetResourceRequestsForResourceClaimTemplates) @ff69552e (v0.19.2).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle, Workload
from gpuplane.audit.claims import claim_uses, device_class_mappings, device_requests
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.objects import as_list, as_str, get
from gpuplane.audit.rules.common import at, at_workload
from gpuplane.vocab import DRA_CLASS_SUFFIX, KUEUE_GROUP, QUEUE_NAME_LABEL, TAS_ANNOTATIONS, is_dra_resource

DRA_TAGS = ("gpu", "dra", "kueue")


def _queued(b: Bundle) -> list[Workload]:
    """Kueue-managed workloads (queue-name label) that reference DRA claims."""
    return [
        w
        for w in b.workloads
        if QUEUE_NAME_LABEL in w.labels() and any(t.spec.get("resourceClaims") for t in w.templates)
    ]


@rule(
    "GPU026",
    "dra-direct-resource-claim",
    "Kueue-managed workload references a ResourceClaim directly",
    "high",
    why="""Kueue admits DRA devices only through ResourceClaimTemplates: a pod that names a ResourceClaim
    (a claim shared between pods) makes the whole workload inadmissible ("DRA resource claims not
    supported"), so it waits forever while its queue looks healthy.""",
    fix="""Reference a ResourceClaimTemplate (`resourceClaimTemplateName`) so that each pod gets its own
    claim; share a GPU between the containers of one pod instead of between pods, or run the shared
    claim outside Kueue.""",
    tags=DRA_TAGS,
)
def gpu026(b: Bundle) -> Iterator[Finding]:
    for w in _queued(b):
        for t in w.templates:
            for use in claim_uses(b, w.namespace, t):
                if use.direct:
                    yield at_workload(
                        "GPU026",
                        b,
                        w,
                        (*use.path, "resourceClaimName"),
                        f"pod references ResourceClaim {use.ref!r}; Kueue marks the workload inadmissible",
                    )


def _uncountable(mappings: dict[str, str] | None, fields: dict[str, object], raw: dict[str, object]) -> str:
    if raw.get("firstAvailable") is not None:
        return "uses firstAvailable, which Kueue does not support"
    mode = as_str(fields.get("allocationMode")) or "ExactCount"
    if mode != "ExactCount":
        return f"uses allocationMode {mode}; Kueue supports only ExactCount"
    device_class = as_str(fields.get("deviceClassName"))
    if (
        mappings is not None
        and device_class
        and device_class not in mappings
        and fields.get("adminAccess") is not True
    ):
        return f"asks for DeviceClass {device_class}, which the Kueue Configuration's deviceClassMappings do not map"
    return ""


@rule(
    "GPU027",
    "dra-claim-kueue-cannot-count",
    "claim template of a Kueue-managed workload that Kueue cannot count",
    "high",
    why="""Kueue charges a claim to quota by its DeviceClass's mapping and the request's `count`. A request
    with `firstAvailable`, `allocationMode: All`, or a DeviceClass the Configuration does not map makes
    the workload inadmissible: it never runs and never releases its place in the queue.""",
    fix="""Use `exactly` with `allocationMode: ExactCount` and a `count`, and map every DeviceClass the
    templates use in Kueue's `resources.deviceClassMappings` (gpuplane render writes them in
    kueue/kueue-configuration.yaml).""",
    tags=DRA_TAGS,
)
def gpu027(b: Bundle) -> Iterator[Finding]:
    mappings = device_class_mappings(b)
    seen: set[tuple[int, int]] = set()
    for w in _queued(b):
        for t in w.templates:
            for use in claim_uses(b, w.namespace, t):
                if use.direct or use.target is None:
                    continue
                for req in device_requests(use):
                    why = _uncountable(mappings, req.fields, req.raw)
                    if why and (id(use.target), req.index) not in seen:
                        seen.add((id(use.target), req.index))
                        yield at(
                            "GPU027",
                            b,
                            use.target,
                            req.path,
                            f"request {req.index} {why} (used by {w.obj.ident()})",
                        )


@rule(
    "GPU028",
    "dra-device-class-in-both-kueue-paths",
    "DeviceClass in both of Kueue's DRA paths (deviceClassMappings and extendedResourceName)",
    "medium",
    why="""Kueue counts DRA devices two ways: claims through `deviceClassMappings`, and extended-resource
    requests through a DeviceClass's `extendedResourceName`. Kueue's docs say not to put one DeviceClass
    in both: Kueue then merges them under the mapping's name and the quota accounting may be wrong.""",
    fix=f"""Give claims their own DeviceClass without `extendedResourceName` (as gpuplane's
    `*{DRA_CLASS_SUFFIX}` classes are), or drop the class from `deviceClassMappings`.""",
    tags=DRA_TAGS,
)
def gpu028(b: Bundle) -> Iterator[Finding]:
    mappings = device_class_mappings(b) or {}
    for obj in b.by_kind.get("DeviceClass", []):
        extended = as_str(get(obj.data, "spec", "extendedResourceName"))
        if extended and obj.name in mappings:
            yield at(
                "GPU028",
                b,
                obj,
                ("spec", "extendedResourceName"),
                f"DeviceClass {obj.name} sets extendedResourceName {extended} and is mapped to "
                f"{mappings[obj.name]} in deviceClassMappings",
            )


@rule(
    "GPU029",
    "dra-with-topology-aware-scheduling",
    "DRA claims combined with Kueue topology-aware scheduling",
    "medium",
    why="""Kueue does not account DRA devices in topology-aware scheduling: a workload that claims devices
    and asks for a topology (or lands on a flavor with a topology) may get a placement whose nodes do
    not hold the devices it was admitted for.""",
    fix=f"""Do not request a topology for DRA workloads (drop the {KUEUE_GROUP}/podset-*-topology
    annotations), and keep DRA quota on flavors without `topologyName`.""",
    tags=DRA_TAGS,
)
def gpu029(b: Bundle) -> Iterator[Finding]:
    for w in _queued(b):
        for t in w.templates:
            annotations = t.meta.get("annotations") or {}
            for name in TAS_ANNOTATIONS:
                if isinstance(annotations, dict) and name in annotations:
                    path = (*t.path[:-1], "metadata", "annotations", name)
                    yield at_workload("GPU029", b, w, path, f"DRA workload requests a topology ({name})")
    topology = {
        o.name for o in b.by_kind.get("ResourceFlavor", []) if as_str(get(o.data, "spec", "topologyName"))
    }
    for cq in b.by_kind.get("ClusterQueue", []):
        for gi, group in enumerate(as_list(get(cq.data, "spec", "resourceGroups"))):
            dra = [r for r in as_list(get(group, "coveredResources")) if is_dra_resource(as_str(r))]
            for fi, flavor in enumerate(as_list(get(group, "flavors"))):
                if dra and as_str(get(flavor, "name")) in topology:
                    yield at(
                        "GPU029",
                        b,
                        cq,
                        ("spec", "resourceGroups", gi, "flavors", fi, "name"),
                        f"flavor {as_str(get(flavor, 'name'))} has a topology and covers DRA quota {', '.join(map(str, dra))}",
                    )


@rule(
    "GPU030",
    "dra-claim-features-kueue-ignores",
    "claim template with selectors, config or constraints that Kueue's quota does not see",
    "low",
    why="""Kueue charges a claim by DeviceClass and count only. CEL selectors (Kueue v0.18 and later check
    them against ResourceSlices; earlier releases rejected them), per-request `config` and device
    `constraints` are not part of that charge (Kueue's docs list config and constraints as not
    supported): a selector for an H100 is charged the same quota as any device of the class.""",
    fix="""Express the choice as its own DeviceClass (one per GPU model, MIG profile or sharing mode, each
    mapped to its own quota name) and keep claim templates to a class and a count.""",
    tags=DRA_TAGS,
)
def gpu030(b: Bundle) -> Iterator[Finding]:
    seen: set[int] = set()
    for w in _queued(b):
        for t in w.templates:
            for use in claim_uses(b, w.namespace, t):
                if use.target is None or id(use.target) in seen:
                    continue
                seen.add(id(use.target))
                spec = use.claim_spec()
                for key in ("config", "constraints"):
                    if as_list(get(spec, "devices", key)):
                        path = (*use.spec_path(), "devices", key)
                        yield at(
                            "GPU030",
                            b,
                            use.target,
                            path,
                            f"claim has devices.{key}, which Kueue does not support",
                        )
                for req in device_requests(use):
                    if as_list(req.fields.get("selectors")):
                        yield at(
                            "GPU030",
                            b,
                            use.target,
                            (*req.path, "exactly", "selectors")
                            if "exactly" in req.raw
                            else (*req.path, "selectors"),
                            f"request {req.index} selects devices by CEL; Kueue charges it by DeviceClass only",
                        )
