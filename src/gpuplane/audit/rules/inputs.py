"""GPU000: input that could not be read (malformed YAML, invalid spec, unreadable file)."""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.model import Finding, rule


@rule(
    "GPU000",
    "unreadable-input",
    "input that could not be parsed (the rest of the input is still audited)",
    "high",
    why="""A document that does not parse is not audited at all: whatever it deploys is unchecked, and
    `kubectl apply` would reject it too.""",
    fix="""Fix the YAML at the reported line and column (or the platform spec field named).""",
    tags=("input",),
    system=True,
)
def gpu000(b: Bundle) -> Iterator[Finding]:
    """Reading produces these findings; the rule exists for its documentation."""
    return iter(())
