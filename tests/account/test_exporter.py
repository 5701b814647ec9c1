"""The exporter: served metrics are scraped by the real Prometheus and queried back; labels stay
bounded; its refresh loop outlives Prometheus going away (and bugs) and recovers; clients that hang
up are silent; URLs are never shown with credentials."""

from __future__ import annotations

import logging
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuplane.account.exporter import Exporter, make_server, refresh_loop
from gpuplane.account.prom import PromClient
from tests.account.conftest import Day
from tests.account.done_day import DAY
from tests.support.promserver import free_port

MIG_UNMEASURED = 24 * 3 / 7 + 12 * 2 / 7 + 24 / 7  # done_day: the MIG node has no profiling metrics


@pytest.fixture(scope="module")
def exporter(day: Day) -> Iterator[Exporter]:
    exp = Exporter(day.url, day.spec, window_s=86400, step_s=30)
    assert exp.refresh(now=DAY + 86400)
    server = make_server(exp, "127.0.0.1", day.exporter_port)
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


def _wait_for(check: Callable[[], bool], what: str, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"gave up waiting for {what}")


def test_every_documented_metric_is_served(exporter: Exporter, repo_dir: Path) -> None:
    doc = (repo_dir / "docs" / "account.md").read_text(encoding="utf-8")
    documented = {line.split("`")[1] for line in doc.splitlines() if line.startswith("| `gpuplane_")}
    served = set(_families(exporter))
    assert "gpuplane_unmeasured_gpu_hours" in documented
    assert documented <= served, documented - served


def test_labels_are_bounded_by_the_spec(exporter: Exporter, day: Day) -> None:
    teams = {t.name for t in day.spec.teams} | {"unassigned"}
    namespaces = {ns for t in day.spec.teams for ns in t.namespaces} | {"other"}
    pools = {p.name for p in day.spec.node_pools} | {"unknown"}
    for samples in _families(exporter).values():
        for labels, _ in samples:
            assert "pod" not in labels and "node" not in labels
            assert labels.get("team", "unassigned") in teams
            assert labels.get("namespace", "other") in namespaces
            assert labels.get("pool", "unknown") in pools


def test_exporter_figures_are_the_hand_computed_ones(exporter: Exporter) -> None:
    fam = _families(exporter)
    unmeasured: dict[str, float] = {}
    for labels, v in fam["gpuplane_unmeasured_gpu_hours"]:
        unmeasured[labels["pool"]] = unmeasured.get(labels["pool"], 0.0) + v
    assert {k: v for k, v in unmeasured.items() if v} == pytest.approx({"mig": MIG_UNMEASURED}, rel=1e-3)
    failed = sum(v for labels, v in fam["gpuplane_failed_gpu_hours"] if labels["team"] == "nlp")
    assert failed == pytest.approx(2 * (7 - 65 / 60), rel=1e-3)
    provisioned = {labels["pool"]: v for labels, v in fam["gpuplane_provisioned_gpu_hours"]}
    assert provisioned == pytest.approx({"train": 96, "spot": 14, "mig": 24, "t4": 24}, rel=1e-3)
    nodes = {labels["pool"]: v for labels, v in fam["gpuplane_nodes"]}
    assert nodes == {"train": 2, "spot": 0, "mig": 1, "t4": 1}  # the spot node went at 14 h
    gpus_now = sum(v for _, v in fam["gpuplane_gpus_allocated"])
    assert gpus_now == pytest.approx(3 / 7 + 1 / 7 + 1 / 4, rel=1e-3)  # llm-serve, small-a, ts-a at the end
    components = {labels["component"] for labels, _ in fam["gpuplane_cost"]}
    assert components == {"useful", "idle_allocated", "unmeasured", "failed", "unallocated"}
    assert fam["gpuplane_exporter_up"][0][1] == 1.0


def test_healthz_and_metrics_endpoints(exporter: Exporter, day: Day) -> None:
    base = f"http://127.0.0.1:{day.exporter_port}"
    assert httpx.get(f"{base}/healthz", timeout=5).text == "ok\n"
    metrics = httpx.get(f"{base}/metrics", timeout=5)
    assert metrics.status_code == 200 and "gpuplane_cost{" in metrics.text
    assert httpx.get(f"{base}/nothing", timeout=5).status_code == 404


