"""Converting N jobs reads the input's default-priority policies once, not once per job.

The old code scanned (and sorted) every object of the input for each job it converted, so 10,000
Jobs took 361 s in `make bench` (they take under a second now). Counted, not timed.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuplane.explain import jobcontext
from gpuplane.explain.jobframework import convert_jobs
from gpuplane.explain.load import parse_objects

LQ = "kueue.x-k8s.io/queue-name"


def _job(i: int) -> dict[str, Any]:
    pod = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], "restartPolicy": "Never"}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": f"j{i}", "namespace": "team", "labels": {LQ: "q"}},
        "spec": {"template": {"spec": pod}},
    }


def test_policies_are_read_once_for_many_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = jobcontext.default_priority_policies

    def counted(objects: Any) -> list[jobcontext.DefaultPriority]:
        calls.append(len(objects))
        return real(objects)

    monkeypatch.setattr(jobcontext, "default_priority_policies", counted)
    lq = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "q", "namespace": "team"},
        "spec": {"clusterQueue": "cq"},
    }
    result = convert_jobs(parse_objects([lq, *(_job(i) for i in range(50))], "in.yaml"))
    assert len(result.jobs) == 50
    assert len(calls) == 1
