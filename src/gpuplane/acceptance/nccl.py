"""Parse the text nccl-tests' `all_reduce_perf` prints, and the three bus-bandwidth figures.

The format is nccl-tests' own (NVIDIA/nccl-tests src/util.cu @a0b82b22, v2.19.6:
`writeResultHeader`, `writeBenchmarkLineBody`, `writeResultFooter`, `writeDeviceReport`):

- a device report, one `#  Rank  R Group G Pid P on HOST device D [BUS] NAME` line per rank
  (releases before 2.14 print no `Group`);
- a header of two or three `#` lines naming the columns: five preamble columns (size, count,
  type, redop, root; old releases have no root), then an out-of-place and an in-place group, each
  `time algbw busbw #wrong` (`error` in old releases, `cputime` with `-C 1`) and, with `-I 1`,
  `i_min i_max i_p99 i_cv%`; `-S 1` adds a timestamp column;
- one row per size; `#wrong` is `N/A` when results are not checked (`-c 0`);
- `# Out of bounds values : N OK|FAILED` and `# Avg bus bandwidth : X [OK|FAILED]`, where X is
  the mean busbw of every out-of-place and in-place row (src/common.cu: `bw[0] /= bw_count[0]`).

The three figures differ by about 3x on the same run: `avg_busbw` (the footer), `busbw_at_max`
(out-of-place busbw of the largest size, what NVIDIA AICR compares) and `peak_busbw` (the best row).
A threshold always names which one it means.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = ["METRICS", "Measure", "NcclRank", "NcclResult", "NcclRow", "parse_nccl", "parse_size"]

#: The bus-bandwidth metrics a threshold may name.
METRICS = ("avg_busbw", "busbw_at_max", "peak_busbw")

_RANK = re.compile(
    r"^#\s+Rank\s+(?P<rank>[0-9]{1,9})(?:\s+Group\s+\d+)?\s+Pid\s+\d+\s+on\s+(?P<host>\S+)\s+device\s+"
    r"(?P<device>[0-9]{1,9})\s+\[[^\]]*\]\s+(?P<name>.*?)\s*$"
)
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(?P<value>[-+0-9.eE]+|nan|inf)", re.IGNORECASE)
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<value>[0-9]+)")
_WHOLE = re.compile(r"[0-9]{1,19}")
_TIME_COLUMNS = ("time", "cputime")
_WRONG_COLUMNS = ("#wrong", "error")


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int:
    """A size as nccl-tests' -b/-e take it: bytes with an optional K, M or G (powers of 1024)."""
    match = re.fullmatch(r"(\d+)([KMG]?)", text.strip().upper())
    if not match:
        raise ValueError(f"not an nccl-tests size: {text!r}")
    return int(match[1]) * _UNITS[match[2]]


@dataclass(frozen=True)
class Measure:
    """One half of a row: out-of-place or in-place."""

    time_us: float
    algbw_gbps: float
    busbw_gbps: float
    wrong: float | None  # None when results were not checked (-c 0)


@dataclass(frozen=True)
class NcclRow:
    """One message size."""

    size_bytes: int
    count: int
    dtype: str
    redop: str
    out_of_place: Measure | None
    in_place: Measure


@dataclass(frozen=True)
class NcclRank:
    """One rank of the device report."""

    rank: int
    host: str
    device: int
    name: str


