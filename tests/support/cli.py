"""Running the installed `gpuplane` console script as a user would, for the guarantee tests."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GPUPLANE = Path(sys.executable).parent / "gpuplane"
EXAMPLE = REPO / "examples" / "aks-platform.yaml"


@dataclass
class Run:
    """One finished CLI run."""

    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        """stderr's non-empty lines."""
        return [line for line in self.err.splitlines() if line.strip()]


def gpuplane(
    *args: str | Path, cwd: Path | None = None, stdin: bytes | None = None, timeout: float = 240
) -> Run:
    """Run `gpuplane ARGS` (stdin empty unless given) and collect its exit code and output."""
    proc = subprocess.run(
        [str(GPUPLANE), *map(str, args)],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return Run(
        proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    )


def shell(script: str, cwd: Path | None = None, timeout: float = 240) -> Run:
    """Run a bash script with `gp` standing for the installed CLI (pipes, `<(...)`, `<&-`)."""
    env = {**os.environ, "GP": str(GPUPLANE)}
    proc = subprocess.run(
        ["bash", "-c", 'gp() { "$GP" "$@"; }\n' + script],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return Run(
        proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    )


def snapshot(directory: Path) -> dict[str, bytes | str]:
    """Every entry below `directory` (hidden ones too): file bytes, link targets, or 'dir'."""
    out: dict[str, bytes | str] = {}
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = path.read_bytes()
    return out


def assert_one_error(run: Run, code: int = 2) -> str:
    """The run failed with `code` and said so in one line, without a traceback; returns it."""
    assert run.code == code, (run.code, run.err)
    assert "Traceback" not in run.err and "internal error" not in run.err, run.err
    assert len(run.lines) == 1, run.err
    return run.lines[0]
