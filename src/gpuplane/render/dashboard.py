"""The Grafana dashboard: platform, workload and financial views of the GPU platform, from DCGM
exporter and gpuplane exporter metrics (docs/account.md), plus the ConfigMap that Grafana's
dashboard sidecar (kube-prometheus-stack, label `grafana_dashboard: "1"`) loads it from.
"""

from __future__ import annotations

from typing import Any

from gpuplane.render.common import k8s_object, metadata
from gpuplane.render.output import to_json
from gpuplane.spec.models import PlatformSpec

DASHBOARD_UID_PREFIX = "gpuplane-"
DASHBOARD_CONFIGMAP = "gpuplane-dashboard"
SIDECAR_LABEL = ("grafana_dashboard", "1")
SCHEMA_VERSION = 39  # Grafana 10/11 dashboard JSON
PANEL_WIDTH = 12
PANEL_HEIGHT = 8
DS = {"type": "prometheus", "uid": "${datasource}"}

# (title, PromQL, unit) per view; $pool and $team are dashboard variables.
PLATFORM = [
    ("GPU nodes per pool", 'sum by (pool) (gpuplane_nodes{pool=~"$pool"})', "none"),
    ("GPUs provisioned per pool", 'sum by (pool) (gpuplane_gpus_provisioned{pool=~"$pool"})', "none"),
    ("GPU utilisation by node (DCGM)", "avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)", "percent"),
    ("Engine active (DCGM profiling)", "avg by (Hostname) (DCGM_FI_PROF_GR_ENGINE_ACTIVE)", "percentunit"),
    ("XID errors per pool", 'sum by (pool) (gpuplane_xid_errors{pool=~"$pool"})', "none"),
    (
        "Hottest GPU per pool",
        'max by (pool) (gpuplane_gpu_temperature_celsius_max{pool=~"$pool"})',
        "celsius",
    ),
    ("GPU power per pool", 'sum by (pool) (gpuplane_gpu_power_watts{pool=~"$pool"})', "watt"),
    ("GPU memory used (DCGM)", "sum by (Hostname) (DCGM_FI_DEV_FB_USED)", "decmbytes"),
]
WORKLOAD = [
    (
        "GPUs allocated by team",
        'sum by (team) (gpuplane_gpus_allocated{team=~"$team", pool=~"$pool"})',
        "none",
    ),
    (
        "Engine active by team",
        'avg by (team) (gpuplane_engine_active_ratio{team=~"$team", pool=~"$pool"})',
        "percentunit",
    ),
    ("Pending Kueue workloads by team", 'sum by (team) (gpuplane_pending_workloads{team=~"$team"})', "none"),
    ("GPU jobs by outcome", 'sum by (outcome) (gpuplane_jobs{team=~"$team"})', "none"),
    (
        "Idle allocated GPU-hours by team",
        'sum by (team) (gpuplane_idle_allocated_gpu_hours{team=~"$team", pool=~"$pool"})',
        "h",
    ),
    (
        "Unmeasured GPU-hours by team (no DCGM activity metric)",
        'sum by (team) (gpuplane_unmeasured_gpu_hours{team=~"$team", pool=~"$pool"})',
        "h",
    ),
    (
        "Failed-run GPU-hours by team",
        'sum by (team) (gpuplane_failed_gpu_hours{team=~"$team", pool=~"$pool"})',
        "h",
    ),
]
FINANCIAL = [
    ("Cost by component", 'sum by (component) (gpuplane_cost{team=~"$team", pool=~"$pool"})', "currency"),
    ("Cost by team", 'sum by (team) (gpuplane_cost{team=~"$team", pool=~"$pool"})', "currency"),
    (
        "Effective cost per useful GPU-hour",
        'max by (team) (gpuplane_effective_cost_per_useful_gpu_hour{team=~"$team"})',
        "currency",
    ),
    ("Cost per accepted unit", 'max by (team) (gpuplane_cost_per_accepted_unit{team=~"$team"})', "currency"),
    ("Unallocated GPU-hours by pool", 'sum by (pool) (gpuplane_unallocated_gpu_hours{pool=~"$pool"})', "h"),
    (
        "Useful vs allocated GPU-hours",
        'sum(gpuplane_useful_gpu_hours{pool=~"$pool"}) / sum(gpuplane_allocated_gpu_hours{pool=~"$pool"})',
        "percentunit",
    ),
]
VIEWS = (("Platform", PLATFORM), ("Workload", WORKLOAD), ("Financial", FINANCIAL))


def _unit(unit: str, currency: str) -> str:
    return f"currency{currency}" if unit == "currency" else unit


def _panels(currency: str) -> list[dict[str, Any]]:
    panels: list[dict[str, Any]] = []
    next_id, y = 1, 0
    for view, queries in VIEWS:
        panels.append(
            {
                "id": next_id,
                "type": "row",
                "title": f"{view} view",
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": y},
                "panels": [],
            }
        )
        next_id, y = next_id + 1, y + 1
        for i, (title, expr, unit) in enumerate(queries):
            panels.append(
                {
                    "id": next_id,
                    "type": "timeseries",
                    "title": title,
                    "datasource": DS,
                    "gridPos": {
                        "h": PANEL_HEIGHT,
                        "w": PANEL_WIDTH,
                        "x": (i % 2) * PANEL_WIDTH,
                        "y": y + (i // 2) * PANEL_HEIGHT,
                    },
                    "fieldConfig": {"defaults": {"unit": _unit(unit, currency)}, "overrides": []},
                    "targets": [{"refId": "A", "datasource": DS, "expr": expr, "legendFormat": "__auto"}],
                }
            )
            next_id += 1
        y += ((len(queries) + 1) // 2) * PANEL_HEIGHT
    return panels


def _variable(name: str, label_query: str) -> dict[str, Any]:
    return {
        "name": name,
        "type": "query",
        "datasource": DS,
        "query": {"query": label_query, "refId": name},
        "definition": label_query,
        "includeAll": True,
        "multi": True,
        "allValue": ".*",
        "current": {"text": "All", "value": "$__all"},
        "refresh": 2,
    }


def dashboard(spec: PlatformSpec) -> dict[str, Any]:
    """The dashboard model (Grafana JSON)."""
    templating = [
        {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"},
        _variable("pool", "label_values(gpuplane_nodes, pool)"),
        _variable("team", "label_values(gpuplane_gpus_allocated, team)"),
    ]
    return {
        "uid": f"{DASHBOARD_UID_PREFIX}{spec.cluster.name}"[:40],
        "title": f"GPU platform: {spec.cluster.name}",
        "tags": ["gpuplane", "gpu"],
        "timezone": "utc",
        "editable": True,
        "schemaVersion": SCHEMA_VERSION,
        "time": {"from": "now-24h", "to": "now"},
        "refresh": "1m",
        "templating": {"list": templating},
        "panels": _panels(spec.costs.currency),
    }


def dashboard_json(spec: PlatformSpec) -> str:
    """The dashboard as stable JSON text (monitoring/grafana-dashboard.json)."""
    return to_json(dashboard(spec))


def dashboard_configmap(spec: PlatformSpec) -> dict[str, Any]:
    """The dashboard in a ConfigMap for Grafana's sidecar."""
    meta = metadata(
        DASHBOARD_CONFIGMAP, namespace=spec.monitoring.namespace, labels={SIDECAR_LABEL[0]: SIDECAR_LABEL[1]}
    )
    return k8s_object(
        "v1", "ConfigMap", meta, data={f"{spec.cluster.name}-gpu-platform.json": dashboard_json(spec)}
    )
