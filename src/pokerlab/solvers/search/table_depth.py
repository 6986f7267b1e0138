"""Depth-limited search at the table (issue 25; Brown, Sandholm and Amos, NeurIPS 2018, as
Pluribus searched its first rounds): the search agent's subgame of a preflop, flop or turn
(``depth="round"``, or the streets named) stops at the end of the round, where the opponent
picks, per hand, one of ``k`` continuations of the blueprint for the rest of the game and the
searcher keeps its blueprint.

The subgame's spot offers the search menu in the round and the blueprint's own sizes on the
streets after it (:meth:`~pokerlab.solvers.search.round_subgames.RoundSubgames._game`'s
``later``), so the blueprint below the leaves is read on its own actions: both seats' parts are
projected there (:func:`~pokerlab.solvers.search.safe.projected_blueprint`), the opponent's
biased copies made (:func:`~pokerlab.solvers.search.continuations.continuation_profiles`: k = 1,
4, or Modicum's self-generative set) and the round solved by the unsafe gadget with those leaves
(:func:`~pokerlab.solvers.search.everywhere.depth_limited_solve`, the exact table's own solve),
its average strategy left in the solver's strategy sums where the agent reads its decisions.
Each leaf is valued every iteration by expected-value passes of the tree below it, on the
solver's threads: exactly, every card dealt, by default (a turn
subgame's rivers fit this machine's budget); or with ``deal_sample=(turn, river)`` the deals
below the leaves draw that many cards (public chance sampling, Johanson et al. AAMAS 2012,
where Pluribus rolled out; drawn once per subgame from its public state, so matches repeat),
each hand's chance mass renormalised at every sampled deal
(:func:`~pokerlab.tree.vector._chance_kernels.sampled_renormalise`); with ``deal_draws=K``, K
spots of other draws (the same layout) take the solve's iterations in turn, as Pluribus
resampled chance every iteration, so that a solve sees K draws at one draw's cost per
iteration. That is how a full-deck flop fits its 10 s: 6 turn and 6 river cards make 36
boards below a leaf instead of 2,352 (docs/search.md has the figures, and the sample's exact
cost on T3 and T4).
"""

from __future__ import annotations

import time
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import postflop_schedule
from pokerlab.solvers.search.cache import estimated_bytes
from pokerlab.solvers.search.continuations import CONTINUATIONS, continuation_profiles
from pokerlab.solvers.search.everywhere import depth_limited_solve
from pokerlab.solvers.search.menu import check_preflop, spot_oop, warn_full_deck_flop
from pokerlab.solvers.search.safe import (
    ITERATION_CEILING,
    TABLE_GADGETS,
    projected_blueprint,
    root_ranges,
)
from pokerlab.solvers.search.table_gifts import check_table_gadget
from pokerlab.tree.vector.passes import Passes

__all__ = [
    "check_depth_settings",
    "check_deal_sample",
    "depth_limited_bytes",
    "leaf_sample",
    "limited_streets",
    "table_bytes",
    "table_depth_solve",
]

#: the streets a subgame may stop at the end of (the river's round ends the game)
LIMITABLE = {"preflop": 0, "flop": 1, "turn": 2}


def limited_streets(depth: str) -> frozenset[int]:
    """The street numbers whose subgames stop at the end of their round under ``depth``:
    none for ``"end"``, the preflop, flop and turn for ``"round"``, else the streets named
    (comma-separated among preflop, flop and turn: Pluribus stopped the subgames of its early
    rounds at the round's end); refused by name otherwise."""
    if depth == "end":
        return frozenset()
    if depth == "round":
        return frozenset(LIMITABLE.values())
    names = [s.strip() for s in str(depth).split(",") if s.strip()]
    for name in names:
        if name not in LIMITABLE:
            raise PokerlabError(
                f"depth: 'end', 'round' or streets among {', '.join(LIMITABLE)}, not {name!r}"
            )
    if not names:
        raise PokerlabError(f"depth: 'end', 'round' or streets among {', '.join(LIMITABLE)}")
    return frozenset(LIMITABLE[n] for n in names)


