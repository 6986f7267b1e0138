"""The search agent's bet menu (issue 25): the sizes a subgame offers besides the ones played in
the round (:class:`~pokerlab.solvers.search.agent.SearchAgent`)."""

from __future__ import annotations

from dataclasses import dataclass

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop import parse_bet_sizes

__all__ = ["SearchMenu"]


@dataclass(frozen=True)
class SearchMenu:
    """The search's bet sizes per street, in the postflop bet-size syntax
    (:mod:`pokerlab.games.postflop.betsizes`): ``bets`` for the first bet of a street, ``raises``
    facing one; ``raise_limit`` raises per street at most (the actual line's raises are always
    allowed). Defaults: half and one pot and all-in; raises all-in; two raises. On full-deck
    rivers of the hunl-100 blueprint this tree costs 0.9 ms an iteration against 3.8 ms for
    33%, 75%, 150%, all-in with pot raises and three raises, at the same exploitability after
    100 iterations (2.3% of the pot; ``benchmarks/search_play.py``'s notes)."""

    bets: str = "50%, 100%, a"
    raises: str = "a"
    raise_limit: int = 2

    def __post_init__(self) -> None:
        parse_bet_sizes(self.bets, raise_sizes=False)
        parse_bet_sizes(self.raises, raise_sizes=True)
        if isinstance(self.raise_limit, bool) or not isinstance(self.raise_limit, int):
            raise PokerlabError(f"raise_limit must be an integer, got {self.raise_limit!r}")
        if self.raise_limit < 0:
            raise PokerlabError(f"raise_limit must be >= 0, got {self.raise_limit}")
