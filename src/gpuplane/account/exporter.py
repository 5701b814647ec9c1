"""`gpuplane exporter`: the account views as `gpuplane_*` Prometheus metrics, plus `/healthz`.

Every `--interval` the exporter accounts the trailing `--window` (within `--timeout`) and swaps in
a new snapshot; scrapes read the last good snapshot and never wait for Prometheus. A refresh that
fails for any reason — Prometheus down, a garbage answer, even a bug — is logged once per kind of
failure, turns `/healthz` to 503 with the reason and `gpuplane_exporter_up` to 0, and the loop
goes on; the next good refresh recovers. URLs are shown with credentials hidden, everywhere.
"""

from __future__ import annotations

import errno
import logging
import re
import socket
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from gpuplane.account import engine
from gpuplane.account.compute import AccountResult
from gpuplane.account.exporter_metrics import financial_families, gauge, platform_families, workload_families
from gpuplane.account.promurl import redact_text, redact_url
from gpuplane.account.window import Window
from gpuplane.errors import GpuplaneError, UsageError
from gpuplane.spec import PlatformSpec

log = logging.getLogger("gpuplane.exporter")
_QUIET = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class Exporter(Collector):
    """Holds the last good snapshot and renders it as metric families."""

    def __init__(
        self,
        url: str,
        spec: PlatformSpec,
        *,
        window_s: float = 3600.0,
        step_s: float = 30.0,
        timeout_s: float = 120.0,
    ) -> None:
        self.url = url
        self.url_shown = redact_url(url)
        self.spec = spec
        self.window_s = window_s
        self.step_s = step_s
        self.timeout_s = timeout_s
        self.result: AccountResult | None = None
        self.last_success = 0.0
        self.last_duration = 0.0
        self.last_error = "no refresh yet"
        self.failures = 0
        self._logged: set[str] = set()
        self.lock = threading.Lock()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    def compute(self, now: float | None = None) -> AccountResult:
        """One account run over the trailing window (raises what the engine raises)."""
        end = time.time() if now is None else now
        window = Window.make(end - self.window_s, end, self.step_s)
        return engine.run(self.url, self.spec, window, charts=False, timeout_s=self.timeout_s)

    def refresh(self, now: float | None = None) -> bool:
        """Recompute the snapshot; on any failure keep the old one, record why and return False."""
        began = time.monotonic()
        try:
            result = self.compute(now)
        except GpuplaneError as exc:
            self._failed(type(exc).__name__, str(exc), None)
            return False
        except Exception as exc:  # the loop must outlive bugs too: logged once with its traceback
            reason = f"internal error {type(exc).__name__}: {exc} (a bug in gpuplane; please report it)"
            self._failed(f"bug:{type(exc).__name__}", reason, traceback.format_exc())
            return False
        with self.lock:
            recovered = self.failures > 0
            self.result, self.last_error, self.failures = result, "", 0
            self.last_success = time.time()
            self.last_duration = time.monotonic() - began
            self._logged.clear()
        if recovered:
            log.warning("refresh from %s succeeded again", self.url_shown)
        return True

    def _failed(self, kind: str, reason: str, trace: str | None) -> None:
        shown = redact_text(reason, (self.url,))
        key = f"{kind}:{re.sub(r'[0-9.]+', 'N', shown)[:160]}"
        with self.lock:
            self.last_error = shown
            self.failures += 1
            first = key not in self._logged
            self._logged.add(key)
        if first:
            log.error("refresh failed (logged once until it changes or recovers): %s", shown)
            if trace:
                log.error("%s", redact_text(trace, (self.url,)))

    def describe(self) -> Iterable[Metric]:
        """Nothing up front: the families are only known once computed (prometheus_client's collector
        protocol)."""
        return []

    def collect(self) -> Iterable[Metric]:
        """The gpuplane_* families of the last good refresh, and the exporter's own health."""
        with self.lock:
            result, ok = self.result, not self.last_error
            health = (self.last_success, self.last_duration)
        if result is not None:
            yield from financial_families(result, self.spec)
            yield from workload_families(result, self.spec)
            yield from platform_families(result, self.spec)
        yield gauge(
            "gpuplane_exporter_up", "1 when the last refresh succeeded.", (), {(): 1.0 if ok else 0.0}
        )
        yield gauge(
            "gpuplane_exporter_last_success_timestamp_seconds",
            "Time of the last successful refresh.",
            (),
            {(): health[0]},
        )
        yield gauge(
            "gpuplane_exporter_refresh_duration_seconds", "Duration of the last refresh.", (), {(): health[1]}
        )
        yield gauge(
            "gpuplane_exporter_window_seconds", "Trailing window of the figures.", (), {(): self.window_s}
        )
        source = result.activity_source if result is not None else ""
        yield gauge(
            "gpuplane_utilization_source",
            "Activity metric in use.",
            ("source",),
            {(source,): 1.0} if source else {},
        )

    def exposition(self) -> str:
        """The Prometheus text exposition of every family."""
        return generate_latest(self.registry).decode("utf-8")

    def health(self) -> tuple[int, str]:
        """(HTTP status, body) of /healthz: 200 after a good refresh, else 503 with the reason."""
        with self.lock:
            if self.result is not None and not self.last_error:
                return 200, "ok\n"
            if self.result is not None:
                since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.last_success))
                return (
                    503,
                    f"unhealthy: the last refresh failed: {self.last_error}; serving figures from {since}\n",
                )
            return 503, f"not ready: {self.last_error}\n"


