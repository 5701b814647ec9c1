"""GPU000: input that could not be read (malformed YAML, invalid spec, unreadable file), or a GPU
workload of a kind whose pods gpuplane cannot find (reported, never skipped silently)."""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.rules.common import at
from gpuplane.audit.workloads import not_understood


@rule(
    "GPU000",
    "unreadable-input",
    "input that could not be parsed or understood (the rest of the input is still audited)",
    "high",
    why="""A document that does not parse is not audited at all: whatever it deploys is unchecked, and
    `kubectl apply` would reject it too. The same holds for a GPU workload of a kind gpuplane does not
    know (a custom resource with an inline pod spec no reader knows): its pods' GPU requests, images and tolerations are
    not checked.""",
    fix="""Fix the YAML at the reported line and column (or the platform spec field named). For a kind that
    is not understood, audit the objects it creates instead (`kubectl get deploy,sts,pods -o yaml`),
    or ask for a reader of the kind in `gpuplane.workloads`.""",
    tags=("input",),
    system=True,
)
def gpu000(b: Bundle) -> Iterator[Finding]:
    """Reading produces the parse findings; GPU kinds no reader understands are found here."""
    for obj in b.objects:
        gpus = not_understood(obj.data)
        if gpus:
            yield at(
                "GPU000",
                b,
                obj,
                ("spec",),
                f"{obj.kind} ({obj.api_version}) asks for {', '.join(gpus)} but gpuplane does not know "
                "where its pods are: not understood, not audited",
            )
