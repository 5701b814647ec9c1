"""Helpers for render tests: the examples, their specs and rendered output (rendered once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpuplane.render import RenderResult, render_all
from gpuplane.spec import PlatformSpec, load_spec, parse_spec

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*.yaml"))
_CACHE: dict[tuple[str, str], tuple[PlatformSpec, RenderResult]] = {}


def rendered(example: Path, api: str = "v1beta2") -> tuple[PlatformSpec, RenderResult]:
    """The example's spec and its render result, computed once per (example, api)."""
    key = (str(example), api)
    if key not in _CACHE:
        spec = load_spec(example)
        _CACHE[key] = (spec, render_all(spec, kueue_api=api))
    return _CACHE[key]


def spec_from(text: str) -> PlatformSpec:
    """A spec from YAML text (for small, focused specs in unit tests)."""
    spec, _ = parse_spec(text, "test.yaml")
    return spec


def all_objects(result: RenderResult) -> list[dict[str, Any]]:
    """Every Kubernetes object render wrote, parsed back from the file text."""
    out = []
    for path in sorted(result.objects):
        for doc in yaml.safe_load_all(result.files[path]):
            if isinstance(doc, dict):
                out.append(doc)
    return out


def objects_of(result: RenderResult, kind: str) -> list[dict[str, Any]]:
    return [o for o in all_objects(result) if o["kind"] == kind]


SMALL_SPEC = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: small, provider: aks, region: eastus, kubernetesVersion: "1.30", resourceGroup: rg-small}
nodePools:
  - name: a100-spot
    accelerator: A100-80GB
    vmSize: Standard_NC96ads_A100_v4
    minNodes: 0
    maxNodes: 2
    spot: {enabled: true}
    sharing: {mode: exclusive}
  - name: a100-mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    maxNodes: 3
    workloadClasses: [inference]
    sharing: {mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
  - name: t4
    accelerator: T4
    vmSize: Standard_NC4as_T4_v3
    maxNodes: 5
    labels: {tier: dev}
    sharing: {mode: time-slicing, replicas: 4}
teams:
  - name: alpha
    namespaces: [alpha, alpha-dev]
    groups: [grp-alpha]
    quotas:
      - {pool: a100-spot, nominal: 4, borrowingLimit: 2}
      - {pool: a100-mig, resource: nvidia.com/mig-3g.40gb, nominal: 1, lendingLimit: 0}
      - {pool: t4, nominal: 8}
    priorityClass: normal
  - name: beta
    namespaces: [beta]
    groups: [grp-beta]
    spotAllowed: false
    quotas:
      - {pool: t4, nominal: 4}
    priorityClass: normal
queueing:
  defaultCohort: shared
  cohorts: [{name: shared, parent: org}, {name: org}]
  priorityClasses: [{name: normal, value: 100, description: "Normal work"}]
"""


def small_spec(provider: str = "aks", text: str = SMALL_SPEC) -> PlatformSpec:
    """SMALL_SPEC on another provider: AKS VM sizes become explicit GPU counts elsewhere."""
    if provider != "aks":
        text = (
            text.replace("provider: aks", f"provider: {provider}")
            .replace("vmSize: Standard_NC96ads_A100_v4", "gpusPerNode: 4")
            .replace("vmSize: Standard_NC24ads_A100_v4", "gpusPerNode: 1")
            .replace("vmSize: Standard_NC4as_T4_v3", "gpusPerNode: 1")
        )
    return spec_from(text)


# A variant per provider with MIG (both strategies), MPS, time-slicing, spot and DRA pools
# (`VARIANT.format(provider=...)`), for the provider-variant and example-job tests.
VARIANT = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: variant, provider: {provider}, region: r1, kubernetesVersion: "1.34"}}
nodePools:
  - {{name: spot, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 4, spot: true}}
  - name: mig-single
    accelerator: A100-80GB
    gpusPerNode: 4
    maxNodes: 2
    workloadClasses: [inference]
    sharing: {{mode: mig, strategy: single, config: all-1g.10gb}}
  - name: mig-mixed
    accelerator: H100-80GB
    gpusPerNode: 8
    maxNodes: 2
    workloadClasses: [inference]
    sharing: {{mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}}
  - {{name: ts, accelerator: L4, gpusPerNode: 4, maxNodes: 3, sharing: {{mode: time-slicing, replicas: 4}}}}
  - {{name: mps, accelerator: L4, gpusPerNode: 4, maxNodes: 3, sharing: {{mode: mps, replicas: 2, renameShared: true}}}}
  - {{name: dra, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 2, deviceApi: dra}}
  - name: dra-mig
    accelerator: A100-80GB
    gpusPerNode: 4
    maxNodes: 2
    deviceApi: dra
    workloadClasses: [inference]
    sharing: {{mode: mig, layout: [3g.40gb, 3g.40gb]}}
teams:
  - name: a
    namespaces: [a]
    quotas:
      - {{pool: spot, nominal: 8}}
      - {{pool: mig-single, nominal: 8}}
      - {{pool: mig-mixed, resource: nvidia.com/mig-3g.40gb, nominal: 4}}
      - {{pool: dra, nominal: 8}}
  - name: b
    namespaces: [b]
    quotas:
      - {{pool: ts, nominal: 16}}
      - {{pool: mps, nominal: 8}}
      - {{pool: dra-mig, nominal: 4}}
"""
PROVIDERS = ("aks", "gke", "eks", "generic")
