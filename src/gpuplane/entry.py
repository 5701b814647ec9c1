"""The `gpuplane` console script: imports the CLI so that Ctrl-C during start-up ends quietly.

Importing the CLI (typer, rich, pydantic, every command family) takes a moment; an interrupt
then would otherwise print a traceback from inside an import. Nothing heavy is imported here.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Start the CLI; an interrupt before it is ready exits 130 with one line."""
    try:
        from gpuplane.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("gpuplane: interrupted\n")
        sys.exit(130)
    cli_main()
