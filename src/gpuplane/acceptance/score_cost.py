"""Step 7 scoring: the window's cost per accepted unit on the cluster vs the rental and API baselines.

GPU time is counted from the helper's own lines: each training window (one helper run: its run id,
so a pod recreated under the same name counts apart) from its `window_start` to its
`window_end` (the deleted pod's to the deletion), times the GPUs it held. The deleted pod's
time after its last checkpoint is work lost to the deletion (`evicted_lost`). Accepted units are
the progress the last window reached (it resumed from the checkpoint, so it counts all kept work).
"""

from __future__ import annotations

from typing import Any

from gpuplane.acceptance.costing import api_per_unit, cluster_cost, rental_per_unit
from gpuplane.acceptance.observations import Observations, run_of
from gpuplane.acceptance.results import Figure, StepResult

__all__ = ["gpu_seconds", "score_cost"]

ACTIVITY_FAMILY = "gpu_activity"


def _by_run(events: list[dict[str, Any]], kind: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        if event.get("event") == kind:
            out.setdefault(run_of(event), []).append(event)
    return out


def gpu_seconds(obs: Observations, gpus_per_pod: int) -> tuple[float, float, float]:
    """(allocated GPU-seconds, GPU-seconds lost to the deletion, window span in seconds)."""
    starts = _by_run(obs.events, "window_start")
    ends = _by_run(obs.events, "window_end")
    checkpoints = _by_run(obs.events, "checkpoint")
    deleted = obs.deleted_run or obs.deleted_pod
    allocated = lost = 0.0
    first = last = None
    for run, run_starts in starts.items():
        begin = min(float(e["ts"]) for e in run_starts)
        if run in ends:
            end = max(float(e["ts"]) for e in ends[run])
        elif run == deleted and obs.deleted_at is not None:
            end = obs.deleted_at
            saved = max((float(e["ts"]) for e in checkpoints.get(run, [])), default=begin)
            lost += max(end - saved, 0.0) * gpus_per_pod
        else:
            continue
        allocated += max(end - begin, 0.0) * gpus_per_pod
        first = begin if first is None else min(first, begin)
        last = end if last is None else max(last, end)
    span = (last - first) if first is not None and last is not None else 0.0
    return allocated, lost, span


def _activity(obs: Observations) -> float | None:
    for check in obs.series or []:
        if check.family == ACTIVITY_FAMILY and check.series > 0 and check.value is not None:
            return check.value
    return None


def _units(obs: Observations) -> float:
    ends = [e for e in obs.events if e.get("event") == "window_end"]
    return max((float(e.get("units", 0)) for e in ends), default=0.0)


def score_cost(suite: dict[str, Any], obs: Observations) -> StepResult:
    """Step 7: cost per accepted unit on the cluster, and whether it beats every baseline given."""
    result = StepResult(7)
    prices = suite["prices"]
    currency = str(prices["currency"])
    unit = str(suite.get("unit", "unit"))
    allocated_s, lost_s, span_s = gpu_seconds(obs, int(suite.get("gpus_per_pod", 1)))
    units = _units(obs)
    if allocated_s <= 0 or units <= 0:
        result.fail("no accepted work was measured, so nothing can be priced")
        return result
    if not prices.get("known", False):
        result.fail(
            f"pool {suite.get('pool')} has no price (catalog or spec costs.pools), so it cannot be compared"
        )
        return result
    cost = cluster_cost(
        prices, allocated_s / 3600, lost_s / 3600, _activity(obs), span_s / 3600, accepted_units=units
    )
    per_unit = cost.breakdown.total / units
    result.figures += [
        Figure("gpu_hours", allocated_s / 3600, "GPU-h"),
        Figure("gpu_hours_lost", lost_s / 3600, "GPU-h"),
        Figure("useful_gpu_hours", cost.hours.useful, "GPU-h"),
        Figure("unmeasured_gpu_hours", cost.hours.unmeasured, "GPU-h"),
        Figure("cost_total", cost.breakdown.total, currency),
        Figure(f"cluster_cost_per_{unit}", per_unit, currency),
    ]
    pods, gpus = int(suite.get("nodes", 1)), int(suite.get("gpus_per_pod", 1))
    # the rental holds the same pods for the time the kept work took, without the deletion's loss
    rented_s = (allocated_s - lost_s) / (pods * gpus)
    baselines: dict[str, float] = {}
    rental = rental_per_unit(prices, pods, gpus, rented_s, units)
    if rental is not None:
        baselines["rental"] = rental
    else:
        result.messages.append(
            "no on-demand VM of the accelerator is priced in the catalog: no rental baseline"
        )
    if suite.get("api_price_per_unit") is not None:
        api = api_per_unit(float(suite["api_price_per_unit"]), units, currency)
        if api is not None:
            baselines["api"] = api
    for name, value in baselines.items():
        result.figures.append(Figure(f"{name}_cost_per_{unit}", value, currency))
    if not baselines:
        result.fail("there is no baseline to compare with (no rental price and no --api-price-per-unit)")
        return result
    best = min(baselines, key=lambda name: baselines[name])
    if per_unit > baselines[best]:
        result.fail(
            f"the cluster cost {per_unit:.4g} {currency} per {unit}, more than the {best} baseline's "
            f"{baselines[best]:.4g} {currency} (cluster price: {prices.get('source')})"
        )
    return result