def _handler(exporter: Exporter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            kind = "text/plain; charset=utf-8"
            if path == "/metrics":
                status, body, kind = 200, exporter.exposition(), "text/plain; version=0.0.4; charset=utf-8"
            elif path == "/healthz":
                status, body = exporter.health()
            else:
                status, body = 404, "see /metrics and /healthz\n"
            data = body.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except _QUIET:
                self.close_connection = True  # the client hung up: nothing to say

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up are silent; anything else is one line, never a traceback on stderr."""
        error = sys.exc_info()[1]
        if not isinstance(error, _QUIET):
            log.warning("HTTP request failed: %s", redact_text(f"{type(error).__name__}: {error}"))


def make_server(exporter: Exporter, address: str, port: int) -> ThreadingHTTPServer:
    """The HTTP server for /metrics and /healthz (port 0 picks a free port); bad address or port: exit 2."""
    if not 0 <= port <= 65535:
        raise UsageError(f"{port} is not a TCP port (0-65535)", option="--port")
    try:
        return _Server((address, port), _handler(exporter))
    except socket.gaierror as exc:
        raise UsageError(
            f"{address!r} is not an address of this host ({exc.strerror})", option="--address"
        ) from None
    except OSError as exc:  # bind(): in use, not an address of this host, not permitted
        option = "--port" if exc.errno in (errno.EADDRINUSE, errno.EACCES) else "--address"
        raise UsageError(f"cannot listen on {address}:{port}: {exc.strerror or exc}", option=option) from None


def refresh_loop(exporter: Exporter, interval_s: float, stop: threading.Event) -> None:
    """Refresh now and then every `interval_s` until `stop` is set (refresh never raises)."""
    while not stop.is_set():
        exporter.refresh()
        stop.wait(interval_s)


def serve(exporter: Exporter, server: ThreadingHTTPServer, interval_s: float) -> None:
    """Serve until interrupted: `server` (from `make_server`) and a refresh thread."""
    if not log.handlers and not logging.getLogger().handlers:
        logging.basicConfig(format="gpuplane exporter: %(levelname)s: %(message)s")
    stop = threading.Event()
    thread = threading.Thread(target=refresh_loop, args=(exporter, interval_s, stop), daemon=True)
    thread.start()
    host, bound = server.server_address[:2]
    log.warning("serving /metrics and /healthz on %s:%s from %s", host, bound, exporter.url_shown)
    try:
        server.serve_forever()
    finally:
        stop.set()
        server.server_close()
