"""Board texture of a flop, as a report's filters read it: high card, pairing, suits and
connectedness.

* ``high``: the highest rank (``"A"``, ``"K"``, ..., ``"2"``);
* ``pairing``: ``"unpaired"``, ``"paired"`` or ``"trips"``;
* ``suits``: ``"rainbow"`` (three suits), ``"two-tone"`` (two) or ``"monotone"`` (one);
* ``straights``: how many runs of five consecutive ranks (``A2345`` up to ``TJQKA``) hold all
  three flop ranks, i.e. how many two-card rank pairs make a straight on the flop (0 to 3; 0
  on a paired board): ``JT9`` 3 (KQ, Q8, 87), ``T96`` 1 (87), ``K72`` 0; on a turn board, the
  runs holding three of its ranks or more;
* ``connectedness``: ``"connected"`` (3 straights or more), ``"semi-connected"`` (1 or 2) or
  ``"disconnected"`` (0).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pokerlab.cards.deck import RANKS

__all__ = ["texture", "straight_windows", "TEXTURE_KEYS"]

#: The texture columns of a report row, in order.
TEXTURE_KEYS = ("high", "pairing", "suits", "connectedness", "straights")


def straight_windows(ranks: Iterable[int]) -> int:
    """How many runs of five consecutive ranks (ace high or low) hold at least three distinct
    ranks of ``ranks`` (rank ids 0..12 for 2..A): the straights two hole cards can make with the
    board. On a flop: the runs holding all three ranks (0 on a paired flop)."""
    distinct = set(ranks)
    count = 0
    for low in range(-1, 9):  # low = -1: the wheel A2345, the ace read as rank -1
        window = {(r if r >= 0 else 12) for r in range(low, low + 5)}
        if len(distinct & window) >= 3:
            count += 1
    return count


_PAIRING = {
    (1, 1, 1): "unpaired",
    (1, 2): "paired",
    (1, 1, 2): "paired",
    (3,): "trips",
    (1, 1, 1, 1): "unpaired",
    (2, 2): "two pair",
    (1, 3): "trips",
    (4,): "quads",
}
_SUITS = {1: "rainbow", 2: "two-tone", 3: "monotone", 4: "four-flush"}


def texture(cards: Iterable[int]) -> dict[str, Any]:
    """The texture columns (:data:`TEXTURE_KEYS`) of a board given by card ids (a flop, or a
    flop and a turn: ``pairing`` then also reads ``two pair`` and ``quads``, and ``suits`` the
    most cards of one suit: 1 rainbow, 2 two-tone, 3 monotone, 4 four-flush)."""
    board = tuple(cards)
    ranks = [c >> 2 for c in board]
    counts = tuple(sorted(ranks.count(r) for r in set(ranks)))
    most_suited = max(sum(1 for c in board if c & 3 == s) for s in range(4))
    straights = straight_windows(ranks)
    return {
        "high": RANKS[max(ranks)],
        "pairing": _PAIRING[counts],
        "suits": _SUITS[most_suited],
        "connectedness": (
            "connected" if straights >= 3 else "semi-connected" if straights else "disconnected"
        ),
        "straights": straights,
    }