@dataclass
class NcclResult:
    """Everything one all_reduce_perf run printed that scoring needs."""

    rows: list[NcclRow] = field(default_factory=list)
    ranks: list[NcclRank] = field(default_factory=list)
    reported_avg_busbw: float | None = None
    out_of_bounds: int | None = None
    checked: bool = False

    @property
    def hosts(self) -> list[str]:
        """The distinct hosts the ranks ran on, in rank order."""
        return list(dict.fromkeys(r.host for r in sorted(self.ranks, key=lambda r: r.rank)))

    @property
    def wrong(self) -> float:
        """Wrong elements over every checked row (0 when nothing was checked)."""
        total = 0.0
        for row in self.rows:
            for half in (row.out_of_place, row.in_place):
                if half is not None and half.wrong is not None:
                    total += half.wrong
        return total

    def avg_busbw(self) -> float | None:
        """The footer's average, or the same mean computed from the rows when it is missing."""
        if self.reported_avg_busbw is not None:
            return self.reported_avg_busbw
        values = [h.busbw_gbps for r in self.rows for h in (r.out_of_place, r.in_place) if h is not None]
        return sum(values) / len(values) if values else None

    def busbw_at_max(self) -> float | None:
        """Out-of-place busbw of the largest size (in-place when out-of-place was not run)."""
        if not self.rows:
            return None
        row = max(self.rows, key=lambda r: r.size_bytes)
        half = row.out_of_place or row.in_place
        return half.busbw_gbps

    def peak_busbw(self) -> float | None:
        """The highest busbw of any row, out-of-place or in-place."""
        values = [h.busbw_gbps for r in self.rows for h in (r.out_of_place, r.in_place) if h is not None]
        return max(values) if values else None

    def metric(self, name: str) -> float | None:
        """One of `METRICS` by name."""
        if name not in METRICS:
            raise KeyError(f"unknown NCCL metric {name!r}; expected one of {', '.join(METRICS)}")
        value: float | None = getattr(self, name)()
        return value

    @property
    def max_size_bytes(self) -> int | None:
        """The largest message size measured."""
        return max((r.size_bytes for r in self.rows), default=None)


@dataclass(frozen=True)
class _Layout:
    """Where each group's columns sit in a data row."""

    preamble: int
    groups: tuple[tuple[int, int], ...]  # (first column, width) per group: out-of-place, in-place
    width: int


def _layout(names: list[str]) -> _Layout | None:
    """Column layout from the header line that names `size count type ...`."""
    starts = [i for i, name in enumerate(names) if name in _TIME_COLUMNS]
    if not starts or starts[0] < 4:
        return None
    ends = [*starts[1:], len(names)]
    groups = tuple((s, e - s) for s, e in zip(starts, ends, strict=True))
    return _Layout(preamble=starts[0], groups=groups, width=len(names))


def _number(text: str) -> float | None:
    if text == "N/A":
        return None
    return float(text)


def _measure(tokens: list[str], start: int, width: int) -> Measure:
    # time, algbw, busbw, then #wrong/error (the per-iteration columns after it are not scored)
    wrong = _number(tokens[start + 3]) if width > 3 else None
    return Measure(float(tokens[start]), float(tokens[start + 1]), float(tokens[start + 2]), wrong)


def _whole(text: str) -> int | None:
    """An ASCII whole number of at most 19 digits (int64, as nccl-tests prints), else None."""
    return int(text) if _WHOLE.fullmatch(text) else None


def _footer_number(text: str) -> float:
    """The footer's average; text that is no number reads as NaN (it then passes no threshold)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def _row(tokens: list[str], layout: _Layout) -> NcclRow | None:
    if len(tokens) < layout.width or _whole(tokens[0]) is None or _whole(tokens[1]) is None:
        return None
    try:
        halves = [_measure(tokens, start, width) for start, width in layout.groups]
    except (ValueError, IndexError):
        return None
    out_of_place, in_place = (halves[0], halves[-1]) if len(halves) > 1 else (None, halves[0])
    return NcclRow(int(tokens[0]), int(tokens[1]), tokens[2], tokens[3], out_of_place, in_place)


def _header_names(line: str) -> list[str] | None:
    names = line.lstrip("#").split()
    if names[:2] == ["size", "count"] and any(n in _TIME_COLUMNS for n in names):
        return [n for n in names if n != "timestamp"]
    return None


def parse_nccl(text: str) -> NcclResult:
    """Parse all_reduce_perf output (any surrounding log lines are ignored)."""
    result = NcclResult()
    layout: _Layout | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("#"):
            if (match := _RANK.match(line)) and _whole(match["rank"]) is not None:
                result.ranks.append(
                    NcclRank(int(match["rank"]), match["host"], int(match["device"]), match["name"])
                )
            elif match := _AVG.match(line):
                result.reported_avg_busbw = _footer_number(match["value"])
            elif match := _OOB.match(line):
                result.out_of_bounds = _whole(match["value"])
            elif (names := _header_names(line)) is not None:
                layout = _layout(names)
            continue
        if layout is None:
            continue
        row = _row(line.split(), layout)
        if row is not None:
            result.rows.append(row)
            result.checked = result.checked or row.in_place.wrong is not None
    return result
