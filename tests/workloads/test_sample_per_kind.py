"""Every registered workload kind has a sample in tests/workloads/fixtures (docs/contributing.md,
"Adding a workload kind"): its reader finds the pod templates, and a kind with a Kueue integration
becomes Workloads in explain (or a note saying why not), never a crash.

A new kind registered without a sample fails here: the registry, not a hand list, is the source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.explain import load_paths
from gpuplane.explain.jobframework import convert_jobs
from gpuplane.workloads import WorkloadKind, kinds, lookup, pod_templates

FIXTURES = Path(__file__).parent / "fixtures"


def _samples() -> dict[tuple[str, str], list[tuple[Path, dict[str, Any]]]]:
    out: dict[tuple[str, str], list[tuple[Path, dict[str, Any]]]] = {}
    for path in sorted(FIXTURES.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            found = lookup(doc) if isinstance(doc, dict) else None
            if found is not None:
                out.setdefault((found.kind, found.group), []).append((path, doc))
    return out


SAMPLES = _samples()


@pytest.mark.parametrize("kind", kinds(), ids=lambda k: f"{k.kind}.{k.group or 'core'}")
def test_every_registered_kind_has_a_sample_its_reader_reads(kind: WorkloadKind) -> None:
    samples = SAMPLES.get((kind.kind, kind.group))
    assert samples, f"no sample of {kind.kind} ({kind.group or 'core'}) in {FIXTURES}"
    for _path, doc in samples:
        assert pod_templates(doc), f"{kind.kind}: the sample's pod templates are not found"


@pytest.mark.parametrize(
    "kind", [k for k in kinds() if k.kueue is not None], ids=lambda k: f"{k.kind}.{k.group or 'core'}"
)
def test_every_kueue_kind_sample_becomes_workloads_or_a_note(kind: WorkloadKind) -> None:
    files = sorted({str(path) for path, _ in SAMPLES.get((kind.kind, kind.group), [])})
    conv = convert_jobs(load_paths(files))
    said = [j.kind for j in conv.jobs] + [text for text in conv.notes] + [u for u, _ in conv.unmanaged]
    assert any(kind.kind in str(s) for s in said), (kind.kind, said)


def test_the_check_sees_a_kind_without_a_sample() -> None:
    """The check can fail: a kind nobody wrote a sample for is missing from SAMPLES."""
    assert ("NoSuchKind", "example.com") not in SAMPLES
    assert len(SAMPLES) == len({(k.kind, k.group) for k in kinds()})
