"""Help text as a kubectl user reads it: one flowing sentence per command in the command list
(docstrings are wrapped at 100 columns in the source, and typer's rich mode would keep those line
breaks), and no `<bool>` after a flag that takes no value."""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup, TyperOption


def reflow_first_paragraph(text: str) -> str:
    """The first paragraph of `text` on one line; the other paragraphs as they are."""
    first, sep, rest = text.strip().partition("\n\n")
    return " ".join(first.split()) + sep + rest


def _no_flag_type(param: Any) -> None:
    if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
        param.metavar = ""


def tidy(command: Any) -> None:
    """Reflow the help of `command` (a typer command or group) and of every command under it;
    flags show no value type. Tidying twice changes nothing."""
    if getattr(command, "_gpuplane_tidy", False):
        return
    command._gpuplane_tidy = True
    if command.help:
        command.help = reflow_first_paragraph(command.help)
    if command.short_help:
        command.short_help = " ".join(command.short_help.split())
    for param in command.params:
        _no_flag_type(param)
    make_help_option = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = make_help_option(ctx)
        _no_flag_type(option)
        return option

    command.get_help_option = help_option
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            tidy(sub)
