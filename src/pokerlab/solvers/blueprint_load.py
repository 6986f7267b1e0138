"""Reading a checkpoint of ``pokerlab blueprint train`` back as the agent it trained (issue 24):
the game it names, its card abstraction (lossless, or rebuilt from the bucketing, bucket counts
and seed it records) and the average strategy of the restored solver
(:func:`~pokerlab.solvers.blueprint.restore_blueprint`). Used by the blueprint commands and the
viewer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = ["load_blueprint"]


def load_blueprint(path: str | Path, label: str = "CHECKPOINT") -> tuple[Any, Any]:
    """The :class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent` of the blueprint
    checkpoint at ``path`` and its no-limit game; errors name ``label`` and the file (a missing
    file, a damaged one, or a checkpoint of another game or algorithm)."""
    from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
    from pokerlab.games.registry import load_game
    from pokerlab.io.files import load_checkpoint
    from pokerlab.io.paths import check_input_file
    from pokerlab.solvers.blueprint import lossless_abstraction, restore_blueprint

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
