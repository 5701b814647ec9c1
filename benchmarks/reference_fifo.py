"""A reference for the twin's speed: a minimal SimPy model of queued gangs on 8-GPU nodes.

What a user could write in an afternoon, with the queueing policy of one Kueue ClusterQueue
(BestEffortFIFO, no preemption) in front of kube-scheduler, so that the twin with Kueue makes the
same decisions and start times can be compared job by job (`bench_sim` prints how many agree):

- jobs wait in queue order: higher priority first, then earlier submission, ties in input order
  (a ClusterQueue's heap order, `baseCompareFunc`: priority, then the queue-order timestamp, which
  is the creation time of a workload never evicted, `GetQueueOrderTimestamp` in
  pkg/workload/workload.go; kubernetes-sigs/kueue at ff69552e, as read in ../shared/reference/kueue.md §3);
- once per instant with an arrival or a finish (after all of them, as the twin settles an instant)
  the queue is scanned in that order and each job whose GPUs fit the unreserved quota reserves
  them (is admitted): quota is what Kueue admits on, not free nodes (BestEffortFIFO: a job that
  does not fit is passed over, not waited for);
- admitted jobs are placed in admission order, each whose whole gang fits the free GPUs now:
  pods best fit (fullest node that fits), largest first; GPUs and quota are held until the job ends.

No teams, cohorts, preemption or autoscaler: compared on a platform with one ClusterQueue whose
quota is its capacity, or one where jobs never wait (the right-sized Philly platform). A job runs
for the seconds it is given: the bench passes the twin's uninterrupted run time (a failed or killed
job's recorded fraction, checkpoint writes included).

SimPy 4 (PyPI `simpy`): one process per job, `env.timeout` for arrivals and run times.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Sequence

import simpy
from simpy.events import ProcessGenerator

GPUS_PER_NODE = 8

#: One job: (submit time, GPUs, run seconds, priority).
Job = tuple[float, int, float, int]


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


def simulate(jobs: Sequence[Job], nodes: int, quota: int | None = None) -> list[float | None]:
    """Start time of each job in input order (None if it never starts); `quota` GPUs (default:
    all of the nodes' GPUs) can be reserved at once."""
    env = simpy.Environment()
    cluster = Nodes(nodes)
    unreserved = [nodes * GPUS_PER_NODE if quota is None else quota]
    queue: list[tuple[int, float, int]] = []  # (-priority, submit, index), kept sorted
    admitted: dict[int, None] = {}  # reserved quota, not placed yet, in admission order
    starts: list[float | None] = [None] * len(jobs)

    def schedule() -> None:
        if queue and unreserved[0] > 0:
            waiting = []
            for key in queue:
                gpus = jobs[key[2]][1]
                if gpus <= unreserved[0]:
                    unreserved[0] -= gpus
                    admitted[key[2]] = None
                else:
                    waiting.append(key)
            queue[:] = waiting
        for i in list(admitted):
            if cluster.total_free == 0:
                return
            taken = cluster.place(pods_of(jobs[i][1]))
            if taken is not None:
                del admitted[i]
                starts[i] = env.now
                env.process(run(i, taken))

    pending = [False]  # a scheduling pass is due at the end of this instant

    def settle(_: simpy.Event) -> None:
        pending[0] = False
        schedule()

    def wake() -> None:
        # Every arrival and finish at this instant was scheduled earlier, so a zero timeout made
        # now fires after all of them: one pass per instant, as the twin settles an instant once.
        if not pending[0]:
            pending[0] = True
            env.timeout(0).callbacks.append(settle)

    def run(i: int, taken: list[tuple[int, int]]) -> ProcessGenerator:
        yield env.timeout(jobs[i][2])
        cluster.release(taken)
        unreserved[0] += jobs[i][1]
        wake()

    def arrivals() -> ProcessGenerator:
        order = sorted(range(len(jobs)), key=lambda i: (jobs[i][0], i))
        for i in order:
            if jobs[i][0] > env.now:
                yield env.timeout(jobs[i][0] - env.now)
            insort(queue, (-jobs[i][3], jobs[i][0], i))
            wake()

    env.process(arrivals())
    env.run()
    return starts
