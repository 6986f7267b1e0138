"""The typer application object shared by every command module, the command group class of its
subcommand groups, and its message helpers."""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

app = typer.Typer(
    name="pokerlab",
    help="Game-theoretic poker strategies: solve, measure, explore.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class UsageErrorGroup(typer.core.TyperGroup):
    """A command group that, given no arguments, prints one error line
    (:meth:`missing_message`) and the group's usage on stderr and exits 2; typer's help
    renderer prints on stdout, so the usage is written with stdout pointed at stderr."""

    def missing_message(self) -> str:
        """The error line for a call without arguments."""
        return f"give a command ({', '.join(self.commands)}); usage:"

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:
            print_error(self.missing_message())
            saved, sys.stdout = sys.stdout, sys.stderr
            try:
                ctx.get_help()
            finally:
                sys.stdout = saved
            raise typer.Exit(2)
        return super().parse_args(ctx, args)


def hide_flag_types(command: Any) -> Any:
    """Blank the value type shown by ``--help`` for on/off flags, and let the help renderer
    wrap each paragraph of a command's help (:func:`_paragraphs`); return ``command``.

    typer 0.29's help lists every option with its value type, so flags such as ``--json`` read
    ``<bool>`` as if they took a value. A flag takes none: its type column is left empty. Walks
    the command and its subcommands (click ``Command``/``Group`` objects built by typer).
    """
    stack = [command]
    while stack:
        cmd = stack.pop()
        if getattr(cmd, "help", None):
            cmd.help = _paragraphs(cmd.help)
        for param in getattr(cmd, "params", ()):
            _blank_flag_type(param)
        original = getattr(cmd, "get_help_option", None)
        if original is not None:  # --help itself is built on demand, outside ``params``

            def get_help_option(ctx: Any, _original: Any = original) -> Any:
                return _blank_flag_type(_original(ctx))

            cmd.get_help_option = get_help_option
        stack.extend(getattr(cmd, "commands", {}).values())
    return command


def _paragraphs(text: str) -> str:
    """``text`` with the line breaks inside each paragraph (blank-line separated) made spaces:
    typer's help keeps a docstring's line breaks, which the terminal then wraps again (a line
    ending mid-box in the command list)."""
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n") if p.strip())


def _blank_flag_type(param: Any) -> Any:
    if getattr(param, "is_flag", False) and not getattr(param, "count", False):
        param.metavar = ""
    return param


def print_error(message: str, *, prefix: str = "error: ") -> None:
    """Print ``prefix`` + ``message`` on stderr on one line: never wrapped (also when stderr is a
    file or a pipe), rich markup in ``message`` printed as is; the prefix is red on a terminal."""
    err = Console(stderr=True, soft_wrap=True, highlight=False)
    line = Text(prefix, style="bold red")
    line.append(" ".join(str(message).splitlines()))
    err.print(line)


def warn(message: str) -> None:
    """Print ``warning: message`` on stderr on one line (see :func:`print_error`)."""
    print_error(message, prefix="warning: ")
