"""Monitoring: PrometheusRule expressions are syntactically sane (balanced, quoted) and name only
metrics that exist in DCGM exporter, kube-state-metrics or gpuplane's exporter; the Grafana JSON
loads and has the platform, workload and financial views."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
import yaml
from render_helpers import REPO, SMALL_SPEC, rendered, spec_from

from gpuplane.render import dashboard, monitoring

PROMQL_WORDS = {
    "sum",
    "avg",
    "max",
    "min",
    "count",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "vector",
    "avg_over_time",
    "max_over_time",
    "min_over_time",
    "rate",
    "increase",
    "label_values",
    "inf",
    "nan",
}
PAIRS = {"(": ")", "{": "}", "[": "]"}


def check_balanced(expr: str) -> None:
    """Brackets balance and nest, and string literals close."""
    stack: list[str] = []
    in_string = False
    for ch in expr:
        if ch == '"':
            in_string = not in_string
        elif in_string:
            continue
        elif ch in PAIRS:
            stack.append(PAIRS[ch])
        elif ch in PAIRS.values():
            assert stack and stack.pop() == ch, f"unbalanced {ch!r} in {expr}"
    assert not in_string, f"unclosed string in {expr}"
    assert not stack, f"unclosed {stack} in {expr}"


def metric_names(expr: str) -> set[str]:
    """Metric names in an expression: identifiers outside matchers, ranges, strings and label lists."""
    text = re.sub(r'"[^"]*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w.])([A-Za-z_:][\w:]*)\s*(\()?", text):
        word, call = match.group(1), match.group(2)
        if call or word.lower() in PROMQL_WORDS or word.startswith("$"):
            continue
        names.add(word)
    return names


def upstream_dcgm(shared_dir: Path) -> set[str]:
    path = shared_dir / "reference" / "nvidia-data" / "dcgm-exporter-dcp-metrics-included.csv"
    rows = csv.reader(
        line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")
    )
    return {row[0].strip() for row in rows}


def known(shared_dir: Path) -> set[str]:
    lists = monitoring.known_metrics()
    assert set(lists["dcgm"]) <= upstream_dcgm(shared_dir)
    account_doc = REPO / "docs" / "account.md"
    if account_doc.exists():
        documented = set(re.findall(r"`(gpuplane_[a-z_]+)`", account_doc.read_text()))
        assert set(lists["gpuplane"]) <= documented
    return {m for names in lists.values() for m in names}


def test_metric_name_extraction_finds_metrics_and_skips_labels() -> None:
    expr = 'sum by (pool) (rate(foo_total{a="b{c}"}[5m])) / on (pool) bar > 3'
    assert metric_names(expr) == {"foo_total", "bar"}
    with pytest.raises(AssertionError):
        check_balanced('sum(foo{a="b"}')


def test_prometheus_rules_are_balanced_and_name_known_metrics(example: Path, shared_dir: Path) -> None:
    _, result = rendered(example)
    rule = next(d for d in yaml.safe_load_all(result.files["monitoring/prometheus-rules.yaml"]) if d)
    metrics = known(shared_dir)
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
    metrics = known(shared_dir)
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            check_balanced(target["expr"])
            assert metric_names(target["expr"]) <= metrics
    cm = next(d for d in yaml.safe_load_all(result.files["monitoring/grafana-dashboard-configmap.yaml"]) if d)
    assert json.loads(next(iter(cm["data"].values()))) == board
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert board["uid"] == dashboard.dashboard(spec)["uid"]
