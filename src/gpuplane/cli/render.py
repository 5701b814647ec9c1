"""`gpuplane render`: write every manifest of the platform, stream them, or check a directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuplane.errors import UsageError
from gpuplane.render import RenderResult
from gpuplane.render.kueue import KUEUE_APIS


def _summary(result: RenderResult, out: Path, console: Console) -> None:
    families: dict[str, int] = {}
    for entry in result.index:
        families[entry.family] = families.get(entry.family, 0) + max(len(entry.objects), 1)
    parts = ", ".join(f"{family} {count}" for family, count in sorted(families.items()))
    console.print(f"wrote {len(result.files)} files to {out} ({parts}); see {out / 'README.md'}")
    for note in result.notes:
        console.print(f"note: {note}")


def render_command(
    spec_file: Annotated[Path, typer.Argument(metavar="SPEC", help="The platform spec (YAML).")],
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="DIR|-",
            help="Directory to write (replaced atomically, and only if gpuplane wrote it: it has "
            "index.yaml from render), or - for a YAML stream on stdout.",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace DIR even if gpuplane did not write it, or if it is the current or home "
            "directory, holds the spec, or is a git checkout. Never follows a symlink.",
        ),
    ] = False,
    check: Annotated[
        Path | None,
        typer.Option(
            "--check",
            metavar="DIR",
            help="Exit 1 if DIR differs from what the spec renders (GitOps drift), 0 if the same.",
        ),
    ] = None,
    kueue_api: Annotated[
        str,
        typer.Option(
            "--kueue-api",
            metavar="VERSION",
            help="Kueue API version: v1beta2 (default) or v1beta1 for older installs.",
        ),
    ] = "v1beta2",
) -> None:
    """Render the platform spec: Kueue queues, tenancy, GPU Operator values, DRA device classes and claim
    templates, node pools as the provider takes them, alerts, dashboard."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if kueue_api not in KUEUE_APIS:
        raise UsageError(f"expected one of {', '.join(KUEUE_APIS)}, got {kueue_api!r}", option="--kueue-api")
    if (output is None) == (check is None):
        raise UsageError("give exactly one of -o/--output DIR|- or --check DIR")
    from gpuplane.render.command import RenderRequest, run

    request = RenderRequest(spec_file, output, check, force, kueue_api)
    done = run(request, lambda line: err.print(line, markup=False))
    if check is not None:
        for line in done.drift:
            typer.echo(line)
        if done.drift:
            err.print(f"{check} differs from what {spec_file} renders ({len(done.drift)} files)")
            raise typer.Exit(1)
        err.print(f"{check} is up to date with {spec_file}")
        return
    if done.written is not None:
        _summary(done.result, done.written, Console(highlight=False, soft_wrap=True))


def register(app: typer.Typer) -> None:
    """Add `gpuplane render` to the app."""
    app.command("render", no_args_is_help=True)(render_command)
