"""The account engine: a window and a spec in, an `AccountResult` out (one call for CLI and exporter)."""

from __future__ import annotations

import os

from gpuplane.account.compute import AccountResult, account
from gpuplane.account.fetch import gather
from gpuplane.account.prom import PromClient
from gpuplane.account.window import Window
from gpuplane.spec import PlatformSpec

TOKEN_ENV = "GPUPLANE_PROMETHEUS_TOKEN"
#: Default overall deadline of one `account` run (all queries together), seconds.
DEFAULT_TIMEOUT_S = 600.0
#: No single request waits longer than this, whatever is left of the deadline.
REQUEST_TIMEOUT_S = 120.0


def run(
    url: str,
    spec: PlatformSpec,
    window: Window,
    *,
    charts: bool = True,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> AccountResult:
    """Query Prometheus at `url` over `window` within `timeout_s` and account GPU time and cost.

    A bearer token, when needed, is read from the environment variable GPUPLANE_PROMETHEUS_TOKEN so
    that it never appears in a command line or an error message.
    """
    token = os.environ.get(TOKEN_ENV) or None
    with PromClient(
        url, timeout_s=min(REQUEST_TIMEOUT_S, timeout_s), deadline_s=timeout_s, bearer_token=token
    ) as client:
        raw = gather(client, window, charts=charts)
    return account(raw, spec)
