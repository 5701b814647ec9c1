"""Read Kueue objects from files, directories (recursively, sorted) or stdin (`-`).

Inputs are streamed: each file is read, its documents are parsed one at a time into Kueue
records and dropped, so memory holds the records and one file's text, not every YAML tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from gpuplane.inputs import STDIN, STDIN_NAME, expand, read_text
from gpuplane.kueue import parse
from gpuplane.kueue.parse import Parsed
from gpuplane.workloads import lookup, not_understood
from gpuplane.yamlio import Document, collector_paused, iter_documents

_SUFFIXES = (".yaml", ".yml", ".json")


def job_object(obj: Mapping[str, Any]) -> bool:
    """True for an object of a workload kind (known, or one explain says it does not understand)."""
    return lookup(dict(obj)) is not None or bool(not_understood(dict(obj)))


def parse_documents(docs: Iterable[Document]) -> Parsed:
    """`kueue.parse.parse_documents` keeping job objects for the job framework."""
    return parse.parse_documents(docs, job_object)


def parse_objects(objects: Iterable[Mapping[str, Any]], source: str = "<api>") -> Parsed:
    """`kueue.parse.parse_objects` keeping job objects for the job framework."""
    return parse.parse_objects(objects, source, job_object)


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
