"""`gpuplane render`: write every manifest of the platform, stream them, or check a directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuplane import inputs
from gpuplane.errors import InputError, UsageError
from gpuplane.outputs import STDOUT, TreeMarker, check_tree_target, write_text_atomic, write_tree_atomic
from gpuplane.render import RenderResult, render_all, stream_yaml
from gpuplane.render.kueue import KUEUE_APIS
from gpuplane.render.output import GENERATED_HEADER
from gpuplane.spec import load_spec_with_warnings

#: How a directory `render -o` wrote is recognised: its index.yaml with the generated header.
TREE_MARKER = TreeMarker("index.yaml", GENERATED_HEADER)


def diff_tree(expected: dict[str, str], directory: Path) -> list[str]:
    """Lines `changed|missing|extra: path` where `directory` differs from the rendered files.

    Files are compared as bytes (a file that is not UTF-8 is simply changed); a directory or file
    that cannot be read is an InputError, never counted as missing.
    """
    actual: dict[str, Path] = {}
    if directory.is_dir():
        for folder, _, names in os.walk(directory, onerror=_unreadable):
            for name in names:
                path = Path(folder) / name
                if path.is_file():
                    actual[path.relative_to(directory).as_posix()] = path
    lines = []
    for rel in sorted(set(expected) | set(actual)):
        if rel not in actual:
            lines.append(f"missing: {rel}")
        elif rel not in expected:
            lines.append(f"extra: {rel}")
        elif not _same(actual[rel], expected[rel].encode("utf-8")):
            lines.append(f"changed: {rel}")
    return lines


def _unreadable(exc: OSError) -> None:
    raise InputError.single(str(exc.filename), f"cannot read: {exc.strerror}")


def _same(path: Path, wanted: bytes) -> bool:
    """Whether the file holds exactly `wanted`: a file of another size differs without being read
    (a huge file never fills memory), one of the same size is read within the input limit."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError.single(str(path), f"cannot read: {exc.strerror}") from None
    if size != len(wanted):
        return False
    return inputs.read_bytes(path) == wanted


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
    spec, warnings = load_spec_with_warnings(spec_file)
    if output is not None and output != STDOUT:  # before rendering: refuse early, touch nothing
        check_tree_target(output, TREE_MARKER, inputs=[spec_file], force=force)
    for warning in warnings:
        err.print(str(warning), markup=False)
    result = render_all(spec, kueue_api=kueue_api)
    if check is not None:
        lines = diff_tree(result.files, check)
        for line in lines:
            typer.echo(line)
        if lines:
            err.print(f"{check} differs from what {spec_file} renders ({len(lines)} files)")
            raise typer.Exit(1)
        err.print(f"{check} is up to date with {spec_file}")
        return
    if output == STDOUT:
        write_text_atomic(STDOUT, stream_yaml(result))
        return
    out = Path(str(output))
    write_tree_atomic(out, result.files, TREE_MARKER, inputs=[spec_file], force=force)
    _summary(result, out, Console(highlight=False, soft_wrap=True))


def register(app: typer.Typer) -> None:
    """Add `gpuplane render` to the app."""
    app.command("render", no_args_is_help=True)(render_command)
