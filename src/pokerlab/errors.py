"""Exceptions raised for bad user input.

Every error a user can cause by typing something (a card, a range, a game name, a parameter, a
file) is a :class:`PokerlabError`. The CLI prints its message on one line and exits with code 2.
"""

from __future__ import annotations

__all__ = [
    "PokerlabError",
    "ParseError",
    "FileFormatError",
    "PokerlabWarning",
    "RangeOverlapWarning",
]


class PokerlabError(ValueError):
    """Bad input from the user: the message names the offending token."""


class ParseError(PokerlabError):
    """A string (card, range, bet size, ...) that could not be parsed.

    Parameters
    ----------
    message:
        What is wrong.
    token:
        The offending piece of the input.
    position:
        Character offset of ``token`` in the original string, or -1 when unknown.
    """

    def __init__(self, message: str, token: str = "", position: int = -1) -> None:
        self.token = token
        self.position = position
        where = f" at position {position}" if position >= 0 else ""
        shown = f" {token!r}{where}" if token else where
        super().__init__(f"{message}:{shown}" if shown else message)


class FileFormatError(PokerlabError):
    """A strategy or checkpoint file that is truncated, altered or of an unknown version."""


class PokerlabWarning(UserWarning):
    """Input that is accepted but probably not what was meant; the CLI prints it on one line
    (``warning: ...``) on stderr."""


class RangeOverlapWarning(PokerlabWarning):
    """A range string gives a combo twice with different weights (the first item wins; see
    :func:`pokerlab.cards.ranges.parse_range`). The message names the combos and the items."""