def check_deal_sample(deal_sample: Any, depth: str) -> tuple[int, ...]:
    """``deal_sample`` as ``(turn, river)`` card counts, or ``(flop, turn, river)`` (a preflop
    subgame's leaves draw ``flop`` cards at each of the flop's three deals, so 3 gives 27
    flops), each at least 3 (a hand holds two cards: three leave every hand one; five leave
    every hand pair one); refused by name otherwise or
    without ``depth="round"`` (a subgame to the end of the game deals every card exactly)."""
    if not limited_streets(depth):
        raise PokerlabError(
            f"deal_sample samples a depth-limited search's leaves: depth 'round', not {depth!r}"
        )
    shape = "(turn cards, river cards) or (flop cards, turn cards, river cards)"
    try:
        counts = tuple(int(m) for m in deal_sample)
    except (TypeError, ValueError):
        raise PokerlabError(f"deal_sample is {shape}, got {deal_sample!r}") from None
    if (
        len(counts) not in (2, 3)
        or any(m < 3 for m in counts)
        or any(float(m) != float(x) for m, x in zip(counts, deal_sample, strict=False))
    ):
        raise PokerlabError(
            f"deal_sample is {shape}, whole numbers of at least 3, got {deal_sample!r}"
        )
    return counts


def check_depth_settings(
    rules: Any, streets: tuple[int, ...], gadget: str, depth: str, continuations: Any,
    bias: float, self_rounds: Any, self_tolerance: Any, deal_sample: Any, deal_draws: Any,
    preflop_far: Any,
) -> tuple[frozenset[int], tuple[int, ...] | None, float | None]:  # fmt: skip
    """Check the search agent's depth-limit settings (:class:`~pokerlab.solvers.search.agent.
    SearchAgent`'s parameters of those names; ``streets`` as street numbers), each refused by
    name, and warn where a full-deck flop or preflop search costs minutes. Returns the streets
    whose subgames stop at their round's end, ``deal_sample`` as counts, and ``preflop_far`` in
    big blinds (None: every preflop decision is searched)."""
    if deal_sample is not None:
        deal_sample = check_deal_sample(deal_sample, depth)
    if isinstance(deal_draws, bool) or not isinstance(deal_draws, int) or deal_draws < 1:
        raise PokerlabError(f"deal_draws must be an integer >= 1, got {deal_draws!r}")
    if deal_draws > 1 and (deal_sample is None or continuations == "self"):
        raise PokerlabError(
            "deal_draws rotates sampled deals (deal_sample) with 1 or 4 continuations"
        )
    limited = limited_streets(depth)
    warn_full_deck_flop(rules, streets, 1 in limited and deal_sample is not None)
    if preflop_far is not None and (
        isinstance(preflop_far, bool)
        or not isinstance(preflop_far, int | float)
        or not preflop_far >= 0
    ):
        raise PokerlabError(f"preflop_far must be a number of big blinds >= 0, got {preflop_far!r}")
    check_preflop(rules, streets, limited, deal_sample, preflop_far)
    check_table_gadget(gadget, streets, TABLE_GADGETS)
    if limited and gadget != "unsafe":
        raise PokerlabError(f"depth-limited search at the table is unsafe, not {gadget!r}")
    if continuations not in CONTINUATIONS:
        raise PokerlabError(f"continuations: 1, 4 or 'self', not {continuations!r}")
    if not bias > 1.0:
        raise PokerlabError(f"the continuation bias must be above 1, got {bias!r}")
    if isinstance(self_rounds, bool) or not isinstance(self_rounds, int) or self_rounds < 0:
        raise PokerlabError(f"self_rounds must be an integer >= 0, got {self_rounds!r}")
    if self_tolerance is not None and not self_tolerance >= 0:
        raise PokerlabError(f"self_tolerance must be >= 0, got {self_tolerance!r}")
    return limited, deal_sample, None if preflop_far is None else float(preflop_far)


def leaf_sample(deal_sample: tuple[int, ...] | None, street: int) -> tuple[int, ...] | None:
    """The cards each deal below a depth-limited subgame's leaves draws, for a subgame that
    starts on ``street`` (rules' numbering), one count per card dealt after its board (the
    spot's ``deal_sample``, :func:`~pokerlab.games.postflop.expand.expand_spot`): the turn and
    river counts after a flop, the river's after a turn, the flop count three times before the
    flop (52, every card, when ``deal_sample`` names no flop count)."""
    if deal_sample is None:
        return None
    flop, turn, river = (52, *deal_sample) if len(deal_sample) == 2 else deal_sample
    return ((flop, flop, flop, turn, river), (turn, river), (river,))[street]


