"""DRA claims in the audited workloads: which ResourceClaimTemplates and ResourceClaims a pod
template uses, the device requests in them, and the GPU devices they claim.

A claim counts as a GPU request when its DeviceClass is a GPU class: gpuplane's own classes
(`gpu`, `mig-<profile>`, ... suffixed `vocab.DRA_CLASS_SUFFIX`), NVIDIA's DRA driver classes
(`vocab.DRA_GPU_CLASS`, `vocab.DRA_MIG_CLASS`), or a DeviceClass in the input whose CEL selector names the
NVIDIA driver. Its amount is the devices requested (`count`, default 1), under the name a
ResourceQuota caps it by: `<class>.deviceclass.resource.k8s.io/devices`. A template that is not
in the input is not guessed at.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuplane.audit.objects import K8sObject, Path, as_dict, as_list, as_str, get
from gpuplane.audit.workloads import PodTemplate
from gpuplane.sharing import dra
from gpuplane.vocab import (
    DRA_CLASS_SUFFIX,
    DRA_DRIVER,
    DRA_GPU_CLASS,
    DRA_GROUP,
    DRA_MIG_CLASS,
    DRA_QUOTA_SUFFIX,
)
from gpuplane.yamlio import load_embedded

if TYPE_CHECKING:
    from gpuplane.audit.bundle import Bundle

KUEUE_CONFIG_MARK = "config.kueue.x-k8s.io"


@dataclass(frozen=True)
class ClaimUse:
    """One `resourceClaims` entry of a pod template and what it points at."""

    template: PodTemplate
    index: int
    ref: str
    direct: bool  # resourceClaimName (a shared ResourceClaim) rather than a template
    target: K8sObject | None  # the ResourceClaimTemplate or ResourceClaim, when in the input

    @property
    def path(self) -> Path:
        """Where the claim is referenced in the pod template."""
        return (*self.template.path, "resourceClaims", self.index)

    def claim_spec(self) -> dict[str, Any]:
        """The claim's spec (a template's `spec.spec`), empty when not in the input."""
        if self.target is None:
            return {}
        spec = as_dict(self.target.data.get("spec"))
        return spec if self.direct else as_dict(spec.get("spec"))

    def spec_path(self) -> Path:
        """Where the claim's spec is: `spec` of a ResourceClaim, `spec.spec` of a template."""
        return ("spec",) if self.direct else ("spec", "spec")


@dataclass(frozen=True)
class DeviceRequest:
    """One device request of a claim: its index, the fields (v1 `exactly` or v1beta1 inline) and path."""

    index: int
    fields: dict[str, Any]
    raw: dict[str, Any]
    path: Path

    @property
    def device_class(self) -> str:
        """The DeviceClass the request names ('' when none)."""
        return as_str(self.fields.get("deviceClassName"))

    @property
    def count(self) -> int:
        """Devices requested: `count` when it is a whole number 0 or more, else 1 (the API's default)."""
        value = self.fields.get("count")
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1


def device_requests(use: ClaimUse) -> list[DeviceRequest]:
    """The device requests of the claim a pod template uses (v1/v1beta2 `exactly`, v1beta1 inline)."""
    out = []
    base = (*use.spec_path(), "devices", "requests")
    for i, req in enumerate(as_list(get(use.claim_spec(), "devices", "requests"))):
        req = as_dict(req)
        exact = as_dict(req.get("exactly")) if "exactly" in req else req
        out.append(DeviceRequest(i, exact, req, (*base, i)))
    return out


def _index(b: Bundle, kind: str) -> dict[tuple[str, str], K8sObject]:
    return {
        (b.ns_of(o), o.name): o for o in b.by_kind.get(kind, []) if o.api_version.startswith(DRA_GROUP + "/")
    }


