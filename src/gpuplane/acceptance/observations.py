"""What a run saw, as plain data: the one input of scoring (`observations.json` in the bundle).

The runner fills it from the cluster (object timestamps, pod logs, image IDs, labels, Prometheus);
`from_logs` fills what logs alone can tell (the helper's JSON lines and nccl-tests' text), so
`acceptance score LOGS` rescores saved `kubectl logs` output offline.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from gpuplane.acceptance.helper import PROTOCOL

__all__ = ["Observations", "PodRecord", "SeriesCheck", "from_logs", "helper_events", "run_of"]


@dataclass
class PodRecord:
    """One suite pod as the runner saw it."""

    name: str
    step: str
    node: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    node_labels: dict[str, str] = field(default_factory=dict)
    images: list[dict[str, str]] = field(default_factory=list)  # container, image, image_id
    phase: str = ""
    deleted: bool = False


@dataclass
class SeriesCheck:
    """One Prometheus query of step 6 and how many series it found."""

    family: str
    query: str
    series: int
    value: float | None = None


@dataclass
class Observations:
    """Everything scoring reads. Times are Unix seconds; None means not observed."""

    submitted: float | None = None
    admitted: float | None = None
    running: float | None = None
    finished: float | None = None
    deleted_at: float | None = None
    deleted_pod: str | None = None
    deleted_run: str | None = None  # the helper run id of the deleted pod's training window
    events: list[dict[str, Any]] = field(default_factory=list)
    nccl_log: str | None = None
    pods: list[PodRecord] = field(default_factory=list)
    series: list[SeriesCheck] | None = None
    prometheus_error: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for observations.json."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observations:
        """Read back `as_dict` output (unknown keys are an error: the file is ours)."""
        data = dict(data)
        data["events"] = [e for e in data.get("events", []) if well_formed(e)]
        pods = [PodRecord(**p) for p in data.pop("pods", [])]
        raw_series = data.pop("series", None)
        series = None if raw_series is None else [SeriesCheck(**s) for s in raw_series]
        return cls(pods=pods, series=series, **data)


def run_of(event: dict[str, Any]) -> str:
    """Which helper process wrote an event: its run id, or the pod name for lines without one."""
    return str(event.get("run") or event.get("pod", ""))


#: Fields of helper lines that scoring reads as numbers.
NUMERIC = ("ts", "bytes", "files", "seconds", "mb_per_s", "units", "window_s", "checkpoint_bytes")


def well_formed(record: Any) -> bool:
    """Whether a JSON value is a helper line scoring can read (numbers where numbers belong)."""
    if (
        not isinstance(record, dict)
        or record.get("gpuplane") != PROTOCOL
        or not isinstance(record.get("event"), str)
    ):
        return False
    return all(
        isinstance(record[k], int | float) and not isinstance(record[k], bool) for k in NUMERIC if k in record
    )


def helper_events(text: str) -> list[dict[str, Any]]:
    """The helper's well-formed JSON lines in a log, in order (other lines are ignored)."""
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        start = line.find('{"')
        if start < 0 or f'"gpuplane": "{PROTOCOL}"' not in line:
            continue
        try:
            record = json.loads(line[start:])
        except ValueError:
            continue
        if well_formed(record):
            out.append(record)
    return out


def from_logs(text: str) -> Observations:
    """Observations from saved logs alone: helper lines and nccl-tests output, nothing from the API."""
    obs = Observations(events=helper_events(text))
    if "# Avg bus bandwidth" in text or "Collective test starting" in text:
        obs.nccl_log = text
    obs.notes.append(
        "scored from logs only: queue times, pod labels, image digests and Prometheus series were not observed"
    )
    return obs
