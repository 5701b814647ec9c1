"""YAML loading that remembers where every value came from.

Mappings load as `LocDict` and sequences as `LocList` (`gpuplane.located`): plain dict/list
subclasses that also carry the 1-based line and column of the node and of each key/item, so every
later error or finding can point at the exact line of the offending field, not only the top of
the document. Loading enforces the YAML limits of `gpuplane.limits`.
"""

from __future__ import annotations

import contextlib
import gc
import math
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from gpuplane.errors import InputError, Problem
from gpuplane.limits import limits
from gpuplane.located import LocDict, LocList, Pos, pack, unpack

__all__ = [
    "Document",
    "LocDict",
    "LocList",
    "Pos",
    "collector_paused",
    "composer_loader",
    "iter_documents",
    "key_position",
    "load_documents",
    "load_embedded",
    "load_one",
    "locate",
    "parse_error",
    "plain",
]

try:  # libyaml is much faster; marks are available from it too.
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on the build of PyYAML
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


def _mark(node: yaml.Node) -> Pos:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


class _LocLoader(_BaseLoader):
    """The located loader; one per input text, with the limits' counters and the warnings."""

    file = "<input>"
    strict_keys = False
    depth = 0
    nodes = 0

    def start(self, file: str, strict_keys: bool) -> None:
        self.file, self.strict_keys = file, strict_keys
        self.warnings: list[Problem] = []
        self.limits = limits()
        self.resolved: dict[str, str] = {}
        self.strings: dict[str, str] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """PyYAML's tag resolution, remembered per plain scalar text (keys and values repeat a lot
        in Kubernetes YAML; resolution is a regex search per scalar, a third of the load time)."""
        if kind is yaml.ScalarNode and implicit[0]:
            tag = self.resolved.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
                if len(self.resolved) < _RESOLVE_CACHE:
                    self.resolved[value] = tag
            return tag
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]


_RESOLVE_CACHE = 1 << 16
_SHARED_LENGTH = 40
_STR_TAG = "tag:yaml.org,2002:str"


def _value(loader: _LocLoader, node: yaml.Node) -> Any:
    """The constructed value of a child node; plain strings skip PyYAML's generic dispatch, and
    short ones are shared (Kubernetes YAML repeats the same few thousand words)."""
    if node.tag == _STR_TAG and type(node) is yaml.ScalarNode:
        text: str = node.value
        if len(text) <= _SHARED_LENGTH:
            return loader.strings.setdefault(text, text)
        return text
    return loader.construct_object(node, deep=True)


def _refuse(loader: _LocLoader, node: yaml.Node, message: str) -> InputError:
    line, column = _mark(node)
    return InputError.single(loader.file, message, line=line, column=column)


def _enter(loader: _LocLoader, node: yaml.Node) -> None:
    """Count one more open collection; past a stated limit, a located error (not a RecursionError)."""
    loader.depth += 1
    loader.nodes += 1
    if loader.depth > loader.limits.yaml_depth:
        raise _refuse(
            loader, node, f"nested deeper than {loader.limits.yaml_depth} levels (limits: yaml_depth)"
        )
    if loader.nodes > loader.limits.yaml_nodes_per_input:
        raise _refuse(
            loader,
            node,
            f"more than {loader.limits.yaml_nodes_per_input} mappings and sequences in one input "
            "(limits: yaml_nodes_per_input); split the input",
        )


def _duplicate(loader: _LocLoader, key: str, first: Pos, key_node: yaml.Node) -> None:
    line, column = _mark(key_node)
    if loader.strict_keys:
        raise InputError.single(
            loader.file, f"duplicate key {key!r} (first at line {first[0]})", line=line, column=column
        )
    loader.warnings.append(
        Problem(
            loader.file,
            line,
            column,
            "",
            f"duplicate key {key!r}: this later value wins over line {first[0]}",
            "warning",
        )
    )


def _construct_mapping(loader: _LocLoader, node: yaml.MappingNode) -> LocDict:
    _enter(loader, node)
    try:
        merges = sum(1 for key_node, _ in node.value if key_node.tag == _MERGE_TAG)
        explicit = len(node.value) - merges
        if merges:
            loader.flatten_mapping(node)
        first_explicit = len(node.value) - explicit
        result = LocDict()
        explicit_keys: set[str] = set()
        marks: dict[str, tuple[int, int]] = {}
        for index, (key_node, value_node) in enumerate(node.value):
            key = _value(loader, key_node)
            if not isinstance(key, str):
                key = str(key)
            if index >= first_explicit:
                if key in explicit_keys:
                    _duplicate(loader, key, unpack(marks[key][0]), key_node)
                explicit_keys.add(key)
            result[key] = _value(loader, value_node)  # a later value wins, in the first one's place
            k, v = key_node.start_mark, value_node.start_mark
            marks[key] = (pack(k.line + 1, k.column + 1), pack(v.line + 1, v.column + 1))
        mark = node.start_mark
        words = [pack(mark.line + 1, mark.column + 1)]
        for key in result:
            words += marks[key]
        result._marks = array("Q", words).tobytes()
        return result
    finally:
        loader.depth -= 1


def _construct_sequence(loader: _LocLoader, node: yaml.SequenceNode) -> LocList:
    _enter(loader, node)
    try:
        result = LocList([_value(loader, child) for child in node.value])
        mark = node.start_mark
        words = [pack(mark.line + 1, mark.column + 1)]
        words += (pack(c.start_mark.line + 1, c.start_mark.column + 1) for c in node.value)
        result._marks = array("Q", words).tobytes()
        return result
    finally:
        loader.depth -= 1


