"""The nccl-tests parser on outputs written in nccl-tests' documented format (src/util.cu v2.19.6
and the pre-2.14 layout), with numbers of our own; expected figures computed by hand."""

from __future__ import annotations

import pytest

from gpuplane.acceptance.nccl import NcclResult, parse_nccl
from tests.acceptance.helpers import FIXTURES

NCCL = FIXTURES / "nccl"


def _parse(name: str) -> NcclResult:
    return parse_nccl((NCCL / f"{name}.txt").read_text())


def test_two_nodes_of_eight_h100_current_format() -> None:
    result = _parse("v2_19_two_nodes")
    assert [r.size_bytes for r in result.rows] == [1 << 30, 1 << 31, 1 << 32, 1 << 33]
    assert len(result.ranks) == 16 and result.hosts == ["trainer-0", "trainer-1"]
    assert result.ranks[15].name == "NVIDIA H100 80GB HBM3"
    # footer: (300.10+340.55+360.20+371.40 + 301.00+341.00+359.80+372.00) / 8 = 343.256
    assert result.avg_busbw() == 343.256
    assert result.busbw_at_max() == 371.40  # out-of-place, 8 GiB
    assert result.peak_busbw() == 372.00  # in-place, 8 GiB
    assert result.out_of_bounds == 0 and result.wrong == 0 and result.checked


def test_the_three_metrics_differ_as_the_reference_warns() -> None:
    # small sizes pull the average down: 4.068 average vs 11.20 at 256 MiB (2.75x)
    result = _parse("v2_13_old_two_ranks")
    assert len(result.rows) == 6
    assert result.avg_busbw() == 4.06833
    assert result.busbw_at_max() == 11.20 and result.peak_busbw() == 11.25
    assert result.hosts == ["worker-0", "worker-1"]  # old device lines have no Group


def test_average_is_recomputed_from_the_rows_when_the_footer_is_missing() -> None:
    text = (NCCL / "v2_13_old_two_ranks.txt").read_text()
    cut = parse_nccl(text.split("# Out of bounds")[0])
    assert cut.reported_avg_busbw is None
    # (0+0.01+0.32+3.10+9.80+11.20 + 0+0.01+0.33+3.05+9.75+11.25) / 12 = 48.82 / 12
    assert cut.avg_busbw() == pytest.approx(48.82 / 12)


def test_per_iteration_columns_timestamps_unchecked_results_and_log_noise() -> None:
    result = _parse("per_iter_unchecked_timestamps")
    assert [r.size_bytes for r in result.rows] == [1 << 32, 1 << 33]
    first = result.rows[0]
    assert first.out_of_place is not None and first.out_of_place.busbw_gbps == 352.50
    assert first.in_place.busbw_gbps == 353.10 and first.in_place.wrong is None
    assert not result.checked and result.wrong == 0
    assert result.avg_busbw() == 359.4  # (352.50+353.10+365.75+366.25) / 4
    assert result.busbw_at_max() == 365.75


def test_wrong_results_are_counted() -> None:
    result = _parse("wrong_results")
    assert result.wrong == 15 and result.out_of_bounds == 15
    assert result.avg_busbw() == 20.85


def test_text_without_results_has_no_rows() -> None:
    result = parse_nccl("mpirun was unable to launch the specified application\n")
    assert result.rows == [] and result.avg_busbw() is None and result.busbw_at_max() is None
