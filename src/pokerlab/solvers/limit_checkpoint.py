"""Restoring a limit hold'em training run from its state (``pokerlab train limit-holdem
--checkpoint``): the solver the state names (public chance sampling; external sampling) on the
game and card abstraction its fields name. States in the engine's schema (``format``
:data:`~pokerlab.solvers.base.STATE_FORMAT`, representation ``"bucketed"``, the run's identity
in ``config``) and the older flat ones (``format`` ``limit-pcs`` or ``limit-es``) both load.
Reached through :func:`pokerlab.solvers.factory.restore_solver` (and
:func:`~pokerlab.solvers.factory.load_limit_checkpoint`, which reads the file first), like every
other solver's state."""

from __future__ import annotations

from typing import Any

from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.games.registry import load_game
from pokerlab.solvers.base import STATE_FORMAT
from pokerlab.solvers.limit_base import state_family

__all__ = ["LIMIT_FORMATS", "restore_limit_solver"]

#: State formats of the limit hold'em solvers before the engine's schema (still loaded).
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
    family = state_family(state)
    if fmt not in LIMIT_FORMATS and not (fmt == STATE_FORMAT and family is not None):
        raise PokerlabError(f"not a limit hold'em training state (format {fmt!r})")
    # the run's identity: in the config (the engine's schema) or flat (older states)
    fields = {**state, **state["config"]} if fmt == STATE_FORMAT else state
    if game is None:
        params = dict(state.get("game_params") or {"variant": state.get("variant", "full")})
        game = load_game("limit-holdem", **params)
        if game.rules.ranks != int(fields["ranks"]):
            game = load_game("limit-holdem", **{**params, "ranks": int(fields["ranks"])})
    abstraction = build_abstraction(
        game.rules.ranks,
        tuple(fields["buckets"]),
        fields["bucketing"],
        seed=int(state.get("seed", 0)),
        cache=cache,
    )
    solver: Any
    if family == "limit-es":  # external sampling: its options are part of the run
        from pokerlab.solvers.limit_mccfr import LimitESSolver

        solver = LimitESSolver(
            game,
            abstraction,
            recall=fields["recall"],
            algorithm=fields["schedule"],
            discount_every=int(fields["discount_every"]),
            regret_pruning=bool(fields["regret_pruning"]),
            prune_threshold=float(fields["prune_threshold"]),
            prune_probability=float(fields["prune_probability"]),
            min_regret=fields["min_regret"],
        )
    else:
        from pokerlab.solvers.limit_holdem import LimitPCSSolver

        solver = LimitPCSSolver(
            game,
            abstraction,
            recall=fields["recall"],
            algorithm=fields["schedule"],
            seed=0,
            boards_per_iteration=int(fields.get("boards_per_iteration", 1)),
            chance=str(fields.get("chance", "sampled")),
        )
    solver.load_state_dict(state)
    return solver
