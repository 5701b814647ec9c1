"""What one pod asks for, as Kueue counts it: Kubernetes' PodRequests plus Kueue's adjustments.

Kubernetes (kubernetes/kubernetes @0085214e, staging/src/k8s.io/component-helpers/resource/
helpers.go `PodRequests`): app containers and restartable init containers (native sidecars,
`restartPolicy: Always`) are summed; each ordinary init container, plus the sidecars started
before it, is a floor (`max`); pod-level `resources.requests` (cpu, memory, hugepages-*) replace
the container sum for those resources; `overhead` is added.

Kueue (kubernetes-sigs/kueue @ff69552e, pkg/workload/resources.go `AdjustResources`) first fills
missing requests from limits (`UseLimitsAsMissingRequestsInPod`), adds a RuntimeClass's overhead
when the pod names one and sets none, and applies a LimitRange's container defaults; then
(pkg/workload/workload.go `totalRequestsFromPodSets`) drops `excludeResourcePrefixes` and applies
the Configuration's `resources.transformations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuplane.kube.quantity import QuantityError, parse_quantity

Path = tuple[str | int, ...]
POD_LEVEL = ("cpu", "memory")
HUGEPAGES = "hugepages-"


class BadField(Exception):
    """A field that is not a valid quantity, with its path in the object."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def quantity(value: object, path: Path) -> int:
    """A quantity in milli-units, or BadField at `path`."""
    try:
        return parse_quantity(value)
    except QuantityError as exc:
        raise BadField(path, str(exc)) from exc


INT32 = (-(2**31), 2**31 - 1)


def integer(value: object, path: Path, low: int = INT32[0], high: int = INT32[1]) -> int:
    """An integer field (Kueue's counts and priorities are int32 in its CRDs), or BadField at `path`:
    `count: "1e400"`, `count: [1]` or a count past `high` are located errors, not crashes."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadField(path, f"expected an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except ValueError:
        raise BadField(path, f"expected an integer, got {value!r}") from None
    if not low <= number <= high:
        raise BadField(path, f"{number} is out of range ({low} to {high})")
    return number


def _m(data: object) -> Mapping[str, Any]:
    return data if isinstance(data, Mapping) else {}


def _l(data: object) -> list[Any]:
    return list(data) if isinstance(data, list) else []


def _list(section: object, path: Path) -> dict[str, int]:
    return {str(k): quantity(v, (*path, str(k))) for k, v in _m(section).items()}


Defaults = tuple[Mapping[str, int], Mapping[str, int]]
"""A LimitRange's container (defaultRequest, default) in milli-units."""


def container_requests(c: Mapping[str, Any], path: Path, defaults: Defaults | None = None) -> dict[str, int]:
    """A container's requests as Kueue sees them: its own, then the LimitRange's defaultRequest,
    then its limits (its own, then the LimitRange's default) standing in for the missing ones."""
    res = _m(c.get("resources"))
    out = _list(res.get("requests"), (*path, "resources", "requests"))
    default_requests, default_limits = defaults or ({}, {})
    for k, v in default_requests.items():
        out.setdefault(k, v)
    for k, v in _list(res.get("limits"), (*path, "resources", "limits")).items():
        out.setdefault(k, v)
    for k, v in default_limits.items():
        out.setdefault(k, v)
    return out


def _add(total: dict[str, int], more: Mapping[str, int]) -> None:
    for k, v in more.items():
        total[k] = total.get(k, 0) + v


def _floor(total: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        total[k] = max(total.get(k, 0), v)


def pod_requests(
    pod_spec: Mapping[str, Any],
    path: Path,
    *,
    overhead: Mapping[str, int] | None = None,
    defaults: Defaults | None = None,
) -> dict[str, int]:
    """Requests of one pod in milli-units (`overhead`: a RuntimeClass's, used when the spec has none)."""
    total: dict[str, int] = {}
    for i, c in enumerate(_l(pod_spec.get("containers"))):
        _add(total, container_requests(_m(c), (*path, "containers", i), defaults))
    sidecars: dict[str, int] = {}
    init_floor: dict[str, int] = {}
    for i, c in enumerate(_l(pod_spec.get("initContainers"))):
        req = container_requests(_m(c), (*path, "initContainers", i), defaults)
        if str(_m(c).get("restartPolicy")) == "Always":
            _add(total, req)
            _add(sidecars, req)
            _floor(init_floor, sidecars)
        else:
            combined = dict(req)
            _add(combined, sidecars)
            _floor(init_floor, combined)
    _floor(total, init_floor)
    pod_level = _m(pod_spec.get("resources"))
    level = _list(pod_level.get("requests"), (*path, "resources", "requests"))
    for k, v in _list(pod_level.get("limits"), (*path, "resources", "limits")).items():
        level.setdefault(k, v)
    for k, v in level.items():
        if k in POD_LEVEL or k.startswith(HUGEPAGES):
            total[k] = v
    own = _list(pod_spec.get("overhead"), (*path, "overhead"))
    _add(total, own if own or overhead is None else overhead)
    return total


@dataclass(frozen=True)
class Transformation:
    """One entry of the Configuration's `resources.transformations` (outputs per unit, milli)."""

    input: str
    outputs: tuple[tuple[str, int], ...]
    retain: bool = True
    multiply_by: str = ""


def transform(
    per_pod: Mapping[str, int], transformations: Mapping[str, Transformation], excluded: tuple[str, ...] = ()
) -> dict[str, int]:
    """Kueue's `dropExcludedResources` then `applyResourceTransformations` on one pod's requests."""
    kept = {k: v for k, v in per_pod.items() if not k.startswith(excluded)} if excluded else dict(per_pod)
    if not any(k in transformations for k in kept):
        return kept
    retained: dict[str, int] = {}
    generated: dict[str, int] = {}
    for name, amount in kept.items():
        rule = transformations.get(name)
        if rule is None:
            retained[name] = amount
            continue
        base = amount
        if rule.multiply_by and rule.multiply_by in kept:
            base = amount * kept[rule.multiply_by] // 1000
        for out, factor in rule.outputs:
            generated[out] = generated.get(out, 0) + base * factor // 1000
        if rule.retain:
            retained[name] = amount
    for name, amount in generated.items():
        retained[name] = retained.get(name, 0) + max(0, amount)
    return retained
