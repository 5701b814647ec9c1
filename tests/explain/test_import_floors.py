"""The twin does not load explain: `import gpuplane.sim` brings in no module of `gpuplane.explain`
or `gpuplane.workloads` (issue 20: kueue/ keeps only the admission the twin imports)."""

from __future__ import annotations

import subprocess
import sys


def _loaded(module: str) -> set[str]:
    """Modules `python -X importtime -c 'import MODULE'` reports loading (a fresh interpreter)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.count("|") == 2}


def test_the_twin_loads_neither_explain_nor_workloads() -> None:
    loaded = _loaded("gpuplane.sim")
    assert "gpuplane.kueue.scheduler" in loaded  # the check sees the twin's imports at all
    assert sorted(m for m in loaded if m.startswith(("gpuplane.explain", "gpuplane.workloads"))) == []


def test_the_admission_core_loads_neither_explain_nor_workloads() -> None:
    loaded = _loaded("gpuplane.kueue")
    assert sorted(m for m in loaded if m.startswith(("gpuplane.explain", "gpuplane.workloads"))) == []


def test_explain_does_load_them() -> None:
    """The check can fail: explain's own face loads the job framework and the workload kinds."""
    loaded = _loaded("gpuplane.explain")
    assert "gpuplane.workloads.registry" in loaded
    assert "gpuplane.explain.jobframework" in loaded
