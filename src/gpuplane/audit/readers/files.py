"""Reading audit inputs: YAML/JSON files, directories and stdin, one document at a time.

Each document goes to the reader that recognises it (`gpuplane.audit.readers.registry`), whichever
flag named the file. A parse error becomes a GPU000 finding at its location and the rest of the
input is still read: a file that does not parse as a whole is read again document by document.

A document no reader recognises is never read by a fallback. In a file named on the command line
(or stdin) it is an InputError at its line (exit 2): the audit cannot say anything about it, and a
clean report would be a lie. In a file found by walking a directory (which also holds dashboards,
Helm values of other charts, ...) it is a located warning and the file's other documents are read.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from gpuplane import inputs
from gpuplane.audit.readers.registry import Document, Inputs, parse_finding, reader_for, registered_readers
from gpuplane.audit.readers.split import chunks, shift_lines
from gpuplane.errors import InputError, Problem
from gpuplane.inputs import STDIN, STDIN_NAME
from gpuplane.limits import limits
from gpuplane.yamlio import iter_documents

SUFFIXES = (".yaml", ".yml", ".json")


def _documents(text: str, file: str, out: Inputs) -> list[tuple[Any, int]]:
    """(data, start line) of every document; malformed documents become findings."""
    found = out.findings
    try:
        loaded = list(iter_documents(text, file))
    except InputError:
        pass
    else:
        out.warnings += [w for d in loaded for w in d.warnings]
        return [(d.data, d.line) for d in loaded]
    docs: list[tuple[Any, int]] = []
    for offset, chunk in chunks(text):
        try:
            for d in iter_documents(chunk, file):
                shift_lines(d.data, offset)
                docs.append((d.data, d.line + offset))
                out.warnings += [replace(w, line=w.line + offset if w.line else w.line) for w in d.warnings]
        except InputError as exc:
            for p in exc.problems:
                line = p.line + offset if p.line is not None else offset + 1
                found.append(parse_finding(file, p.message, line, p.column))
        except yaml.YAMLError as exc:  # pragma: no cover - iter_documents turns these into InputError
            found.append(
                parse_finding(file, f"cannot load this document: {type(exc).__name__}", offset + 1, 1)
            )
    return docs


def _shape(data: Any) -> str:
    """What an unrecognised document looks like, for the message."""
    if isinstance(data, dict):
        keys = ", ".join(str(k) for k in list(data)[:4])
        return f"a mapping without `kind` (keys: {keys})" if keys else "an empty mapping"
    if isinstance(data, list):
        return "a list" if data else "an empty list"
    return f"a {type(data).__name__} value"


def unrecognised(file: str, line: int, data: Any, *, severity: str = "error") -> Problem:
    """The located problem for a document no reader recognises."""
    names = ", ".join(r.name for r in registered_readers())
    skipped = ", skipped" if severity == "warning" else ""
    message = (
        f"not an audit input{skipped}: {_shape(data)} that no reader recognises "
        f"(readers: {names}; see docs/audit-rules.md, Inputs)"
    )
    return Problem(file=file, line=line, column=1, path="", message=message, severity=severity)


def read_text(text: str, file: str, *, strict: bool = True) -> Inputs:
    """Read one input text (any registered format).

    `strict`: a document no reader recognises is an InputError (else a warning on the result).
    """
    out = Inputs()
    docs = _documents(text, file, out)
    single = len(docs) == 1
    problems: list[Problem] = []
    for data, line in docs:
        reader = reader_for(data)
        if reader is None:
            problems.append(unrecognised(file, line, data, severity="error" if strict else "warning"))
            continue
        out.extend(reader.read(Document(data, file, line, text, single)))
    if strict and problems:
        raise InputError(problems)
    out.warnings += problems
    return out


def read_path(path_text: str, stdin_text: str | None = None) -> Inputs:
    """Read a file, a directory (recursively, *.yaml|*.yml|*.json, hidden entries skipped) or '-'
    for stdin. A file or directory that cannot be read is an InputError, never skipped; so is a
    document no reader recognises in a named file or stdin (in a directory it is a warning)."""
    if path_text == STDIN:
        return read_text(stdin_text if stdin_text is not None else inputs.read_text(STDIN), STDIN_NAME)
    out = Inputs()
    children = inputs.expand(path_text, SUFFIXES)
    named = children == [Path(path_text)]
    for child in children:
        out.extend(_read_file(child, strict=named))
    return out


def _read_file(path: Path, *, strict: bool) -> Inputs:
    """One file; text that is too large or not UTF-8 is a GPU000 finding (the rest is still read)."""
    file = str(path)
    cap = limits().input_bytes
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError as exc:
        raise InputError.single(file, f"cannot read: {exc.strerror}") from None
    if size > cap:
        message = f"file too large to audit ({size} bytes, limit {cap}: limits: input_bytes)"
        return Inputs(findings=[parse_finding(file, message, 1, 1)])
    data = inputs.read_bytes(path)
    problem = inputs.decode_problem(data, file)
    if problem is not None:
        p = problem.problems[0]
        return Inputs(findings=[parse_finding(file, p.message, p.line, p.column)])
    text = inputs.decode(data, file)
    del data  # the bytes need not stay alive while the documents are built
    return read_text(text, file, strict=strict)
