"""Restoring a limit hold'em training run from its state (``pokerlab train limit-holdem
--checkpoint``): the solver the state names (public chance sampling, ``limit-pcs``; external
sampling, ``limit-es``) on the game and card abstraction its fields name. Reached through
:func:`pokerlab.solvers.factory.restore_solver` (and
:func:`~pokerlab.solvers.factory.load_limit_checkpoint`, which reads the file first), like every
other solver's state."""

from __future__ import annotations

from typing import Any

from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.games.registry import load_game

__all__ = ["LIMIT_FORMATS", "restore_limit_solver"]

#: State formats of the limit hold'em solvers.
LIMIT_FORMATS = ("limit-pcs", "limit-es")


def restore_limit_solver(
    state: dict[str, Any], game: LimitHoldemGame | None = None, *, cache: bool = True
) -> Any:
    """A :class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver` (or, for an external-sampling
    run, a :class:`~pokerlab.solvers.limit_mccfr.LimitESSolver`) in the state ``state`` (a
    loaded checkpoint). ``game``: the limit hold'em game (default: the variant and deck the
    state names); the abstraction is rebuilt, or read from the cache (``cache``), from the
    state's fields. Refuses another format by name."""
    fmt = state.get("format")
    if fmt not in LIMIT_FORMATS:
        raise PokerlabError(f"not a limit hold'em training state (format {fmt!r})")
    if game is None:
        variant = state.get("variant", "full")
        game = load_game("limit-holdem", variant=variant)
        if game.rules.ranks != int(state["ranks"]):
            game = load_game("limit-holdem", variant=variant, ranks=int(state["ranks"]))
    abstraction = build_abstraction(
        game.rules.ranks,
        tuple(state["buckets"]),
        state["bucketing"],
        seed=int(state.get("seed", 0)),
        cache=cache,
    )
    solver: Any
    if fmt == "limit-es":  # external sampling: its options are part of the run
        from pokerlab.solvers.limit_mccfr import LimitESSolver

        solver = LimitESSolver(
            game,
            abstraction,
            recall=state["recall"],
            algorithm=state["schedule"],
            discount_every=int(state["discount_every"]),
            regret_pruning=bool(state["regret_pruning"]),
            prune_threshold=float(state["prune_threshold"]),
            prune_probability=float(state["prune_probability"]),
            min_regret=state["min_regret"],
        )
    else:
        from pokerlab.solvers.limit_holdem import LimitPCSSolver

        solver = LimitPCSSolver(
            game,
            abstraction,
            recall=state["recall"],
            algorithm=state["schedule"],
            seed=0,
            boards_per_iteration=int(state.get("boards_per_iteration", 1)),
            chance=str(state.get("chance", "sampled")),
        )
    solver.load_state_dict(state)
    return solver
