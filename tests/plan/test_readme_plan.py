"""The README's plan section shows what `gpuplane plan` prints today (issue 21): the test runs the
command the README shows and compares the lines the README shows after the table with the
terminal's, as the exit-code and limits tables are kept equal to their sources."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GPUPLANE = Path(sys.executable).with_name("gpuplane")


def _example() -> tuple[list[str], list[str]]:
    """(the command, the lines shown after the table) of the README's plan example."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## plan\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0].startswith("$ gpuplane plan "), block[0]
    assert "..." in block, "the README marks the table it leaves out with a line '...'"
    shown = block[block.index("...") + 1 :]
    return shlex.split(block[0][2:]), shown


@pytest.mark.slow  # the whole built-in plan (it took 25 s of CPU here)
def test_the_readme_plan_example_is_what_plan_prints(tmp_path: Path) -> None:
    command, shown = _example()
    done = subprocess.run(
        [str(GPUPLANE), *command[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=1200, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("└")]
    assert ends, done.stdout
    printed = lines[ends[-1] + 1 :]
    assert printed == shown, "README.md's plan example is out of date; plan now prints:\n" + "\n".join(
        printed
    )
