"""Never a traceback from `account` or the exporter on any well-formed PromQL answer.

A fake Prometheus answers every query with series built at random from the labels the queries
use (empty results, absent labels, stray values, negative and huge numbers, matrices with gaps);
accounting, the outputs, the report and the exporter's families must all come out without an
exception. Seeded, so every run checks the same answers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric

from gpuplane.account import output
from gpuplane.account.compute import account
from gpuplane.account.exporter_metrics import financial_families, platform_families, workload_families
from gpuplane.account.fetch import gather
from gpuplane.account.prom import PromClient
from gpuplane.account.report import build_page
from gpuplane.account.window import Window
from tests.account.conftest import parse
from tests.account.done_day import SPEC

LABELS = {
    "namespace": ["vision", "nlp", "x", ""],
    "pod": ["a", "b", "c", ""],
    "node": ["aks-train-0", "aks-mig-0", "aks-t4-0", "stray", ""],
    "resource": ["nvidia_com_gpu", "nvidia_com_mig_3g_40gb", "nvidia_com_mig_9g_1gb", "cpu"],
    "Hostname": ["aks-train-0", "aks-t4-0", ""],
    "UUID": ["GPU-1", "GPU-2"],
    "GPU_I_ID": ["", "1", "2"],
    "GPU_I_PROFILE": ["", "3g.40gb", "7g.80gb"],
    "kind": ["active", "measured", "other"],
    "phase": ["Succeeded", "Failed", "Weird"],
    "cluster_queue": ["vision", "q", ""],
    "label_gpuplane_io_pool": ["train", "mig", "t4", "cpu", "nope"],
    "gpu": ["0", "1"],
    "image": ["img"],
}
VALUES = [0.0, 1.0, 0.5, -3.0, 1e12, 7.0, 2880.0, 1767571200.0]


def _labels(rng: random.Random) -> dict[str, str]:
    return {k: rng.choice(v) for k, v in LABELS.items() if rng.random() < 0.6 and rng.choice(v)}


def _answer(rng: random.Random, request: httpx.Request) -> httpx.Response:
    form = dict(item.split("=", 1) for item in request.content.decode().split("&")) if request.content else {}
    if request.url.path.endswith("buildinfo"):
        return httpx.Response(200, content=json.dumps({"status": "success", "data": {"version": "2.42.0"}}))
    series = [_labels(rng) for _ in range(rng.choice([0, 0, 1, 3, 8]))]
    unique = list({json.dumps(s, sort_keys=True): s for s in series}.values())
    if "step" in form:
        start, end, step = float(form["start"]), float(form["end"]), float(form["step"])
        times = [start + i * step for i in range(int((end - start) / step) + 1) if rng.random() < 0.7]
        result = [{"metric": s, "values": [[t, str(rng.choice(VALUES))] for t in times]} for s in unique]
        data = {"resultType": "matrix", "result": result}
    else:
        at = float(form.get("time", "0"))
        data = {
            "resultType": "vector",
            "result": [{"metric": s, "value": [at, str(rng.choice(VALUES))]} for s in unique],
        }
    return httpx.Response(200, content=json.dumps({"status": "success", "data": data}))


@pytest.mark.parametrize("seed", range(40))
def test_any_well_formed_answer_gives_a_result_never_a_traceback(seed: int) -> None:
    rng = random.Random(seed)
    spec = parse(SPEC)
    client = PromClient("http://prom.test", transport=httpx.MockTransport(lambda r: _answer(rng, r)))
    window = Window.make(1767571200, 1767571200 + 6 * 3600, 300, chunk_steps=24)
    raw = gather(client, window, charts=seed % 2 == 0)
    result = account(raw, spec)
    json.loads(output.to_json(result))
    output.to_csv(result)
    build_page(result).render()
    registry = CollectorRegistry(auto_describe=False)

    class Snapshot:
        def describe(self) -> list[Metric]:
            return []

        def collect(self) -> Iterator[Metric]:
            yield from financial_families(result, spec)
            yield from workload_families(result, spec)
            yield from platform_families(result, spec)

    registry.register(Snapshot())
    assert b"gpuplane_provisioned_gpu_hours" in generate_latest(registry)
    for pod in result.pods:
        assert min(pod.useful_h, pod.idle_h, pod.unmeasured_h, pod.failed_h) >= -1e-9, pod
    for pool in result.pools:
        assert pool.provisioned_h >= 0 and pool.unallocated_h >= 0 and pool.energy_kwh >= 0, pool
