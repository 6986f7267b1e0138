"""The typer application object shared by every command module, and its message helpers."""

from __future__ import annotations

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


def hide_flag_types(command: Any) -> Any:
    """Blank the value type shown by ``--help`` for on/off flags; return ``command``.

    typer 0.29's help lists every option with its value type, so flags such as ``--json`` read
    ``<bool>`` as if they took a value. A flag takes none: its type column is left empty. Walks
    the command and its subcommands (click ``Command``/``Group`` objects built by typer).
    """
    stack = [command]
    while stack:
        cmd = stack.pop()
        for param in getattr(cmd, "params", ()):
            _blank_flag_type(param)
        original = getattr(cmd, "get_help_option", None)
        if original is not None:  # --help itself is built on demand, outside ``params``

            def get_help_option(ctx: Any, _original: Any = original) -> Any:
                return _blank_flag_type(_original(ctx))

            cmd.get_help_option = get_help_option
        stack.extend(getattr(cmd, "commands", {}).values())
    return command


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
