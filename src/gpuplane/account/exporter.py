"""`gpuplane exporter`: the account views as `gpuplane_*` Prometheus metrics, plus `/healthz`.

Every `--interval` the exporter accounts the trailing `--window` and swaps in a new snapshot;
scrapes read the last snapshot and never wait for Prometheus. Label values come from the spec
(teams, their namespaces, pools, accelerators) plus `unassigned`/`other`/`unknown`, so the number
of series is bounded by the spec, not by the pods that ran. docs/account.md lists every metric.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from gpuplane.account import engine, views
from gpuplane.account.collect import Window
from gpuplane.account.compute import UNASSIGNED, UNKNOWN, AccountResult
from gpuplane.account.prom import redact_url
from gpuplane.errors import InputError
from gpuplane.spec import PlatformSpec

OTHER = "other"
GROUP = ("team", "namespace", "pool", "accelerator")
POOL = ("pool", "accelerator")


class Bounds:
    """Maps observed label values onto the spec's finite set."""

    def __init__(self, spec: PlatformSpec) -> None:
        self.teams = {t.name for t in spec.teams}
        self.namespaces = {ns for t in spec.teams for ns in t.namespaces}
        self.pools = {p.name for p in spec.node_pools}
        self.accelerators = {p.accelerator for p in spec.node_pools if p.accelerator}

    def group(self, team: str, namespace: str, pool: str, accelerator: str) -> tuple[str, ...]:
        return (
            team if team in self.teams else UNASSIGNED,
            namespace if namespace in self.namespaces else OTHER,
            pool if pool in self.pools else UNKNOWN,
            accelerator if accelerator in self.accelerators else UNKNOWN,
        )


def _gauge(
    name: str, doc: str, labels: tuple[str, ...], values: dict[tuple[str, ...], float]
) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=list(labels))
    for key in sorted(values):
        family.add_metric(list(key), values[key])
    return family


def _last(points: list[tuple[float, float]], end: float, step: float) -> float:
    return points[-1][1] if points and points[-1][0] >= end - 1.5 * step else 0.0


def financial_families(result: AccountResult, spec: PlatformSpec) -> Iterator[GaugeMetricFamily]:
    """GPU-hours, cost and unit-cost gauges over the window."""
    bounds = Bounds(spec)
    cur = result.currency
    sums: dict[str, dict[tuple[str, ...], float]] = defaultdict(lambda: defaultdict(float))
    for pod in result.pods:
        key = bounds.group(pod.team, pod.namespace, pod.pool, pod.accelerator)
        for name, value in (
            ("allocated", pod.allocated_h),
            ("useful", pod.useful_h),
            ("idle", pod.idle_h),
            ("failed", pod.failed_h),
        ):
            sums[name][key] += value
        for component, hours in (
            ("useful", pod.useful_h),
            ("idle_allocated", pod.idle_h),
            ("failed", pod.failed_h),
        ):
            sums["cost"][(*key, component, cur)] += hours * pod.gpu_hourly
    provisioned: dict[tuple[str, ...], float] = defaultdict(float)
    unallocated: dict[tuple[str, ...], float] = defaultdict(float)
    for pool in result.pools:
        key = bounds.group("", "", pool.pool, pool.accelerator)[2:]
        provisioned[key] += pool.provisioned_h
        unallocated[key] += pool.unallocated_h
        sums["cost"][(UNASSIGNED, OTHER, *key, "unallocated", cur)] += pool.unallocated_h * pool.gpu_hourly
    yield _gauge(
        "gpuplane_provisioned_gpu_hours", "GPU-hours of GPU nodes over the window.", POOL, provisioned
    )
    yield _gauge(
        "gpuplane_unallocated_gpu_hours", "Provisioned GPU-hours no pod requested.", POOL, unallocated
    )
    for name, doc in (
        ("allocated", "GPU-hours requested by running pods."),
        ("useful", "Allocated GPU-hours weighted by engine activity."),
        ("idle", "Allocated GPU-hours the GPUs were not active."),
        ("failed", "Allocated GPU-hours of pods that failed."),
    ):
        metric = "gpuplane_idle_allocated_gpu_hours" if name == "idle" else f"gpuplane_{name}_gpu_hours"
        yield _gauge(metric, doc, GROUP, sums[name])
    yield _gauge(
        "gpuplane_cost", "Cost over the window by component.", (*GROUP, "component", "currency"), sums["cost"]
    )
    yield from _unit_cost_families(result, bounds)


