"""Search at every public state of a street, assembled into one strategy, and its exact
exploitability: the evaluation of Brown and Sandholm (NIPS 2017, tables 1-3) and of
slumbot2019's ``solve_all_subgames`` + ``assemble`` (BLUEPRINT.md 3.4), on a postflop spot whose
whole game a best response can walk (issue 25).

For each stored public state that starts the street and each searching player, the subgame is
solved with the gadget (:func:`~pokerlab.solvers.search.gadgets.solve_subgame`) and the
searcher's average strategy there replaces the blueprint's. The assembled profile is what an
agent that searches at every such state for both seats would play; its exploitability is exact
(one best-response pass of the whole tree per player).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.solvers.postflop import postflop_schedule
from pokerlab.solvers.search.continuations import (
    continuation_profiles,
    depth_limit,
    subgame_best_response,
)
from pokerlab.solvers.search.gadgets import GADGETS, solve_subgame
from pokerlab.solvers.search.subgames import faced_reach, reach_gifts, round_roots, street_ranges
from pokerlab.tree._primitives import PARAMS_LAYOUT
from pokerlab.tree.vector.passes import Passes

__all__ = [
    "SearchReport",
    "depth_limited_solve",
    "search_everywhere",
    "profile_exploitability",
    "warm_search",
]


@dataclass
class SearchReport:
    """The assembled profile (``profile``: float64 probabilities, the tree's layout) of a
    search with ``gadget`` at every public state starting ``street``, and:

    - ``subgames``: public states searched (each once per seat);
    - ``gain_bound``: chips, mean over the players, an upper bound on how much the subgames'
      changes can raise a best response's value over the blueprint's (each opponent hand
      entering every subgame with all its weight at its best-response value, less its CBV,
      where that is positive); a safe gadget solved exactly gives 0;
    - ``seconds``: wall time of the searches (ranges and CBVs included);
    - ``per_subgame``: one record per subgame and seat: ``node``, ``player``, ``gain`` (chips,
      both players' best-response gains there) and ``seconds`` (the solve alone: what a search
      at the table costs once the ranges are known).
    """

    gadget: str
    street: str
    iterations: int
    profile: np.ndarray
    subgames: int
    gain_bound: float
    seconds: float
    per_subgame: list[dict[str, Any]] = field(default_factory=list)


def profile_exploitability(passes: Passes, profile: np.ndarray, pot: float) -> float:
    """Exploitability (chips, mean over the players of a best response's gain) of a profile of
    probabilities on a zero-sum spot that starts with ``pot`` chips in the middle."""
    probs = np.ascontiguousarray(profile, dtype=np.float32)
    zeros = np.zeros(passes.tree.size, dtype=np.float32)
    br = passes.best_responses(probs, zeros, (None, None))
    return (br[0] + br[1] - float(pot)) / 2.0


def search_everywhere(
    game: Any,
    blueprint: np.ndarray,
    gadget: str,
    street: str = "river",
    iterations: int = 200,
    algorithm: str = "dcfr",
    depth: str = "end",
    continuations: int | str = 1,
    bias: float = 5.0,
    self_rounds: int = 3,
    self_tolerance: float | None = None,
    threads: int = 1,
    rotation: list[tuple[Any, np.ndarray]] | None = None,
) -> SearchReport:
    """Search with ``gadget`` at every public state starting ``street`` of the postflop spot
    ``game`` for both seats, from the ``blueprint`` profile (probabilities, the tree's layout),
    each subgame ``iterations`` iterations of ``algorithm`` (a non-predictive schedule), to the
    end of the game (``depth="end"``) or of the round (``"round"``, the opponent picking among
    ``continuations`` profiles at the leaves, biased by ``bias``:
    :mod:`~pokerlab.solvers.search.continuations`). ``continuations="self"`` is Modicum's
    self-generative set: the blueprint, then ``self_rounds`` times the opponent's best response
    (below the leaves) to the searcher's current solution added and the subgame solved again;
    with ``self_tolerance`` (a fraction of the spot's pot) it stops sooner, once the last
    response added gains less than that: the opponent's best response to the new solution wins
    less than ``self_tolerance`` x pot less from it (chips per arrival at the subgame, the
    hands weighted by both players' reach there) than the response to the solution before did.
    A subgame's row says how many it added (``"self_rounds"``). ``threads``: the depth-limited
    solves value their leaves' subtrees on that many threads (the same numbers). ``rotation``
    (depth-limited): other spots of ``game``'s layout, each with the blueprint on its tree (the
    same spot with sampled deals of other draws), solved in turn with ``game``
    (:func:`depth_limited_solve`)."""
    if gadget not in GADGETS:
        raise PokerlabError(f"unknown gadget {gadget!r}; choose one of {', '.join(GADGETS)}")
    if depth not in ("end", "round"):
        raise PokerlabError(f"depth is 'end' or 'round', not {depth!r}")
    if not isinstance(self_rounds, int) or self_rounds < 0:
        raise PokerlabError(f"self_rounds must be an integer >= 0, got {self_rounds!r}")
    if self_tolerance is not None and not self_tolerance >= 0:
        raise PokerlabError(
            f"self_tolerance must be a fraction of the pot >= 0, got {self_tolerance!r}"
        )
    params = postflop_schedule(algorithm)
    if params[PARAMS_LAYOUT["predictive"]]:
        raise PokerlabError(f"search runs non-predictive schedules, not {algorithm!r}")
    spot = game.expanded
    tree = spot.tree
    if blueprint.shape != (tree.size,):
        raise PokerlabError(f"a blueprint of {blueprint.shape} for a tree of {tree.size} numbers")
    start = time.perf_counter()
    passes = Passes(tree, threads)
    bp32 = np.ascontiguousarray(blueprint, dtype=np.float32)
    roots = round_roots(spot.parent, spot.node_board, tree, street)
    if not roots:
        raise PokerlabError(f"this spot has no public state that starts the {street}")
    profiles = (
        {o: continuation_profiles(game, blueprint, o, continuations, bias) for o in (0, 1)}
        if depth == "round"
        else None
    )
    turns: dict[int, list[tuple[Passes, np.ndarray]]] = {0: [], 1: []}
    for other, other_bp in rotation or []:
        if depth != "round":
            raise PokerlabError("a rotation of sampled spots is for depth 'round'")
        q = Passes(other.expanded.tree, threads)
        for o in (0, 1):
            turns[o].append((q, continuation_profiles(other, other_bp, o, continuations, bias)))
    seats = (0,) if gadget == "unsafe" else (0, 1)
    work = {p: (np.zeros(tree.size, np.float32), np.zeros(tree.size, np.float32)) for p in seats}
    assembled = {p: bp32.copy() for p in seats}
    gains = [0.0, 0.0]
    rows: list[dict[str, Any]] = []
    all_ranges = street_ranges(passes, roots, bp32, spot.node_board)
    gifts = (
        {o: reach_gifts(passes, spot.parent, roots, bp32, o) for o in (0, 1)}
        if gadget == "reach-maxmargin"
        else None
    )
    for node in roots:
        ranges = all_ranges[node]
        for p in seats:
            began = time.perf_counter()
            o = 1 - p
            gift = None if gifts is None else gifts[o][node]
            if profiles is None:
                sol = solve_subgame(
                    passes, ranges, p, gadget, iterations, params, work[p], assembled[p], None,
                    gift,
                )  # fmt: skip
                added = 0
            else:
                sol, added = depth_limited_solve(
                    passes, ranges, p, gadget, iterations, params, work[p], assembled[p],
                    profiles[o], gift, self_rounds if continuations == "self" else 0,
                    self_tolerance, float(game.config.pot), rotation=turns[o] or None,
                )  # fmt: skip
            took = time.perf_counter() - began
            gains[0] += sol.gain[0]
            gains[1] += sol.gain[1]
            rows.append(
                {
                    "node": int(node),
                    "player": p,
                    "gain": sum(sol.gain) / tree.norm,
                    "seconds": took,
                    "self_rounds": added,
                }
            )
    profile = np.array(blueprint, dtype=np.float64, copy=True)
    for p in (0, 1):
        lo, hi = tree.player_ranges[p]
        profile[lo:hi] = assembled[p if p in assembled else 0][lo:hi]
    seconds = time.perf_counter() - start
    bound = (gains[0] + gains[1]) / (2.0 * tree.norm)
    return SearchReport(gadget, street, iterations, profile, len(roots), bound, seconds, rows)


def depth_limited_solve(
    passes: Passes, ranges: Any, p: int, gadget: str, iterations: int, params: np.ndarray,
    work: tuple[np.ndarray, np.ndarray], assembled: np.ndarray, profiles: np.ndarray,
    gift: np.ndarray | None = None, self_rounds: int = 0, self_tolerance: float | None = None,
    pot: float = 1.0, seconds: float | None = None, lock: np.ndarray | None = None,
    rotation: list[tuple[Passes, np.ndarray]] | None = None,
) -> tuple[Any, int]:  # fmt: skip
    """:func:`~pokerlab.solvers.search.gadgets.solve_subgame` of the subgame at ``ranges.node``
    stopped at the end of its round, the opponent of ``p`` picking among ``profiles`` there
    (:func:`~pokerlab.solvers.search.continuations.depth_limit`); then, ``self_rounds`` times
    at most, the opponent's best response below the leaves to the current solution added to
    them and the subgame solved again (Modicum's self-generative set), stopping sooner once the
    last response added gains less than ``self_tolerance`` x ``pot`` (:func:`search_everywhere`).
    Returns the last solution (its ``iterations``: every solve's together) and the responses
    added. ``rotation``: other trees of the same layout (sampled deals of other draws) with
    their continuation profiles, solved in turn with this one
    (:func:`~pokerlab.solvers.search.gadgets.solve_subgame`'s rotation; not with
    ``self_rounds``, whose responses are one tree's)."""
    passes_tree = passes.tree
    node, o = ranges.node, 1 - p
    found = profiles
    if rotation and self_rounds:
        raise PokerlabError("a rotation of sampled trees takes k = 1 or 4, not self-generated")

    def solve() -> Any:
        limit = depth_limit(passes, node, found)
        others = [
            (q, depth_limit(q, node, prof)._replace(
                choice=limit.choice, pick=limit.pick, values=limit.values))
            for q, prof in rotation or []
        ]  # fmt: skip
        return solve_subgame(
            passes, ranges, p, gadget, iterations, params, work, assembled, limit, gift,
            seconds=seconds, lock=lock, rotation=others or None,
        )  # fmt: skip

    sol = solve()
    total = sol.iterations
    added = 0
    taken = None  # what the last best response took, chips per arrival
    # the joint reach at the node: the opponent's own times what each hand faces
    if self_rounds:
        arrive = float(np.sum(ranges.reach[o] * faced_reach(passes_tree, o, ranges.reach_c[p])))
    while added < self_rounds:
        br, values = subgame_best_response(
            passes, node, assembled, o, ranges.reach_c[p], ranges.reach[o]
        )
        took_now = float(np.sum(ranges.reach[o] * values)) / max(arrive, 1e-300)
        if self_tolerance is not None and taken is not None:
            if taken - took_now < self_tolerance * pot:
                break  # the last response added gained less than the tolerance
        taken = took_now
        found = np.concatenate([found, br[None]])
        added += 1
        sol = solve()
        total += sol.iterations
    sol.iterations = total
    return sol, added


def warm_search(threads: int = 1) -> float:
    """Compile or load every kernel :func:`search_everywhere` calls, on a turn spot of two hands
    a side (every gadget at the river; the turn to the end of the game and to the end of its
    round with 4 and self-generated continuations), so that timed searches measure solving
    rather than compiling; returns the seconds it took. The kernels specialise on argument types,
    not sizes: a flop spot's depth-limited search then runs without compiling (on ``threads``
    threads: the leaves' shared-out steps too)."""
    from pokerlab.games.postflop.game import PostflopGame

    start = time.perf_counter()
    game = PostflopGame(
        board="Td9d6hQc", ranges=("KK,AK", "QQ,JT"), pot=100, stack=300, bets="50%", raises="a"
    )
    profile = game.public_tree().uniform()
    # the profiles' exploitability on one thread: the float64 pair, which a solver's warm-up
    # leaves to first use (its own checks are float32)
    profile_exploitability(Passes(game.expanded.tree, 1), np.zeros(game.expanded.tree.size), 100.0)
    for gadget in GADGETS:
        search_everywhere(game, profile, gadget, iterations=2)
    search_everywhere(game, profile, "resolve", street="turn", iterations=2)
    for k in (4, "self"):
        search_everywhere(
            game, profile, "maxmargin", street="turn", iterations=2, depth="round",
            continuations=k, self_rounds=1, threads=threads,
        )  # fmt: skip
    return time.perf_counter() - start
