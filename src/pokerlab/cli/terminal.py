"""What the terminal games share (``pokerlab play`` for limit hold'em and ``pokerlab blueprint
play`` for no-limit): the words that quit, cards as text, and the lines a person types."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

import typer

from pokerlab.cards.deck import format_card

__all__ = ["QUIT", "spaced_cards", "stdin_lines"]

#: Words that end a terminal game.
QUIT = {"q", "quit", "exit"}


def spaced_cards(cards: Iterable[int]) -> str:
    """Card ids as text, one space between cards (``As Kd``)."""
    return " ".join(format_card(int(c)) for c in cards)


def stdin_lines(stream: TextIO | None = None) -> Iterator[str]:
    """The lines typed on ``stream`` (default ``sys.stdin``), newline included, until the end
    of input. When the stream is not a terminal (piped input) each line is also printed, and a
    blank line at the end, so the transcript reads as if typed."""
    stream = sys.stdin if stream is None else stream
    interactive = stream.isatty()
    while True:
        line = stream.readline()
        if not interactive:
            typer.echo(line.rstrip("\n"))
        if line == "":
            return
        yield line
