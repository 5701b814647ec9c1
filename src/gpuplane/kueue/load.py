"""Read Kueue objects from files, directories (recursively, sorted) or stdin (`-`).

Inputs are streamed: each file is read, its documents are parsed one at a time into Kueue
records and dropped, so memory holds the records and one file's text, not every YAML tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gpuplane.inputs import STDIN, STDIN_NAME, expand, read_text
from gpuplane.kueue.parse import Parsed, parse_documents
from gpuplane.yamlio import Document, collector_paused, iter_documents

_SUFFIXES = (".yaml", ".yml", ".json")


def documents(paths: Iterable[str]) -> Iterator[Document]:
    """Every YAML document of the given files/directories (`-` reads stdin), lazily, in order.

    A file or directory that cannot be read, text that is not UTF-8 and YAML past a limit are
    located InputErrors (see `gpuplane.inputs` and `gpuplane.yamlio`).
    """
    for raw in paths:
        if raw == STDIN:
            yield from iter_documents(read_text(STDIN), STDIN_NAME)
            continue
        for file in expand(raw, _SUFFIXES):
            yield from iter_documents(read_text(file), str(file))


def load_paths(paths: list[str]) -> Parsed:
    """Parse every YAML document of the given files/directories (`-` reads stdin)."""
    with collector_paused():
        return parse_documents(documents(paths))
