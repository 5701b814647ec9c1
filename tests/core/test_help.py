"""`--help` as a kubectl user reads it: the command list in flowing sentences, flags without a value
type, every command and subcommand reachable."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gpuplane.cli.helptext import reflow_first_paragraph

GPUPLANE = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "gpuplane")
COMMANDS = [
    ["providers"],
    ["render"],
    ["explain"],
    ["simulate"],
    ["plan"],
    ["account"],
    ["exporter"],
    ["spec", "validate"],
    ["mig", "check"],
    ["audit"],
    ["acceptance", "run"],
]


def _help(*args: str) -> str:
    done = subprocess.run(
        [GPUPLANE, *args, "--help"], capture_output=True, text=True, timeout=120, env={"COLUMNS": "100"}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_reflow_joins_the_first_paragraph_and_keeps_the_rest() -> None:
    text = "Print what each provider does:\ndriver, MIG.\n\nSecond\nparagraph."
    assert reflow_first_paragraph(text) == "Print what each provider does: driver, MIG.\n\nSecond\nparagraph."


def test_the_command_list_has_no_line_breaks_from_the_source() -> None:
    # The providers summary is two source lines; unwrapped, "spot" ends a short row and
    # "taint and eviction notice" starts the next one.
    out = _help()
    rows = [line.strip("│ ").strip() for line in out.splitlines()]
    joined = " ".join(rows)
    assert "MPS, spot taint and eviction notice" in joined
    assert not any(row.endswith("MPS, spot") for row in rows)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_flags_show_no_value_type(command: list[str]) -> None:
    out = _help(*command)
    assert "--help" in out
    assert "<bool>" not in out
