"""Every metric the rendered dashboard and alerts query is one a real exporter serves: gpuplane_*
names are the families the gpuplane exporter itself writes on /metrics (its exposition, parsed back
with prometheus_client's parser), DCGM_* names are in dcgm-exporter's dcp-metrics-included.csv (the
GPU Operator's default set), kube_* and kueue_* names are in the shared reference of what
kube-state-metrics and Kueue expose. A panel naming a metric nobody serves stays empty forever."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.render.metric_helpers import metric_names, real_metrics, served_by_gpuplane_exporter
from tests.render.render_helpers import rendered


def _dashboard_queries(board: dict[str, object]) -> list[str]:
    panels = board["panels"]
    assert isinstance(panels, list)
    exprs = [t["expr"] for p in panels for t in p.get("targets", [])]
    templating = board["templating"]
    assert isinstance(templating, dict)
    exprs += [v["definition"] for v in templating["list"] if v.get("type") == "query"]
    return exprs


def test_the_exporter_serves_the_unmeasured_family_the_new_panel_reads(example: Path) -> None:
    spec, _ = rendered(example)
    served = served_by_gpuplane_exporter(spec)
    assert {"gpuplane_unmeasured_gpu_hours", "gpuplane_idle_allocated_gpu_hours", "gpuplane_nodes"} <= served


def test_every_dashboard_query_names_only_metrics_an_exporter_serves(example: Path, shared_dir: Path) -> None:
    spec, result = rendered(example)
    board = json.loads(result.files["monitoring/grafana-dashboard.json"])
    real = real_metrics(spec, shared_dir)
    queries = _dashboard_queries(board)
    assert len(queries) > 20
    for expr in queries:
        names = metric_names(expr)
        assert names and names <= real, f"{expr}: {names - real}"


def test_every_alert_names_only_metrics_an_exporter_serves(example: Path, shared_dir: Path) -> None:
    spec, result = rendered(example)
    rule = next(d for d in yaml.safe_load_all(result.files["monitoring/prometheus-rules.yaml"]) if d)
    real = real_metrics(spec, shared_dir)
    for group in rule["spec"]["groups"]:
        for r in group["rules"]:
            names = metric_names(r["expr"])
            assert names and names <= real, f"{r['alert']}: {names - real}"


def test_a_metric_nobody_serves_is_caught(example: Path, shared_dir: Path) -> None:
    spec, _ = rendered(example)
    real = real_metrics(spec, shared_dir)
    # the name the issue first guessed for the panel; the exporter's family is gpuplane_unmeasured_gpu_hours
    assert "gpuplane_unmeasured_allocated_gpu_hours" not in real
    assert not metric_names("sum(kube_pod_gpu_hours)") <= real


@pytest.mark.parametrize("view", ["Workload view"])
def test_the_workload_view_plots_unmeasured_gpu_hours_by_team(example: Path, view: str) -> None:
    _, result = rendered(example)
    board = json.loads(result.files["monitoring/grafana-dashboard.json"])
    panels = board["panels"]
    start = next(i for i, p in enumerate(panels) if p["type"] == "row" and p["title"] == view)
    end = next((i for i in range(start + 1, len(panels)) if panels[i]["type"] == "row"), len(panels))
    exprs = {p["title"]: p["targets"][0]["expr"] for p in panels[start + 1 : end]}
    unmeasured = [t for t, e in exprs.items() if "gpuplane_unmeasured_gpu_hours" in e]
    assert len(unmeasured) == 1
    assert exprs[unmeasured[0]].startswith("sum by (team) (")
    assert next(p for p in panels if p["title"] == unmeasured[0])["fieldConfig"]["defaults"]["unit"] == "h"
