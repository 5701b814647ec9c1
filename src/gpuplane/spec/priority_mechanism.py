"""Which mechanism applies a team's default priority on this cluster (`cluster.defaultPriorityBy` and
the Kubernetes version): a MutatingAdmissionPolicy, a Kyverno ClusterPolicy, or none.

The decision lives with the spec because `spec validate` refuses a choice the cluster cannot run;
render (`gpuplane.render.default_priority`) writes the objects. Facts, with sources:
`catalog/data/default_priority.yaml`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from gpuplane.k8s_versions import minor_tuple, version_at_least
from gpuplane.spec.models import PlatformSpec

__all__ = ["ADMISSION_GROUP", "Mechanism", "facts", "mechanism"]

ADMISSION_GROUP = "admissionregistration.k8s.io"


@functools.cache
def facts() -> dict[str, Any]:
    """The packaged facts (`catalog/data/default_priority.yaml`)."""
    text = (
        resources.files("gpuplane.catalog").joinpath("data/default_priority.yaml").read_text(encoding="utf-8")
    )
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@dataclass(frozen=True)
class Mechanism:
    """What renders the defaults: `kind` is "map" (with its `api` version), "kyverno" or "" (none),
    and `why` says so in words for render's notes."""

    kind: str
    api: str
    why: str


def _map_api(version: str) -> str | None:
    """The newest MutatingAdmissionPolicy API this Kubernetes minor serves, or None."""
    served = [
        api
        for api, first in facts()["mutating_admission_policy"]["versions"].items()
        if version_at_least(version, first)
    ]
    return served[-1] if served else None


def mechanism(spec: PlatformSpec) -> Mechanism:
    """How this spec's team defaults are applied (see the module docstring)."""
    choice = spec.cluster.default_priority_by
    version = spec.cluster.kubernetes_version
    ga = facts()["mutating_admission_policy"]["on_by_default"]
    if choice == "none":
        return Mechanism("", "", "cluster.defaultPriorityBy is none")
    if choice == "kyverno":
        return Mechanism(
            "kyverno",
            facts()["kyverno"]["api_version"],
            "a Kyverno ClusterPolicy (cluster.defaultPriorityBy: kyverno)",
        )
    api = _map_api(version)
    first = min(facts()["mutating_admission_policy"]["versions"].values(), key=minor_tuple)
    if api is None:
        why = f"Kubernetes {version} has no MutatingAdmissionPolicy API (alpha from {first}, on by default from {ga})"
        if choice == "auto":
            why += "; set cluster.defaultPriorityBy to kyverno if Kyverno is installed"
        return Mechanism("", "", why)
    if choice == "auto" and not version_at_least(version, ga):
        return Mechanism(
            "",
            "",
            f"Kubernetes {version} runs MutatingAdmissionPolicies only behind a feature gate (on by default "
            f"from {ga}); set cluster.defaultPriorityBy to mutatingAdmissionPolicy if you turned it on, or "
            "to kyverno if Kyverno is installed",
        )
    return Mechanism(
        "map", f"{ADMISSION_GROUP}/{api}", f"a MutatingAdmissionPolicy ({ADMISSION_GROUP}/{api})"
    )
