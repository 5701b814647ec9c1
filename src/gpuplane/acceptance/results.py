"""The scored outcome of a suite: one `StepResult` per step, each with its figures and thresholds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from gpuplane.acceptance.thresholds import Threshold

__all__ = ["STEP_NAMES", "Figure", "Results", "Status", "StepResult"]

Status = Literal["pass", "fail", "skipped", "n/a"]

#: The seven steps of the acceptance test, by number.
STEP_NAMES = {
    1: "queued training job with the production container",
    2: "dataset sample and base weights pulled",
    3: "multi-node NCCL all_reduce_perf",
    4: "training for a fixed window",
    5: "checkpoint, pod deletion and restore",
    6: "GPU, network, storage, queue and cost labels exported",
    7: "useful work against the rental and API baselines",
}


@dataclass(frozen=True)
class Figure:
    """One measured number, the threshold it is held to (if any) and whether it met it."""

    name: str
    value: float | None
    unit: str = ""
    threshold: Threshold | None = None

    @property
    def passed(self) -> bool | None:
        """None when there is no threshold; False when there is one and nothing finite was measured
        (`inf`, `1e400` and `nan` in a log are not measurements, and never pass)."""
        if self.threshold is None:
            return None
        return self.finite and self.value is not None and self.threshold.passes(self.value)

    @property
    def finite(self) -> bool:
        """Whether the value is a finite number (None counts as not measured, not as infinite)."""
        return self.value is None or math.isfinite(self.value)

    def describe(self) -> str:
        """`name 212.4 GB/s (threshold >= 300 GB/s, source)`."""
        if self.value is None:
            shown = "not measured"
        elif not self.finite:
            shown = f"not a finite number ({self.value})"
        else:
            shown = f"{self.value:.4g} {self.unit}".rstrip()
        if self.threshold is None:
            return f"{self.name} {shown}"
        t = self.threshold
        return f"{self.name} {shown} (threshold {t.op} {t.value:g} {t.unit}".rstrip() + f"; {t.source})"

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for results.json."""
        return {
            "name": self.name,
            "value": self.value if self.finite else None,
            "unit": self.unit,
            "threshold": self.threshold.as_dict() if self.threshold else None,
            "passed": self.passed,
        }


@dataclass
class StepResult:
    """One step's status, figures and the sentences that explain a failure or a skip."""

    number: int
    status: Status = "pass"
    figures: list[Figure] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The step's name as reports show it."""
        return STEP_NAMES[self.number]

    def fail(self, message: str) -> None:
        """Mark the step failed with a reason (a skip or n/a turns into a failure)."""
        self.status = "fail"
        self.messages.append(message)

    def skip(self, message: str) -> None:
        """Mark the step skipped (unless it already failed)."""
        if self.status != "fail":
            self.status = "skipped"
        self.messages.append(message)

    def held(self, figure: Figure) -> None:
        """Add a figure; one that misses its threshold fails the step with number and threshold."""
        self.figures.append(figure)
        if figure.passed is False:
            self.fail(figure.describe())

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of the step in results.json."""
        return {
            "step": self.number,
            "name": self.name,
            "status": self.status,
            "figures": [f.as_dict() for f in self.figures],
            "messages": list(self.messages),
        }


@dataclass
class Results:
    """Every step's result; the run passes when each step passes or does not apply."""

    steps: list[StepResult]
    suite: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether every step passed or did not apply."""
        return all(s.status in ("pass", "n/a") for s in self.steps)

    def failures(self) -> list[str]:
        """`step N (name): message` for each failed or skipped step."""
        return [
            f"step {s.number} ({s.name}): {m}"
            for s in self.steps
            if s.status in ("fail", "skipped")
            for m in s.messages
        ]

    def as_dict(self) -> dict[str, Any]:
        """results.json."""
        return {
            "verdict": "pass" if self.passed else "fail",
            "cluster": self.suite.get("cluster"),
            "pool": self.suite.get("pool"),
            "steps": [s.as_dict() for s in self.steps],
            "notes": list(self.notes),
        }
