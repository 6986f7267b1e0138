"""``make_solver``: a solver by algorithm name."""

from __future__ import annotations

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.solvers.base import Solver
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.tree.compiled import CompiledGame, TreeKind, compile_game

__all__ = ["ALGORITHMS", "make_solver"]

#: Algorithm names accepted by :func:`make_solver` (aliases map to these).
ALGORITHMS = ("cfr", "cfr+", "linear", "dcfr")
_ALIASES = {
    "cfrplus": "cfr+",
    "cfr_plus": "cfr+",
    "lcfr": "linear",
    "linear-cfr": "linear",
    "discounted": "dcfr",
    "vanilla": "cfr",
}


def make_solver(
    game: HistoryGame | CompiledGame,
    algorithm: str = "dcfr",
    *,
    alternating: bool = True,
    prune: bool = True,
    linear_until: int | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    representation: TreeKind | None = None,
) -> Solver:
    """A solver for ``game``.

    ``algorithm`` is one of ``cfr``, ``cfr+``, ``linear``, ``dcfr``. ``linear_until=N`` discounts
    only during the first N iterations (Pluribus' Linear-then-plain schedule); ``alpha``, ``beta``,
    ``gamma`` override the DCFR exponents. ``representation`` forces the ``"public"`` or
    ``"history"`` tree (default: public when the game has one).
    """
    name = algorithm.lower().strip()
    name = _ALIASES.get(name, name)
    if name not in ALGORITHMS:
        raise PokerlabError(
            f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    compiled = game if isinstance(game, CompiledGame) else compile_game(game, representation)
    schedule = schedule_by_name(name, alpha=alpha, beta=beta, gamma=gamma)
    if linear_until is not None:
        schedule = schedule.with_linear_until(linear_until)
    return CFRSolver(compiled, schedule, alternating=alternating, prune=prune)


def restore_solver(state: dict, game: HistoryGame | None = None) -> Solver:
    """Rebuild a solver from :meth:`Solver.state_dict` output (for example a loaded checkpoint).

    ``game`` is needed only for games that are not in the registry.
    """
    from pokerlab.games.registry import load_game
    from pokerlab.solvers.schedule import DiscountSchedule

    if game is None:
        game = load_game(state["game"], **state.get("game_params", {}))
    compiled = compile_game(game, state.get("representation"))
    config = state.get("config", {})
    if state.get("algorithm") not in ALGORITHMS or "schedule" not in config:
        raise PokerlabError(f"cannot restore a solver of algorithm {state.get('algorithm')!r}")
    solver = CFRSolver(
        compiled,
        DiscountSchedule(**config["schedule"]),
        alternating=config["alternating"],
        prune=config["prune"],
    )
    solver.load_state_dict(state)
    return solver
