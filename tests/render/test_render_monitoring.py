"""Monitoring: PrometheusRule expressions are syntactically sane (balanced, quoted) and name only
metrics that DCGM exporter, kube-state-metrics or gpuplane's exporter serve; the Grafana JSON
loads and has the platform, workload and financial views."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from gpuplane.render import dashboard, monitoring
from gpuplane.spec import PlatformSpec
from tests.render.metric_helpers import check_balanced, metric_names, real_metrics
from tests.render.render_helpers import REPO, SMALL_SPEC, rendered, spec_from


def known(spec: PlatformSpec, shared_dir: Path) -> set[str]:
    """The metrics real exporters serve; the gpuplane_* ones are documented in docs/account.md."""
    real = real_metrics(spec, shared_dir)
    documented = set(re.findall(r"`(gpuplane_[a-z_]+)`", (REPO / "docs" / "account.md").read_text()))
    assert {m for m in real if m.startswith("gpuplane_")} <= documented
    return real


def test_metric_name_extraction_finds_metrics_and_skips_labels() -> None:
    expr = 'sum by (pool) (rate(foo_total{a="b{c}"}[5m])) / on (pool) bar > 3'
    assert metric_names(expr) == {"foo_total", "bar"}
    assert metric_names("label_values(gpuplane_nodes, pool)") == {"gpuplane_nodes"}
    with pytest.raises(AssertionError):
        check_balanced('sum(foo{a="b"}')


def test_prometheus_rules_are_balanced_and_name_known_metrics(example: Path, shared_dir: Path) -> None:
    spec, result = rendered(example)
    rule = next(d for d in yaml.safe_load_all(result.files["monitoring/prometheus-rules.yaml"]) if d)
    metrics = known(spec, shared_dir)
    alerts = set()
    for group in rule["spec"]["groups"]:
        for r in group["rules"]:
            check_balanced(r["expr"])
            names = metric_names(r["expr"])
            assert names and names <= metrics, f"{r['alert']}: {names - metrics}"
            assert re.fullmatch(r"\d+[smh]", r["for"])
            alerts.add(r["alert"])
    assert {
        "GPUAllocatedButIdle",
        "GPUXidError",
        "GPUPodsPendingTooLong",
        "GPUWorkloadsPendingTooLong",
        "GPUPoolAtMaxNodes",
    } <= alerts


def test_alert_thresholds_come_from_the_spec() -> None:
    spec = spec_from(
        SMALL_SPEC + "monitoring: {namespace: mon, alerts: {idleUtilPercent: 7, idleMinutes: 45, "
        "pendingMinutes: 20}}\n"
    )
    rule = monitoring.prometheus_rule(spec)
    assert rule["metadata"]["namespace"] == "mon"
    by_name = {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"]}
    assert by_name["GPUAllocatedButIdle"]["expr"].endswith("< 7")
    assert by_name["GPUAllocatedButIdle"]["for"] == "45m"
    assert by_name["GPUPodsPendingTooLong"]["for"] == "20m"
    at_max = [
        r["expr"] for g in rule["spec"]["groups"] for r in g["rules"] if r["alert"] == "GPUPoolAtMaxNodes"
    ]
    assert at_max == [
        'max by (pool) (gpuplane_nodes{pool="a100-spot"}) >= 2',
        'max by (pool) (gpuplane_nodes{pool="a100-mig"}) >= 3',
        'max by (pool) (gpuplane_nodes{pool="t4"}) >= 5',
    ]


def test_grafana_dashboard_loads_with_three_views_and_known_metrics(example: Path, shared_dir: Path) -> None:
    spec, result = rendered(example)
    board = json.loads(result.files["monitoring/grafana-dashboard.json"])
    rows = [p["title"] for p in board["panels"] if p["type"] == "row"]
    assert rows == ["Platform view", "Workload view", "Financial view"]
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    metrics = known(spec, shared_dir)
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            check_balanced(target["expr"])
            assert metric_names(target["expr"]) <= metrics
    cm = next(d for d in yaml.safe_load_all(result.files["monitoring/grafana-dashboard-configmap.yaml"]) if d)
    assert json.loads(next(iter(cm["data"].values()))) == board
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert board["uid"] == dashboard.dashboard(spec)["uid"]
