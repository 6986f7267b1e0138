"""No-limit hold'em postflop subgames (river, turn, flop spots).

The input side lives in :mod:`~pokerlab.games.postflop.betsizes` (the bet-size grammar) and
:mod:`~pokerlab.games.postflop.spot` (spot files and parameters: board, ranges, pot, stack, sizes
per street and player, tree options, rake). The file format is described in
``docs/postflop-spots.md``.
"""

from __future__ import annotations

from pokerlab.games.postflop.bet_amounts import resolve_bet
from pokerlab.games.postflop.betsizes import (
    BetSize,
    format_bet_sizes,
    parse_bet_sizes,
)
from pokerlab.games.postflop.spot import (
    SpotConfig,
    StreetSizes,
    TreeOptions,
    load_spot,
    spot_from_params,
)

__all__ = [
    "BetSize",
    "format_bet_sizes",
    "parse_bet_sizes",
    "resolve_bet",
    "StreetSizes",
    "TreeOptions",
    "SpotConfig",
    "load_spot",
    "spot_from_params",
]
