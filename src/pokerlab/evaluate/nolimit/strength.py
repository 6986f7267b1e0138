"""E[HS] of every hole-card pair on a turn or river board at once (issue 24: the hand-strength
rule bot, whose strength LBR asks for every hand of a range at every decision).

E[HS] of hand ``h`` on a board is its probability of beating a uniformly random opponent hand,
ties counting half, averaged over the board's completions: over every (opponent hand, river
card) pair disjoint from ``h``, the board and each other. Every opponent hand sees the same
number of river cards and every river card the same number of opponent hands, so that average
is also the mean over the river cards of the river's HS, which this module computes board by
board for all hands together:

- the 7-card values of every hand not meeting the board, one batch;
- against the hands it can face: the hands below and level with it, minus those holding one of
  its cards (a hand holding both is itself), counted with sorted values per card
  (``searchsorted``), in integers (2 per win, 1 per tie) so that the quotient is exact.

Exact where the per-hand kernel (:func:`~pokerlab.evaluate.nolimit.agents.HandStrengthRule.
strength` on the flop) samples; the turn costs 46 river boards of about 1,000 values each
instead of 46 x 1,000 values per hand.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pokerlab.cards.evaluator import evaluate_batch

__all__ = ["board_strengths"]


def _river_counts(hands: np.ndarray, board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For every row of ``hands`` (int64 ``(H, 2)``) at a showdown on ``board`` (3 to 5 cards:
    the river, or the last board of a game of fewer rounds): twice the wins plus the ties
    against the hands it can face, and how many it can face (both int64; 0 and 0 for a hand
    meeting the board)."""
    n = len(hands)
    live = ~np.isin(hands, np.asarray(board, dtype=np.int64)).any(axis=1)
    idx = np.flatnonzero(live)
    h = hands[idx]
    cards = np.concatenate([h, np.broadcast_to(np.asarray(board), (len(idx), len(board)))], axis=1)
    v = evaluate_batch(cards).astype(np.int64)
    order = np.sort(v)
    below = np.searchsorted(order, v, side="left")
    level = np.searchsorted(order, v, side="right") - below  # itself included
    score = 2 * below + level - 1  # itself: one tie too many
    faced = np.full(len(idx), len(idx) - 1, dtype=np.int64)
    for c in np.unique(h):
        holders = np.flatnonzero((h == c).any(axis=1))
        vals = np.sort(v[holders])
        lo = np.searchsorted(vals, v[holders], side="left")
        hi = np.searchsorted(vals, v[holders], side="right")
        # a hand holding c cannot face the other holders of c (and was counted in their group)
        score[holders] -= 2 * lo + (hi - lo) - 1
        faced[holders] -= len(holders) - 1
    out_score = np.zeros(n, dtype=np.int64)
    out_faced = np.zeros(n, dtype=np.int64)
    out_score[idx] = score
    out_faced[idx] = faced
    return out_score, out_faced


@lru_cache(maxsize=4096)
def board_strengths(ranks: int, board: tuple[int, ...], final: int = 5) -> np.ndarray:
    """E[HS] (module docstring) of every hole-card pair of the deck's top ``ranks`` ranks
    (``deck_combos`` order: lower card first, ``itertools.combinations``) on ``board``, whose
    showdown comes with ``final`` board cards (5; 3 or 4 in a game of fewer rounds): HS on the
    final board, else the mean over the next card of its HS (``board`` one card short of
    ``final``); NaN for a pair meeting the board. Read-only, cached per board."""
    if not 3 <= final <= 5 or len(board) not in (final - 1, final) or len(board) < 3:
        raise ValueError(
            f"board_strengths takes the last board of the game ({final} cards) or one card "
            f"short of it (3 at least), got {len(board)} cards"
        )
    deck = np.arange(52 - 4 * ranks, 52, dtype=np.int64)
    i, j = np.triu_indices(len(deck), k=1)
    hands = np.stack([deck[i], deck[j]], axis=1)
    if len(board) == final:
        score, faced = _river_counts(hands, board)
    else:
        score = np.zeros(len(hands), dtype=np.int64)
        faced = np.zeros(len(hands), dtype=np.int64)
        for river in deck:
            if int(river) in board:
                continue
            s, f = _river_counts(hands, (*board, int(river)))
            score += s
            faced += f
    out = np.full(len(hands), np.nan)
    ok = faced > 0
    out[ok] = score[ok] / (2.0 * faced[ok])
    out.setflags(write=False)
    return out
