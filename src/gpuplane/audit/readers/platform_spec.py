"""gpuplane platform specs met among the inputs (`kind: Platform`, apiVersion in gpuplane's group).

Its node pools are audited like the cloud ones; an invalid spec is a GPU000 finding at each
problem (with `--spec` it is an InputError instead: the user named it as the spec).
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import as_str
from gpuplane.audit.readers.registry import Document, Inputs, Reader, parse_finding, register_reader
from gpuplane.audit.specinput import load_spec_input
from gpuplane.errors import InputError
from gpuplane.vocab import GROUP

PLATFORM_KIND = "Platform"


def recognises(data: Any) -> bool:
    """`kind: Platform` with a gpuplane apiVersion."""
    return (
        isinstance(data, dict)
        and as_str(data.get("kind")) == PLATFORM_KIND
        and as_str(data.get("apiVersion")).split("/", 1)[0] == GROUP
    )


def read(doc: Document) -> Inputs:
    """The spec and its pools, or GPU000 findings where it does not load."""
    try:
        spec = load_spec_input(doc.text(), doc.file)
    except InputError as exc:
        return Inputs(
            findings=[
                parse_finding(
                    doc.file,
                    f"invalid platform spec: {p.path}: {p.message}" if p.path else p.message,
                    p.line,
                    p.column,
                )
                for p in exc.problems
            ]
        )
    return Inputs(specs=[spec], pools=list(spec.pools))


READER = register_reader(
    Reader(name="platform-spec", reads="gpuplane platform specs", recognises=recognises, read=read)
)
