"""`gpuplane render` without typer: the engine's front door.

`run(request, warn)` loads the spec, refuses an output folder gpuplane did not write (before
rendering, so nothing is touched), renders every family, then writes the tree, streams the YAML to
stdout, or compares a directory with what the spec renders (`diff_tree`, GitOps drift).
`cli/render.py` parses the options, calls `run` and prints what it returns.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpuplane import inputs
from gpuplane.errors import InputError
from gpuplane.outputs import STDOUT, TreeMarker, check_tree_target, write_text_atomic, write_tree_atomic
from gpuplane.render.assemble import render_all
from gpuplane.render.output import GENERATED_HEADER, RenderResult, stream_yaml
from gpuplane.spec import load_spec_with_warnings

__all__ = ["TREE_MARKER", "RenderRequest", "Rendered", "diff_tree", "run"]

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


@dataclass(frozen=True)
class RenderRequest:
    """What `render` was asked: the spec and one of an output (a folder or `-`) or a folder to check."""

    spec_file: Path
    output: str | None = None
    check: Path | None = None
    force: bool = False
    kueue_api: str = "v1beta2"


@dataclass
class Rendered:
    """What `run` did: the render, and the drift lines (`--check`) or the folder written (`-o DIR`)."""

    result: RenderResult
    drift: list[str] = field(default_factory=list)
    written: Path | None = None


def run(request: RenderRequest, warn: Callable[[str], None]) -> Rendered:
    """Render the spec and write, stream or check it; `warn` gets the spec's warnings."""
    spec, warnings = load_spec_with_warnings(request.spec_file)
    output = request.output
    if output is not None and output != STDOUT:  # before rendering: refuse early, touch nothing
        check_tree_target(output, TREE_MARKER, inputs=[request.spec_file], force=request.force)
    for warning in warnings:
        warn(str(warning))
    result = render_all(spec, kueue_api=request.kueue_api)
    if request.check is not None:
        return Rendered(result, drift=diff_tree(result.files, request.check))
    if output == STDOUT:
        write_text_atomic(STDOUT, stream_yaml(result))
        return Rendered(result)
    out = Path(str(output))
    write_tree_atomic(out, result.files, TREE_MARKER, inputs=[request.spec_file], force=request.force)
    return Rendered(result, written=out)
