"""`gpuplane audit` without typer: the inputs named on the command line in, findings out.

The command's one entry (`run`): read the files, node pools and spec, then the live cluster
(read-only, through `gpuplane.kube`'s client), and run every rule. Warnings and notes are handed
back for the caller to print; nothing is written here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpuplane.audit.config import AuditConfig, load_config
from gpuplane.audit.engine import audit
from gpuplane.audit.model import Finding
from gpuplane.errors import UsageError

__all__ = ["Request", "Result", "run"]


@dataclass
class Request:
    """What to audit: files (`-` is stdin), node-pool files, a platform spec and/or a cluster."""

    files: list[str] = field(default_factory=list)
    nodepools: list[str] = field(default_factory=list)
    spec: str | None = None
    kubeconfig: str | None = None
    context: str | None = None
    timeout: float | None = None  # overall deadline of the live reads, seconds
    config: Path | None = None


@dataclass
class Result:
    """The findings, and the warnings and notes reading produced (for stderr)."""

    findings: list[Finding]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def run(request: Request) -> Result:
    """Read every input of `request` and audit them (UsageError when there is none)."""
    from gpuplane.audit import read_inputs
    from gpuplane.inputs import STDIN, read_text

    if not (request.files or request.spec or request.nodepools or request.kubeconfig):
        raise UsageError("give at least one input: -f FILE|DIR|-, --spec, --nodepools or --kubeconfig")
    if request.timeout is not None:
        from gpuplane.kube.client import checked_timeout

        checked_timeout(request.timeout)
    cfg = load_config(request.config) if request.config else AuditConfig()
    stdin = read_text(STDIN) if STDIN in request.files or STDIN in request.nodepools else None
    inputs = read_inputs(request.files, nodepools=request.nodepools, spec=request.spec, stdin_text=stdin)
    result = Result([], warnings=[str(w) for w in inputs.warnings])
    if request.kubeconfig:
        from gpuplane.audit.live import read_cluster

        inputs.extend(read_cluster(request.kubeconfig, request.context, result.notes, request.timeout))
    result.findings = audit(inputs, cfg)
    return result
