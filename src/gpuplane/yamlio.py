"""YAML loading that remembers where every value came from.

Mappings load as `LocDict` and sequences as `LocList`: plain dict/list subclasses that also carry
the 1-based line and column of the node and of each key/item, so every later error or finding can
point at the exact line of the offending field, not only the top of the document.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from gpuplane.errors import InputError

try:  # libyaml is much faster; marks are available from it too.
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on the build of PyYAML
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

Pos = tuple[int, int]


class LocDict(dict[str, Any]):
    """A mapping from YAML with positions: `pos` of the mapping, `key_pos[k]`, `value_pos[k]`."""

    pos: Pos = (0, 0)
    key_pos: dict[str, Pos]
    value_pos: dict[str, Pos]


class LocList(list[Any]):
    """A sequence from YAML with the position of the sequence and of each item."""

    pos: Pos = (0, 0)
    item_pos: list[Pos]


def _mark(node: yaml.Node) -> Pos:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


class _LocLoader(_BaseLoader):
    pass


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> LocDict:
    loader.flatten_mapping(node)
    result = LocDict()
    result.pos = _mark(node)
    result.key_pos = {}
    result.value_pos = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            key = str(key)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_pos[key] = _mark(key_node)
        result.value_pos[key] = _mark(value_node)
    return result


def _construct_sequence(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> LocList:
    result = LocList(loader.construct_object(child, deep=True) for child in node.value)
    result.pos = _mark(node)
    result.item_pos = [_mark(child) for child in node.value]
    return result


_LocLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LocLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


# Timestamps stay strings: Kubernetes and our specs treat them as text.
def _construct_timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


_LocLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


@dataclass(frozen=True)
class Document:
    """One YAML document of a file: its data (LocDict/LocList/scalar), file name and start line."""

    data: Any
    file: str
    line: int
    index: int


def parse_error(file: str, exc: yaml.YAMLError) -> InputError:
    """Turn a PyYAML error into a located InputError."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return InputError.single(
            file, f"malformed YAML: {problem}", line=mark.line + 1, column=mark.column + 1
        )
    return InputError.single(file, f"malformed YAML: {problem}")


def load_documents(text: str, file: str) -> list[Document]:
    """Parse every document of a multi-document YAML text. Raises InputError on malformed YAML."""
    return list(iter_documents(text, file))


def iter_documents(text: str, file: str) -> Iterator[Document]:
    """Stream the documents of a YAML text; empty documents are skipped."""
    loader = _LocLoader(text)
    index = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            data = loader.construct_document(node)
            if data is not None:
                yield Document(data=data, file=file, line=node.start_mark.line + 1, index=index)
            index += 1
    except yaml.YAMLError as exc:
        raise parse_error(file, exc) from exc
    finally:
        loader.dispose()


def load_one(text: str, file: str) -> Any:
    """Parse a single-document YAML text (the platform spec, a config file)."""
    docs = load_documents(text, file)
    if not docs:
        raise InputError.single(file, "the file holds no YAML document", line=1, column=1)
    if len(docs) > 1:
        raise InputError.single(
            file, "expected one YAML document, found several", line=docs[1].line, column=1
        )
    return docs[0].data


def locate(root: Any, path: tuple[str | int, ...]) -> Pos | None:
    """Best position for a field path inside loaded YAML: the deepest node that exists."""
    node = root
    best: Pos | None = getattr(root, "pos", None)
    for part in path:
        if isinstance(node, LocDict) and isinstance(part, str) and part in node:
            best = node.value_pos.get(part, best)
            node = node[part]
        elif isinstance(node, LocList) and isinstance(part, int) and 0 <= part < len(node):
            best = node.item_pos[part]
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
    if isinstance(parent, LocDict) and isinstance(last, str) and last in parent.key_pos:
        return parent.key_pos[last]
    return locate(root, path)


def plain(data: Any) -> Any:
    """Deep copy of loaded YAML as plain dicts and lists (for JSON or dumping)."""
    if isinstance(data, dict):
        return {k: plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
