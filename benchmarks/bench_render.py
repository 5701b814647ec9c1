"""Render benchmark: a generated AKS spec with 50 node pools and 200 teams (every sharing mode,
spot and on-demand, three quotas per team), timed from YAML text to every output file."""

from __future__ import annotations

import time

import yaml

from gpuplane.render import render_all, stream_yaml
from gpuplane.spec import parse_spec

POOLS = 50
TEAMS = 200
COHORTS = 10
# (vm size, accelerator, sharing) cycled over the pools.
SHAPES: list[tuple[str, str, dict[str, object]]] = [
    ("Standard_NC96ads_A100_v4", "A100-80GB", {"mode": "exclusive"}),
    (
        "Standard_NC24ads_A100_v4",
        "A100-80GB",
        {"mode": "mig", "strategy": "mixed", "layout": ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]},
    ),
    ("Standard_NC4as_T4_v3", "T4", {"mode": "time-slicing", "replicas": 4}),
    ("Standard_ND96isr_H100_v5", "H100-80GB", {"mode": "exclusive"}),
    ("Standard_NC64as_T4_v3", "T4", {"mode": "mps", "replicas": 2}),
]


def _pool(i: int) -> dict[str, object]:
    vm, acc, sharing = SHAPES[i % len(SHAPES)]
    spot = i % 2 == 0 and sharing["mode"] != "mig"
    return {
        "name": f"pool-{i:02d}",
        "accelerator": acc,
        "vmSize": vm,
        "minNodes": 0,
        "maxNodes": 20,
        "spot": {"enabled": spot},
        "zones": ["1", "2", "3"],
        "workloadClasses": ["training", "batch"] if spot else ["inference", "batch"],
        "sharing": sharing,
    }


def _quota(pool: dict[str, object]) -> dict[str, object]:
    sharing = pool["sharing"]
    assert isinstance(sharing, dict)
    quota: dict[str, object] = {"pool": pool["name"], "nominal": 2, "borrowingLimit": 2}
    if sharing["mode"] == "mig":
        quota["resource"] = "nvidia.com/mig-1g.10gb"
    return quota


def generated_spec_text() -> str:
    """The benchmark spec as YAML text."""
    pools = [_pool(i) for i in range(POOLS)]
    teams = [
        {
            "name": f"team-{t:03d}",
            "namespaces": [f"team-{t:03d}", f"team-{t:03d}-dev"],
            "groups": [f"grp-{t:03d}"],
            "cohort": f"cohort-{t % COHORTS}",
            "quotas": [_quota(pools[(t + k * 7) % POOLS]) for k in range(3)],
            "priorityClass": "normal",
        }
        for t in range(TEAMS)
    ]
    spec = {
        "apiVersion": "gpuplane.io/v1alpha1",
        "kind": "Platform",
        "cluster": {"name": "bench", "provider": "aks", "region": "eastus", "kubernetesVersion": "1.30"},
        "nodePools": pools,
        "teams": teams,
        "queueing": {
            "cohorts": [{"name": "org"}] + [{"name": f"cohort-{c}", "parent": "org"} for c in range(COHORTS)],
            "priorityClasses": [{"name": "normal", "value": 100}],
        },
    }
    return yaml.safe_dump(spec, sort_keys=False)


def run() -> list[tuple[str, str]]:
    """(label, figure) rows for `make bench`."""
    text = generated_spec_text()
    start = time.perf_counter()
    spec, _ = parse_spec(text, "bench.yaml")
    parsed = time.perf_counter()
    result = render_all(spec)
    rendered = time.perf_counter()
    stream = stream_yaml(result)
    streamed = time.perf_counter()
    objects = sum(len(objs) for objs in result.objects.values())
    size = sum(len(t.encode()) for t in result.files.values())
    return [
        (f"render: load+check spec ({POOLS} pools, {TEAMS} teams)", f"{parsed - start:.2f} s"),
        (f"render: render_all ({POOLS} pools, {TEAMS} teams)", f"{rendered - parsed:.2f} s"),
        ("render: -o - stream", f"{streamed - rendered:.2f} s ({len(stream) // 1024} KiB)"),
        ("render: output", f"{len(result.files)} files, {objects} objects, {size // 1024} KiB"),
    ]


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label}: {figure}")