def depth_limited_bytes(game: Any, continuations: int | str, self_rounds: int, draws: int) -> int:
    """Bytes a depth-limited subgame of the postflop ``game`` holds while it is solved, from its
    dealt tree's size (the spot's bound before dealing ignores the suit isomorphism, 30 times
    too large on a small deck's preflop): below the leaves every profile is written whole, the
    blueprint's projection, its two seats' parts while it is made, and the opponent's ``k``
    continuations (1, 4, or with ``"self"`` 1 + ``self_rounds``), with the solver's arrays and
    work beside them, and each further draw of sampled deals its own passes and profiles
    (``4 * (k + 2)`` bytes a number, an estimate). Measured on a full-deck preflop subgame (264
    M numbers, k = 4): 10.6 GB resident, 40 bytes a number, which this gives as ``4 * (k + 6)``
    bytes a number (k = 1: 8.2 GB measured, 7.4 estimated)."""
    numbers = int(game.expanded.tree.size)
    k = 1 + self_rounds if continuations == "self" else int(continuations)
    # each further draw: its tree's passes, projection and continuations (no regrets or sums)
    return int(numbers * 4 * ((k + 6) + (max(draws, 1) - 1) * (k + 2)))


def table_bytes(agent: Any, game: Any, street: int) -> int:
    """The bytes the search agent ``agent``'s subgame ``game`` starting on ``street`` is
    expected to hold: the spot's bound (:func:`~pokerlab.solvers.search.cache.estimated_bytes`),
    or for a depth-limited one its profiles below the leaves (:func:`depth_limited_bytes`)."""
    if agent._plain(street) or agent.gadget != "unsafe":
        return estimated_bytes(game)
    draws = agent.deal_draws if game.deal_sample is not None else 1
    return depth_limited_bytes(game, agent.continuations, agent.self_rounds, draws)


def table_depth_solve(
    agent: Any, solver: Any, view: PublicView, prefix: Any, moves: Any,
    deadline: float | None = None,
) -> int:  # fmt: skip
    """Solve ``solver``'s spot (the agent's subgame at ``view``; ``prefix``: the hand's actions
    before the round, ``moves``: the round's) to the end of its round with the agent's
    continuations (module docstring), within :attr:`iterations` or by ``deadline`` (a
    :func:`time.perf_counter` time; the projection counts, a self-generative set's solves share
    what is left); the solver's node locks (frozen decisions) hold. Returns the best responses
    the self-generative set added."""
    rules = agent.rules
    seat = agent._seat
    game = solver.game
    tree = solver.tree
    start = moves[0][3] if moves else view.state
    player = 0 if seat == spot_oop(rules) else 1
    lo, hi = tree.player_ranges[1 - player]

    def projected(spot: Any) -> Any:  # both seats' blueprint on the spot's tree
        mine = projected_blueprint(agent.blueprint, rules, spot, start, tuple(prefix), seat)
        theirs = projected_blueprint(agent.blueprint, rules, spot, start, tuple(prefix), 1 - seat)
        mine[lo:hi] = theirs[lo:hi]
        return mine

    profile = projected(game)
    k = agent.continuations
    profiles = continuation_profiles(game, profile, 1 - player, k, agent.bias)
    rotation = []  # the same spot with the sampled deals of other draws, solved in turn
    for draw in range(1, agent.deal_draws if game.deal_sample is not None else 1):
        drawn = PostflopGame(
            game.config, deal_sample=game.deal_sample, deal_seed=game.deal_seed + draw
        )
        passes = Passes(drawn.expanded.tree, 1)
        passes.set_threads(solver.passes.threads, pool=solver.passes.pool)
        drawn_profiles = continuation_profiles(drawn, projected(drawn), 1 - player, k, agent.bias)
        rotation.append((passes, drawn_profiles))
    ranges = root_ranges(solver)
    rounds = agent.self_rounds if k == "self" else 0
    seconds = None
    if deadline is not None:  # what the projection left, shared by the solves
        seconds = max(deadline - time.perf_counter(), 1e-9) / (rounds + 1)
    ceiling = agent.iterations if deadline is None else ITERATION_CEILING
    sol, added = depth_limited_solve(
        solver.passes, ranges, player, "unsafe", ceiling, postflop_schedule("dcfr"),
        (solver.regrets, solver.strat_sum), profile, profiles, None, rounds,
        agent.self_tolerance, float(game.config.pot), seconds, solver.lock_probs,
        rotation or None,
    )  # fmt: skip
    solver.iterations += sol.iterations
    return added
