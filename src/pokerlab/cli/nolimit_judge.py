"""``pokerlab lbr nolimit-holdem`` and ``pokerlab duplicate nolimit-holdem`` (issue 24): the
top-level judging commands on a no-limit blueprint checkpoint, with the limit commands' bot
names (``call``: always-call, ``raise``: pot-raise, ``ehs``: the E[HS] rule bot).

The work is :mod:`pokerlab.cli.blueprint_eval`'s (agents from checkpoints, the game from the
checkpoint, the same checks); ``pokerlab blueprint lbr | match`` offer every option (LBR's
actions and rounds, tables from configurations).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from pokerlab.errors import PokerlabError

__all__ = ["BOTS", "nolimit_duplicate", "nolimit_lbr"]

#: The limit commands' bot names and the no-limit agents they stand for.
BOTS = {"call": "always-call", "raise": "pot-raise", "ehs": "rule"}


def _bot(name: str) -> str:
    key = name.strip().lower()
    if key not in BOTS:
        raise PokerlabError(f"unknown bot {name!r} for nolimit-holdem; known: {', '.join(BOTS)}")
    return BOTS[key]


def nolimit_lbr(
    checkpoint: Path | None, bot: str | None, pairs: int, seed: int, as_json: bool
) -> None:
    """LBR (fcpa, rounds 3-4) against a checkpoint or a bot on its table (a bot: hunl-100)."""
    from pokerlab.cli.blueprint_eval import lbr

    if (checkpoint is None) == (bot is None):
        raise PokerlabError("lbr: give exactly one of --checkpoint PATH or --bot NAME")
    agent = str(checkpoint) if checkpoint is not None else _bot(str(bot))
    lbr(agent, None, pairs, "fcpa", "3-4", seed, as_json)


def nolimit_duplicate(
    checkpoint: Path | None, opponents: list[str], against: list[Path], pairs: int, seed: int,
    as_json: bool,
) -> None:  # fmt: skip
    """Duplicate matches of a checkpoint against each bot and each ``against`` checkpoint on the
    checkpoint's table: one line (or one JSON object with ``results``) for all."""
    from pokerlab.cli.blueprint_eval import _check_same, load_agent
    from pokerlab.evaluate.nolimit import duplicate_match

    if checkpoint is None:
        raise PokerlabError(
            "duplicate nolimit-holdem needs --checkpoint (train one with pokerlab blueprint train)"
        )
    hero, game = load_agent(str(checkpoint), "--checkpoint")
    assert game is not None  # a checkpoint names its game
    rivals: list[Any] = [load_agent(_bot(name), "--opponents")[0] for name in opponents]
    for path in against:
        agent, other = load_agent(str(path), "--against")
        _check_same("--against", str(path), other, f"--checkpoint {str(checkpoint)!r}", game.rules)
        rivals.append(agent)
    if not rivals:
        raise PokerlabError("duplicate: no opponents (give --opponents or --against)")
    results = [duplicate_match(game.rules, hero, r, pairs, seed) for r in rivals]
    if as_json:
        out = {"game": "nolimit-holdem", "checkpoint": str(checkpoint), "pairs": pairs,
               "seed": seed, "results": [r.as_dict() for r in results]}  # fmt: skip
        typer.echo(json.dumps(out))
        return
    typer.echo(
        f"nolimit-holdem: {checkpoint} in duplicate matches, {pairs:,} pairs each, seed {seed}; "
        "its result in mbb/g with a 95% interval"
    )
    width = max(len(r.opponent) for r in results)
    for r in results:
        typer.echo(f"  vs {r.opponent:<{width}}  {r.mbb_per_game:+9.1f} +- {r.ci95_mbb:6.1f}")
