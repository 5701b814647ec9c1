"""Property tests: random and mutated manifests never crash the audit (a located InputError for
documents no reader recognises is not a crash)."""

from __future__ import annotations

import json
import os
import random

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.audit import AuditConfig, audit, read_text, rules, to_json, to_sarif
from gpuplane.errors import InputError
from tests.audit.helpers import RULE_FIXTURES

# Raise for a deeper local run, e.g. GPUPLANE_FUZZ_EXAMPLES=2000.
EXAMPLES = int(os.environ.get("GPUPLANE_FUZZ_EXAMPLES", "150"))
SEEDS = [p.read_text() for p in sorted(RULE_FIXTURES.glob("GPU*/*.yaml"))]
KEYS = [
    "kind",
    "spec",
    "metadata",
    "containers",
    "resources",
    "limits",
    "nvidia.com/gpu",
    "template",
    "items",
    "tolerations",
    "env",
    "volumes",
    "hostPath",
    "nodeSelector",
    "labels",
    "namespace",
    "name",
    "rules",
    "data",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(KEYS),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=5),
    ),
    max_leaves=30,
)
KINDS = [
    "Pod",
    "Deployment",
    "Job",
    "CronJob",
    "JobSet",
    "PyTorchJob",
    "TrainJob",
    "RayJob",
    "RayCluster",
    "InferenceService",
    "LeaderWorkerSet",
    "Node",
    "Namespace",
    "ResourceQuota",
    "NetworkPolicy",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "ClusterPolicy",
    "LocalQueue",
    "List",
    "ClusterConfig",
    "Widget",
]


def _run(text: str) -> None:
    try:
        inputs = read_text(text, "fuzz.yaml")
    except InputError as exc:  # documents no reader recognises: located problems, exit 2, no crash
        assert exc.problems and all(p.line and "not an audit input" in p.message for p in exc.problems)
        return
    findings = audit(inputs, AuditConfig())
    json.loads(to_json(findings))
    json.loads(to_sarif(findings, rules()))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), body=values)
def test_random_objects_never_crash(kind: str, body: object) -> None:
    doc = {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {"name": "x", "namespace": "team-a"},
        "spec": body,
        "items": body,
        "data": body,
    }
    _run(yaml.safe_dump(doc))
    _run(json.dumps(body))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), cuts=st.integers(1, 6))
def test_mutated_fixture_text_never_crashes(seed: int, cuts: int) -> None:
    rng = random.Random(seed)
    text = list(rng.choice(SEEDS))
    for _ in range(cuts):
        op = rng.randrange(3)
        pos = rng.randrange(len(text))
        if op == 0:
            del text[pos : pos + rng.randrange(1, 20)]
        elif op == 1:
            text.insert(
                pos,
                rng.choice(["{", "[", ":", "-", "\n", "'", "&a ", "*a", "!!binary ", "  ", "---\n", "\t"]),
            )
        else:
            text[pos] = rng.choice("x: -[]{}\n'\"")
    _run("".join(text))


def test_alias_bomb_and_deep_nesting_do_not_crash() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    _run("apiVersion: v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  " + bomb.replace("\n", "\n  "))
    _run("kind: Pod\nspec: " + "[" * 5000 + "]" * 5000 + "\n")
