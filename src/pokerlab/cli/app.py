"""The typer application object shared by every command module."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="pokerlab",
    help="Game-theoretic poker strategies: solve, measure, explore.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
