"""What a run saw, as plain data: the one input of scoring (`observations.json` in the bundle).

The runner fills it from the cluster (object timestamps, pod logs, image IDs, labels, Prometheus);
`from_logs` fills what logs alone can tell (the helper's JSON lines and nccl-tests' text), so
`acceptance score LOGS` rescores saved `kubectl logs` output offline.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
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

    run_id: str | None = None  # the run's id (its label on everything it created)
    namespace: str | None = None  # the namespace the run created (the suite's name plus the run id)
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
        """Read back `as_dict` output (unknown keys and wrong types are a ValueError: the file is ours)."""
        data = dict(data)
        events = data.get("events", [])
        data["events"] = [e for e in _typed(events, list, "events") if well_formed(e)]
        pods = [
            PodRecord(**_checked(PodRecord, p, "pods[]")) for p in _typed(data.pop("pods", []), list, "pods")
        ]
        raw_series = data.pop("series", None)
        series = (
            None
            if raw_series is None
            else [
                SeriesCheck(**_checked(SeriesCheck, s, "series[]"))
                for s in _typed(raw_series, list, "series")
            ]
        )
        return cls(pods=pods, series=series, **_checked(cls, data, "observations", skip=("pods", "series")))


#: What each field of the observation records may hold (as JSON reads it back).
_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "str | None": (str, type(None)),
    "float | None": (int, float, type(None)),
    "float": (int, float),
    "int": (int,),
    "bool": (bool,),
    "dict[str, str]": (dict,),
    "list[dict[str, str]]": (list,),
    "list[str]": (list,),
    "list[dict[str, Any]]": (list,),
}


def _typed(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind):
        raise ValueError(f"{where} must be a {kind.__name__}")
    return value


def _checked(cls: type, data: Any, where: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """`data` if every key is a field of `cls` holding the field's type (finite numbers only)."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be an object")
    known = {f.name: str(f.type) for f in fields(cls)}
    for key, value in data.items():
        if key in skip:
            continue
        if key not in known:
            raise ValueError(f"{where}: unknown field {key!r}")
        allowed = _TYPES.get(known[key], (object,))
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            raise ValueError(f"{where}.{key}: {type(value).__name__} is not {known[key]}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{where}.{key}: not a finite number")
        if isinstance(value, dict) and not all(isinstance(v, str) for v in value.values()):
            raise ValueError(f"{where}.{key}: values must be strings")
        if (
            isinstance(value, list)
            and known[key] == "list[str]"
            and not all(isinstance(v, str) for v in value)
        ):
            raise ValueError(f"{where}.{key}: items must be strings")
        if (
            isinstance(value, list)
            and known[key] == "list[dict[str, str]]"
            and not all(isinstance(v, dict) and all(isinstance(x, str) for x in v.values()) for v in value)
        ):
            raise ValueError(f"{where}.{key}: items must be objects of strings")
    return {k: v for k, v in data.items() if k not in skip}


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
    return all(_finite_number(record[k]) for k in NUMERIC if k in record)


def _finite_number(value: Any) -> bool:
    """A JSON number scoring can use: not a bool, and finite as a float (a 400-digit step is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


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
