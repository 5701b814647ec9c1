"""A pool's `purchase:` segments: a good mix loads; each kind of mistake is a located error at the
line that carries `#!` (unknown option, block window the provider does not sell, reserved count
above maxNodes, missing price where the catalog has none, flex-start without a delay)."""

from __future__ import annotations

import datetime

import pytest

from gpuplane.errors import InputError
from gpuplane.spec import parse_spec

EKS = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: c1, provider: eks, region: us-east-1}
nodePools:
  - name: h100
    accelerator: H100-80GB
    vmSize: p5.48xlarge
    maxNodes: 8
    purchase:
"""
GKE = EKS.replace("provider: eks, region: us-east-1", "provider: gke, region: us-central1").replace(
    "vmSize: p5.48xlarge", "vmSize: a3-highgpu-8g"
)


def _marker_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if "#!" in line)


def test_reserved_base_with_on_demand_burst_and_a_block_loads() -> None:
    text = EKS + (
        "      - {option: reserved, count: 2, term: 1y, payment: no-upfront, hourly: 40.0}\n"
        "      - {option: on-demand}\n"
        "      - {option: capacity-block, count: 4, start: 2026-12-10T11:30:00Z, end: 2026-12-17T11:30:00Z, hourly: 31.5}\n"
    )
    spec, _ = parse_spec(text, "ok.yaml", priced=True)
    segs = spec.node_pools[0].purchase
    assert [s.option for s in segs] == ["reserved", "on-demand", "capacity-block"]
    assert segs[2].end == datetime.datetime(2026, 12, 17, 11, 30, tzinfo=datetime.UTC)


def test_flex_start_on_gke_loads() -> None:
    text = GKE + "      - {option: flex-start, max: 4, provisioningDelay: 2h, maxRun: 3d, hourly: 50}\n"
    spec, _ = parse_spec(text, "ok.yaml", priced=True)
    assert spec.node_pools[0].purchase[0].max == 4


CASES: dict[str, tuple[str, str, str]] = {
    "unknown_option": (
        EKS + "      - {option: savings, count: 2}   #!\n",
        "nodePools[0].purchase[0].option",
        "Input should be",
    ),
    "provider_does_not_sell_it": (
        EKS + "      - {option: flex-start, max: 2, provisioningDelay: 1h, hourly: 1}   #!\n",
        "nodePools[0].purchase[0].option",
        "eks does not sell flex-start",
    ),
    "reserved_count_above_max_nodes": (
        EKS + "      - {option: reserved, count: 9, term: 3y, hourly: 30}   #!\n",
        "nodePools[0].purchase[0].count",
        "more than the pool's maxNodes 8",
    ),
    "reserved_without_term": (
        EKS + "      - {option: reserved, count: 2, hourly: 30}   #!\n",
        "nodePools[0].purchase[0].term",
        "needs term",
    ),
    "reserved_without_price": (
        EKS + "      - {option: reserved, count: 2, term: 1y}   #!\n",
        "nodePools[0].purchase[0].hourly",
        "publishes no reserved price",
    ),
    "block_of_15_days": (
        EKS
        + "      - option: capacity-block\n        count: 2\n        hourly: 30\n"
        + "        start: 2026-12-01T11:30:00Z\n        end: 2026-12-16T11:30:00Z   #!\n",
        "nodePools[0].purchase[0].end",
        "1-14 days, then 7-day steps to 182 days",
    ),
    "block_not_ending_1130_utc": (
        EKS
        + "      - option: capacity-block\n        count: 2\n        hourly: 30\n"
        + "        start: 2026-12-01T12:00:00Z\n        end: 2026-12-03T12:00:00Z   #!\n",
        "nodePools[0].purchase[0].end",
        "blocks end at 11:30 UTC",
    ),
    "block_over_64_instances": (
        EKS.replace("maxNodes: 8", "maxNodes: 100")
        + "      - option: capacity-block\n        count: 65   #!\n        hourly: 30\n"
        + "        start: 2026-12-01T11:30:00Z\n        end: 2026-12-02T11:30:00Z\n",
        "nodePools[0].purchase[0].count",
        "at most 64 instances per block",
    ),
    "calendar_over_90_days": (
        GKE
        + "      - option: calendar-reservation\n        count: 2\n        hourly: 30\n"
        + "        start: 2026-12-01T00:00:00Z\n        end: 2027-03-02T00:00:00Z   #!\n",
        "nodePools[0].purchase[0].end",
        "1-90 whole days",
    ),
    "flex_start_without_delay": (
        GKE + "      - {option: flex-start, max: 2, hourly: 5}   #!\n",
        "nodePools[0].purchase[0].provisioningDelay",
        "publishes no flex-start provisioning delay",
    ),
    "flex_start_past_7_days": (
        GKE + "      - {option: flex-start, max: 2, provisioningDelay: 1h, maxRun: 8d, hourly: 5}   #!\n",
        "nodePools[0].purchase[0].maxRun",
        "at most 168 h",
    ),
    "spot_segment_on_an_on_demand_pool": (
        EKS + "      - {option: spot}   #!\n",
        "nodePools[0].purchase[0].option",
        "set spot: true",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_purchase_is_a_located_error(name: str) -> None:
    text, path, fragment = CASES[name]
    with pytest.raises(InputError) as caught:
        parse_spec(text, f"{name}.yaml", priced=True)
    problems = caught.value.problems
    matching = [p for p in problems if p.path == path]
    assert matching, f"no problem at {path}; got {[str(p) for p in problems]}"
    assert matching[0].line == _marker_line(text), str(matching[0])
    assert fragment in matching[0].message, str(matching[0])


def test_missing_price_is_only_an_error_for_commands_that_cost() -> None:
    text = EKS + "      - {option: reserved, count: 2, term: 1y}\n"
    spec, _ = parse_spec(text, "render.yaml", priced=False)
    assert spec.node_pools[0].purchase[0].hourly is None
