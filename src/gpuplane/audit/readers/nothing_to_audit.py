"""Files that sit beside manifests and hold nothing to audit: read as nothing, quietly.

A GitOps checkout, and `gpuplane render`'s own output, also hold files that are not Kubernetes
objects and not node pools. Reading them as nothing (rather than warning "not an audit input"
for each) keeps `gpuplane audit -f out/` on render's output quiet. Recognised by content:

- Grafana dashboard JSON in the Classic model: a mapping without `kind` holding `panels` (a list)
  and `schemaVersion` (grafana.com/docs/grafana/v13.2/dashboards/build-dashboards/
  view-dashboard-json-model/, "Classic model", and Amazon Managed Grafana's v10 "JSON fields";
  read 2026-12-01). The V1/V2 resource forms carry a `kind` and are read as Kubernetes objects;
- kube-state-metrics Helm values: a mapping without `kind` holding `metricLabelsAllowlist` or
  `metricAnnotationsAllowList` (prometheus-community/helm-charts charts/kube-state-metrics/
  values.yaml and its README's values table, spelled so; the keys render writes);
- gpuplane render's `index.yaml`: `cluster` and `files`, a list of mappings with `path` and
  `family` (gpuplane.render.assemble).
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import as_str
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader

KSM_ALLOWLIST_KEYS = ("metricLabelsAllowlist", "metricAnnotationsAllowList")


def _grafana_dashboard(data: dict[str, Any]) -> bool:
    return isinstance(data.get("panels"), list) and "schemaVersion" in data


def _ksm_values(data: dict[str, Any]) -> bool:
    return any(key in data for key in KSM_ALLOWLIST_KEYS)


def _render_index(data: dict[str, Any]) -> bool:
    files = data.get("files")
    return (
        "cluster" in data
        and isinstance(files, list)
        and all(isinstance(f, dict) and "path" in f and "family" in f for f in files)
    )


def recognises(data: Any) -> bool:
    """A mapping without `kind` that is a Grafana dashboard, ksm values or render's index."""
    if not isinstance(data, dict) or as_str(data.get("kind")):
        return False
    return _grafana_dashboard(data) or _ksm_values(data) or _render_index(data)


def read(doc: Document) -> Inputs:
    """Nothing: these files hold no GPU object or pool."""
    return Inputs()


READER = register_reader(
    Reader(
        name="nothing-to-audit",
        reads="files with nothing to audit (Grafana dashboards, kube-state-metrics values, render's index.yaml)",
        recognises=recognises,
        read=read,
    )
)
