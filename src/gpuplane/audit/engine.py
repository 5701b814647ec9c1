"""Running the rules: exemptions for GPU system components, suppression, ordering.

Suppression: gpuplane's ignore annotation (`vocab.ANNOTATION_IGNORE`, value `GPU010,GPU014` or
`all`) on the object a finding is about, config `ignore` (rule ids) and `exclude` (selectors),
and platform-spec waivers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import gpuplane.audit.rules  # noqa: F401  (registers the rules)
from gpuplane.audit.bundle import Bundle
from gpuplane.audit.config import AuditConfig
from gpuplane.audit.model import PARSE_RULE, Finding, Rule, registered_rules, severity_rank
from gpuplane.audit.objects import K8sObject
from gpuplane.audit.readers import Inputs
from gpuplane.audit.workloads import NON_WORKLOAD_KINDS
from gpuplane.vocab import ANNOTATION_IGNORE


def rules() -> list[Rule]:
    """Every rule, ordered by id."""
    return registered_rules()


def find_rule(rule_id: str) -> Rule | None:
    """The rule with this id (any case, spaces trimmed), or None."""
    wanted = rule_id.strip().upper()
    return next((r for r in rules() if r.id == wanted), None)


def ignored_by_annotation(obj: K8sObject) -> set[str]:
    """Rule ids the object's ignore annotation (`ANNOTATION_IGNORE`) switches off ('*' for all)."""
    text = obj.annotations.get(ANNOTATION_IGNORE, "")
    ids = {
        part.strip().upper() for part in text.replace(";", ",").replace(" ", ",").split(",") if part.strip()
    }
    return {"*"} if ids & {"ALL", "*"} else ids


def _suppressed(f: Finding, b: Bundle, config: AuditConfig) -> bool:
    if f.rule in config.ignore:
        return True
    subject = f.subject
    if isinstance(subject, K8sObject):
        ids = ignored_by_annotation(subject)
        if f.rule in ids or "*" in ids:
            return True
    return any(s.matches(f.rule, f.namespace, f.kind, f.name, f.file) for s in config.exclude)


def _exempt(f: Finding, rule: Rule, b: Bundle) -> bool:
    """System components are exempt workloads; their config (e.g. the device plugin's time-slicing
    ConfigMap in gpu-operator) is what decides how tenants share GPUs, so it is still judged."""
    subject = f.subject
    return (
        not rule.system
        and isinstance(subject, K8sObject)
        and subject.kind not in NON_WORKLOAD_KINDS
        and b.is_system(subject)
    )


def run_rules(b: Bundle, selected: Iterable[Rule] | None = None) -> list[Finding]:
    """Run rules over a bundle; returns kept findings, ordered by file, line, column and rule."""
    config = b.config
    out: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for r in selected if selected is not None else rules():
        if r.id in config.ignore:
            continue
        severity = config.severity.get(r.id, r.severity)
        for f in r.check(b):
            if _exempt(f, r, b) or _suppressed(f, b, config):
                continue
            key = (f.rule, f.file, f.line, f.column, f.message)
            if key in seen:
                continue
            seen.add(key)
            out.append(dataclasses.replace(f, severity=severity))
    return sorted(out, key=Finding.sort_key)


def audit(inputs: Inputs, config: AuditConfig | None = None) -> list[Finding]:
    """Audit everything read: reading findings (GPU000) plus every rule's findings."""
    config = config or AuditConfig()
    bundle = Bundle.build(inputs, config)
    found = [f for f in inputs.findings if PARSE_RULE not in config.ignore]
    found += run_rules(bundle)
    return sorted(found, key=Finding.sort_key)


def exit_code(findings: list[Finding], fail_on: str) -> int:
    """0 when no finding is at or above `fail_on`, else 1."""
    threshold = severity_rank(fail_on)
    return 1 if any(severity_rank(f.severity) >= threshold for f in findings) else 0
