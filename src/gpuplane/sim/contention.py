"""How pods sharing one physical GPU slow each other down (the twin's contention model).

A workload's work rate is 1 at the speed its trace records; on a shared GPU with `k` busy
sharers (running pods of distinct workloads on that GPU) it works at

    rate(k) = 1 / (1 + s x (k - 1))

with one interference factor `s` per sharing mode (`SimConfig`, defaults and sources in
data/defaults.yaml):

- time-slicing, s = 1: the GPU interleaves the contexts of its busy pods in time slices, so each
  of k busy pods gets 1/k of the GPU's time (rate 1/k);
- MPS, s configurable (default 0): NVIDIA's device plugin gives each MPS replica the same fixed
  share of the GPU's compute, so a client's speed does not depend on how many others are busy,
  except for what MPS does not partition (memory bandwidth, caches) -- that is what `s` adds;
- MIG slices and whole GPUs are isolated: rate 1.

A gang works at the rate of its slowest pod. Pure functions and one small index; the engine
moves each workload's virtual clock (sim/state.py) when its rate changes.
"""

from __future__ import annotations

from collections.abc import Iterable


def work_rate(interference: float, busy: int) -> float:
    """Rate of one of `busy` busy sharers of a GPU with interference factor `interference`."""
    if busy <= 1:
        return 1.0
    return 1.0 / (1.0 + interference * (busy - 1))


class SharedGpus:
    """Which running workloads are busy on each shared physical GPU, and so their work rates.

    `interference[pool]` is the factor of each pool, or None for pools whose GPUs are isolated
    (those cost nothing here).
    """

    def __init__(self, interference: list[float | None]) -> None:
        self.interference = interference
        self.on_gpu: dict[tuple[int, int], dict[int, None]] = {}  # (node id, GPU) -> workloads
        self.gpus_of: dict[int, tuple[int, tuple[tuple[int, int], ...]]] = {}  # workload -> pool, GPUs

    def shared(self, pool: int) -> bool:
        """Whether pods of `pool` share GPUs (and so change each other's rates)."""
        return self.interference[pool] is not None

    def start(self, wl: int, pool: int, allocs: Iterable[tuple[int, int, str, int]]) -> list[int]:
        """A workload starts running on these allocations; returns the other workloads it slows."""
        gpus = tuple(sorted({(node, gpu) for node, gpu, _, _ in allocs}))
        self.gpus_of[wl] = (pool, gpus)
        others: dict[int, None] = {}
        for key in gpus:
            sharers = self.on_gpu.setdefault(key, {})
            others.update(sharers)
            sharers[wl] = None
        return list(others)

    def stop(self, wl: int) -> list[int]:
        """A workload stops running; returns the workloads that shared a GPU with it."""
        entry = self.gpus_of.pop(wl, None)
        if entry is None:
            return []
        others: dict[int, None] = {}
        for key in entry[1]:
            sharers = self.on_gpu[key]
            del sharers[wl]
            if sharers:
                others.update(sharers)
            else:
                del self.on_gpu[key]
        return list(others)

    def rate(self, wl: int) -> float:
        """The work rate of a running workload: the rate of its most crowded GPU."""
        entry = self.gpus_of.get(wl)
        if entry is None:
            return 1.0
        pool, gpus = entry
        interference = self.interference[pool]
        if interference is None or not gpus:
            return 1.0
        return work_rate(interference, max(len(self.on_gpu[key]) for key in gpus))
