"""Depth-limited search at the table (issue 25; Brown, Sandholm and Amos, NeurIPS 2018, as
Pluribus searched the flop and turn): the search agent's subgame of a flop or turn stops at the
end of the round, where the opponent picks, per hand, one of ``k`` continuations of the
blueprint for the rest of the game and the searcher keeps its blueprint.

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
from pokerlab.solvers.search.continuations import continuation_profiles
from pokerlab.solvers.search.everywhere import depth_limited_solve
from pokerlab.solvers.search.menu import spot_oop
from pokerlab.solvers.search.safe import ITERATION_CEILING, projected_blueprint, root_ranges
from pokerlab.tree.vector.passes import Passes

__all__ = ["DEPTHS", "check_deal_sample", "table_depth_solve"]

#: where a table search's subgame ends: the end of the game, or of the round (flop and turn)
DEPTHS = ("end", "round")


def check_deal_sample(deal_sample: Any, depth: str) -> tuple[int, int]:
    """``deal_sample`` as ``(turn, river)`` card counts, each at least 5 (a hand pair blocks
    four cards: five leave every pair a card), refused by name otherwise or without
    ``depth="round"`` (a subgame to the end of the game deals every card exactly)."""
    if depth != "round":
        raise PokerlabError(
            f"deal_sample samples a depth-limited search's leaves: depth 'round', not {depth!r}"
        )
    try:
        counts = tuple(int(m) for m in deal_sample)
    except (TypeError, ValueError):
        raise PokerlabError(
            f"deal_sample is (turn cards, river cards), got {deal_sample!r}"
        ) from None
    if (
        len(counts) != 2
        or any(m < 5 for m in counts)
        or any(float(m) != float(x) for m, x in zip(counts, deal_sample, strict=False))
    ):
        raise PokerlabError(
            "deal_sample is (turn cards, river cards), whole numbers of at least 5, got "
            f"{deal_sample!r}"
        )
    return counts  # type: ignore[return-value]


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
