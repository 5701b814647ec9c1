"""Scoring: observations + the suite's thresholds -> one result per step. Pure functions, no I/O.

    results = score(suite_info, observations)

Each step is a function `(Context) -> StepResult`; the registry `STEPS` lists them in order. A
figure that misses its threshold fails its step with the number, the threshold and the source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuplane.acceptance.nccl import NcclResult, parse_nccl, parse_size
from gpuplane.acceptance.observations import Observations, run_of
from gpuplane.acceptance.results import Figure, Results, StepResult
from gpuplane.acceptance.score_cost import score_cost
from gpuplane.acceptance.thresholds import Threshold, threshold_from_dict

__all__ = ["STEPS", "Context", "score"]


@dataclass(frozen=True)
class Context:
    """What every step function reads."""

    suite: dict[str, Any]
    obs: Observations

    def threshold(self, name: str) -> Threshold | None:
        """The suite's threshold called `name` (None when the suite sets none)."""
        data = self.suite.get("thresholds", {}).get(name)
        return threshold_from_dict(data) if data else None

    def events(self, kind: str) -> list[dict[str, Any]]:
        """The helper events of one kind, in the order they were logged."""
        return [e for e in self.obs.events if e.get("event") == kind]

    def no_python(self, result: StepResult, step: str) -> bool:
        """Fail `result` when the image had no python3 for `step`; True if so."""
        if any(e.get("step") == step for e in self.events("no_python")):
            result.fail(
                f"the image {self.suite.get('image')} has no python3, which the acceptance helper needs"
            )
            return True
        return False


def _span(start: float | None, end: float | None) -> float | None:
    return None if start is None or end is None else end - start


def _image_ids(ctx: Context, steps: tuple[str, ...]) -> set[str]:
    return {i.get("image_id", "") for p in ctx.obs.pods if p.step in steps for i in p.images}


def step_queue(ctx: Context) -> StepResult:
    """Step 1: submitted -> admitted (Kueue) -> running, in the production image."""
    result = StepResult(1)
    obs = ctx.obs
    if obs.submitted is None:
        result.skip("queue times were not observed (scored from logs)")
        return result
    result.held(
        Figure("admission_wait_s", _span(obs.submitted, obs.admitted), "s", ctx.threshold("admission"))
    )
    result.figures.append(Figure("admitted_to_running_s", _span(obs.admitted, obs.running), "s"))
    images = {i.get("image", "") for p in obs.pods if p.step == "train" for i in p.images}
    if images and images != {ctx.suite.get("image")}:
        result.fail(
            f"the pods ran {', '.join(sorted(images))}, not the production image {ctx.suite.get('image')}"
        )
    if len(_image_ids(ctx, ("train",))) > 1:
        result.fail(
            f"the training pods ran different image digests: {', '.join(sorted(_image_ids(ctx, ('train',))))}"
        )
    return result


def step_data(ctx: Context) -> StepResult:
    """Step 2: every source copied, each at least as fast as the threshold (slowest pod counts)."""
    result = StepResult(2)
    sources: dict[str, str] = ctx.suite.get("sources", {})
    if not sources:
        result.skip("no --dataset or --weights was given, so nothing proves the real data can be pulled")
        return result
    if ctx.no_python(result, "fetch"):
        return result
    for failed in ctx.events("copy_failed"):
        result.fail(f"copying {failed.get('what')} from {failed.get('source')} failed: {failed.get('error')}")
    for what in sorted(sources):
        copies = [e for e in ctx.events("copy") if e.get("what") == what]
        if not copies:
            result.fail(f"no copy of {what} was reported")
            continue
        slowest = min(copies, key=lambda e: float(e.get("mb_per_s", 0.0)))
        result.figures.append(Figure(f"{what}_bytes", float(slowest.get("bytes", 0)), "B"))
        result.figures.append(Figure(f"{what}_seconds", float(slowest.get("seconds", 0.0)), "s"))
        result.held(
            Figure(f"{what}_mb_per_s", float(slowest.get("mb_per_s", 0.0)), "MB/s", ctx.threshold("copy"))
        )
    return result


def _nccl_checks(ctx: Context, result: StepResult, parsed: NcclResult) -> None:
    nodes = int(ctx.suite.get("nodes", 1))
    ranks = nodes * int(ctx.suite.get("gpus_per_pod", 1))
    if parsed.ranks and (len(parsed.ranks) != ranks or len(parsed.hosts) != nodes):
        result.fail(
            f"all_reduce_perf ran {len(parsed.ranks)} ranks on {len(parsed.hosts)} hosts, expected {ranks} on {nodes}"
        )
    if parsed.wrong or parsed.out_of_bounds:
        result.fail(
            f"all_reduce_perf found wrong results ({parsed.wrong:g} wrong elements, {parsed.out_of_bounds or 0} out of bounds)"
        )
    wanted = ctx.suite.get("nccl_max_bytes")
    largest = parsed.max_size_bytes or 0
    if wanted and largest < parse_size(str(wanted)):
        result.fail(
            f"all_reduce_perf stopped at {largest} bytes, below the {wanted} the threshold was measured at "
            "(busbw grows with the message size, so smaller runs are not comparable)"
        )
    bench = _image_ids(ctx, ("nccl-launcher", "nccl-worker"))
    production = _image_ids(ctx, ("train",))
    if bench and production and bench != production:
        result.fail(
            f"the benchmark ran image {', '.join(sorted(bench))}, not the production image {', '.join(sorted(production))}"
        )


