"""The `gpuplane` command line: a thin typer app. Each command family lives in its own module
under `gpuplane.cli` and only parses arguments, calls one engine and prints.

Every error leaves through one place, `GpuplaneGroup.main`: the `gpuplane.errors` family is
printed as its one-line form and exits with its code; click's usage errors are printed in the
same `gpuplane CMD: error: ...` form (exit 2); Ctrl-C, SIGTERM and SIGHUP end it quietly after
cleanup (130, 143, 129); a reader of stdout that hangs up ends it silently (141, like SIGPIPE);
anything else is a bug and says so (exit 70).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from typer import _click
from typer.core import TyperGroup
from typer.exceptions import Abort

from gpuplane import __version__, inputs
from gpuplane.cli.helptext import tidy
from gpuplane.cli.stdout import StdoutClosed, guarded, silence
from gpuplane.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_STDOUT_CLOSED,
    EXIT_USAGE,
    GpuplaneError,
    exit_codes_help,
)
from gpuplane.swap import Terminated, terminating_raises
from gpuplane.twinbuild import describe

EXIT_CODES_HELP = exit_codes_help()

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def _command_name(args: Sequence[str]) -> str:
    """`gpuplane render` for messages: the program and the first word that is not an option."""
    for arg in args:
        if not arg.startswith("-"):
            return f"gpuplane {arg}"
    return "gpuplane"


def _exit(lines: list[str], code: int) -> NoReturn:
    for line in lines:
        err_console.print(line, markup=False)
    sys.exit(code)


class GpuplaneGroup(TyperGroup):
    """The root group: runs click in non-standalone mode and renders every error one way."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the app; every gpuplane error, usage error and interrupt ends in one line and its exit code."""
        argv = list(sys.argv[1:] if args is None else args)
        command = _command_name(argv)
        tidy(self)
        try:
            with terminating_raises(), guarded():
                rv = super().main(argv, prog_name or "gpuplane", complete_var, standalone_mode=False, **extra)
        except (StdoutClosed, BrokenPipeError):
            silence()
            sys.exit(EXIT_STDOUT_CLOSED)
        except Terminated as exc:
            _exit([f"{command}: terminated"], 128 + exc.signum)
        except GpuplaneError as exc:
            _exit(exc.lines(command), exc.exit_code)
        except _click.exceptions.NoArgsIsHelpError as exc:
            typer.echo(exc.format_message(), err=True)
            sys.exit(EXIT_USAGE)
        except _click.exceptions.UsageError as exc:
            hint = f"Try '{command} --help'."
            _exit([f"{command}: error: {exc.format_message()}", hint], EXIT_USAGE)
        except _click.exceptions.ClickException as exc:
            _exit([f"{command}: error: {exc.format_message()}"], exc.exit_code)
        except (Abort, KeyboardInterrupt):
            _exit([f"{command}: interrupted"], EXIT_INTERRUPTED)
        except Exception:
            # A traceback may quote a URL with credentials (a Ray address, a kubeconfig server): redacted.
            from gpuplane.account.promurl import redact_text

            err_console.print(redact_text(traceback.format_exc()), markup=False, end="")
            _exit(
                [
                    f"{command}: internal error: this is a bug in gpuplane {__version__}; please report it "
                    "with the traceback above"
                ],
                EXIT_INTERNAL,
            )
        finally:
            inputs.release()
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    name="gpuplane",
    cls=GpuplaneGroup,
    help="Declare a GPU Kubernetes platform once: render its manifests, explain Kueue admission, "
    "simulate workloads, audit manifests, account GPU time and cost, and run the acceptance test of a pool.\n\n"
    + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def twin_build(module_file: str | None = None) -> str:
    """Which build of the twin runs: mypyc-compiled extensions (a wheel's, or a checkout's copy in
    build/compiled; see gpuplane/twinbuild.py) or pure Python."""
    if module_file is None:
        from gpuplane.kueue import scheduler

        module_file = scheduler.__file__ or ""
    return describe(module_file)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpuplane {__version__} (twin: {twin_build()})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """gpuplane: one platform spec for a GPU Kubernetes cluster."""


def _register_all() -> None:
    # Imported here so that each family registers its commands on the one app.
    from gpuplane.cli import acceptance, account, audit, explain, mig, plan, providers, render, simulate, spec

    for module in (spec, mig, providers, render, explain, simulate, plan, audit, account, acceptance):
        module.register(app)


_register_all()


def main() -> None:
    """Console-script entry point (errors are rendered by `GpuplaneGroup.main`)."""
    app()
