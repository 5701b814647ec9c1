"""Render of purchase segments on AKS: a capacity reservation group on the node pool (`--crg-id`,
learn.microsoft.com/azure/aks/use-capacity-reservation-groups); no az CLI is installed here, so the
command is checked as text, and a pool without one gets no flag."""

from __future__ import annotations

from gpuplane.render.nodepools import nodepool_file
from tests.render.render_helpers import SMALL_SPEC, small_spec

CRG = "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/capacityReservationGroups/crg1"


def test_aks_pool_draws_from_its_capacity_reservation_group() -> None:
    text = SMALL_SPEC.replace(
        "    labels: {tier: dev}\n",
        "    labels: {tier: dev}\n    purchase:\n"
        f"      - {{option: capacity-reservation, count: 2, hourly: 1.0, reservation: {CRG}}}\n"
        "      - {option: on-demand}\n",
    )
    script = nodepool_file(small_spec("aks", text)).text
    blocks = script.split("# pool ")
    [t4] = [b for b in blocks if b.startswith("t4:")]
    assert f"--crg-id {CRG}" in t4.replace("\\\n  ", "")
    assert all("--crg-id" not in b for b in blocks if not b.startswith("t4:"))


def test_no_purchase_no_crg_flag() -> None:
    assert "--crg-id" not in nodepool_file(small_spec("aks")).text
