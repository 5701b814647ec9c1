"""`paid_nodes`: the split of a node-count history under a purchase mix adds up, by construction
of the terms (covered + burst = node-hours that ran; covered + unused = committed node-hours;
what is paid = every commitment's hours at its rate + burst hours at the burst price), for any
history and any mix (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuplane.purchase.amortise import paid_nodes
from gpuplane.purchase.mix import Commitment, PurchaseMix

H = 3600.0

counts = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=12)
commitments = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=4),
        st.sampled_from([1.0, 2.5, 4.0]),
        st.one_of(st.none(), st.tuples(st.integers(0, 11), st.integers(1, 12))),
    ),
    max_size=3,
)


def _mix(items: list[tuple[int, float, tuple[int, int] | None]]) -> PurchaseMix:
    out = []
    for count, rate, window in items:
        if window is None:
            out.append(Commitment("reserved", count, rate))
        else:
            a, b = sorted(window)
            out.append(
                Commitment("capacity-block", count, rate, start=a * H, end=max(b, a + 1) * H, terminates=True)
            )
    return PurchaseMix("p", tuple(out))


@given(nodes=counts, items=commitments)
def test_terms_add_up(nodes: list[int], items: list[tuple[int, float, tuple[int, int] | None]]) -> None:
    mix = _mix(items)
    t = [i * H for i in range(len(nodes))]
    end = len(nodes) * H
    paid = paid_nodes(mix, t, nodes, 0.0, end, 10.0)
    assert paid.node_hours == pytest.approx(sum(nodes))
    assert paid.covered_hours + paid.burst_hours == pytest.approx(paid.node_hours)
    committed_h = sum(c.count * c.overlap(0.0, end) / H for c in mix.commitments)
    assert paid.covered_hours + paid.unused_hours == pytest.approx(committed_h)
    committed_cost = sum(c.count * c.hourly * c.overlap(0.0, end) / H for c in mix.commitments)
    assert paid.total == pytest.approx(committed_cost + 10.0 * paid.burst_hours)
    assert min(paid.burst_hours, paid.unused_hours) >= -1e-9


def test_reserved_two_of_a_history_by_hand() -> None:
    # n = 1, 2, 3, 2, 1 for an hour each; 2 reserved at 3.00, burst 8.00:
    # covered 1+2+2+2+1 = 8, burst 1, unused 1+0+0+0+1 = 2 -> 24.00 + 8.00 nodes, 6.00 unused.
    paid = paid_nodes(
        PurchaseMix("p", (Commitment("reserved", 2, 3.0),)),
        [0, H, 2 * H, 3 * H, 4 * H],
        [1, 2, 3, 2, 1],
        0.0,
        5 * H,
        8.0,
    )
    assert (paid.covered_hours, paid.burst_hours, paid.unused_hours) == (8.0, 1.0, 2.0)
    assert (paid.existing_cost, paid.unused_cost) == (32.0, 6.0)
    assert paid.amortised_node_hourly == pytest.approx(32.0 / 9)