def test_prometheus_scrapes_the_exporter_and_queries_it_back(exporter: Exporter, day: Day) -> None:
    expected = {labels["pool"]: v for labels, v in _families(exporter)["gpuplane_provisioned_gpu_hours"]}
    got: dict[str, float] = {}
    with PromClient(day.url) as client:

        def scraped() -> bool:
            got.update(
                {
                    s.labels["pool"]: s.value
                    for s in client.instant("gpuplane_provisioned_gpu_hours", time.time())
                }
            )
            return len(got) == len(expected)

        _wait_for(scraped, "Prometheus to scrape the exporter")
        assert got == pytest.approx(expected)
        teams = client.instant('sum by (team) (gpuplane_cost{component="failed"})', time.time())
    assert {s.labels["team"] for s in teams} >= {"nlp"}


def test_a_client_that_hangs_up_is_silent(
    exporter: Exporter, day: Day, capfd: pytest.CaptureFixture[str]
) -> None:
    for _ in range(20):
        sock = socket.create_connection(("127.0.0.1", day.exporter_port), timeout=5)
        sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, not a close
        sock.close()
    assert httpx.get(f"http://127.0.0.1:{day.exporter_port}/healthz", timeout=5).status_code == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err


def test_the_refresh_loop_outlives_prometheus_going_away_and_recovers(day: Day) -> None:
    exp = Exporter(day.url, day.spec, window_s=600, step_s=30, timeout_s=5)
    stop = threading.Event()
    thread = threading.Thread(target=refresh_loop, args=(exp, 0.2, stop), daemon=True)
    thread.start()
    try:
        _wait_for(lambda: exp.health()[0] == 200, "a first good refresh")
        day.server.stop()
        _wait_for(lambda: exp.health()[0] == 503, "the exporter to notice Prometheus is gone")
        _status, body = exp.health()
        assert "cannot reach Prometheus" in body and "serving figures from" in body
        assert "gpuplane_exporter_up 0.0" in exp.exposition()
        assert "gpuplane_provisioned_gpu_hours" in exp.exposition()  # the last good figures stay
        assert thread.is_alive()
    finally:
        if day.server.process is None:
            day.server.start()
            day.server.wait_ready()
    try:
        _wait_for(lambda: exp.health()[0] == 200, "the exporter to recover")
        assert "gpuplane_exporter_up 1.0" in exp.exposition()
    finally:
        stop.set()
        thread.join(timeout=30)


def test_a_bug_in_a_refresh_is_reported_and_the_loop_goes_on(
    day: Day, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    exp = Exporter(day.url, day.spec, window_s=600, step_s=30)
    calls = {"n": 0}
    real = Exporter.compute

    def flaky(self: Exporter, now: float | None = None) -> object:
        calls["n"] += 1
        if calls["n"] <= 3:
            raise KeyError("boom")
        return real(self, now)

    monkeypatch.setattr(Exporter, "compute", flaky)
    with caplog.at_level(logging.ERROR, logger="gpuplane.exporter"):
        for _ in range(3):
            assert not exp.refresh()
    status, body = exp.health()
    assert status == 503 and "internal error KeyError" in body
    assert (
        sum("refresh failed" in r.getMessage() for r in caplog.records) == 1
    )  # once per kind, not per refresh
    assert exp.refresh() and exp.health() == (200, "ok\n")


def test_credentials_never_reach_healthz_or_the_log(day: Day, caplog: pytest.LogCaptureFixture) -> None:
    exp = Exporter(f"http://admin:s3cret@127.0.0.1:{free_port()}/?token=t0ken", day.spec, window_s=600)
    with caplog.at_level(logging.ERROR, logger="gpuplane.exporter"):
        assert not exp.refresh()
    status, body = exp.health()
    assert status == 503 and "cannot reach Prometheus" in body
    logged = " ".join(r.getMessage() for r in caplog.records)
    for text in (body, logged, exp.exposition()):
        assert "s3cret" not in text and "t0ken" not in text
