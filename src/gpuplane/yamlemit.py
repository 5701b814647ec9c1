"""A small, fast, deterministic YAML emitter for plain data (dict, list, str, int, float, bool, None).

PyYAML's pure-Python emitter dominates render time on large platforms, and its C emitter formats
differently from the Python one (so output would depend on how PyYAML was built). This emitter
writes block style with two-space indents, keeps key order, plain scalars only where PyYAML's
resolver reads them back as the same string, double-quoted strings otherwise, and literal
blocks for multi-line text. `yaml.safe_load(emit(x)) == x` for every supported value.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import yaml

_PLAIN = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9_./=+@%:-]*")
_RESOLVER = yaml.resolver.Resolver()
# YAML 1.2 core-schema numbers, which PyYAML (YAML 1.1) reads as strings but Go and other 1.2 parsers
# read as numbers: quote them too so every consumer agrees.
_YAML12_NUMBER = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+")


@functools.lru_cache(maxsize=65536)
def _is_plain(text: str) -> bool:
    """Whether `text` can be written unquoted and still load as this exact string."""
    if not _PLAIN.fullmatch(text) or text.endswith(":") or _YAML12_NUMBER.fullmatch(text):
        return False
    tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return bool(tag == "tag:yaml.org,2002:str")


def quoted(text: str) -> str:
    """A YAML double-quoted scalar; non-printable characters are escaped."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(
                f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
            )
    out.append('"')
    return "".join(out)


def _literal_ok(text: str) -> bool:
    lines = text.split("\n")
    return (
        text.endswith("\n")
        and not text.endswith("\n\n")
        and not text[0].isspace()
        and all(line.isprintable() for line in lines)
    )


def scalar(value: Any) -> str:
    """One scalar on one line."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        if not math.isfinite(value) or "." not in text or "e" in text:
            raise TypeError(f"cannot emit float {value!r} unambiguously")
        return text
    if isinstance(value, str):
        return value if _is_plain(value) else quoted(value)
    raise TypeError(f"cannot emit {type(value).__name__} as YAML")


def _lines(value: Any, indent: int) -> list[str]:
    """Lines of a block node whose parent key/dash sits at column `indent - 2`."""
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_entry(f"{pad}{scalar(str(key))}:", item, indent))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item:
                sub = _lines(item, indent + 2)
                out.append(f"{pad}- {sub[0].lstrip()}")
                out.extend(sub[1:])
            else:
                out.extend(_entry(f"{pad}-", item, indent))
    return out


def _entry(head: str, item: Any, indent: int) -> list[str]:
    """`head` (a key with colon, or a dash) followed by its value."""
    if isinstance(item, dict | list):
        if not item:
            return [f"{head} {'{}' if isinstance(item, dict) else '[]'}"]
        if isinstance(item, dict) and head.endswith("-"):
            sub = _lines(item, indent + 2)
            return [f"{head} {sub[0].lstrip()}", *sub[1:]]
        return [head, *_lines(item, indent + 2)]
    if isinstance(item, str) and "\n" in item and _literal_ok(item):
        body = " " * (indent + 2)
        return [f"{head} |", *[f"{body}{line}" if line else "" for line in item[:-1].split("\n")]]
    return [f"{head} {scalar(item)}"]


def emit(value: Any) -> str:
    """One YAML document for a mapping or sequence (or a scalar), ending in a newline."""
    if isinstance(value, dict | list):
        if not value:
            return ("{}" if isinstance(value, dict) else "[]") + "\n"
        return "\n".join(_lines(value, 0)) + "\n"
    return scalar(value) + "\n"
