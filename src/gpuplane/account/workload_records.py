"""Observed GPU pods written as gpuplane workload records (the trace CSV `simulate -w` replays).

One pod becomes one workload (pods of a multi-pod job are separate records; the job name is kept
in the id). Mapping, stated once:
- `submit_s`: pod creation time minus the window start (0 when created before the window);
- pod set: the pod's GPU request (`mig=<profile>` for MIG resources, 1/replicas of a GPU for
  time-sliced ones);
- training and batch pods carry `work_gpu_s` = observed run seconds x GPUs (at full speed);
  inference pods (pools that serve only inference) and pods still running at the window's end
  carry `run_time_s` = the observed run time;
- failed pods are `final_status=failed` at `end_at_fraction=1` (they failed after what we saw);
- `gpu_model` is the pool's accelerator, `priority` the team's priority class value.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from gpuplane.account.compute import AccountResult, PodUsage
from gpuplane.outputs import write_text_atomic
from gpuplane.spec import PlatformSpec
from gpuplane.traces import PodSet, Workload, WorkloadClass
from gpuplane.traces.csvformat import write_csv_stream
from gpuplane.vocab import MIG_RESOURCE_PREFIX, ksm_resource

_DNS = re.compile(r"[^a-z0-9-]+")
_MIG_KSM_PREFIX = ksm_resource(MIG_RESOURCE_PREFIX)


def _klass(pod: PodUsage, spec: PlatformSpec) -> WorkloadClass:
    pool = next((p for p in spec.node_pools if p.name == pod.pool), None)
    if pool is not None and set(pool.workload_classes) == {"inference"}:
        return "inference"
    run_h = (pod.end - pod.start) / 3600 if pod.start is not None and pod.end is not None else 0.0
    return "training" if run_h >= 1 else "batch"


def _pod_set(pod: PodUsage) -> PodSet:
    if pod.resource.startswith(_MIG_KSM_PREFIX):
        profile = pod.resource.removeprefix(_MIG_KSM_PREFIX)
        profile = re.sub(
            r"^(\d+g)_(\d+gb)(_me)?$", lambda m: f"{m[1]}.{m[2]}" + ("+me" if m[3] else ""), profile
        )
        return PodSet("main", 1, max(round(pod.units), 1), mig_profile=profile)
    return PodSet("main", 1, round(pod.gpus, 6) or 1.0)


def to_workloads(result: AccountResult, spec: PlatformSpec) -> list[Workload]:
    """The observed pods of `result` as workload records, in creation order."""
    priorities = {pc.name: pc.value for pc in spec.queueing.priority_classes}
    team_priority = {t.name: priorities.get(t.priority_class or "", 0) for t in spec.teams}
    out: list[Workload] = []
    for pod in sorted(result.pods, key=lambda p: (p.created or p.start or 0.0, p.namespace, p.pod)):
        if pod.start is None or pod.end is None:
            continue
        run_s = max(pod.end - pod.start, 0.0)
        klass = _klass(pod, spec)
        pod_set = _pod_set(pod)
        by_run = klass == "inference" or pod.outcome in ("Running", "Unknown") or pod_set.gpus <= 0
        submitted = pod.created if pod.created is not None else pod.start
        out.append(
            Workload(
                id=_DNS.sub("-", f"{pod.namespace}-{pod.pod}".lower()).strip("-"),
                team=pod.team,
                queue=pod.queue or pod.team,
                klass=klass,
                submit=max(submitted - result.start, 0.0),
                pod_sets=(pod_set,),
                work_gpu_seconds=None if by_run else run_s * pod_set.gpus,
                run_time=run_s if by_run else None,
                priority=team_priority.get(pod.team, 0),
                final_status="failed" if pod.outcome == "Failed" else "completed",
                gpu_model=pod.accelerator if pod.accelerator != "unknown" else None,
            )
        )
    return out


def export_workloads(result: AccountResult, spec: PlatformSpec, path: Path) -> int:
    """Write the observed pods as a gpuplane workload CSV (atomically); returns the number of rows."""
    text = io.StringIO()
    count = write_csv_stream(to_workloads(result, spec), text)
    write_text_atomic(path, text.getvalue())
    return count