def _unit_cost_families(result: AccountResult, bounds: Bounds) -> Iterator[GaugeMetricFamily]:
    effective = views.team_effective(result)
    teams = {r.name: r for r in views.financial(result, "team")}
    per_useful: dict[tuple[str, ...], float] = {}
    per_unit: dict[tuple[str, ...], float] = {}
    for team, cost in effective.items():
        label = (team if team in bounds.teams else UNASSIGNED, result.currency)
        row = teams[team]
        if row.hours.useful > 0:
            per_useful[label] = cost.total / row.hours.useful
        unit = cost.per_accepted_unit(row.accepted)
        if unit is not None:
            per_unit[label] = unit
    yield _gauge(
        "gpuplane_effective_cost_per_useful_gpu_hour",
        "Team cost with shared idle and overheads per useful GPU-hour.",
        ("team", "currency"),
        per_useful,
    )
    yield _gauge(
        "gpuplane_cost_per_accepted_unit", "Effective cost per succeeded job.", ("team", "currency"), per_unit
    )


def workload_families(result: AccountResult, spec: PlatformSpec) -> Iterator[GaugeMetricFamily]:
    """Allocated GPUs now, activity, jobs by outcome and Kueue pending workloads."""
    bounds = Bounds(spec)
    raw = result.raw
    now_gpus: dict[tuple[str, ...], float] = defaultdict(float)
    pods = {(p.namespace, p.pod): p for p in result.pods}
    for (ns, pod_name, _node, _res), points in raw.alloc_series.items():
        pod = pods.get((ns, pod_name))
        if pod is not None and pod.units:
            key = bounds.group(pod.team, pod.namespace, pod.pool, pod.accelerator)
            now_gpus[key] += _last(points, result.end, raw.chart_step) * pod.gpus / pod.units
    alloc: dict[tuple[str, ...], float] = defaultdict(float)
    useful: dict[tuple[str, ...], float] = defaultdict(float)
    jobs: dict[tuple[str, ...], float] = defaultdict(float)
    for pod in result.pods:
        key = bounds.group(pod.team, pod.namespace, pod.pool, pod.accelerator)
        if pod.outcome != "Failed":
            alloc[key] += pod.allocated_h
            useful[key] += pod.useful_h
        outcome = {"Succeeded": "succeeded", "Failed": "failed"}.get(pod.outcome, "running")
        jobs[(key[0], key[1], outcome)] += 1
    ratio = {k: useful[k] / v for k, v in alloc.items() if v > 0}
    pending: dict[tuple[str, ...], float] = {
        (q if q in bounds.teams else UNASSIGNED,): v for q, v in result.kueue_pending.items()
    }
    yield _gauge(
        "gpuplane_gpus_allocated", "GPUs requested by running pods at the last sample.", GROUP, now_gpus
    )
    yield _gauge("gpuplane_engine_active_ratio", "Mean engine activity of allocated GPUs.", GROUP, ratio)
    yield _gauge(
        "gpuplane_jobs", "GPU pods seen in the window by outcome.", ("team", "namespace", "outcome"), jobs
    )
    yield _gauge(
        "gpuplane_pending_workloads", "Kueue pending workloads at the last sample.", ("team",), pending
    )


def platform_families(result: AccountResult, spec: PlatformSpec) -> Iterator[GaugeMetricFamily]:
    """Nodes and GPUs now, XID, temperature and power per pool."""
    bounds = Bounds(spec)
    raw = result.raw
    nodes: dict[tuple[str, ...], float] = defaultdict(float)
    gpus: dict[tuple[str, ...], float] = defaultdict(float)
    pool_acc = {p.pool: p for p in result.pools}
    for p in result.pools:
        key = bounds.group("", "", p.pool, p.accelerator)[2:]
        nodes[key] += 0.0
        gpus[key] += 0.0
    for node in raw.nodes_at_end:
        pool = pool_acc.get(result.node_pool.get(node, UNKNOWN))
        if pool is None:
            continue
        key = bounds.group("", "", pool.pool, pool.accelerator)[2:]
        nodes[key] += 1
        gpus[key] += pool.gpus_per_node
    xid: dict[tuple[str, ...], float] = {
        bounds.group("", "", p.pool, p.accelerator)[2:]: float(p.xid_gpus) for p in result.pools
    }
    temp: dict[tuple[str, ...], float] = {
        bounds.group("", "", p.pool, p.accelerator)[2:]: p.max_temp_c
        for p in result.pools
        if p.max_temp_c is not None
    }
    power: dict[tuple[str, ...], float] = {
        bounds.group("", "", p.pool, p.accelerator)[2:]: p.energy_kwh * 1000 / result.hours
        for p in result.pools
        if result.hours > 0
    }
    yield _gauge("gpuplane_nodes", "GPU nodes at the last sample.", POOL, nodes)
    yield _gauge("gpuplane_gpus_provisioned", "Physical GPUs at the last sample.", POOL, gpus)
    yield _gauge("gpuplane_xid_errors", "GPUs that reported an XID error in the window.", POOL, xid)
    yield _gauge("gpuplane_gpu_temperature_celsius_max", "Hottest GPU temperature in the window.", POOL, temp)
    yield _gauge("gpuplane_gpu_power_watts", "Mean total GPU power draw of the pool.", POOL, power)


