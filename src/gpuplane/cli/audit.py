"""`gpuplane audit`: find costly and unsafe GPU mistakes (thin CLI over `gpuplane.audit`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from gpuplane.errors import UsageError

if TYPE_CHECKING:
    from gpuplane.audit import Finding

FORMATS = ("table", "json", "sarif")
FAIL_ON = ("info", "low", "medium", "high", "critical", "never")

audit_app = typer.Typer(
    name="audit",
    help="Audit manifests, node pools (eksctl, AKS, GKE, platform spec) and live clusters for GPU mistakes.",
    invoke_without_command=True,
    no_args_is_help=False,
)

FilesOpt = Annotated[
    list[str] | None,
    typer.Option("-f", "--file", help="Manifest file, directory or '-' for stdin (repeatable)."),
]
SpecOpt = Annotated[
    str | None, typer.Option("--spec", help="gpuplane platform spec (its node pools are audited).")
]
PoolsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--nodepools",
        help="eksctl ClusterConfig, Karpenter NodePools, `az aks nodepool list -o json` or "
        "`gcloud container node-pools list --format=json` output (repeatable).",
    ),
]
KubeOpt = Annotated[
    str | None, typer.Option("--kubeconfig", help="Audit a live cluster (read-only) with this kubeconfig.")
]
ContextOpt = Annotated[str | None, typer.Option("--context", help="kubeconfig context to use.")]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        help="With --kubeconfig: give up reading the cluster after this many seconds (exit 3; default 300).",
    ),
]
OutputOpt = Annotated[str, typer.Option("-o", "--output", help="table, json or sarif.")]
FailOpt = Annotated[
    str,
    typer.Option(
        "--fail-on", help="Exit 1 when a finding is at or above this severity (info..critical, or never)."
    ),
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="Audit config file (ignore, exclude, systemComponents, ...).")
]
OutOpt = Annotated[
    Path | None, typer.Option("--out", help="Write the report to this file (atomically) instead of stdout.")
]


@audit_app.callback(invoke_without_command=True)
def audit_cmd(
    ctx: typer.Context,
    files: FilesOpt = None,
    spec: SpecOpt = None,
    nodepools: PoolsOpt = None,
    kubeconfig: KubeOpt = None,
    context: ContextOpt = None,
    timeout: TimeoutOpt = None,
    output: OutputOpt = "table",
    fail_on: FailOpt = "low",
    config: ConfigOpt = None,
    out: OutOpt = None,
) -> None:
    """Audit the inputs and print the findings. Exit 0 clean, 1 findings at/above --fail-on, 2 usage or input errors, 3 a cluster that cannot be read."""
    if ctx.invoked_subcommand is not None:
        return
    from gpuplane.audit import exit_code
    from gpuplane.audit.command import Request, run

    if output not in FORMATS:
        _usage(f"-o/--output must be one of {', '.join(FORMATS)}")
    if fail_on not in FAIL_ON:
        _usage(f"--fail-on must be one of {', '.join(FAIL_ON)}")
    if out is not None:
        from gpuplane.outputs import check_file_target

        check_file_target(out)
    result = run(Request(files or [], nodepools or [], spec, kubeconfig, context, timeout, config))
    for line in result.warnings:
        typer.echo(line, err=True)
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    findings = result.findings
    _emit(_render(findings, output), out)
    # sys.exit, not typer.Exit: the console entry point runs the app in non-standalone mode.
    sys.exit(0 if fail_on == "never" else exit_code(findings, fail_on))


def _render(findings: list[Finding], output: str) -> Iterable[str]:
    from gpuplane.audit import rules, to_sarif, to_table
    from gpuplane.audit.report import iter_json

    if output == "json":
        return iter_json(findings)  # in pieces: large inputs give tens of thousands of findings
    if output == "sarif":
        return [to_sarif(findings, rules())]
    return [to_table(findings)]


def _usage(message: str) -> NoReturn:
    raise UsageError(message)


def _emit(chunks: Iterable[str], out: Path | None) -> None:
    """Write the report to stdout or, by the rules of `gpuplane.outputs`, to `out`."""
    from gpuplane.outputs import STDOUT, open_output

    with open_output(STDOUT if out is None else out) as stream:
        for chunk in chunks:
            stream.write(chunk)


@audit_app.command("rules")
def rules_cmd(
    output: Annotated[str, typer.Option("-o", "--output", help="table or json.")] = "table",
) -> None:
    """List every audit rule: id, severity and title."""
    import json

    from gpuplane.audit import rules

    if output == "json":
        typer.echo(
            json.dumps(
                [{"id": r.id, "name": r.name, "severity": r.severity, "title": r.title} for r in rules()],
                indent=2,
            )
        )
        return
    for r in rules():
        typer.echo(f"{r.id}  {r.severity:<8}  {r.title}")


@audit_app.command("explain")
def explain_cmd(rule_id: Annotated[str, typer.Argument(help="Rule id, e.g. GPU007.")]) -> None:
    """Print one rule: what it checks, why it matters, how to fix it."""
    from gpuplane.audit import find_rule, render_rule

    r = find_rule(rule_id)
    if r is None:
        _usage(f"unknown rule {rule_id!r}; see `gpuplane audit rules`")
        return
    typer.echo(render_rule(r), nl=False)


@audit_app.command("docs")
def docs_cmd(
    out: Annotated[
        Path | None, typer.Option("-o", "--out", help="Write the Markdown here (e.g. docs/audit-rules.md).")
    ] = None,
) -> None:
    """Generate the rule reference (Markdown) from the rule objects."""
    from gpuplane.audit import render_docs, rules

    _emit([render_docs(rules())], out)


def register(app: typer.Typer) -> None:
    """Add the `audit` command family to the app."""
    app.add_typer(audit_app, name="audit")
