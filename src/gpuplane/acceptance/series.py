"""Step 6's Prometheus half: do the suite's GPU, queue, cost, storage and network series exist?

The queries are data (`data/series.yaml`, with the exporters' names and where they come from);
they run through `account`'s Prometheus client, once each, at the end of the run's window.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml

from gpuplane.acceptance.observations import SeriesCheck
from gpuplane.account.prom import PromClient
from gpuplane.vocab import ksm_resource

__all__ = ["check_series", "series_queries"]


@functools.cache
def _families() -> list[dict[str, Any]]:
    text = resources.files("gpuplane.acceptance").joinpath("data/series.yaml").read_text(encoding="utf-8")
    families: list[dict[str, Any]] = yaml.safe_load(text)["families"]
    return families


def series_queries(suite: dict[str, Any], window_s: float) -> list[tuple[str, str, bool]]:
    """(family, PromQL, whether its value matters) for the suite over a window of `window_s`."""
    values = {
        "namespace": suite["namespace"],
        "team": suite["team"],
        "pool": suite["pool"],
        "cluster_queue": suite["cluster_queue"],
        "resource": ksm_resource(suite["resource"]),
        "range": f"{max(int(window_s), 60)}s",
    }
    out = []
    for family in _families():
        query = str(family["query"])
        for key, value in values.items():
            query = query.replace("{" + key + "}", str(value))
        out.append((str(family["family"]), query, bool(family.get("value", False))))
    return out


def check_series(client: PromClient, suite: dict[str, Any], start: float, end: float) -> list[SeriesCheck]:
    """Run every family's query at `end` over [start, end]; how many series each found."""
    checks = []
    for family, query, wants_value in series_queries(suite, end - start + 60):
        found = client.instant(query, end)
        samples = [s.samples[-1][1] for s in found if s.samples]
        if wants_value:
            checks.append(SeriesCheck(family, query, len(samples), samples[0] if samples else None))
        else:
            checks.append(SeriesCheck(family, query, int(sum(samples))))
    return checks
