"""The solver families of :func:`~pokerlab.solvers.factory.make_solver` and
:func:`~pokerlab.solvers.factory.restore_solver`, by backend kind: the one registry
(:data:`SOLVER_FAMILIES`). A new backend adds its entry here: how it makes a solver from the
options and how it restores one from a state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pokerlab._rng import kernel_seed
from pokerlab.errors import PokerlabError
from pokerlab.solvers.base import Solver
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.mccfr import MCCFR_ALGORITHMS, MCCFRSolver
from pokerlab.solvers.options import OPTION_NAMES, inapplicable_options
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name
from pokerlab.tree.compiled import CompiledGame, compile_game

__all__ = [
    "ALGORITHMS",
    "FULL_WIDTH",
    "SAMPLING",
    "SOLVER_FAMILIES",
    "SolverFamily",
    "backend_kind",
    "state_backend_kind",
]

#: Full-width algorithms (one discount schedule each, :data:`~pokerlab.solvers.schedule.SCHEDULES`).
FULL_WIDTH = ("cfr", "cfr+", "linear", "dcfr", "pcfr+", "dcfr+", "pdcfr+", "hs-pcfr+", "hs-dcfr")
#: Monte Carlo CFR algorithms.
SAMPLING = tuple(MCCFR_ALGORITHMS)
#: Algorithm names accepted by :func:`make_solver` (aliases map to these).
ALGORITHMS = FULL_WIDTH + SAMPLING


def _make_compiled(
    game: Any,
    algorithm: str,
    name: str,
    threads: int | None,
    given: dict[str, Any],
    unknown: dict[str, object],
) -> Solver:
    """CFR on the public or history tree, or Monte Carlo CFR on the history tree (the options
    of :func:`make_solver`; one the algorithm would not use is refused by name)."""
    if name not in ALGORITHMS:
        raise PokerlabError(
            f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    if threads is not None:
        raise PokerlabError(
            "make_solver: threads is an option of postflop spots (PostflopSolver); "
            f"{getattr(game, 'name', 'this game')!r} runs on one thread"
        )
    if unknown:
        names = ", ".join(sorted(unknown))
        raise PokerlabError(
            f"make_solver: unknown option(s) {names}; known: {', '.join(OPTION_NAMES)}"
        )
    bad = inapplicable_options(name, given)
    if bad:
        reasons = "; ".join(f"{option} ({why})" for option, why in bad.items())
        raise PokerlabError(f"make_solver({name!r}) does not use option(s) {reasons}")
    g = given.get
    linear_until = g("linear_until")
    alpha, beta, gamma = g("alpha"), g("beta"), g("gamma")
    if name in MCCFR_ALGORITHMS:
        base = game.game if isinstance(game, CompiledGame) else game
        schedule = g("schedule")
        if isinstance(schedule, DiscountSchedule):
            sched = schedule
        else:
            linear = linear_until is not None or g("linear_seconds") is not None
            default = "linear" if linear else "cfr"
            sched = schedule_by_name(schedule or default, alpha=alpha, beta=beta, gamma=gamma)
        if linear_until is not None:
            sched = sched.with_linear_until(linear_until)
        return MCCFRSolver(
            compile_game(base, "history"),
            name,
            schedule=sched,
            seed=kernel_seed(g("seed", 0)),
            epsilon=g("epsilon", 0.6),
            prune=bool(g("regret_pruning")),
            prune_threshold=g("prune_threshold"),
            prune_probability=g("prune_probability", 0.95),
            min_regret=g("min_regret"),
            discount_every=g("discount_every", 100),
            linear_seconds=g("linear_seconds"),
        )
    representation = g("representation")
    if isinstance(game, CompiledGame):
        if representation is not None and representation != game.kind:
            raise PokerlabError(
                f"representation {representation!r} does not match the compiled game's "
                f"{game.kind!r} tree; pass the game itself to compile it again"
            )
        compiled = game
    else:
        compiled = compile_game(game, representation)
    sched = schedule_by_name(name, alpha=alpha, beta=beta, gamma=gamma, horizon=g("horizon"))
    if linear_until is not None:
        sched = sched.with_linear_until(linear_until)
    return CFRSolver(
        compiled,
        sched,
        alternating=g("alternating", True),
        prune=g("prune", True),
    )


def _make_postflop_mccfr(
    game: Any,
    algorithm: str,
    name: str,
    threads: int | None,
    given: dict[str, Any],
    unknown: dict[str, object],
) -> Solver:
    from pokerlab.solvers.postflop_mccfr_setup import make_postflop_mccfr

    return make_postflop_mccfr(game, name, threads=threads, unknown=unknown, **given)


def _make_bucketed(
    game: Any,
    algorithm: str,
    name: str,
    threads: int | None,
    given: dict[str, Any],
    unknown: dict[str, object],
) -> Solver:
    raise PokerlabError(
        "limit hold'em is solved on a card abstraction: pokerlab train limit-holdem, or "
        "pokerlab.solvers.limit_holdem.LimitPCSSolver(game, abstraction) (LimitESSolver for "
        "external sampling); make_solver takes the games whose every state fits a tree"
    )


def _postflop_solver(
    game: Any,
    algorithm: str,
    name: str,
    threads: int | None,
    given: dict[str, Any],
    unknown: dict[str, object],
) -> Solver:
    """A :class:`~pokerlab.solvers.postflop.PostflopSolver` for a postflop spot and a
    full-width algorithm. Every option but ``threads``, ``compressed`` and ``average`` is refused
    by name."""
    from pokerlab.games.postflop.game import PostflopGame
    from pokerlab.solvers.postflop import POSTFLOP_ALGORITHMS, PostflopSolver

    if isinstance(game, CompiledGame):
        game = game.game
    if not isinstance(game, PostflopGame):
        raise PokerlabError("a postflop solver needs a postflop game")
    if name not in POSTFLOP_ALGORITHMS:
        raise PokerlabError(
            f"unknown algorithm {algorithm!r} for a postflop spot; choose one of "
            f"{', '.join(POSTFLOP_ALGORITHMS)}"
        )
    unknown = dict(unknown)
    compressed = unknown.pop("compressed", False)
    if not isinstance(compressed, bool):
        raise PokerlabError(f"make_solver: compressed must be True or False, got {compressed!r}")
    average = unknown.pop("average", None)
    if unknown:
        raise PokerlabError(
            f"make_solver: unknown option(s) {', '.join(sorted(unknown))}; a postflop spot "
            "takes threads=, compressed= and average="
        )
    other = sorted(given)
    if other:
        raise PokerlabError(
            f"make_solver({name!r}) on a postflop spot does not use option(s) "
            f"{', '.join(other)}; its options are threads=, compressed= and average="
        )
    game.check_memory(compressed=compressed)
    solver: Any = PostflopSolver(
        game,
        name,
        threads=1 if threads is None else threads,
        compressed=compressed,
        average=average,
    )
    return solver


def _restore_compiled(state: dict, game: Any, cache: bool) -> Solver:
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


def _restore_postflop(state: dict, game: Any, cache: bool) -> Solver:
    from pokerlab.games.postflop.game import PostflopGame
    from pokerlab.solvers.postflop import PostflopSolver

    if game is None:
        game = PostflopGame(**state["game_params"])  # the file layout (+ isomorphism when off)
    compressed = bool((state.get("config") or {}).get("compressed", False))
    solver: Any = PostflopSolver(game, state["algorithm"], compressed=compressed)
    solver.load_state_dict(state)
    return solver


def _restore_postflop_mccfr(state: dict, game: Any, cache: bool) -> Solver:
    from pokerlab.solvers.postflop_mccfr_setup import restore_postflop_mccfr

    solver: Any = restore_postflop_mccfr(state, game)
    return solver


def _restore_bucketed(state: dict, game: Any, cache: bool) -> Solver:
    from pokerlab.solvers.limit_base import state_family

    if state_family(state) is None:
        raise PokerlabError(
            f"a limit hold'em state of format {state.get('format')!r} is not restored: only "
            "the limit solvers' states (representation 'bucketed'; older: limit-pcs, "
            "limit-es) are"
        )
    # its game has no history tree to compile (the full deck's would never finish): the limit
    # solvers restore on the betting tree
    from pokerlab.solvers.limit_checkpoint import restore_limit_solver

    solver: Any = restore_limit_solver(state, game, cache=cache)
    return solver


def _restore_bucketed_sampling(state: dict, game: Any, cache: bool) -> Solver:
    """External sampling on the betting tree: a state in the engine's schema (algorithm
    ``es-mccfr``) restores through :func:`~pokerlab.solvers.limit_mccfr.restore_limit_es`;
    older states as every limit state."""
    if str(state.get("format", "")).startswith("limit-"):
        return _restore_bucketed(state, game, cache)
    from pokerlab.solvers.limit_mccfr import restore_limit_es

    solver: Any = restore_limit_es(state, game, cache=cache)
    return solver


@dataclass(frozen=True)
class SolverFamily:
    """One entry of :data:`SOLVER_FAMILIES`: how a backend kind makes a solver for a game
    (``make(game, algorithm, name, threads, given options, unknown options)``) and restores one
    from a state (``restore(state, game or None, cache)``)."""

    make: Callable[..., Solver]
    restore: Callable[[dict, Any, bool], Solver]


#: The one registry of :func:`make_solver` and :func:`restore_solver`: (backend kind, sampling)
#: -> family. Backend kinds: ``"compiled"`` (the public and history trees), ``"vector"``
#: (postflop spots), ``"bucketed"`` (limit hold'em's betting tree on a card abstraction).
SOLVER_FAMILIES: dict[tuple[str, bool], SolverFamily] = {
    ("compiled", False): SolverFamily(_make_compiled, _restore_compiled),
    ("compiled", True): SolverFamily(_make_compiled, _restore_compiled),
    ("vector", False): SolverFamily(_postflop_solver, _restore_postflop),
    ("vector", True): SolverFamily(_make_postflop_mccfr, _restore_postflop_mccfr),
    ("bucketed", False): SolverFamily(_make_bucketed, _restore_bucketed),
    ("bucketed", True): SolverFamily(_make_bucketed, _restore_bucketed_sampling),
}


def backend_kind(game: Any) -> str:
    """The backend kind a game's solvers run on (the key of :data:`SOLVER_FAMILIES`)."""
    base = game.game if isinstance(game, CompiledGame) else game
    name = getattr(base, "name", None)
    if name == "postflop":
        return "vector"
    if name == "limit-holdem":
        return "bucketed"
    return "compiled"


def state_backend_kind(state: dict) -> str:
    """The backend kind of a solver state (a loaded checkpoint)."""
    limit = str(state.get("format", "")).startswith("limit-")
    if limit or state.get("representation") == "bucketed" or state.get("game") == "limit-holdem":
        return "bucketed"
    if state.get("representation") == "vector":
        return "vector"
    return "compiled"
