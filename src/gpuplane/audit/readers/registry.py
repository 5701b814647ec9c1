"""The audit readers registry: what an input document is, and how it is read into audit's model.

A reader is one module under `gpuplane/audit/readers/` that builds a `Reader` and registers it
with `register_reader`:

- `name`: a short id (`aks`, `kubernetes`, ...), unique;
- `reads`: what it reads, as users know it (the docs and the "not an audit input" error list it);
- `recognises(data) -> bool`: whether one loaded YAML/JSON document is this reader's format, from
  its content only (never from the file name or the flag that named it);
- `read(doc) -> Inputs`: the document's objects, pools, specs and reading findings (GPU000).

A specific reader recognises its own format only (tests/audit/test_reader_fixtures.py checks that
no two specific readers recognise the same fixture; the first registered would win). A reader
marked `general` (Kubernetes objects: any mapping with a `kind`) only reads what no specific reader
recognises. A document no reader recognises is never read by a fallback: `reader_for` returns None
and the caller reports it at its line (`gpuplane.audit.readers.files`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuplane.audit.model import PARSE_RULE, Finding
from gpuplane.audit.objects import K8sObject
from gpuplane.audit.pools import Pool
from gpuplane.audit.readers.split import chunk_text
from gpuplane.audit.specinput import SpecInput
from gpuplane.errors import Problem
from gpuplane.registry import Registry


@dataclass
class Inputs:
    """Everything read: objects, pools, specs and the findings reading produced."""

    objects: list[K8sObject] = field(default_factory=list)
    pools: list[Pool] = field(default_factory=list)
    specs: list[SpecInput] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    live: bool = False
    warnings: list[Problem] = field(default_factory=list)  # duplicate keys: the CLI prints them

    def extend(self, other: Inputs) -> None:
        """Add everything `other` read to this one."""
        self.objects += other.objects
        self.pools += other.pools
        self.specs += other.specs
        self.findings += other.findings
        self.live = self.live or other.live
        self.warnings += other.warnings


@dataclass(frozen=True)
class Document:
    """One loaded document of an input, as a reader gets it.

    `data` is the loaded YAML/JSON (mappings and lists carry the position of every key and item);
    `line` is the 1-based line the document starts at; `source` is the text of the whole input it
    came from (`single`: the input holds only this document).
    """

    data: Any
    file: str
    line: int
    source: str = ""
    single: bool = True

    def text(self) -> str:
        """This document's own text, with the lines before it blanked so line numbers still hold."""
        return self.source if self.single else chunk_text(self.source, self.line)


@dataclass(frozen=True)
class Reader:
    """One input format the audit reads (see the module docstring)."""

    name: str
    reads: str
    recognises: Callable[[Any], bool] = field(compare=False, repr=False)
    read: Callable[[Document], Inputs] = field(compare=False, repr=False)
    general: bool = False


_READERS: Registry[Reader] = Registry("audit reader")
_ORDER: list[Reader] = []  # the specific readers in registration order, then the general ones


def register_reader(reader: Reader) -> Reader:
    """Add a reader to the registry (a name taken twice is a bug and refused)."""
    _READERS.add(reader.name, reader)
    readers = _READERS.values()
    _ORDER[:] = [r for r in readers if not r.general] + [r for r in readers if r.general]
    return reader


def registered_readers() -> list[Reader]:
    """Every reader: the specific ones in registration order, then the general ones."""
    return list(_ORDER)


def reader_for(data: Any) -> Reader | None:
    """The reader of one loaded document, or None when no reader recognises it."""
    return next((r for r in _ORDER if r.recognises(data)), None)


def parse_finding(file: str, message: str, line: int | None = None, column: int | None = None) -> Finding:
    """A reading finding (GPU000) at a location."""
    return Finding(PARSE_RULE, "high", "", "", "", file, line, column, message)