def _construct_int(loader: _LocLoader, node: yaml.ScalarNode) -> int:
    if len(node.value) > loader.limits.int_digits:
        raise _refuse(
            loader,
            node,
            f"an integer of {len(node.value)} characters; at most {loader.limits.int_digits} digits "
            "are read (limits: int_digits)",
        )
    value: int = yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    return value


def _construct_float(loader: _LocLoader, node: yaml.ScalarNode) -> float:
    value: float = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    if not math.isfinite(value):
        raise _refuse(
            loader, node, f"{node.value} is not a finite number (gpuplane reads finite numbers only)"
        )
    return value


_MERGE_TAG = "tag:yaml.org,2002:merge"
_LocLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LocLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_LocLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_LocLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


# Timestamps stay strings: Kubernetes and our specs treat them as text.
def _construct_timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


_LocLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


@dataclass(frozen=True)
class Document:
    """One YAML document of a file: its data (LocDict/LocList/scalar), file name, start line, and
    the warnings loading it gave (duplicate keys where they are not errors)."""

    data: Any
    file: str
    line: int
    index: int
    warnings: tuple[Problem, ...] = ()


def parse_error(file: str, exc: yaml.YAMLError) -> InputError:
    """Turn a PyYAML error into a located InputError."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return InputError.single(
            file, f"malformed YAML: {problem}", line=mark.line + 1, column=mark.column + 1
        )
    return InputError.single(file, f"malformed YAML: {problem}")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (it runs again after it).

    Loaded YAML is trees of fresh containers without cycles (a recursive alias is refused), yet
    Python's collector walks every live container again and again while they pile up: loading a
    50 MB input that is kept whole (audit) took three times as long with it running."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_documents(text: str, file: str, *, strict_keys: bool = False) -> list[Document]:
    """Parse every document of a multi-document YAML text. Raises InputError on malformed YAML."""
    return list(iter_documents(text, file, strict_keys=strict_keys))


def iter_documents(text: str, file: str, *, strict_keys: bool = False) -> Iterator[Document]:
    """Stream the documents of a YAML text; empty documents are skipped.

    Every limit of `gpuplane.limits` that concerns YAML (depth, collections and documents per
    input, integer digits) is checked while loading and is a located InputError, as is a number
    that is not finite. A duplicate key is an error with `strict_keys` (gpuplane's own formats),
    else a warning on its Document (Kubernetes objects, like `kubectl --validate=warn`).
    """
    loader = _LocLoader(text)
    loader.start(file, strict_keys)
    cap = loader.limits.documents_per_input
    index = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            if index >= cap:
                raise _refuse(
                    loader, node, f"more than {cap} YAML documents in one input (limits: documents_per_input)"
                )
            data = loader.construct_document(node)
            warnings, loader.warnings = tuple(loader.warnings), []
            if data is not None:
                yield Document(data, file, node.start_mark.line + 1, index, warnings)
            index += 1
    except yaml.YAMLError as exc:
        raise parse_error(file, exc) from exc
    finally:
        loader.dispose()


def load_one(text: str, file: str, *, strict_keys: bool = True) -> Any:
    """Parse a single-document YAML text (the platform spec, a config file): duplicate keys are
    errors unless `strict_keys` is False."""
    docs = load_documents(text, file, strict_keys=strict_keys)
    if not docs:
        raise InputError.single(file, "the file holds no YAML document", line=1, column=1)
    if len(docs) > 1:
        raise InputError.single(
            file, "expected one YAML document, found several", line=docs[1].line, column=1
        )
    return docs[0].data


def load_embedded(text: str, file: str) -> Any:
    """A YAML document held in a string field (a ConfigMap's data), or None when it does not load:
    malformed, past a limit or several documents (the same rules as a file, never an exception)."""
    try:
        return load_one(text, file, strict_keys=False)
    except InputError:
        return None


def locate(root: Any, path: tuple[str | int, ...]) -> Pos | None:
    """Best position for a field path inside loaded YAML: the deepest node that exists."""
    node = root
    best: Pos | None = getattr(root, "pos", None)
    for part in path:
        if isinstance(node, LocDict) and isinstance(part, str) and part in node:
            best = node.value_at(part) or best
            node = node[part]
        elif isinstance(node, LocList) and isinstance(part, int) and 0 <= part < len(node):
            best = node.item_at(part) or best
            node = node[part]
        else:
            break
    return best


def key_position(root: Any, path: tuple[str | int, ...]) -> Pos | None:
    """Position of the *key* of the last path element when it is a mapping key, else `locate`."""
    if not path:
        return getattr(root, "pos", None)
    parent = root
    for part in path[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return locate(root, path)
    last = path[-1]
    if isinstance(parent, LocDict) and isinstance(last, str) and parent.key_at(last) is not None:
        return parent.key_at(last)
    return locate(root, path)


def plain(data: Any) -> Any:
    """Deep copy of loaded YAML as plain dicts and lists (for JSON or dumping)."""
    if isinstance(data, dict):
        return {k: plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data


def composer_loader() -> Any:
    """The loader class for `yaml.compose` (node trees): libyaml's, whose composer is not
    recursive in Python and refuses nesting past its own limit with a YAMLError."""
    return _BaseLoader
