"""numba kernels of the showdown values of the betting-tree MCCFR pass
(:mod:`pokerlab.tree.betting._mccfr_kernels`): what a seat wins at a showdown, in big blinds.

At a showdown each pot level goes to the best hands still in that reached it (main and side
pots, split equally; the rule of :func:`pokerlab.games.nolimit.rules.payoffs`):
:func:`side_pot_value` walks the levels of contribution. Without side pots (every player still
in put in the most) one comparison of the players in settles the pot: :func:`pot_share`, kept per
set of players for the traversal that asked. A player's value is what it wins minus what it put
in.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def pot_share(
    mask: int, p: int, strength: np.ndarray, share: np.ndarray, stamp: np.ndarray, now: int
) -> float:
    """The share of a pot without side pots that seat ``p`` wins against the players of
    ``mask`` (1 / tied winners, or 0), kept per mask for the traversal ``now`` (``share`` and
    ``stamp``: scratch of 2**P entries)."""
    if stamp[mask] == now:
        return share[mask]
    best = np.int32(-1)
    tied = 0
    for q in range(strength.shape[0]):
        if (mask >> q) & 1:
            x = strength[q]
            if x > best:
                best = x
                tied = 1
            elif x == best:
                tied += 1
    got = 1.0 / tied if (mask >> p) & 1 and strength[p] == best else 0.0
    share[mask] = got
    stamp[mask] = now
    return got


@njit(cache=True)
def side_pot_value(n: int, p: int, contrib: np.ndarray, mask: int, strength: np.ndarray) -> float:
    """Seat ``p``'s value (big blinds) at showdown node ``n`` with side pots: each level of
    contribution, above the one below it, goes to the best hands still in (``mask``) that put
    in at least that much, split equally; minus ``p``'s chips in."""
    players = contrib.shape[1]
    won = 0.0
    below = 0.0
    while True:
        level = np.inf
        for q in range(players):
            c = contrib[n, q]
            if below < c < level:
                level = c
        if level == np.inf:
            break
        layer = 0.0
        best = np.int32(-1)
        tied = 0
        for q in range(players):
            c = contrib[n, q]
            layer += min(c, level) - min(c, below)
            if (mask >> q) & 1 and c >= level:
                x = strength[q]
                if x > best:
                    best = x
                    tied = 1
                elif x == best:
                    tied += 1
        if (mask >> p) & 1 and contrib[n, p] >= level and strength[p] == best:
            won += layer / tied
        below = level
    return won - contrib[n, p]
