"""Making and restoring :class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR` from the
options of :func:`~pokerlab.solvers.factory.make_solver` and from a checkpoint's state."""

from __future__ import annotations

from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.options import inapplicable_options
from pokerlab.solvers.postflop_mccfr import POSTFLOP_MCCFR_ALGORITHMS, PostflopMCCFR
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name

__all__ = ["make_postflop_mccfr", "restore_postflop_mccfr"]


def make_postflop_mccfr(
    game: Any,
    name: str,
    *,
    threads: int | None = None,
    unknown: dict[str, object] | None = None,
    **given: Any,
) -> PostflopMCCFR:
    """:func:`~pokerlab.solvers.factory.make_solver` for a sampling algorithm on a postflop spot.

    ``given`` holds only the options the caller set. The options of
    :class:`~pokerlab.solvers.mccfr.MCCFRSolver` apply, checked by the same rules (refused by
    name where the variant would not use them); ``representation`` may only be ``"vector"``;
    outcome sampling is refused (it is not implemented on the vector tree); ``threads`` sets the
    threads of the exploitability passes. The memory check of
    :meth:`PostflopGame.check_memory` runs first.
    """
    from pokerlab.tree.compiled import CompiledGame

    if isinstance(game, CompiledGame):
        game = game.game
    if not isinstance(game, PostflopGame):
        raise PokerlabError("make_postflop_mccfr needs a postflop game")
    if name not in POSTFLOP_MCCFR_ALGORITHMS:
        raise PokerlabError(
            f"make_solver({name!r}): postflop spots have chance and external sampling "
            f"({', '.join(POSTFLOP_MCCFR_ALGORITHMS)}), not {name!r}"
        )
    if unknown:
        raise PokerlabError(
            f"make_solver: unknown option(s) {', '.join(sorted(unknown))} for {name!r} on a "
            "postflop spot"
        )
    options = dict(given)
    representation = options.pop("representation", "vector")
    bad = inapplicable_options(name, options)
    if representation != "vector":
        bad["representation"] = "Monte Carlo CFR on a postflop spot runs on its vector tree"
    if bad:
        reasons = "; ".join(f"{option} ({why})" for option, why in bad.items())
        raise PokerlabError(f"make_solver({name!r}) does not use option(s) {reasons}")
    schedule = options.get("schedule")
    linear_until = options.get("linear_until")
    linear_seconds = options.get("linear_seconds")
    if isinstance(schedule, DiscountSchedule):
        sched = schedule
    else:
        default = "linear" if linear_until is not None or linear_seconds is not None else "cfr"
        exponents = {k: options[k] for k in ("alpha", "beta", "gamma") if k in options}
        sched = schedule_by_name(schedule or default, **exponents)
    if linear_until is not None:
        sched = sched.with_linear_until(linear_until)
    prob = options.get("prune_probability")
    every = options.get("discount_every")
    check_memory = getattr(game, "check_memory", None)
    if check_memory is not None:
        check_memory()
    return PostflopMCCFR(
        game,
        name,
        schedule=sched,
        seed=options.get("seed", 0),
        prune=bool(options.get("regret_pruning")),
        prune_threshold=options.get("prune_threshold"),
        prune_probability=0.95 if prob is None else prob,
        min_regret=options.get("min_regret"),
        discount_every=100 if every is None else every,
        linear_seconds=linear_seconds,
        threads=1 if threads is None else threads,
    )


def restore_postflop_mccfr(
    state: dict[str, Any], game: PostflopGame | None = None
) -> PostflopMCCFR:
    """The solver of a :meth:`PostflopMCCFR.state_dict` (for example a loaded checkpoint), its
    spot rebuilt from the state's parameters unless ``game`` is given."""

    if game is None:
        iso = bool(state.get("config", {}).get("isomorphism", True))
        params = dict(state["game_params"])  # the file layout, with isomorphism when off
        params.setdefault("isomorphism", iso)
        game = PostflopGame(**params)
    solver = PostflopMCCFR.from_config(game, state["algorithm"], state.get("config", {}))
    solver.load_state_dict(state)
    return solver
