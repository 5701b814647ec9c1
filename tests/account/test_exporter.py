"""The exporter: served metrics are scraped by the real Prometheus and queried back; labels stay bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuplane.account.exporter import Exporter, make_server
from gpuplane.account.prom import PromClient
from gpuplane.account.promserver import Cluster, free_port


@pytest.fixture(scope="module")
def exporter(cluster: Cluster) -> Iterator[Exporter]:
    exp = Exporter(cluster.url, cluster.spec, window_s=7 * 86400, step_s=60)
    assert exp.refresh(now=cluster.week.end)
    server = make_server(exp, "127.0.0.1", cluster.exporter_port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield exp
    server.shutdown()
    server.server_close()


def _families(exp: Exporter) -> dict[str, list[tuple[dict[str, str], float]]]:
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(exp.exposition()):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return out


def test_every_documented_metric_is_served(exporter: Exporter, repo_dir: object) -> None:
    from pathlib import Path

    doc = (Path(str(repo_dir)) / "docs" / "account.md").read_text(encoding="utf-8")
    documented = {line.split("`")[1] for line in doc.splitlines() if line.startswith("| `gpuplane_")}
    served = set(_families(exporter))
    assert documented and documented <= served, documented - served


def test_labels_are_bounded_by_the_spec(exporter: Exporter, cluster: Cluster) -> None:
    teams = {t.name for t in cluster.spec.teams} | {"unassigned"}
    namespaces = {ns for t in cluster.spec.teams for ns in t.namespaces} | {"other"}
    pools = {p.name for p in cluster.spec.node_pools} | {"unknown"}
    for samples in _families(exporter).values():
        for labels, _ in samples:
            assert "pod" not in labels and "node" not in labels
            assert labels.get("team", "unassigned") in teams
            assert labels.get("namespace", "other") in namespaces
            assert labels.get("pool", "unknown") in pools


def test_exporter_figures_match_the_account_truth(exporter: Exporter, cluster: Cluster) -> None:
    fam = _families(exporter)
    allocated = sum(v for labels, v in fam["gpuplane_allocated_gpu_hours"] if labels["team"] == "nlp")
    truth = sum(
        h for (ns, pod), h in cluster.truth.pod_allocated.items() if ns == "nlp" and pod != "ts-dev-b"
    )
    assert allocated == pytest.approx(truth, rel=0.005)
    provisioned = {labels["pool"]: v for labels, v in fam["gpuplane_provisioned_gpu_hours"]}
    assert provisioned["t4"] == pytest.approx(168.0, rel=0.005)
    assert dict(fam["gpuplane_utilization_source"][0][0]) == {"source": "DCGM_FI_PROF_GR_ENGINE_ACTIVE"}
    nodes = {labels["pool"]: v for labels, v in fam["gpuplane_nodes"]}
    assert nodes == {"train": 2, "spot": 0, "mig": 1, "t4": 1}  # the spot pool scaled to zero
    gpus = {labels["pool"]: v for labels, v in fam["gpuplane_gpus_provisioned"]}
    assert gpus["train"] == 4


def test_healthz_and_metrics_endpoints(exporter: Exporter, cluster: Cluster) -> None:
    base = f"http://127.0.0.1:{cluster.exporter_port}"
    assert httpx.get(f"{base}/healthz", timeout=5).text == "ok\n"
    metrics = httpx.get(f"{base}/metrics", timeout=5)
    assert metrics.status_code == 200 and "gpuplane_cost{" in metrics.text


def test_healthz_is_503_until_prometheus_answers(cluster: Cluster) -> None:
    exp = Exporter(f"http://127.0.0.1:{free_port()}", cluster.spec, window_s=3600)
    assert not exp.refresh()
    status, body = exp.health()
    assert status == 503 and "cannot reach Prometheus" in body
    assert "gpuplane_exporter_up 0.0" in exp.exposition()


def test_prometheus_scrapes_the_exporter_and_queries_it_back(exporter: Exporter, cluster: Cluster) -> None:
    expected = {labels["pool"]: v for labels, v in _families(exporter)["gpuplane_provisioned_gpu_hours"]}
    deadline = time.monotonic() + 30
    got: dict[str, float] = {}
    with PromClient(cluster.url) as client:
        while time.monotonic() < deadline and len(got) < len(expected):
            got = {
                s.labels["pool"]: s.samples[0][1]
                for s in client.instant("gpuplane_provisioned_gpu_hours", time.time())
            }
            time.sleep(0.5)
        assert got == pytest.approx(expected)
        teams = client.instant('sum by (team) (gpuplane_cost{component="failed"})', time.time())
    assert {s.labels["team"] for s in teams} >= {"nlp"}