class Exporter(Collector):
    """Holds the last snapshot and renders it as metric families."""

    def __init__(
        self, url: str, spec: PlatformSpec, *, window_s: float = 3600.0, step_s: float = 30.0
    ) -> None:
        self.url = url
        self.url_shown = redact_url(url)
        self.spec = spec
        self.window_s = window_s
        self.step_s = step_s
        self.result: AccountResult | None = None
        self.last_success = 0.0
        self.last_duration = 0.0
        self.last_error = "no refresh yet"
        self.lock = threading.Lock()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    def refresh(self, now: float | None = None) -> bool:
        """Recompute the views for the trailing window; keeps the old snapshot on failure."""
        began = time.monotonic()
        end = time.time() if now is None else now
        window = Window.make(end - self.window_s, end, self.step_s)
        try:
            result = engine.run(
                self.url, self.spec, window, charts=True, timeout_s=max(self.window_s / 60, 30.0)
            )
        except InputError as exc:
            with self.lock:
                self.last_error = str(exc)
            return False
        with self.lock:
            self.result = result
            self.last_success = time.time()
            self.last_duration = time.monotonic() - began
            self.last_error = ""
        return True

    def describe(self) -> Iterable[Metric]:
        return []

    def collect(self) -> Iterable[Metric]:
        with self.lock:
            result, ok = self.result, not self.last_error
            health = (self.last_success, self.last_duration)
        if result is not None:
            yield from financial_families(result, self.spec)
            yield from workload_families(result, self.spec)
            yield from platform_families(result, self.spec)
        yield _gauge(
            "gpuplane_exporter_up", "1 when the last refresh succeeded.", (), {(): 1.0 if ok else 0.0}
        )
        yield _gauge(
            "gpuplane_exporter_last_success_timestamp_seconds",
            "Time of the last successful refresh.",
            (),
            {(): health[0]},
        )
        yield _gauge(
            "gpuplane_exporter_refresh_duration_seconds", "Duration of the last refresh.", (), {(): health[1]}
        )
        yield _gauge(
            "gpuplane_exporter_window_seconds", "Trailing window of the figures.", (), {(): self.window_s}
        )
        source = result.activity_source if result is not None else ""
        yield _gauge(
            "gpuplane_utilization_source",
            "Activity metric in use.",
            ("source",),
            {(source,): 1.0} if source else {},
        )

    def exposition(self) -> str:
        return generate_latest(self.registry).decode("utf-8")

    def health(self) -> tuple[int, str]:
        with self.lock:
            if self.result is not None and not self.last_error:
                return 200, "ok\n"
            return 503, f"not ready: {self.last_error}\n"


def _handler(exporter: Exporter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                status, body, kind = 200, exporter.exposition(), "text/plain; version=0.0.4; charset=utf-8"
            elif path == "/healthz":
                status, body = exporter.health()
                kind = "text/plain; charset=utf-8"
            else:
                status, body, kind = 404, "see /metrics and /healthz\n", "text/plain; charset=utf-8"
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


def make_server(exporter: Exporter, address: str, port: int) -> ThreadingHTTPServer:
    """The HTTP server for /metrics and /healthz (port 0 picks a free port)."""
    return ThreadingHTTPServer((address, port), _handler(exporter))


def refresh_loop(exporter: Exporter, interval_s: float, stop: threading.Event) -> None:
    """Refresh now and then every `interval_s` until `stop` is set."""
    while not stop.is_set():
        exporter.refresh()
        stop.wait(interval_s)


def serve(exporter: Exporter, address: str, port: int, interval_s: float) -> None:
    """Serve forever: a refresh thread and the HTTP server."""
    stop = threading.Event()
    thread = threading.Thread(target=refresh_loop, args=(exporter, interval_s, stop), daemon=True)
    thread.start()
    server = make_server(exporter, address, port)
    try:
        server.serve_forever()
    finally:
        stop.set()
        server.server_close()
