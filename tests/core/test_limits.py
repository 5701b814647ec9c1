"""The limits are data with reasons, the README states them and the exit codes as the code has
them, and each limit is enforced where it is said to be."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane import errors
from gpuplane.cli import app
from gpuplane.errors import EXIT_CODES, InputError, exit_codes_markdown
from gpuplane.limits import describe, limits, markdown_table
from gpuplane.spec import parse_spec

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = (REPO / "examples" / "aks-platform.yaml").read_text()


def test_every_limit_says_what_it_applies_to_and_why() -> None:
    assert [limit.name for limit in describe()] == list(limits().__dataclass_fields__)
    for limit in describe():
        assert limit.value > 0 and limit.unit and limit.applies_to
        assert len(limit.why.split()) >= 12, f"{limit.name}: say why this value"


def test_the_readme_states_the_limits_and_exit_codes_as_the_code_has_them() -> None:
    readme = (REPO / "README.md").read_text()
    assert markdown_table() in readme
    assert exit_codes_markdown() in readme


def test_help_and_the_errors_docstring_list_every_exit_code() -> None:
    result = CliRunner().invoke(app, ["--help"], terminal_width=400)
    text = " ".join(result.output.split())
    for code, meaning in EXIT_CODES:
        assert f"{code} {meaning}" in text
    documented = {int(n) for n in re.findall(r"^\s{4}(\d+)\s", errors.__doc__ or "", re.MULTILINE)}
    assert documented == {code for code, _ in EXIT_CODES} - {errors.EXIT_TERMINATED}
    assert "143" in (errors.__doc__ or "")


def _pool_spec(**changes: str) -> str:
    text = EXAMPLE
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new, 1)
    return text


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("maxNodes: 16", f"maxNodes: {limits().nodes_per_pool + 1}", "nodePools[0].maxNodes"),
        ("minNodes: 0", f"minNodes: {limits().nodes_per_pool + 1}", "nodePools[0].minNodes"),
        (
            "sharing: {mode: exclusive}",
            f"sharing: {{mode: time-slicing, replicas: {limits().sharing_replicas + 1}}}",
            "nodePools[0].sharing.replicas",
        ),
    ],
)
def test_spec_counts_past_their_limit_are_located_errors(old: str, new: str, path: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_spec(_pool_spec(**{old: new}), "spec.yaml")
    (problem,) = caught.value.problems
    assert problem.path == path and "limits: " in problem.message and problem.line is not None


def test_spec_counts_at_their_limit_load() -> None:
    text = _pool_spec(**{"maxNodes: 16": f"maxNodes: {limits().nodes_per_pool}"})
    assert parse_spec(text, "spec.yaml")[0].node_pools[0].max_nodes == limits().nodes_per_pool
