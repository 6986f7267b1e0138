"""Numba kernel of simulated heads-up push/fold hands."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab._rng import below, uniform


@njit(cache=True)
def _row(stack_grid: np.ndarray, stack: float) -> int:
    """Row of the largest grid stack <= stack (row 0 below the grid)."""
    row = 0
    for k in range(stack_grid.shape[0]):
        if stack_grid[k] <= stack + 1e-9:
            row = k
    return row


@njit(cache=True)
def simulate_pushfold(
    shove: np.ndarray,
    call: np.ndarray,
    stack_grid: np.ndarray,
    combo_cards: np.ndarray,
    win: np.ndarray,
    tie: np.ndarray,
    hands: int,
    stack: float,
    ante: float,
    until_broke: bool,
    rng: np.ndarray,
    net: np.ndarray,
    counts: np.ndarray,
) -> int:
    """Play up to ``hands`` hands between players 0 and 1; return the number played.

    shove, call: (2, K, 1326) probabilities of each player by stack row; player 0 is the small
    blind in even hands. win, tie (1326, 1326): probability that the small blind's combo wins /
    ties the all-in (exact board counts / boards), so the showdown is drawn from its exact
    distribution. ``net[k]`` receives player 0's result of hand k in big blinds. counts (2, 4):
    per player [hands as small blind, shoves, shoves faced as big blind, calls].
    With ``until_broke`` both start with ``stack`` and play at the smaller stack until one has
    nothing left; otherwise every hand is played at ``stack``. ``rng`` is the generator state
    (:mod:`pokerlab._rng`), advanced in place: the same seed gives the same hands.
    """
    bank0 = stack
    bank1 = stack
    played = 0
    for k in range(hands):
        eff = min(bank0, bank1) if until_broke else stack
        if eff <= 1e-9:
            break
        sb = k % 2  # player in the small blind
        bb = 1 - sb
        h_sb = below(rng, 1326)
        while True:
            h_bb = below(rng, 1326)
            a0 = combo_cards[h_sb, 0]
            a1 = combo_cards[h_sb, 1]
            b0 = combo_cards[h_bb, 0]
            b1 = combo_cards[h_bb, 1]
            if a0 != b0 and a0 != b1 and a1 != b0 and a1 != b1:
                break
        row = _row(stack_grid, eff)
        sb_post = min(eff, 0.5 + ante)
        bb_post = min(eff, 1.0 + ante)
        counts[sb, 0] += 1
        if uniform(rng) < shove[sb, row, h_sb]:
            counts[sb, 1] += 1
            counts[bb, 2] += 1
            if uniform(rng) < call[bb, row, h_bb]:
                counts[bb, 3] += 1
                u = uniform(rng)
                if u < win[h_sb, h_bb]:
                    sb_net = eff
                elif u < win[h_sb, h_bb] + tie[h_sb, h_bb]:
                    sb_net = 0.0
                else:
                    sb_net = -eff
            else:
                sb_net = bb_post
        else:
            sb_net = -sb_post
        net0 = sb_net if sb == 0 else -sb_net
        net[k] = net0
        bank0 += net0
        bank1 -= net0
        played += 1
    return played
