"""The audit's input readers: one module per input format, each registered in `registry`.

Importing this package registers every reader. To add one, write `readers/<format>.py` building a
`Reader` (name, what it reads, `recognises(data)`, `read(doc) -> Inputs`), register it with
`register_reader`, and import the module here (docs/contributing.md, "Adding an audit reader").
"""

from __future__ import annotations

# The reader modules: importing one registers its reader (a test checks that no two specific
# readers recognise the same document, so the order they are tried in does not matter).
from gpuplane.audit.readers import (
    aks,
    eksctl,
    gke,
    gpu_operator_values,
    karpenter,
    kubernetes,
    mig_parted,
    nothing_to_audit,
    nvidia_helm_values,
    platform_spec,
)
from gpuplane.audit.readers.files import SUFFIXES, read_path, read_text
from gpuplane.audit.readers.registry import (
    Document,
    Inputs,
    Reader,
    parse_finding,
    reader_for,
    register_reader,
    registered_readers,
)

__all__ = [
    "SUFFIXES",
    "Document",
    "Inputs",
    "Reader",
    "aks",
    "eksctl",
    "gke",
    "gpu_operator_values",
    "karpenter",
    "kubernetes",
    "mig_parted",
    "nothing_to_audit",
    "nvidia_helm_values",
    "parse_finding",
    "platform_spec",
    "read_path",
    "read_text",
    "reader_for",
    "register_reader",
    "registered_readers",
]
