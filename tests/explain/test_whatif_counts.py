"""Issue 19: explain's what-if reads counts as the API server validates them and refuses a job
given twice. Every count field of every kind that has one, every class of bad value: a located
one-line error (`file:line:col: error: field: message`), exit 2, never a Workload built from it.

Rules: a count is an int32 the API server's JSON decoder reads only from an integer (not "2",
"abc", 1.5 or true) and validation keeps non-negative (apimachinery ValidateNonnegativeField, as
batch/v1 Job parallelism/completions and apps/v1 replicas are validated); above the
pods-per-workload limit (gpuplane/limits.yaml) it is refused before any list is built (10^9
Deployment replicas was a MemoryError). An object is created once per kind, namespace and name
(a second create is AlreadyExists), so a job given twice is an error naming both places.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app

FIXTURES = Path(__file__).resolve().parents[1] / "workloads" / "fixtures"
QUICK_START = Path(__file__).resolve().parents[1] / "kueue" / "samples" / "quick-start.yaml"

#: (fixture, path of a count field in it)
COUNT_FIELDS = [
    ("job.yaml", ("spec", "parallelism")),
    ("job.yaml", ("spec", "completions")),
    ("cronjob.yaml", ("spec", "jobTemplate", "spec", "parallelism")),
    ("deployment.yaml", ("spec", "replicas")),
    ("statefulset.yaml", ("spec", "replicas")),
    ("leaderworkerset.yaml", ("spec", "replicas")),
    ("leaderworkerset.yaml", ("spec", "leaderWorkerTemplate", "size")),
    ("jobset.yaml", ("spec", "replicatedJobs", 1, "replicas")),
    ("jobset.yaml", ("spec", "replicatedJobs", 1, "template", "spec", "parallelism")),
    ("pytorchjob.yaml", ("spec", "pytorchReplicaSpecs", "Worker", "replicas")),
    ("rayjob.yaml", ("spec", "rayClusterSpec", "workerGroupSpecs", 0, "replicas")),
]
BAD_VALUES = [-1, -5, "abc", "2", 1.5, True, 10**9]


def _set(data: Any, path: tuple[str | int, ...], value: object) -> None:
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _run(*files: Path) -> tuple[int, str]:
    args = ["explain", "-f", str(QUICK_START)]
    for f in files:
        args += ["-f", str(f)]
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


@pytest.mark.parametrize(("fixture", "path"), COUNT_FIELDS, ids=lambda v: v if isinstance(v, str) else None)
@pytest.mark.parametrize("value", BAD_VALUES, ids=repr)
def test_a_bad_count_is_a_located_error(
    fixture: str, path: tuple[str | int, ...], value: object, tmp_path: Path
) -> None:
    data = yaml.safe_load((FIXTURES / fixture).read_text())
    _set(data, path, value)
    text = yaml.safe_dump(data, sort_keys=False)
    bad = tmp_path / fixture
    bad.write_text(text)
    code, output = _run(bad)
    assert code == 2, output
    dotted = ".".join(map(str, path))
    [line] = output.splitlines()
    match = re.match(rf"^{re.escape(str(bad))}:(\d+):(\d+): error: {re.escape(dotted)}: ", line)
    assert match, line
    # the position is the value of the field itself
    at = text.splitlines()[int(match.group(1)) - 1]
    assert at.lstrip().startswith(f"{path[-1]}:"), (at, line)


@pytest.mark.parametrize(("fixture", "path"), COUNT_FIELDS, ids=lambda v: v if isinstance(v, str) else None)
def test_a_good_count_is_read(fixture: str, path: tuple[str | int, ...], tmp_path: Path) -> None:
    """The check can pass: 0 and 3 are counts the API server takes (nothing above is refused for its kind)."""
    for value in (0, 3):
        data = yaml.safe_load((FIXTURES / fixture).read_text())
        _set(data, path, value)
        ok = tmp_path / fixture
        ok.write_text(yaml.safe_dump(data, sort_keys=False))
        code, output = _run(ok)
        assert code == 0, output


def test_a_job_given_twice_is_an_error_naming_both_places(tmp_path: Path) -> None:
    job = (FIXTURES / "job.yaml").read_text()
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(job)
    second.write_text("# the same Job again\n" + job)
    name_line = 1 + next(i for i, line in enumerate(job.splitlines()) if line.startswith("  name:"))
    code, output = _run(first, second)
    assert code == 2, output
    [line] = output.splitlines()
    assert line.startswith(f"{second}:{name_line + 1}:"), line
    assert f"(also at {first}:{name_line})" in line, line
    assert "given twice" in line


def test_the_same_name_in_two_namespaces_is_two_jobs(tmp_path: Path) -> None:
    data = yaml.safe_load((FIXTURES / "job.yaml").read_text())
    other = yaml.safe_load((FIXTURES / "job.yaml").read_text())
    other["metadata"]["namespace"] = "elsewhere"
    both = tmp_path / "jobs.yaml"
    both.write_text(yaml.safe_dump_all([data, other], sort_keys=False))
    code, output = _run(both)
    assert code == 0, output