def step_nccl(ctx: Context) -> StepResult:
    """Step 3: the named bus-bandwidth metric against the accelerator/fabric threshold."""
    result = StepResult(3)
    if int(ctx.suite.get("nodes", 1)) <= 1:
        result.status = "n/a"
        result.messages.append("single-node suite: no multi-node communication to benchmark")
        return result
    if not ctx.obs.nccl_log:
        result.fail("no all_reduce_perf output was collected")
        return result
    parsed = parse_nccl(ctx.obs.nccl_log)
    if not parsed.rows:
        result.fail("the benchmark log holds no all_reduce_perf result rows")
        return result
    threshold = ctx.threshold("nccl")
    for metric in ("avg_busbw", "busbw_at_max", "peak_busbw"):
        held = threshold if threshold is not None and threshold.metric == metric else None
        result.held(Figure(metric, parsed.metric(metric), "GB/s", held))
    result.figures.append(Figure("max_size_bytes", float(parsed.max_size_bytes or 0), "B"))
    if threshold is None:
        result.fail(
            f"no NCCL threshold is known for {ctx.suite.get('accelerator')} on fabric {ctx.suite.get('fabric')}; "
            "render again with --nccl-min-busbw and --nccl-metric"
        )
    _nccl_checks(ctx, result, parsed)
    return result


def _final_window(ctx: Context) -> dict[str, Any] | None:
    ends = ctx.events("window_end")
    return max(ends, key=lambda e: float(e.get("ts", 0.0))) if ends else None


def step_train(ctx: Context) -> StepResult:
    """Step 4: the production command made progress for the window and ended as planned."""
    result = StepResult(4)
    if ctx.no_python(result, "train"):
        return result
    final = _final_window(ctx)
    if final is None:
        result.fail("no training window was reported as finished")
        return result
    units = float(final.get("units", 0))
    seconds = float(final.get("seconds", 0.0))
    result.held(Figure(str(ctx.suite.get("unit", "units")), units, "", ctx.threshold("units")))
    result.figures.append(Figure("window_seconds", seconds, "s"))
    result.figures.append(Figure("units_per_s", units / seconds if seconds > 0 else None, "/s"))
    if final.get("reason") != "window" and final.get("exit") != 0:
        result.fail(f"the training command exited with status {final.get('exit')} before the window ended")
    return result


def _of_deleted(obs: Observations, event: dict[str, Any]) -> bool:
    if obs.deleted_run is not None:
        return run_of(event) == obs.deleted_run
    return event.get("pod") == obs.deleted_pod


def step_restore(ctx: Context) -> StepResult:
    """Step 5: a checkpoint was written, the pod was deleted, the new pod resumed from it in time."""
    result = StepResult(5)
    obs = ctx.obs
    deleted = obs.deleted_pod
    before = [e for e in ctx.events("checkpoint") if deleted is None or _of_deleted(obs, e)]
    result.figures.append(Figure("checkpoints_before_deletion", float(len(before))))
    if not before:
        result.fail("no checkpoint was written before the pod deletion")
    resumed = ctx.events("resumed")
    if deleted is None and obs.submitted is not None:
        result.fail("no pod was deleted, so the restore was not tested")
    if not resumed:
        result.fail("no restarted pod reported progress after a restore")
        return result
    first = min(resumed, key=lambda e: float(e.get("ts", 0.0)))
    if obs.deleted_at is not None:
        value = float(first["ts"]) - obs.deleted_at
    else:
        value = float(first.get("seconds", 0.0))
        result.messages.append(
            "resume time measured inside the new pod only (the deletion time was not observed)"
        )
    result.held(Figure("resume_s", value, "s", ctx.threshold("resume")))
    result.figures.append(Figure("resumed_at_unit", float(first.get("units", 0))))
    if int(first.get("units", 0)) <= 0:
        result.fail("the restarted pod began again from zero: the checkpoint was not restored")
    return result


def step_labels(ctx: Context) -> StepResult:
    """Step 6: pods and nodes carry the label schema; their series exist in Prometheus."""
    result = StepResult(6)
    expected_pod: dict[str, str] = ctx.suite.get("expected_pod_labels", {})
    expected_node: dict[str, str] = ctx.suite.get("expected_node_labels", {})
    pods = [p for p in ctx.obs.pods if p.step == "train"]
    if not pods:
        result.skip("pod labels were not observed (scored from logs)")
    for pod in pods:
        missing = {k: v for k, v in expected_pod.items() if pod.labels.get(k) != v}
        if missing:
            result.fail(
                f"pod {pod.name} lacks labels {', '.join(f'{k}={v}' for k, v in sorted(missing.items()))}"
            )
        node_missing = {k: v for k, v in expected_node.items() if pod.node_labels.get(k) != v}
        if pod.node and node_missing:
            pairs = ", ".join(f"{k}={v}" for k, v in sorted(node_missing.items()))
            result.fail(f"node {pod.node} of pod {pod.name} lacks labels {pairs}")
    if ctx.obs.prometheus_error:
        result.fail(f"Prometheus could not be used: {ctx.obs.prometheus_error}")
    elif ctx.obs.series is None:
        result.skip("no --prometheus was given, so the exported series were not checked")
    else:
        for check in ctx.obs.series:
            result.figures.append(Figure(f"{check.family}_series", float(check.series)))
            if check.series == 0:
                result.fail(f"no {check.family} series for the suite's pods in Prometheus ({check.query})")
    return result


#: The steps in order; each takes the context and returns its result.
STEPS: tuple[Callable[[Context], StepResult], ...] = (
    step_queue,
    step_data,
    step_nccl,
    step_train,
    step_restore,
    step_labels,
    lambda ctx: score_cost(ctx.suite, ctx.obs),
)


def score(suite: dict[str, Any], obs: Observations) -> Results:
    """Score every step of a run from its observations and the suite's thresholds."""
    ctx = Context(suite, obs)
    return Results([step(ctx) for step in STEPS], suite, notes=list(obs.notes))
