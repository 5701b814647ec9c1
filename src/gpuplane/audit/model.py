"""The audit's vocabulary: severities, findings, rules and the rule registry.

A rule is one small unit: an id, a title, a severity, why it matters, how to fix it, and a check
function that yields findings from a `Bundle` (everything read from the inputs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpuplane.registry import Registry

if TYPE_CHECKING:
    from gpuplane.audit.bundle import Bundle

SEVERITIES: tuple[str, ...] = ("info", "low", "medium", "high", "critical")


def severity_rank(severity: str) -> int:
    """Order of a severity name (info=0 .. critical=4); unknown names rank lowest."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else 0


@dataclass(frozen=True)
class Finding:
    """One problem found, located at the offending field.

    `subject` is the object or pool the finding is about; it is used for suppression and for
    the system-component exemption and never printed.
    """

    rule: str
    severity: str
    kind: str
    namespace: str
    name: str
    file: str
    line: int | None
    column: int | None
    message: str
    subject: Any = field(default=None, compare=False, repr=False, hash=False)

    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        """Findings sort by file, line, column, rule, object and message."""
        return (self.file, self.line or 0, self.column or 0, self.rule, self.name, self.message)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of a finding."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }


Check = Callable[["Bundle"], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    """An audit rule and its documentation.

    `system` says whether the rule also applies to GPU system components (the GPU Operator and
    device plugin need host access by design, so most rules exempt them).
    """

    id: str
    name: str
    title: str
    severity: str
    why: str
    fix: str
    tags: tuple[str, ...]
    check: Check = field(compare=False, repr=False)
    system: bool = False
    security: bool = False


_REGISTRY: Registry[Rule] = Registry("audit rule")


def rule(
    id: str,
    name: str,
    title: str,
    severity: str,
    why: str,
    fix: str,
    tags: tuple[str, ...] = ("gpu",),
    *,
    system: bool = False,
    security: bool = False,
) -> Callable[[Check], Check]:
    """Decorator: register a check function as the rule `id`."""

    def register(check: Check) -> Check:
        _REGISTRY.add(
            id,
            Rule(
                id=id,
                name=name,
                title=title,
                severity=severity,
                why=" ".join(why.split()),
                fix=" ".join(fix.split()),
                tags=tags,
                check=check,
                system=system,
                security=security,
            ),
        )
        return check

    return register


def registered_rules() -> list[Rule]:
    """Every registered rule, ordered by id."""
    return [_REGISTRY.get(k) for k in sorted(_REGISTRY)]


PARSE_RULE = "GPU000"
