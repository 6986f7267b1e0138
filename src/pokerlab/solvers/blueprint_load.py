"""Reading a blueprint back (issue 24): a :class:`~pokerlab.solvers.blueprint.BlueprintSolver`
from its state (:func:`restore_blueprint`, with overrides of its options), and a checkpoint of
``pokerlab blueprint train`` as the agent it trained (:func:`load_blueprint`: the game it names,
its card abstraction, lossless (:func:`lossless_abstraction`) or rebuilt from the bucketing,
bucket counts and seed it records, and the restored solver's average strategy). Used by the
blueprint commands and the viewer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.solvers.schedule import DiscountSchedule

if TYPE_CHECKING:
    from pokerlab.games.nolimit.game import NoLimitHoldemGame
    from pokerlab.solvers.blueprint import BlueprintSolver

__all__ = ["load_blueprint", "lossless_abstraction", "restore_blueprint"]


def load_blueprint(path: str | Path, label: str = "CHECKPOINT") -> tuple[Any, Any]:
    """The :class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent` of the blueprint
    checkpoint at ``path`` and its no-limit game; errors name ``label`` and the file (a missing
    file, a damaged one, or a checkpoint of another game or algorithm)."""
    from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
    from pokerlab.games.registry import load_game
    from pokerlab.io.files import load_checkpoint
    from pokerlab.io.paths import check_input_file

    path = Path(path)
    token = str(path)
    check_input_file(path, label)
    try:
        state = load_checkpoint(path)
    except PokerlabError as exc:
        raise PokerlabError(f"{label} {token!r}: {exc}") from None
    if state.get("game") != "nolimit-holdem" or state.get("algorithm") != "es-mccfr":
        raise PokerlabError(
            f"{label} {token!r} is not a no-limit blueprint checkpoint (game "
            f"{state.get('game')!r}, algorithm {state.get('algorithm')!r})"
        )
    game = load_game("nolimit-holdem", **state["game_params"])
    config = state["config"]
    if config["bucketing"] == "lossless":
        abstraction = lossless_abstraction(int(config["ranks"]))
    else:
        abstraction = game.card_abstraction(  # type: ignore[attr-defined]
            config["bucketing"],
            buckets=tuple(int(b) for b in config["buckets"]),
            seed=int(state.get("seed", 0)),
        ).abstraction
    extra = state.get("extra") or {}
    if "workers" in extra:
        # a run on batched workers (threads or Ray) reads as its head's arrays: the strategy is
        # the same, and the workers' generator states matter only to resume the run
        kept = {k: v for k, v in extra.items() if k not in ("workers", "batch")}
        state = {**state, "extra": kept}
    solver = restore_blueprint(state, abstraction, game)  # type: ignore[arg-type]
    agent = BlueprintAgent(solver.average_strategy(), abstraction, name=path.name)
    return agent, game


def restore_blueprint(
    state: dict[str, Any],
    abstraction: CardAbstraction,
    game: NoLimitHoldemGame | None = None,
    **overrides: Any,
) -> BlueprintSolver:
    """The :class:`BlueprintSolver` of a state of :meth:`BlueprintSolver.state_dict` (for
    example a loaded checkpoint) with ``abstraction`` (the one it was trained with: its buckets
    and method are checked): the game from ``game_params`` unless ``game`` is given, the options
    from the state's ``config``. ``overrides`` (constructor options, e.g. ``regret_pruning=True``
    to start pruning as Pluribus did after a while) change the run's options: the state's arrays
    and counters are kept."""
    from pokerlab.games.registry import load_game
    from pokerlab.solvers.blueprint import BlueprintSolver

    if state.get("algorithm") != "es-mccfr" or state.get("game") != "nolimit-holdem":
        raise PokerlabError(
            f"not a no-limit blueprint state (game {state.get('game')!r}, algorithm "
            f"{state.get('algorithm')!r})"
        )
    config = state["config"]
    if game is None:
        game = load_game("nolimit-holdem", **state["game_params"])  # type: ignore[assignment]
    schedule = DiscountSchedule(**config["schedule"])
    options: dict[str, Any] = {
        "recall": config["recall"],
        "averages": config["averages"],
        "algorithm": schedule,
        "linear_seconds": config["linear_seconds"],
        "discount_every": int(config["discount_every"]),
        "regret_pruning": bool(config["prune"]),
        "prune_threshold": float(config["prune_threshold"]),
        "prune_probability": float(config["prune_probability"]),
        "min_regret": config["min_regret"],
        "snapshot_every": config.get("snapshot_every"),
        "snapshot_after": int(config.get("snapshot_after", 0)),
        "regrets": config.get("regrets", "float32"),
        "lazy": bool(config.get("lazy", False)),
    }
    if "regret_pruning" in overrides and "min_regret" not in overrides:
        options["min_regret"] = None  # the floor follows the new pruning setting
    options.update(overrides)
    solver = BlueprintSolver(game, abstraction, **options)  # type: ignore[arg-type]
    if overrides:
        state = {**state, "config": solver._config()}
    solver.load_state_dict(state)
    return solver


def lossless_abstraction(ranks: int) -> CardAbstraction:
    """One bucket per suit-isomorphism class of each round (hole cards and board up to a
    permutation of the suits, :func:`pokerlab.abstraction.isomorphism.round_indexer`): the
    abstraction that loses nothing, for exact checks on small decks (method ``"lossless"``)."""
    from pokerlab.abstraction.isomorphism import round_indexer

    sizes = tuple(int(round_indexer(r, ranks).size) for r in range(4))
    labels = [np.arange(n, dtype=np.int32) for n in sizes]
    return CardAbstraction(ranks, "lossless", sizes, labels)  # type: ignore[arg-type]
