"""Exceptions raised for bad user input.

Every error a user can cause by typing something (a card, a range, a game name, a parameter, a
file) is a :class:`PokerlabError`. The CLI prints its message on one line and exits with code 2;
a :class:`NonFiniteError` (a solve that went numerically wrong) exits with code 1.
"""

from __future__ import annotations

__all__ = [
    "PokerlabError",
    "ParseError",
    "FileFormatError",
    "NonFiniteError",
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
        text = token if len(token) <= 1000 else token[:60] + f"... ({len(token):,} characters)"
        shown = f" {text!r}{where}" if token else where
        super().__init__(f"{message}:{shown}" if shown else message)


class FileFormatError(PokerlabError):
    """A strategy or checkpoint file that is truncated, altered or of an unknown version."""


class NonFiniteError(PokerlabError):
    """A solver's arrays hold a value that is not finite (NaN or infinity): the run stops, and
    nothing is saved as complete. The message names the array and the node."""


class PokerlabWarning(UserWarning):
    """Input that is accepted but probably not what was meant; the CLI prints it on one line
    (``warning: ...``) on stderr."""


class RangeOverlapWarning(PokerlabWarning):
    """A range string gives a combo twice with different weights (the first item wins; see
    :func:`pokerlab.cards.ranges.parse_range`). The message names the combos and the items."""
