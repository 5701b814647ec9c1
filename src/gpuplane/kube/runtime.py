"""How long a workload runs, as it declares it: the expected-runtime annotation (a duration,
`gpuplane.durations`; a bare number is seconds) or Kueue's `spec.maximumExecutionTimeSeconds`.
`explain --eta` ends admitted workloads at these times (`--assume-runtime` for the rest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuplane.durations import parse_seconds
from gpuplane.vocab import ANNOTATION_EXPECTED_RUNTIME


def runtime_seconds(text: str) -> float | None:
    """A runtime as the annotation or `--assume-runtime` spells it: seconds, or None when `text`
    is not a positive duration."""
    seconds = parse_seconds(text, bare_seconds=True)
    return seconds if seconds is not None and seconds > 0 else None


def runtime_hint(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[float, str] | None:
    """A Workload's declared runtime: gpuplane's expected-runtime annotation, else Kueue's
    `spec.maximumExecutionTimeSeconds`; (seconds, where it comes from) or None."""
    annotations = meta.get("annotations")
    text = str(annotations.get(ANNOTATION_EXPECTED_RUNTIME) or "") if isinstance(annotations, Mapping) else ""
    seconds = runtime_seconds(text) if text else None
    if seconds is not None:
        return seconds, f"{ANNOTATION_EXPECTED_RUNTIME} {text}"
    limit = spec.get("maximumExecutionTimeSeconds")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return float(limit), f"maximumExecutionTimeSeconds {limit}"
    return None
