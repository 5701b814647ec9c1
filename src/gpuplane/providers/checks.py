"""Designs a provider cannot run, found from its facts: a GPU stack it does not have, spot capacity
it cannot create, DRA before it supports it; then the provider module's own checks. Every message
names the fact's source so the reader can check it."""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane import providers
from gpuplane.errors import Problem
from gpuplane.k8s_versions import version_at_least
from gpuplane.providers.base import Report
from gpuplane.spec.models import PlatformSpec
from gpuplane.vocab import DRA_GROUP

# Structured-parameters DRA (DRA_GROUP v1beta1) exists from Kubernetes 1.32, and NVIDIA's DRA
# driver chart requires it (Chart.yaml kubeVersion >=1.32.0-0; nvidia_charts.yaml).
DRA_FIRST_VERSION = "1.32"
KUEUE_DRA_VERSION = "1.34"  # spec.dra_checks warns below it


def _stack_problems(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    provider = providers.get(spec.cluster.provider)
    stack = provider.stack(spec)
    if stack.value is None:
        yield at(
            ("cluster", "gpuStack"),
            f"{provider.facts.title} has no {spec.cluster.gpu_stack} GPU stack gpuplane can render: "
            f"{stack.note} ({stack.cite()})",
            "error",
        )


def _spot_problems(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    fact = providers.get(spec.cluster.provider).facts["spot"]
    if fact.value:
        return
    for index, pool in enumerate(spec.node_pools):
        if pool.spot.enabled:
            yield at(
                ("nodePools", index, "spot", "enabled"),
                f"{spec.cluster.provider} cannot create spot capacity: {fact.note} ({fact.cite()})",
                "warning",
            )


def _dra_problems(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    provider = providers.get(spec.cluster.provider)
    fact = provider.facts["dra"]
    version = spec.cluster.kubernetes_version
    for index, pool in enumerate(spec.node_pools):
        if not pool.is_gpu or pool.device_api != "dra":
            continue
        where = (
            ("nodePools", index, "deviceApi")
            if "device_api" in pool.model_fields_set
            else ("cluster", "deviceApi")
        )
        if spec.cluster.gpu_stack != "operator":
            yield at(
                where,
                "DRA pools need gpuStack: operator (the device plugin off on their nodes, NVIDIA's DRA "
                "driver on them)",
                "error",
            )
        elif not version_at_least(version, DRA_FIRST_VERSION):
            yield at(
                where,
                f"Kubernetes {version} has no structured-parameters DRA ({DRA_GROUP} from "
                f"{DRA_FIRST_VERSION}; NVIDIA's DRA driver chart needs >=1.32)",
                "error",
            )
        elif fact.value is None:
            yield at(where, f"{provider.facts.title}: {fact.note} ({fact.cite()})", "warning")
        elif version_at_least(version, KUEUE_DRA_VERSION) and not version_at_least(version, str(fact.value)):
            # Below Kueue's 1.34 the spec's DRA checks already warn; this adds a later provider minimum.
            yield at(
                where,
                f"{provider.facts.title} supports DRA from Kubernetes {fact.value}, not {version} ({fact.cite()})",
                "warning",
            )


def provider_problems(spec: PlatformSpec, at: Report) -> list[Problem]:
    """Every design problem of the spec's provider: fact-driven checks, then the module's own."""
    problems = list(_stack_problems(spec, at))
    if problems:
        return problems
    problems += _spot_problems(spec, at)
    problems += _dra_problems(spec, at)
    problems += providers.get(spec.cluster.provider).design_problems(spec, at)
    return problems
