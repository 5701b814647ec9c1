"""One quantity grammar: a quantity written any way Kubernetes accepts gives one value in every
engine that reads it (kube, kueue's ClusterQueue quotas, explain's job framework, audit's GPU
counts and its request-vs-limit rule GPU001).

The spellings follow apimachinery's grammar (kubernetes/apimachinery pkg/api/resource/quantity.go,
release-1.33): plain and signed numbers, `<digits>.`, `.<digits>`, decimal exponents, the decimal
SI suffixes n u m k M G and the binary ones Ki Mi; a YAML/JSON number is read as its text.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from gpuplane.audit.workloads import Container
from gpuplane.explain.jobframework import convert_jobs
from gpuplane.explain.load import parse_objects as explain_objects
from gpuplane.kube import parse_quantity
from gpuplane.kueue import ClusterQueue, parse_objects
from gpuplane.vocab import GPU_RESOURCE
from tests.audit.helpers import audit_yaml, rule_ids


def spellings(milli: int) -> list[object]:
    """Ways to write `milli` thousandths that Kubernetes accepts (theory: the grammar above)."""
    units, frac = divmod(milli, 1000)
    out: list[object] = [f"{milli}m", f"{milli * 1000}u", f"{milli * 10**6}n", f"{milli}e-3", f"+{milli}m"]
    out.append(f"{units}.{frac:03d}")
    out.append(float(Decimal(milli) / 1000))  # a YAML number: its shortest text is the same decimal
    if frac == 0:
        out += [units, str(units), f"{units}.", f"{units}e0", f"{units}E0", f"{units * 10}e-1"]
        if units % 1000 == 0:
            out += [f"{units // 1000}k", f"{units // 1000}e3"]
        if units % 10**6 == 0:
            out.append(f"{units // 10**6}M")
        if units % 1024 == 0:
            out.append(f"{units // 1024}Ki")
        if units % 2**20 == 0:
            out.append(f"{units // 2**20}Mi")
    if units == 0:
        out.append(f".{frac:03d}")
    return out


def _cluster_queue_quota(value: object) -> int:
    cq = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": [GPU_RESOURCE],
                    "flavors": [{"name": "f", "resources": [{"name": GPU_RESOURCE, "nominalQuota": value}]}],
                }
            ]
        },
    }
    [parsed] = [o for o in parse_objects([cq]).objects if isinstance(o, ClusterQueue)]
    return parsed.resource_groups[0].flavors[0].resources[0].nominal


def _job(request: object, limit: object) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "team", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "c",
                            "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                            "resources": {
                                "requests": {GPU_RESOURCE: request},
                                "limits": {GPU_RESOURCE: limit},
                            },
                        }
                    ],
                }
            }
        },
    }


def _explain_request(value: object) -> int:
    conv = convert_jobs(explain_objects([_job(value, value)], "in.yaml"))
    return conv.jobs[0].workload.pod_sets[0].per_pod[GPU_RESOURCE]


milli_values = st.one_of(
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=10**6).map(lambda n: n * 1000),
    st.integers(min_value=0, max_value=2**20).map(lambda n: n * 1024 * 1000),
)


@given(milli_values)
@example(1000)  # issue 20: request 1, limit 1000m
@example(0)
@example(500)
@example(2**30 * 1000)
def test_every_spelling_is_one_value_in_every_engine(milli: int) -> None:
    forms = spellings(milli)
    assert {parse_quantity(f) for f in forms} == {milli}
    assert {_cluster_queue_quota(f) for f in forms} == {milli}
    assert {
        Container({"name": "c", "resources": {"limits": {GPU_RESOURCE: f}}}, ()).gpus().get(GPU_RESOURCE, 0.0)
        for f in forms
    } == {milli / 1000}
    for f in forms[:4]:
        assert _explain_request(f) == milli


def test_gpu001_sees_request_1_and_limit_1000m_as_one_value() -> None:
    """Issue 20: audit reported HIGH GPU001 for a GPU request `1` with limit `1000m`."""
    import yaml

    same = yaml.safe_dump(_job(1, "1000m"))
    assert "GPU001" not in rule_ids(audit_yaml(same))
    differ = yaml.safe_dump(_job(1, "2"))
    assert "GPU001" in rule_ids(audit_yaml(differ))  # the rule still fires on a real mismatch
