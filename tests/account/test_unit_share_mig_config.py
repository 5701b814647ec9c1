"""`account` on a MIG pool declared by a named config agrees with the twin (issue 21, deliver 3).

examples/gke-h100.yaml's `h100-mig` is `sharing: {mode: mig, strategy: single, config: all-1g.10gb}`
with no `layout`: the GPU Operator's all-1g.10gb config (gpu_operator_mig_configs.yaml) cuts each
H100 into seven 1g.10gb instances, and the device plugin's `single` strategy advertises each as one
`nvidia.com/gpu`. One unit is therefore 1/7 of a physical GPU, in the twin and in `account`.

Hand event table, hours from DAY (one a3-highgpu-8g node of h100-mig, up all day):

| pod   | units | running     | GPU-hours by hand     |
|-------|-------|-------------|-----------------------|
| svc-a | 1     | 0:00-6:00   | 1 x 6 / 7 = 6/7       |
| svc-b | 2     | 2:00-10:00  | 2 x 8 / 7 = 16/7      |
| svc-c | 7     | 12:00-15:00 | 7 x 3 / 7 = 3         |

Total 6/7 + 16/7 + 3 = 43/7 GPU-hours. The old resolver counted one unit as a whole GPU (43).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplane.account.engine import run
from gpuplane.account.window import Window
from gpuplane.sim.config import SimConfig
from gpuplane.sim.metrics import summarize
from gpuplane.sim.replay import simulate
from gpuplane.spec import load_spec
from gpuplane.traces.model import PodSet, Workload
from tests.account.conftest import need_prometheus
from tests.support.event_table import Dcgm, Gpu, Node, Pod, Table
from tests.support.promserver import PrometheusServer, build_tsdb

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gke-h100.yaml"
DAY = 1767571200.0  # 2026-01-05T00:00:00Z
H = 3600.0
PODS = (("svc-a", 1, 0.0, 6.0), ("svc-b", 2, 2.0, 10.0), ("svc-c", 7, 12.0, 15.0))
HAND_GPU_HOURS = 6 / 7 + 16 / 7 + 3.0


def at(hours: float) -> float:
    return DAY + hours * H


def _table() -> Table:
    # 8 H100s, each in 7 MIG instances of 1g.10gb (GPU_I_ID 1..7); pods take instances in order.
    gpus = tuple(Gpu(f"GPU-h{i}", mig=tuple((g, "1g.10gb") for g in range(1, 8))) for i in range(8))
    node = Node(
        "gke-h100-mig-0",
        {"gpuplane.io/pool": "h100-mig", "cloud.google.com/gke-nodepool": "h100-mig"},
        at(-2),
        at(24),
        gpus=gpus,
        allocatable={"nvidia.com/gpu": 56},
        model="NVIDIA H100 80GB HBM3",
        dcgm=Dcgm(metrics=("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE")),
    )
    pods = []
    instance = 0
    for name, units, start, end in PODS:
        devices = []
        for _ in range(units):
            devices.append((instance // 7, instance % 7 + 1))
            instance += 1
        pods.append(
            Pod("finetune", name, node.name, "nvidia.com/gpu", units, at(start), at(start), at(end),
                "Succeeded", tuple(devices), 0.5, 10, {"kueue.x-k8s.io/queue-name": "finetune"})
        )  # fmt: skip
    return Table(
        start=at(-2),
        end=at(24),
        nodes=[node],
        pods=pods,
        scrape_s=60.0,
        node_label_allowlist=("gpuplane.io/pool", "cloud.google.com/gke-nodepool"),
        pod_label_allowlist=("kueue.x-k8s.io/queue-name",),
    )


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_prometheus()
    work = tmp_path_factory.mktemp("migconfig")
    build_tsdb([_table()], work / "tsdb")
    server = PrometheusServer(work / "tsdb", work / "server", scrape_s=60)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


def _twin_gpu_hours() -> float:
    spec = load_spec(EXAMPLE, priced=True)
    workloads = [
        Workload(
            id=name,
            team="finetune",
            queue="finetune",
            klass="inference",
            submit=start * H,
            pod_sets=(PodSet("main", 1, float(units)),),
            run_time=(end - start) * H,
        )
        for name, units, start, end in PODS
    ]
    config = SimConfig(horizon_s=24 * H, provisioning_delay_s=0.0)
    summary = summarize(simulate(spec, workloads, config), config)
    (pool,) = [p for p in summary.pools if p.name == "h100-mig"]
    return pool.gpu_hours.allocated


def test_the_twin_counts_a_config_declared_mig_unit_as_one_seventh() -> None:
    assert _twin_gpu_hours() == pytest.approx(HAND_GPU_HOURS, rel=1e-9)


def test_account_agrees_with_the_twin_on_a_config_declared_mig_pool(prometheus: str) -> None:
    spec = load_spec(EXAMPLE, priced=True)
    result = run(prometheus, spec, Window.make(at(0), at(24), 60.0))
    pods = {p.pod: p for p in result.pods}
    for name, units, start, end in PODS:
        assert pods[name].pool == "h100-mig"
        assert pods[name].allocated_h == pytest.approx(units * (end - start) / 7, rel=1e-3)
    total = sum(pods[name].allocated_h for name, *_ in PODS)
    assert total == pytest.approx(HAND_GPU_HOURS, rel=1e-3)
    assert total == pytest.approx(_twin_gpu_hours(), rel=1e-3)
