"""The files of a finished genetic search (SPEC 5.5): the JSON summary, the best strategy (a
pokerlab strategy file and class maps), the pictures of :mod:`pokerlab.evolve.pictures` and a
match's curve, each written atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.deck import N_CLASSES, class_name
from pokerlab.evolve.judgement import EvolutionResult
from pokerlab.evolve.pictures import (
    animate_simple,
    animate_tables,
    plot_fitness_curve,
    plot_simple_strip,
    plot_table_strip,
    plot_tables,
)
from pokerlab.io.atomic import atomic_write_bytes

__all__ = ["save_run"]


def _strategy_json(result: EvolutionResult) -> list[tuple[str, dict[str, Any]]]:
    """The best strategy as ``sb_shove`` / ``bb_call`` class maps (one file per stack)."""
    from pokerlab.analysis.pushfold import class_frequencies, shove_call_arrays

    sb, bb = shove_call_arrays(result.best_strategy())
    game = result.config.game()
    out = []
    for k, stack in enumerate(game.stacks):
        sbf, bbf = class_frequencies(sb[k]), class_frequencies(bb[k])
        data = {
            "stack_bb": stack,
            "sb_shove": {class_name(c): float(sbf[c]) for c in range(N_CLASSES)},
            "bb_call": {class_name(c): float(bbf[c]) for c in range(N_CLASSES)},
        }
        name = "best_strategy.json" if not game.variable else f"best_strategy_{stack:g}bb.json"
        out.append((name, data))
    return out


def save_run(
    result: EvolutionResult,
    out: str | os.PathLike[str],
    *,
    match_hands: int = 20_000,
    match_count: int = 3,
    gif: bool = True,
) -> dict[str, str]:
    """Write a finished run's pictures, JSON summary and best strategy into folder ``out``.

    Files: ``summary.json``; ``best_strategy.npz`` (a pokerlab strategy file of the combo game,
    loadable by ``pokerlab pushfold --best-response`` for fixed-stack players) and
    ``best_strategy.json`` (``sb_shove`` / ``bb_call`` maps; one ``best_strategy_<S>bb.json`` per
    stack for variable-stack players); ``fitness.png``; ``match.png`` (the best player against the
    opponent in adaptive mode, else against the CFR equilibrium: ``match_count`` seeded matches of
    ``match_hands`` hands); simple players: ``population.png`` and ``population.gif``; table
    players: ``tables.png``, ``population.png`` and ``population.gif``.
    Returns {kind: path}.
    """
    from pokerlab.analysis.pushfold import shove_call_arrays, strategy_from_spec
    from pokerlab.evaluate.matches import PushFoldPlayer, play_matches
    from pokerlab.plots.grids import plot_match_curve
    from pokerlab.saving import save_strategy

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    config = result.config
    files: dict[str, str] = {}

    strategy = result.best_strategy()
    npz = folder / "best_strategy.npz"
    save_strategy(
        npz,
        strategy,
        algorithm=f"genetic ({config.players} players, {config.mode})",
        iterations=result.generations,
        seed=config.seed,
        exploitability=result.judgement.exploitability_bb,
    )
    files["strategy"] = str(npz)
    for name, data in _strategy_json(result):
        path = folder / name
        atomic_write_bytes(path, (json.dumps(data, indent=2) + "\n").encode())
        files.setdefault("strategy_json", str(path))

    title = f"{config.players} players, {config.mode}" + (
        f" vs {config.opponent}" if config.opponent else ""
    )
    plot_fitness_curve(result.history, folder / "fitness.png", title=title)
    files["fitness"] = str(folder / "fitness.png")

    if config.players == "simple":
        marks = {
            "CFR equilibrium": (result.equilibrium_shove_fraction, result.equilibrium_call_fraction)
        }
        plot_simple_strip(result.history, folder / "population.png", marks)
        files["population"] = str(folder / "population.png")
        if gif:
            animate_simple(result.history, folder / "population.gif", marks)
            files["animation"] = str(folder / "population.gif")
    else:
        plot_tables(result, folder / "tables.png")
        files["tables"] = str(folder / "tables.png")
        plot_table_strip(result.history, folder / "population.png", config.players)
        files["population"] = str(folder / "population.png")
        if gif:
            animate_tables(result.history, folder / "population.gif", config.players)
            files["animation"] = str(folder / "population.gif")

    game = config.game()
    if config.opponent:
        other = strategy_from_spec(config.opponent, game)
        other_name = config.opponent
    else:
        from pokerlab.evolve.judgement import _equilibrium

        other = _equilibrium(config).strategy
        other_name = "CFR equilibrium"
    stacks = np.asarray(game.stacks, dtype=np.float64)
    a = PushFoldPlayer(*shove_call_arrays(strategy), stacks, name="best")
    b = PushFoldPlayer(*shove_call_arrays(other), stacks, name=other_name)
    series = play_matches(
        a,
        b,
        match_hands,
        float(stacks.max()),
        match_count,
        ante_bb=config.ante_bb,
        seed=config.seed,
    )
    plot_match_curve(
        [m.running_bb_per_hand for m in series.matches],
        folder / "match.png",
        title=f"best player vs {other_name}, {stacks.max():g} bb",
    )
    files["match"] = str(folder / "match.png")

    summary = result.to_dict()
    summary["match_vs"] = {"opponent": other_name, **series.to_dict()}
    summary["files"] = {k: os.path.basename(v) for k, v in files.items()}
    summary_path = folder / "summary.json"
    atomic_write_bytes(summary_path, (json.dumps(_clean(summary), indent=2) + "\n").encode())
    files["summary"] = str(summary_path)
    return files


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        return _clean(value.item())
    return value
