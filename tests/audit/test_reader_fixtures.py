"""Every registered audit reader has fixtures with hand-written expectations, recognises its own
fixtures and is the only specific reader that does (like the rules' enforced fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.audit import Inputs, read_path, registered_readers
from gpuplane.audit.pools import Pool
from gpuplane.audit.readers.files import SUFFIXES
from gpuplane.yamlio import iter_documents
from tests.audit.helpers import FIXTURES

READER_FIXTURES = FIXTURES / "readers"
EXPECTED = ".expected.yaml"


def _inputs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*") if p.suffix in SUFFIXES and not p.name.endswith(EXPECTED))


CASES = [p for folder in sorted(READER_FIXTURES.iterdir()) if folder.is_dir() for p in _inputs(folder)]


def _expected(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.with_name(path.stem + EXPECTED).read_text()) or {}
    return data


def _pool(p: Pool) -> dict[str, Any]:
    return {
        "name": p.name,
        "source": p.source,
        "kind": p.kind,
        "gpu": p.gpu,
        "gpus_per_node": p.gpus_per_node,
        "min_nodes": p.min_nodes,
        "spot": p.spot,
        "zones": p.zones,
        "taints": [list(t) for t in p.taints],
        "sharing": p.sharing,
        "classes": sorted(p.classes),
    }


def _summary(inputs: Inputs) -> dict[str, Any]:
    found: dict[str, Any] = {
        "objects": [o.ident().strip() for o in inputs.objects],
        "pools": [_pool(p) for p in inputs.pools],
        "specs": [s.spec.cluster.name for s in inputs.specs],
        "findings": sorted({f.rule for f in inputs.findings}),
    }
    return {k: v for k, v in found.items() if v}


def test_every_registered_reader_has_a_fixture_with_its_expectation() -> None:
    for reader in registered_readers():
        cases = _inputs(READER_FIXTURES / reader.name)
        assert cases, f"reader {reader.name} has no fixture under {READER_FIXTURES / reader.name}"
        for case in cases:
            assert case.with_name(case.stem + EXPECTED).is_file(), f"{case} has no {case.stem}{EXPECTED}"


def test_every_fixture_folder_is_a_registered_reader() -> None:
    names = {r.name for r in registered_readers()}
    assert {p.name for p in READER_FIXTURES.iterdir() if p.is_dir()} == names


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_is_recognised_by_its_reader_only(path: Path) -> None:
    name = path.parent.name
    for doc in iter_documents(path.read_text(), str(path)):
        claimed = [r.name for r in registered_readers() if r.recognises(doc.data)]
        specific = [n for n in claimed if not next(r for r in registered_readers() if r.name == n).general]
        assert (specific or claimed)[:1] == [name], f"{path}:{doc.line} is recognised by {claimed}"
        assert len(specific) <= 1, f"{path}:{doc.line} is recognised by several readers: {specific}"


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_reads_as_its_hand_written_expectation(path: Path) -> None:
    assert _summary(read_path(str(path))) == _expected(path)
