"""The search agent's settings (issue 25, :class:`~pokerlab.solvers.search.agent.SearchAgent`):
the bet menu (the sizes a subgame offers besides the ones played in the round), the streets and
the time budget per street."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from pokerlab.errors import PokerlabError, PokerlabWarning
from pokerlab.games.postflop import parse_bet_sizes

__all__ = [
    "SEARCH_STREETS",
    "SPOT_STREETS",
    "SearchMenu",
    "check_preflop",
    "far_off_tree",
    "spot_oop",
    "street_budgets",
    "warn_full_deck_flop",
]

#: streets by name (the rules' numbering)
SEARCH_STREETS = {"preflop": 0, "flop": 1, "turn": 2, "river": 3}
#: the spot's street names by the rules' street number
SPOT_STREETS = ("preflop", "flop", "turn", "river")


def spot_oop(rules: Any) -> int:
    """The seat that is the spot's player 0 (out of position): the first to act after the
    flop, on every street of a heads-up subgame (before the flop the other seat acts first)."""
    return int(rules.first_to_act(1))


@dataclass(frozen=True)
class SearchMenu:
    """The search's bet sizes per street, in the postflop bet-size syntax
    (:mod:`pokerlab.games.postflop.betsizes`): ``bets`` for the first bet of a street, ``raises``
    facing one (before the flop ``raises`` alone: the blinds are the first bet, so the small
    blind's open is a raise); ``raise_limit`` raises per street at most (the actual line's
    raises are always allowed). Defaults: half and one pot and all-in; raises all-in; two
    raises. On full-deck rivers of the hunl-100 blueprint this tree costs 0.9 ms an iteration
    against 3.8 ms for 33%, 75%, 150%, all-in with pot raises and three raises, at the same
    exploitability after 100 iterations (2.3% of the pot; ``benchmarks/search_play.py``'s notes)."""

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


def street_budgets(seconds: Any, streets: tuple[int, ...]) -> dict[int, float]:
    """``seconds`` (None, a number, or street name -> number) as street number -> seconds."""
    if seconds is None:
        return {}
    names = [SPOT_STREETS[s] for s in streets]
    table = seconds if isinstance(seconds, dict) else dict.fromkeys(names, seconds)
    out = {}
    for name, value in table.items():
        if name not in SEARCH_STREETS:
            raise PokerlabError(
                f"seconds: unknown street {name!r}; choose among {', '.join(SEARCH_STREETS)}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise PokerlabError(f"seconds must be > 0, got {value!r}")
        out[SEARCH_STREETS[name]] = float(value)
    return out


def warn_full_deck_flop(rules: Any, streets: tuple[int, ...], sampled: bool = False) -> None:
    """Warn (:class:`~pokerlab.errors.PokerlabWarning`) that a flop search of the full deck
    solves the whole rest of the game per subgame: measured at the default menu with full
    ranges (docs/search.md), 16.6 GiB of regrets and sums, about 27 s to build and 4.4 s an
    iteration on 2 threads, so minutes per flop decision; small decks are quick, and so is a
    depth-limited flop with sampled deals below its leaves (``sampled``: no warning)."""
    if sampled:
        return
    if SEARCH_STREETS["flop"] in streets and rules.ranks == 13 and rules.players == 2:
        warnings.warn(
            "flop search on the full deck solves the whole rest of the game per subgame (at the "
            "default menu about 16 GiB and 30 s to build, 4 s an iteration on 2 threads): "
            "minutes per flop decision; search the turn and river for play at the table, or the "
            "flop depth-limited with sampled deals (deal_sample)",
            PokerlabWarning,
            stacklevel=3,
        )


def check_preflop(
    rules: Any, streets: tuple[int, ...], limited: Any, deal_sample: tuple[int, ...] | None = None,
    far: float | None = None,
) -> None:  # fmt: skip
    """Refuse, by name, preflop search where it cannot run. A preflop subgame's root is the
    hand's (no history, every hand in both ranges): to the end of the game it is the whole hand,
    which only a small deck fits; on the full deck it must stop at the end of the preflop
    (``limited``, the streets whose subgames do, holds 0: ``depth="round"`` or
    ``"preflop"``) with the flop drawn below its leaves (``deal_sample`` with a flop count,
    :func:`~pokerlab.solvers.search.table_depth.check_deal_sample`), and without a trigger
    (``far``, the agent's ``preflop_far``) it warns that every preflop decision pays for one."""
    if SEARCH_STREETS["preflop"] not in streets or rules.ranks < 13:
        return
    if 0 not in limited or deal_sample is None or len(deal_sample) != 3:
        raise PokerlabError(
            "preflop search on the full deck stops at the end of the preflop with sampled "
            "deals below: depth='round' (or naming the preflop) and deal_sample=(flop, turn, "
            "river) (e.g. 3,3,3); the whole hand does not fit"
        )
    if far is None:
        warnings.warn(
            "preflop search on the full deck at every preflop decision: each solve takes about "
            "a minute here (docs/search.md); preflop_far=1 (--search-preflop-far 1) searches "
            "only when the opponent's size is a big blind or more from the blueprint's, as "
            "Pluribus did",
            PokerlabWarning,
            stacklevel=3,
        )


def far_off_tree(blueprint: Any, view: Any, far: float) -> bool:
    """Whether the opponent of the seat on move at ``view`` has bet or raised, before the flop,
    more than ``far`` big blinds from every size of ``blueprint`` (a
    :class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent`) at its node: the preflop
    search's trigger (:func:`~pokerlab.evaluate.nolimit.translation.off_tree_gap`); a function
    of the public line, so every later decision of the round searches too."""
    from pokerlab.evaluate.nolimit.translation import off_tree_gap

    strategy = blueprint.strategy
    rules = strategy.game.rules
    gap = off_tree_gap(
        strategy.layout.tree, rules, strategy.game.abstraction, view.history,
        1 - view.state.to_act,
    )  # fmt: skip
    return gap > far * rules.big_blind
