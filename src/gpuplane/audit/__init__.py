"""`gpuplane audit`: the costly and unsafe GPU mistakes in manifests, node pools and live clusters.

from gpuplane.audit import read_inputs, audit, AuditConfig, to_json
inputs = read_inputs(["deploy/"], nodepools=["pools.json"], spec=None)
findings = audit(inputs, AuditConfig())
print(to_json(findings))
"""

from __future__ import annotations

from gpuplane.audit.config import AuditConfig, load_config
from gpuplane.audit.docs import render_docs, render_rule
from gpuplane.audit.engine import audit, exit_code, find_rule, rules, run_rules
from gpuplane.audit.model import SEVERITIES, Finding, Rule
from gpuplane.audit.readers import Inputs, Reader, read_path, read_text, registered_readers
from gpuplane.audit.report import to_json, to_sarif, to_table


def read_inputs(
    files: list[str],
    *,
    nodepools: list[str] | None = None,
    spec: str | None = None,
    stdin_text: str | None = None,
) -> Inputs:
    """Read every input path ('-' is stdin), each document by the reader that recognises it.

    Raises InputError (exit 2), after reading every path, for the documents no reader recognises
    in named files and stdin; also when the spec does not load.
    """
    from gpuplane.audit.specinput import load_spec_input
    from gpuplane.errors import InputError, Problem
    from gpuplane.inputs import display_name, read_text
    from gpuplane.yamlio import collector_paused

    out = Inputs()
    problems: list[Problem] = []
    with collector_paused():
        for path in [*files, *(nodepools or [])]:
            try:
                out.extend(read_path(path, stdin_text))
            except InputError as exc:
                problems += exc.problems
    if problems:
        raise InputError(problems)
    if spec:
        s = load_spec_input(read_text(spec), display_name(spec))
        out.specs.append(s)
        out.pools += s.pools
    return out


__all__ = [
    "SEVERITIES",
    "AuditConfig",
    "Finding",
    "Inputs",
    "Reader",
    "Rule",
    "audit",
    "exit_code",
    "find_rule",
    "load_config",
    "read_inputs",
    "read_path",
    "read_text",
    "registered_readers",
    "render_docs",
    "render_rule",
    "rules",
    "run_rules",
    "to_json",
    "to_sarif",
    "to_table",
]
