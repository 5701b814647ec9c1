"""Run evaluation tasks: in this process, or as Ray tasks (a local Ray started on this machine's
cores by default, or an existing cluster with `--ray-address`), with a per-design cache in DIR.

Every task is a pure function of (design spec, trace prefix, seed, config), so where it runs
cannot change its result: Ray and in-process runs give identical results (tested).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from gpuplane.baselines import ApiPrices
from gpuplane.errors import UsageError
from gpuplane.outputs import replace_file
from gpuplane.plan.evaluate import DesignResult, Task, run_task
from gpuplane.plan.folder import Unreadable, read_entry
from gpuplane.plan.raylink import address_of, connect, kept_signal_handlers
from gpuplane.sim import SimConfig
from gpuplane.swap import deferred_signals
from gpuplane.traces import Workload

#: Bump when a change of gpuplane changes what an evaluation returns (old cache entries are ignored).
CACHE_VERSION = "1"

Progress = Callable[[int, int], None]

#: Seconds one `ray.wait` may block before signals that arrived meanwhile are handled.
_WAIT_S = 0.5


class Backend(Protocol):
    """Where tasks run; results come back in task order."""

    def run(self, tasks: Sequence[Task], done: Callable[[int, DesignResult], None]) -> None:
        """Run every task and call `done(index, result)` as each finishes."""


class InProcess:
    """Run tasks one after the other in this process."""

    def __init__(self, workloads: Sequence[Workload], config: SimConfig, prices: ApiPrices | None) -> None:
        self._args = (list(workloads), config, prices)

    def run(self, tasks: Sequence[Task], done: Callable[[int, DesignResult], None]) -> None:
        """Evaluate each task in order."""
        for index, task in enumerate(tasks):
            done(index, run_task(task, *self._args))


class RayBackend(AbstractContextManager["RayBackend"]):
    """Run tasks as Ray tasks; the trace goes to the object store once."""

    def __init__(
        self,
        workloads: Sequence[Workload],
        config: SimConfig,
        prices: ApiPrices | None,
        *,
        address: str | None = None,
        num_cpus: int | None = None,
    ) -> None:
        try:
            import ray
        except ImportError:
            raise UsageError(
                "Ray is not installed: pip install ray (or run in this process with --no-ray)",
                option="--ray-address",
            ) from None
        self._ray: Any = ray
        self._started = False
        if not ray.is_initialized():
            connect(ray, address_of(address), num_cpus)
            self._started = True
        self._remote: Any = ray.remote(run_task)
        self._refs = (ray.put(list(workloads)), ray.put(config), ray.put(prices))

    def run(self, tasks: Sequence[Task], done: Callable[[int, DesignResult], None]) -> None:
        """Submit every task, then report each as it finishes."""
        ray = self._ray
        pending = {self._remote.remote(task, *self._refs): i for i, task in enumerate(tasks)}
        while pending:
            # Signals are held while Ray's C++ waits (an exception raised inside it comes back as a
            # SystemError) and take effect between waits: SIGTERM still ends the plan with 143.
            with deferred_signals():
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=_WAIT_S)
            for ref in ready:
                with deferred_signals():
                    result = ray.get(ref)
                done(pending.pop(ref), result)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._started:
            with kept_signal_handlers():
                self._ray.shutdown()


class Cache:
    """Results per task key (design hash, prefix, seed, trace, config) as JSON files in a folder."""

    def __init__(
        self, folder: Path | None, workloads: Sequence[Workload], config: SimConfig, prices: ApiPrices | None
    ) -> None:
        self.folder = folder
        digest = hashlib.sha256()
        for w in workloads:
            digest.update(repr(w).encode("utf-8"))
        context = {
            "trace": digest.hexdigest(),
            "config": repr({**asdict(config), "seed": None}),
            "api": repr(prices),
        }
        self._context = json.dumps(context, sort_keys=True)
        self._earlier = (
            {p.stem for p in folder.glob("*.json")} if folder is not None and folder.is_dir() else set()
        )
        self._reused: set[str] = set()
        self.damaged: list[tuple[Path, str]] = []

    def key(self, task: Task) -> str:
        """The cache key of a task."""
        text = f"{CACHE_VERSION}|{task.design}|{task.fraction!r}|{task.seed}|{self._context}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def get(self, task: Task) -> DesignResult | None:
        """The cached result of a task, if there is a usable one (a damaged entry is noted in
        `damaged` and evaluated again; a link or a non-regular file is never read)."""
        if self.folder is None:
            return None
        path = self.folder / f"{self.key(task)}.json"
        try:
            data = json.loads(read_entry(path), parse_constant=_no_constant)
            if not _finite(data):
                raise ValueError("a number that is not finite")
            result = DesignResult.from_dict(data["result"])
            if result.design != task.design or result.seed != task.seed:
                raise ValueError("it is the result of another evaluation")
        except Unreadable as exc:
            if os.path.lexists(path):
                self.damaged.append((path, str(exc)))
            return None
        except Exception as exc:  # any shape of damage: the entry is evaluated again, never trusted
            self.damaged.append((path, f"{type(exc).__name__}: {exc}"[:200]))
            return None
        if path.stem in self._earlier:
            self._reused.add(path.stem)
        return result

    @property
    def hits(self) -> int:
        """Evaluations reused from an earlier run (each counted once)."""
        return len(self._reused)

    def put(self, task: Task, result: DesignResult) -> None:
        """Store a result (atomically)."""
        if self.folder is None:
            return
        data = {
            "design": task.design,
            "fraction": task.fraction,
            "seed": task.seed,
            "result": result.as_dict(),
        }
        replace_file(
            self.folder / f"{self.key(task)}.json", json.dumps(data, indent=1, sort_keys=True) + "\n"
        )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _finite(data: Any) -> bool:
    """Whether every number in plain JSON data is finite (1e400 parses as infinity)."""
    if isinstance(data, float):
        return math.isfinite(data)
    if isinstance(data, dict):
        return all(_finite(v) for v in data.values())
    if isinstance(data, list):
        return all(_finite(v) for v in data)
    return True


class Evaluator:
    """Runs tasks through the cache and a backend, and reports progress."""

    def __init__(self, backend: Backend, cache: Cache, progress: Progress | None = None) -> None:
        self.backend = backend
        self.cache = cache
        self.progress = progress
        self.done = 0
        self.total = 0

    def __call__(self, tasks: Sequence[Task]) -> list[DesignResult]:
        """Results of `tasks`, in order (cached ones are not run again)."""
        results: list[DesignResult | None] = [self.cache.get(t) for t in tasks]
        todo = [i for i, r in enumerate(results) if r is None]
        self.total += len(tasks)
        self.done += len(tasks) - len(todo)
        self._tick()

        def finished(index: int, result: DesignResult) -> None:
            task_index = todo[index]
            results[task_index] = result
            self.cache.put(tasks[task_index], result)
            self.done += 1
            self._tick()

        if todo:
            self.backend.run([tasks[i] for i in todo], finished)
        return [r for r in results if r is not None]

    def _tick(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)