def claim_uses(b: Bundle, ns: str, t: PodTemplate) -> list[ClaimUse]:
    """Every claim a pod template references, with its target object when the input has it."""
    templates, claims = _index(b, "ResourceClaimTemplate"), _index(b, "ResourceClaim")
    out = []
    for i, entry in enumerate(as_list(t.spec.get("resourceClaims"))):
        entry = as_dict(entry)
        if as_str(entry.get("resourceClaimName")):
            ref = as_str(entry.get("resourceClaimName"))
            out.append(ClaimUse(t, i, ref, True, claims.get((ns, ref))))
        elif as_str(entry.get("resourceClaimTemplateName")):
            ref = as_str(entry.get("resourceClaimTemplateName"))
            out.append(ClaimUse(t, i, ref, False, templates.get((ns, ref))))
    return out


def gpu_classes(b: Bundle) -> set[str]:
    """DeviceClass names that hand out NVIDIA GPUs (see the module docstring)."""
    classes = {DRA_GPU_CLASS, DRA_MIG_CLASS}
    for obj in b.by_kind.get("DeviceClass", []):
        text = " ".join(
            as_str(get(s, "cel", "expression")) for s in as_list(get(obj.data, "spec", "selectors"))
        )
        if f"'{DRA_DRIVER}'" in text or f'"{DRA_DRIVER}"' in text:
            classes.add(obj.name)
    return classes


def is_gpu_class(name: str, known: set[str]) -> bool:
    """Whether a DeviceClass gives GPUs: one of `known` or one of gpuplane's own classes."""
    return name in known or (name.endswith(DRA_CLASS_SUFFIX) and dra.kind_of(dra_resource(name)) is not None)


def dra_resource(device_class: str) -> str:
    """gpuplane's quota name for one of its classes (`gpu<class suffix>` -> `<DRA resource prefix>gpu`)."""
    return dra.DraKind(device_class.removesuffix(DRA_CLASS_SUFFIX)).resource


def quota_key(device_class: str) -> str:
    """The ResourceQuota item that caps devices of a class."""
    return device_class + DRA_QUOTA_SUFFIX


def pool_resource(key: str) -> str | None:
    """What a gpuplane DRA pool calls the devices of a claimed class (`gpu<class suffix>...` ->
    `<DRA resource prefix>gpu`); None for classes that are not gpuplane's."""
    device_class = key.removesuffix(DRA_QUOTA_SUFFIX)
    if not device_class.endswith(DRA_CLASS_SUFFIX):
        return None
    return dra_resource(device_class)


def attach_claim_gpus(b: Bundle) -> None:
    """Give every workload's pod templates the GPU devices their claims request."""
    known = gpu_classes(b)
    for w in b.workloads + b.pods:
        for t in w.templates:
            for use in claim_uses(b, w.namespace, t):
                for req in device_requests(use):
                    if is_gpu_class(req.device_class, known) and req.raw.get("firstAvailable") is None:
                        key = quota_key(req.device_class)
                        t.claim_gpus[key] = t.claim_gpus.get(key, 0.0) + req.count
                        t.claim_paths.setdefault(key, use.path)
            t.reset_gpus()


def kueue_configurations(b: Bundle) -> Iterator[tuple[K8sObject, dict[str, Any]]]:
    """Kueue Configurations in the input: the object itself, or inside a ConfigMap."""
    for obj in b.by_kind.get("Configuration", []):
        if obj.api_version.startswith(KUEUE_CONFIG_MARK):
            yield obj, obj.data
    for cm in b.by_kind.get("ConfigMap", []):
        for value in as_dict(cm.data.get("data")).values():
            text = as_str(value)
            if KUEUE_CONFIG_MARK not in text:
                continue
            parsed = load_embedded(text, cm.file)
            if isinstance(parsed, dict):
                yield cm, parsed


def device_class_mappings(b: Bundle) -> dict[str, str] | None:
    """Kueue's DeviceClass -> quota name mappings, or None when no Kueue Configuration is in the input."""
    configs = list(kueue_configurations(b))
    if not configs:
        return None
    out: dict[str, str] = {}
    for _, config in configs:
        for mapping in as_list(get(config, "resources", "deviceClassMappings")):
            for name in as_list(get(mapping, "deviceClassNames")):
                out.setdefault(as_str(name), as_str(get(mapping, "name")))
    return out
