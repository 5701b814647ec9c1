"""Read Kueue objects from files, directories (recursively, sorted) or stdin (`-`)."""

from __future__ import annotations

import sys
from pathlib import Path

from gpuplane.errors import InputError
from gpuplane.kueue.parse import Parsed, parse_documents
from gpuplane.yamlio import Document, load_documents

_SUFFIXES = (".yaml", ".yml", ".json")


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)
    if path.is_file():
        return [path]
    raise InputError.single(str(path), "no such file or directory")


def load_paths(paths: list[str]) -> Parsed:
    """Parse every YAML document of the given files/directories (`-` reads stdin)."""
    docs: list[Document] = []
    for raw in paths:
        if raw == "-":
            docs.extend(load_documents(sys.stdin.read(), "<stdin>"))
            continue
        for file in _files(Path(raw)):
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError.single(str(file), f"cannot read: {exc}") from exc
            docs.extend(load_documents(text, str(file)))
    return parse_documents(docs)
