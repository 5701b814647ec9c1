"""Kueue's mean admission wait per ClusterQueue over a window, from its histogram's counters.

`increase(_sum)/increase(_count)` is wrong in two ordinary cases (kueue pkg/metrics/metrics.go,
`admission_wait_time_seconds{cluster_queue, priority_class, replica_role}`):
- a queue that admitted nothing in the window gives 0/0 = NaN;
- a child series created inside the window (the first admission of a priority class, or any
  admission after a Kueue restart) has no earlier sample, so `increase()` loses the observation
  that created it.

So each child's increase is counted here from its value just before the window (absent: the
child was born inside it and started from 0) and its values through the window, a drop in its
count or its sum being a reset of both. A queue with no admission has no mean wait (None), never NaN.
"""

from __future__ import annotations

from collections import defaultdict

from gpuplane.account import queries as q
from gpuplane.account.answers import Series
from gpuplane.account.prom import PromClient
from gpuplane.account.window import Window

#: At most this many points per series are read to follow the counters through the window.
POINTS = 1000
#: How far before the window a counter's last value is looked for.
BEFORE = "1h"


def histogram_increase(
    before: tuple[float, float] | None, points: list[tuple[float, float]]
) -> tuple[float, float]:
    """(count, sum) increase of one histogram child from `before` (None: born in the window, from 0).

    A drop in either counter is a reset (Kueue restarted and the child started again from 0); both
    counters reset together, so a sum that happens to come back higher is still seen as reset.
    """
    counted = summed = 0.0
    last_count, last_sum = before if before is not None else (0.0, 0.0)
    for count, total in points:
        if count < last_count or total < last_sum:
            counted, summed = counted + count, summed + total
        else:
            counted, summed = counted + count - last_count, summed + total - last_sum
        last_count, last_sum = count, total
    return counted, summed


def _step(w: Window) -> float:
    steps = max(1, -(-int((w.end - w.start) / w.step) // POINTS))
    return steps * w.step


Key = tuple[tuple[str, str], ...]


def _plain(series: Series) -> Key:
    """The series' key without `__name__` (whether a function keeps it differs between releases)."""
    return tuple((k, v) for k, v in series.key if k != "__name__")


def _values(client: PromClient, w: Window, metric: str) -> tuple[dict[Key, float], dict[Key, Series]]:
    """Each child's value just before the window, and its values through it (ending at its last step)."""
    before = {_plain(s): s.value for s in client.instant(q.last_value(metric, BEFORE), w.start - 0.001)}
    series = {_plain(s): s for s in client.range(metric, w.start, w.last, _step(w))}
    for s in client.instant(metric, w.last):  # the range's coarse steps may stop short of the end
        target = series.setdefault(_plain(s), Series(s.labels))
        if not target.samples or target.samples[-1][0] < w.last:
            target.samples.append(s.samples[0])
    return before, series


def admissions(client: PromClient, w: Window) -> tuple[dict[str, float], dict[str, float]]:
    """(admissions, total wait seconds) per ClusterQueue over the window."""
    count_before, counts = _values(client, w, q.KUEUE_WAIT_COUNT)
    sum_before, sums = _values(client, w, q.KUEUE_WAIT_SUM)
    admitted: dict[str, float] = defaultdict(float)
    waited: dict[str, float] = defaultdict(float)
    for key, series in counts.items():
        totals = dict(sums[key].samples) if key in sums else {}
        points = [(count, totals.get(t, 0.0)) for t, count in series.samples]
        start = (count_before[key], sum_before.get(key, 0.0)) if key in count_before else None
        counted, summed = histogram_increase(start, points)
        queue = series.labels.get("cluster_queue", "")
        admitted[queue] += counted
        waited[queue] += summed
    return dict(admitted), dict(waited)


def mean_wait(counts: dict[str, float], sums: dict[str, float], queues: set[str]) -> dict[str, float | None]:
    """Mean admission wait per queue; None for a queue that admitted nothing in the window."""
    out: dict[str, float | None] = {}
    for queue in sorted(queues | set(counts)):
        count = counts.get(queue, 0.0)
        out[queue] = sums.get(queue, 0.0) / count if count > 0 else None
    return out
