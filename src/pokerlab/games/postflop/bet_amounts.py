"""What a bet size means in chips at a node of a no-limit street: :func:`resolve_bet`, the
formulas of each token of :mod:`~pokerlab.games.postflop.betsizes` (postflop-solver's rules,
``bet_size.rs`` and ``action_tree.rs``, for the geometric sizes).

>>> from pokerlab.games.postflop.betsizes import BetSize
>>> resolve_bet(BetSize("pot", 0.6), pot=350.0, prev_bet=150.0, to_call=150.0, stack=900.0,
...             streets_left=1)
300.0
"""

from __future__ import annotations

import numbers

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.betsizes import BetSize, format_bet_sizes

__all__ = ["resolve_bet"]


def resolve_bet(
    size: BetSize,
    *,
    pot: float,
    prev_bet: float,
    to_call: float,
    stack: float,
    streets_left: int,
    bets: int | None = None,
) -> float:
    """Chips the actor adds on top of matching the previous bet (for a bet: the bet itself).

    Amounts are not rounded, and the thresholds of the tree (add all-in, force all-in, merging)
    are not applied here; the only limit is the stack: the result is capped at the all-in
    increment ``stack - to_call``.

    Parameters
    ----------
    size:
        The option.
    pot:
        Chips in the middle now, every bet of this street included (the bet being faced too).
    prev_bet:
        The previous bet or raise on this street as the opponent's street total, in chips
        (0 when nobody has bet on this street).
    to_call:
        Chips the actor must add to match ``prev_bet`` (0 for a bet).
    stack:
        The actor's chips behind, before this action (effective stack).
    streets_left:
        Streets still to be dealt or played, this one included (river = 1, turn = 2, flop = 3).
    bets:
        Bets and raises already made on this street, the one faced included (0 for a bet, 1
        facing the first bet, 2 facing a raise, ...); default: 1 when ``prev_bet > 0``, else 0.
        Only geometric sizes read it.

    Returns
    -------
    float
        With ``p = pot + to_call`` (the pot after calling) and ``s = stack - to_call`` (the stack
        after calling), the increment ``d`` over the call is

        - ``N%``: ``d = N/100 * p`` (a raise of X% is a call, then X% of the new pot);
        - ``Nx``: ``d = (N - 1) * prev_bet`` (the raise is *to* ``N * prev_bet``);
        - ``Nc``: ``d = N``;
        - geometric over ``n`` streets: ``d = f * p`` with ``f`` solving
          ``p * (1 + 2 f)^n = p + 2 s``, i.e. ``f = ((1 + 2 s / p)^(1/n) - 1) / 2``, then
          ``f = min(f, cap)``: bet ``f`` of the pot on each of n streets, called every time, and
          both players are all-in at the end. With ``K`` the spec's street count
          (``streets_left`` when it names none), ``n = K`` for a bet and
          ``n = max(K - bets + 1, 1)`` for a raise (postflop-solver's rule, ``action_tree.rs``:
          each bet or raise already made on the street uses up one of the K "streets");
        - all-in: ``d = s``;

        each then capped at ``s``.

    Raises
    ------
    PokerlabError
        For negative chip counts, ``streets_left < 1`` with a geometric size that names no
        street count, or an ``Nx`` size when there is no previous bet.
    """
    chips = (("pot", pot), ("prev_bet", prev_bet), ("to_call", to_call), ("stack", stack))
    for name, amount in chips:
        if not amount >= 0.0:
            raise PokerlabError(f"{name} must be >= 0 chips, got {amount!r}")
    if bets is None:
        bets = 1 if prev_bet > 0.0 else 0
    if isinstance(bets, bool) or not isinstance(bets, numbers.Integral) or bets < 0:
        raise PokerlabError(f"bets must be a non-negative integer, got {bets!r}")
    behind = max(stack - to_call, 0.0)
    after_call = pot + to_call
    if size.kind == "pot":
        add = size.value * after_call
    elif size.kind == "prev":
        if prev_bet <= 0.0:
            raise PokerlabError(f"{format_bet_sizes([size])!r} needs a previous bet to multiply")
        add = (size.value - 1.0) * prev_bet
    elif size.kind == "chips":
        add = size.value
    elif size.kind == "geometric":
        streets = size.streets or streets_left
        if streets < 1:
            raise PokerlabError(
                f"{format_bet_sizes([size])!r} needs at least one street left, got {streets_left}"
            )
        if bets > 0:  # a raise: each bet made on this street uses up one street
            streets = max(streets - bets + 1, 1)
        if after_call <= 0.0:
            add = behind
        else:
            fraction = ((1.0 + 2.0 * behind / after_call) ** (1.0 / streets) - 1.0) / 2.0
            add = min(fraction, size.value) * after_call
    else:
        add = behind
    return min(add, behind)
