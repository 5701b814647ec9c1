"""Pass thresholds of the acceptance steps, loaded from `data/thresholds.yaml` (each with its source).

A threshold names the metric it bounds, the comparison, the number and where the number comes
from, so a failed step can say "busbw_at_max 212.4 GB/s < 300 GB/s (NVIDIA/aicr ...)".
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any, Literal

import yaml

from gpuplane.acceptance.nccl import METRICS

__all__ = [
    "Threshold",
    "check_thresholds",
    "default_threshold",
    "fabric_of",
    "nccl_config",
    "nccl_threshold",
    "threshold_from_dict",
]

Comparison = Literal[">=", "<="]


@dataclass(frozen=True)
class Threshold:
    """`metric op value unit`, e.g. `busbw_at_max >= 300 GB/s`, and where the number comes from."""

    metric: str
    op: Comparison
    value: float
    unit: str
    source: str

    def passes(self, measured: float) -> bool:
        """Whether `measured` meets the threshold."""
        return measured >= self.value if self.op == ">=" else measured <= self.value

    def describe(self) -> str:
        """`busbw_at_max >= 300 GB/s` (without the source)."""
        return f"{self.metric} {self.op} {self.value:g} {self.unit}".rstrip()

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for suite.json and results.json."""
        return asdict(self)


def threshold_from_dict(data: dict[str, Any]) -> Threshold:
    """The inverse of `Threshold.as_dict` (suite.json is read back by `score`)."""
    op = data["op"]
    if op not in (">=", "<="):
        raise ValueError(f"unknown comparison {op!r}")
    value = data["value"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise ValueError(f"value {value!r} is not a finite number")
    return Threshold(str(data["metric"]), op, float(value), str(data["unit"]), str(data["source"]))


def check_thresholds(info: dict[str, Any]) -> tuple[str, str] | None:
    """(field, message) for the first threshold of a suite that cannot be read back, or None."""
    thresholds = info.get("thresholds", {})
    if not isinstance(thresholds, dict):
        return "thresholds", "not a JSON object"
    for name, data in thresholds.items():
        try:
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            threshold_from_dict(data)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            return f"thresholds.{name}", str(exc)[:200]
    return None


@functools.cache
def _data(name: str) -> dict[str, Any]:
    text = resources.files("gpuplane.acceptance").joinpath(f"data/{name}").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def nccl_config() -> dict[str, Any]:
    """How step 3 runs all_reduce_perf (binary, flags, mpirun), from `data/nccl.yaml`."""
    return _data("nccl.yaml")


def fabric_of(vm_size: str) -> str | None:
    """The inter-node fabric of a VM size when the data knows it (e.g. p5.48xlarge -> efa)."""
    sizes: dict[str, str] = _data("thresholds.yaml")["fabrics"]["vm_sizes"]
    return sizes.get(vm_size)


def nccl_threshold(accelerator: str, fabric: str | None) -> tuple[Threshold, str] | None:
    """The step-3 threshold for an accelerator on a fabric, and the largest size (-e) it assumes."""
    for entry in _data("thresholds.yaml")["nccl"]:
        if entry["accelerator"] == accelerator and entry["fabric"] == fabric:
            metric = entry["metric"]
            assert metric in METRICS, metric
            source = f"{entry['source']} ({entry['date']})"
            return Threshold(metric, ">=", float(entry["min_gbps"]), "GB/s", source), str(entry["max_bytes"])
    return None


#: Default thresholds of steps 1, 2, 4 and 5: (data key, metric, comparison, unit).
_DEFAULTS: dict[str, tuple[str, Comparison, str]] = {
    "max_admission_wait_s": ("admission_wait_s", "<=", "s"),
    "min_copy_mb_per_s": ("copy_mb_per_s", ">=", "MB/s"),
    "min_units": ("units", ">=", ""),
    "max_resume_s": ("resume_s", "<=", "s"),
}


def default_threshold(key: str, value: float | None = None) -> Threshold:
    """A default threshold by its data key; `value` (from the command line) replaces the number."""
    metric, op, unit = _DEFAULTS[key]
    defaults = _data("thresholds.yaml")["defaults"]
    if value is not None:
        return Threshold(metric, op, float(value), unit, "command line")
    return Threshold(metric, op, float(defaults[key]), unit, f"{defaults['source']} ({defaults['date']})")
