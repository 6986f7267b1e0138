"""Resuming a run from its checkpoint, with the checks that it is the run asked for."""

from __future__ import annotations

import os
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = ["canonical_algorithm", "resume_solver"]


def canonical_algorithm(name: str) -> str:
    """The algorithm name ``make_solver`` resolves ``name`` to (aliases such as "es" mapped)."""
    from pokerlab.solvers import factory

    key = name.lower().strip()
    return getattr(factory, "_ALIASES", {}).get(key, key)


def resume_solver(
    path: str | os.PathLike[str],
    *,
    game_name: str | None = None,
    game_params: dict[str, Any] | None = None,
    algorithm: str | None = None,
    seed: int | None = None,
    game: Any | None = None,
) -> Any:
    """The solver saved in checkpoint ``path``, after checking it is the run asked for.

    Each of ``game_name``, ``game_params``, ``algorithm`` (aliases allowed) and ``seed`` that is
    given must equal the checkpoint's; a conflict is refused with
    :class:`~pokerlab.errors.PokerlabError` naming both values (a resumed run cannot change them).
    ``game`` is needed only for games outside the registry.
    """
    from pokerlab.io.files import load_checkpoint
    from pokerlab.solvers.factory import restore_solver

    where = f"checkpoint {str(path)!r}"
    state = load_checkpoint(path)
    if game_name is not None and state["game"] != game_name.lower().strip():
        raise PokerlabError(f"{where} is for game {state['game']!r}, not {game_name!r}")
    if game_params and state.get("game_params") != game_params:
        raise PokerlabError(
            f"{where} is for game parameters {state.get('game_params')}, not {game_params}"
        )
    if algorithm is not None and canonical_algorithm(algorithm) != state["algorithm"]:
        raise PokerlabError(
            f"{where} was made by {state['algorithm']!r}; algorithm {algorithm!r} conflicts "
            "(leave it out to resume)"
        )
    saved_seed = state.get("config", {}).get("seed", state.get("seed"))
    if seed is not None and saved_seed != seed:
        had = "no seed (a deterministic solver)" if saved_seed is None else f"seed {saved_seed}"
        raise PokerlabError(f"{where} has {had}; seed {seed} conflicts (leave it out to resume)")
    return restore_solver(state, game)
