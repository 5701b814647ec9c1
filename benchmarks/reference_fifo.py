"""A reference for the twin's speed: a minimal SimPy model of FIFO gang placement on 8-GPU nodes.

What a user could write in an afternoon: jobs queue in submission order (ties in file order); at
every arrival and every finish the queue is scanned in order and each job whose whole gang fits
starts at once, pods placed best fit (fullest node that fits), GPUs held until the job ends. No
quota, no teams, no preemption, no autoscaler: on a platform whose quota equals its capacity and
that never preempts (the Philly platform of bench_sim.py) the twin with Kueue makes the same
decisions, so the start times can be compared job by job (`bench_sim` prints how many agree).

SimPy 4 (PyPI `simpy`): one process per job, `env.timeout` for arrivals and run times.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import simpy
from simpy.events import ProcessGenerator

GPUS_PER_NODE = 8


class Nodes:
    """Free GPUs per node, with nodes bucketed by free count for best fit."""

    def __init__(self, nodes: int, gpus: int = GPUS_PER_NODE) -> None:
        self.free = [gpus] * nodes
        self.buckets: list[dict[int, None]] = [{} for _ in range(gpus + 1)]
        self.buckets[gpus] = dict.fromkeys(range(nodes))
        self.total_free = nodes * gpus

    def _move(self, node: int, delta: int) -> None:
        old = self.free[node]
        del self.buckets[old][node]
        self.free[node] = old + delta
        self.buckets[old + delta][node] = None
        self.total_free += delta

    def place(self, pods: Sequence[int]) -> list[tuple[int, int]] | None:
        """Best-fit every pod (largest first) or none; returns (node, GPUs) per pod."""
        if sum(pods) > self.total_free:
            return None
        taken: list[tuple[int, int]] = []
        for gpus in sorted(pods, reverse=True):
            node = next((n for free in range(gpus, len(self.buckets)) for n in self.buckets[free]), None)
            if node is None:
                self.release(taken)
                return None
            self._move(node, -gpus)
            taken.append((node, gpus))
        return taken

    def release(self, taken: Iterable[tuple[int, int]]) -> None:
        """Give the GPUs of a placement back."""
        for node, gpus in taken:
            self._move(node, gpus)


def pods_of(gpus: int) -> list[int]:
    """A gang's pods: the fewest of at most 8 GPUs, as even as possible (as the Philly reader)."""
    count = -(-gpus // GPUS_PER_NODE)
    base, extra = divmod(gpus, count)
    return [base + 1] * extra + [base] * (count - extra)


def simulate(jobs: Sequence[tuple[float, int, float]], nodes: int) -> list[float | None]:
    """Start time of each (submit, GPUs, run seconds) job in input order; None if it never fits."""
    env = simpy.Environment()
    cluster = Nodes(nodes)
    queue: dict[int, None] = {}
    starts: list[float | None] = [None] * len(jobs)

    def schedule() -> None:
        for i in list(queue):
            if cluster.total_free == 0:
                return
            taken = cluster.place(pods_of(jobs[i][1]))
            if taken is not None:
                del queue[i]
                starts[i] = env.now
                env.process(run(i, taken))

    def run(i: int, taken: list[tuple[int, int]]) -> ProcessGenerator:
        yield env.timeout(jobs[i][2])
        cluster.release(taken)
        schedule()

    def arrivals() -> ProcessGenerator:
        order = sorted(range(len(jobs)), key=lambda i: (jobs[i][0], i))
        for i in order:
            if jobs[i][0] > env.now:
                yield env.timeout(jobs[i][0] - env.now)
            queue[i] = None
            schedule()

    env.process(arrivals())
    env.run()
    return starts
