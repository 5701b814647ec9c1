"""Reading audit inputs: YAML/JSON files, directories and stdin, sniffing what each document is.

Kubernetes objects (also inside `kind: List`), eksctl ClusterConfigs, AKS and GKE node pool JSON
and gpuplane platform specs are recognised by content, whichever flag named the file. A parse
error becomes a GPU000 finding at its location and the rest of the input is still read: a file
that does not parse as a whole is read again document by document.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from gpuplane import inputs
from gpuplane.audit.model import PARSE_RULE, Finding
from gpuplane.audit.objects import K8sObject, as_str
from gpuplane.audit.pools import (
    Pool,
    aks_pools,
    eksctl_pools,
    gke_pools,
    is_aks_list,
    is_eksctl,
    is_gke_list,
    is_karpenter,
    karpenter_pools,
)
from gpuplane.audit.specinput import SpecInput, load_spec_input
from gpuplane.errors import InputError, Problem
from gpuplane.inputs import STDIN, STDIN_NAME
from gpuplane.limits import limits
from gpuplane.yamlio import LocDict, LocList, iter_documents

SUFFIXES = (".yaml", ".yml", ".json")
GPU_OPERATOR_VALUES = "GPUOperatorValues"
HELM_VALUE_KEYS = ("driver", "devicePlugin", "operator", "dcgmExporter", "migManager", "gfd")


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
        self.objects += other.objects
        self.pools += other.pools
        self.specs += other.specs
        self.findings += other.findings
        self.live = self.live or other.live
        self.warnings += other.warnings


def parse_finding(file: str, message: str, line: int | None = None, column: int | None = None) -> Finding:
    return Finding(PARSE_RULE, "high", "", "", "", file, line, column, message)


def _shift(node: Any, offset: int, seen: set[int]) -> None:
    """Move every recorded line of a loaded chunk down by `offset` (aliases are visited once)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, LocDict):
        node.shift_lines(offset)
        for value in node.values():
            _shift(value, offset, seen)
    elif isinstance(node, LocList):
        node.shift_lines(offset)
        for value in node:
            _shift(value, offset, seen)


def chunks(text: str) -> list[tuple[int, str]]:
    """Split a multi-document text at `---` / `...` lines: (0-based first line, chunk text).

    A `---` line starts a chunk (and stays in it, so `--- {a: 1}` parses); `...` ends one.
    """
    out: list[tuple[int, str]] = []
    current: list[str] = []
    first = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        marker = line.rstrip("\r\n")
        if marker.startswith("---") and (len(marker) == 3 or marker[3] in " \t"):
            out.append((first, "".join(current)))
            current, first = [line], index
        elif marker.startswith("...") and not marker[3:].strip():
            out.append((first, "".join(current)))
            current, first = [], index + 1
        else:
            current.append(line)
    out.append((first, "".join(current)))
    return [(n, c) for n, c in out if c.strip() and c.strip() != "---"]


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
                _shift(d.data, offset, set())
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


def _chunk_text(text: str, line: int) -> str:
    """The text of the document that starts at 1-based `line`."""
    best = text
    for offset, chunk in chunks(text):
        if offset < line:
            best = "\n" * offset + chunk
    return best


def read_text(text: str, file: str) -> Inputs:
    """Read one input text (any supported format)."""
    out = Inputs()
    docs = _documents(text, file, out)
    single = len(docs) == 1
    for data, line in docs:
        _classify(data, line, file, text, single, out)
    return out


def _classify(data: Any, line: int, file: str, text: str, single: bool, out: Inputs) -> None:
    if is_aks_list(data):
        out.pools += aks_pools(data if isinstance(data, list) else [data], file, data)
    elif is_gke_list(data):
        out.pools += gke_pools(data if isinstance(data, list) else [data], file, data)
    elif isinstance(data, dict) and is_aks_list(data.get("agentPoolProfiles")):
        out.pools += aks_pools(data["agentPoolProfiles"], file, data, ("agentPoolProfiles",))
    elif isinstance(data, dict) and is_gke_list(data.get("nodePools")):
        out.pools += gke_pools(data["nodePools"], file, data, ("nodePools",))
    elif is_eksctl(data):
        out.pools += eksctl_pools(data, file)
    elif is_karpenter(data):
        out.pools += karpenter_pools(data, file)
    elif (
        isinstance(data, dict)
        and as_str(data.get("kind")) == "Platform"
        and "gpuplane.io" in as_str(data.get("apiVersion"))
    ):
        try:
            spec = load_spec_input(text if single else _chunk_text(text, line), file)
        except InputError as exc:
            out.findings += [
                parse_finding(
                    file,
                    f"invalid platform spec: {p.path}: {p.message}" if p.path else p.message,
                    p.line,
                    p.column,
                )
                for p in exc.problems
            ]
        else:
            out.specs.append(spec)
            out.pools += spec.pools
    elif isinstance(data, dict):
        _objects(data, line, file, out)


def _objects(data: dict[str, Any], line: int, file: str, out: Inputs) -> None:
    kind = as_str(data.get("kind"))
    items = data.get("items")
    if kind.endswith("List") and isinstance(items, list):
        item_kind = kind[:-4]
        for item in items:
            if isinstance(item, dict):
                if not item.get("kind") and item_kind:
                    item["kind"] = item_kind
                pos = getattr(item, "pos", None)
                out.objects.append(K8sObject(item, file, pos[0] if pos else line))
        return
    if not kind and isinstance(data.get("toolkit"), dict) and any(k in data for k in HELM_VALUE_KEYS):
        # GPU Operator Helm values (values.yaml / -f overrides): audited like a ClusterPolicy spec.
        data["kind"] = GPU_OPERATOR_VALUES
        kind = GPU_OPERATOR_VALUES
    if kind:
        out.objects.append(K8sObject(data, file, line))


def read_path(path_text: str, stdin_text: str | None = None) -> Inputs:
    """Read a file, a directory (recursively, *.yaml|*.yml|*.json, hidden entries skipped) or '-'
    for stdin. A file or directory that cannot be read is an InputError, never skipped."""
    if path_text == STDIN:
        return read_text(stdin_text if stdin_text is not None else inputs.read_text(STDIN), STDIN_NAME)
    out = Inputs()
    for child in inputs.expand(path_text, SUFFIXES):
        out.extend(_read_file(child))
    return out


def _read_file(path: Path) -> Inputs:
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
    return read_text(text, file)
