"""``make_solver``: a solver by algorithm name."""

from __future__ import annotations

import numpy as np

from pokerlab._rng import kernel_seed
from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.solvers.base import Solver
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.mccfr import MCCFR_ALGORITHMS, MCCFRSolver
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name
from pokerlab.tree.compiled import CompiledGame, TreeKind, compile_game

__all__ = ["ALGORITHMS", "FULL_WIDTH", "SAMPLING", "make_solver", "restore_solver"]

#: Full-width algorithms (one discount schedule each).
FULL_WIDTH = ("cfr", "cfr+", "linear", "dcfr")
#: Monte Carlo CFR algorithms.
SAMPLING = tuple(MCCFR_ALGORITHMS)
#: Algorithm names accepted by :func:`make_solver` (aliases map to these).
ALGORITHMS = FULL_WIDTH + SAMPLING
_ALIASES = {
    "cfrplus": "cfr+",
    "cfr_plus": "cfr+",
    "lcfr": "linear",
    "linear-cfr": "linear",
    "discounted": "dcfr",
    "vanilla": "cfr",
    "cs": "cs-mccfr",
    "es": "es-mccfr",
    "os": "os-mccfr",
    "mccfr": "es-mccfr",
}


def make_solver(
    game: HistoryGame | CompiledGame,
    algorithm: str = "dcfr",
    *,
    alternating: bool = True,
    prune: bool | None = None,
    linear_until: int | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    representation: TreeKind | None = None,
    seed: int | np.random.Generator = 0,
    schedule: str | DiscountSchedule | None = None,
    epsilon: float = 0.6,
    prune_threshold: float | None = None,
    prune_probability: float = 0.95,
    min_regret: float | None = None,
    discount_every: int = 100,
    linear_seconds: float | None = None,
) -> Solver:
    """A solver for ``game``.

    Full width: ``algorithm`` is one of ``cfr``, ``cfr+``, ``linear``, ``dcfr``;
    ``linear_until=N`` discounts only during the first N iterations (Pluribus' Linear-then-plain
    schedule); ``alpha``, ``beta``, ``gamma`` override the DCFR exponents; ``prune`` (default on)
    is zero-reach pruning; ``representation`` forces the ``"public"`` or ``"history"`` tree
    (default: public when the game has one).

    Monte Carlo CFR (:class:`~pokerlab.solvers.mccfr.MCCFRSolver`, always on the history tree):
    ``cs-mccfr``, ``es-mccfr``, ``os-mccfr``, with ``seed`` (an integer, or a
    ``numpy.random.Generator`` that draws one), ``schedule`` (a schedule name or object; default
    plain CFR, or Linear CFR when ``linear_until`` or ``linear_seconds`` is given),
    ``discount_every``, ``epsilon`` (outcome sampling), ``prune`` (here: Pluribus' regret-based
    pruning, default off) with ``prune_threshold`` and ``prune_probability``, ``min_regret``.
    """
    name = algorithm.lower().strip()
    name = _ALIASES.get(name, name)
    if name not in ALGORITHMS:
        raise PokerlabError(
            f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    if name in MCCFR_ALGORITHMS:
        g = game.game if isinstance(game, CompiledGame) else game
        seed = kernel_seed(seed)
        if isinstance(schedule, DiscountSchedule):
            sched = schedule
        else:
            default = "linear" if linear_until is not None or linear_seconds is not None else "cfr"
            sched = schedule_by_name(schedule or default, alpha=alpha, beta=beta, gamma=gamma)
        if linear_until is not None:
            sched = sched.with_linear_until(linear_until)
        return MCCFRSolver(
            compile_game(g, "history"),
            name,
            schedule=sched,
            seed=seed,
            epsilon=epsilon,
            prune=bool(prune),
            prune_threshold=prune_threshold,
            prune_probability=prune_probability,
            min_regret=min_regret,
            discount_every=discount_every,
            linear_seconds=linear_seconds,
        )
    compiled = game if isinstance(game, CompiledGame) else compile_game(game, representation)
    sched = schedule_by_name(name, alpha=alpha, beta=beta, gamma=gamma)
    if linear_until is not None:
        sched = sched.with_linear_until(linear_until)
    return CFRSolver(
        compiled, sched, alternating=alternating, prune=True if prune is None else prune
    )


def restore_solver(state: dict, game: HistoryGame | None = None) -> Solver:
    """Rebuild a solver from :meth:`Solver.state_dict` output (for example a loaded checkpoint).

    ``game`` is needed only for games that are not in the registry.
    """
    from pokerlab.games.registry import load_game

    if game is None:
        game = load_game(state["game"], **state.get("game_params", {}))
    compiled = compile_game(game, state.get("representation"))
    config = state.get("config", {})
    algorithm = state.get("algorithm")
    solver: Solver
    if algorithm in MCCFR_ALGORITHMS:
        solver = MCCFRSolver.from_config(compiled, algorithm, config)
    elif algorithm in FULL_WIDTH and "schedule" in config:
        solver = CFRSolver(
            compiled,
            DiscountSchedule(**config["schedule"]),
            alternating=config["alternating"],
            prune=config["prune"],
        )
    else:
        raise PokerlabError(f"cannot restore a solver of algorithm {algorithm!r}")
    solver.load_state_dict(state)
    return solver
