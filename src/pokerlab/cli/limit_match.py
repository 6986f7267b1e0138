"""``pokerlab duplicate limit-holdem`` (issue 10; ``pokerlab play`` is :mod:`pokerlab.cli.play`).

``duplicate`` trains an abstract strategy (the options of ``pokerlab train``) or loads a training
checkpoint, then plays duplicate matches against the simple bots (always call, always raise, the
E[HS] rule player) and any other checkpoints given with ``--against``, and reports the agent's
result in mbb/g with a 95% confidence interval (:mod:`pokerlab.evaluate.limit_matches`). (The
name ``match`` is the push/fold simulator's, :mod:`pokerlab.cli.pushfold`.)
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer

from pokerlab.cli.app import app
from pokerlab.errors import PokerlabError

_BOT_NAMES = {"call": "always-call", "raise": "always-raise", "ehs": "ehs-rule"}


def _check_game(name: str, command: str) -> None:
    if name.lower() != "limit-holdem":
        raise PokerlabError(f"{command}: only limit-holdem is played here, got {name!r}")


def _parse_opponents(text: str) -> list[str]:
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    for name in names:
        if name not in _BOT_NAMES:
            raise PokerlabError(
                f"--opponents: unknown bot {name!r}; known: {', '.join(_BOT_NAMES)}"
            )
    return names


def _make_bot(name: str, game: Any, raise_above: float, call_above: float) -> Any:
    from pokerlab.evaluate import limit_matches as M

    if name == "ehs":
        return M.ehs_rule(game, raise_above, call_above)
    return M.BOTS[name](game)


def _bot(bot: str, variant: str) -> tuple[Any, Any]:
    """The limit game of ``variant`` and the simple bot named ``bot`` (``--bot``) playing it."""
    from pokerlab.games.registry import load_game

    key = str(bot).lower()
    if key not in _BOT_NAMES:
        raise PokerlabError(f"--bot: unknown bot {bot!r}; known: {', '.join(_BOT_NAMES)}")
    game = load_game("limit-holdem", variant=variant)
    return game, _make_bot(key, game, 0.65, 0.45)


def _load(path: Path, option: str) -> tuple[Any, Any]:
    from pokerlab.io.paths import check_input_file
    from pokerlab.solvers.factory import load_limit_checkpoint

    return load_limit_checkpoint(check_input_file(path, option))


@app.command()
def duplicate(
    game_name: str = typer.Argument(..., metavar="GAME", help="limit-holdem or nolimit-holdem"),
    checkpoint: Path | None = typer.Option(
        None, "--checkpoint", help="a `pokerlab train` checkpoint (else train here)"
    ),
    variant: str = typer.Option("small", "--variant", help="deck when training: small, tiny"),
    buckets: str = typer.Option("8,8,8,8", "--buckets", help="buckets per round a,b,c,d"),
    bucketing: str = typer.Option("ehs", "--bucketing", help="ehs, ehs2 or emd"),
    recall: str = typer.Option("imperfect", "--recall", help="perfect or imperfect"),
    iterations: int | None = typer.Option(None, "--iterations", "-n", min=1),
    seconds: float | None = typer.Option(None, "--seconds", min=0.0),
    seed: int = typer.Option(0, "--seed", help="training seed"),
    opponents: str = typer.Option("call,raise,ehs", "--opponents", help="bots: call,raise,ehs"),
    against: list[Path] = typer.Option(
        [], "--against", help="another checkpoint to play (repeatable)"
    ),
    pairs: int = typer.Option(
        10_000,
        "--pairs",
        min=2,
        max=10_000_000,  # about 400 bytes of deals per pair are held at once
        help="duplicate pairs per opponent",
    ),
    match_seed: int = typer.Option(0, "--match-seed", min=0, help="seed of the deals"),
    raise_above: float = typer.Option(0.65, "--raise-above", help="E[HS] bot: bet/raise from"),
    call_above: float = typer.Option(0.45, "--call-above", help="E[HS] bot: call from"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Duplicate matches of a trained limit hold'em strategy against simple bots (mbb/g, 95% CI)."""
    from pokerlab.evaluate.limit_matches import duplicate_match, strategy_agent

    if game_name.lower() == "nolimit-holdem":
        from pokerlab.cli.nolimit_judge import nolimit_duplicate

        opponents_nl = [p.strip() for p in opponents.split(",") if p.strip()]
        nolimit_duplicate(checkpoint, opponents_nl, against, pairs, match_seed, as_json)
        return
    _check_game(game_name, "duplicate")
    names = _parse_opponents(opponents)
    if not names and not against:
        raise PokerlabError("duplicate: no opponents (give --opponents or --against)")
    t0 = time.perf_counter()
    if checkpoint is not None:
        game, solver = _load(checkpoint, "--checkpoint")
        training = {"checkpoint": str(checkpoint), "train_seconds": 0.0}
    else:
        game, solver = _train(variant, buckets, bucketing, recall, iterations, seconds, seed)
        training = {"checkpoint": None, "train_seconds": time.perf_counter() - t0}
    agent = strategy_agent(solver.average_strategy(), name="agent")
    opponents_list = [_make_bot(name, game, raise_above, call_above) for name in names]
    for path in against:
        other_game, other = _load(path, "--against")
        if other_game.rules != game.rules:
            raise PokerlabError(f"--against {path}: a checkpoint of another deck or rules")
        opponents_list.append(strategy_agent(other.average_strategy(), name=str(path)))
    results = []
    for opponent in opponents_list:
        results.append(duplicate_match(game, agent, opponent, pairs, seed=match_seed))
    out = {
        "game": "limit-holdem",
        "variant": game.variant,
        "ranks": game.rules.ranks,
        "buckets": list(solver.abstraction.buckets),
        "bucketing": solver.abstraction.method,
        "recall": solver.recall,
        "iterations": solver.iterations,
        **training,
        "pairs": pairs,
        "match_seed": match_seed,
        "results": [r.as_dict() for r in results],
    }
    if as_json:
        typer.echo(json.dumps(out))
        return
    where = f"checkpoint {checkpoint}" if checkpoint is not None else "trained here"
    counts = ",".join(map(str, solver.abstraction.buckets))
    typer.echo(
        f"limit-holdem {game.variant} ({game.rules.num_cards} cards): agent "
        f"{solver.abstraction.method} buckets {counts} {solver.recall} recall, "
        f"{solver.iterations} iterations ({where})"
    )
    typer.echo(
        f"duplicate matches: {pairs:,} pairs ({2 * pairs:,} games) each, seed {match_seed}; "
        "the agent's result in mbb/g with a 95% interval"
    )
    width = max(len(r.opponent) for r in results)
    for r in results:
        low, high = r.interval
        typer.echo(
            f"  vs {r.opponent:<{width}}  {r.mbb_per_game:+9.1f} +- {r.ci95_mbb:6.1f}  "
            f"[{low:+.1f}, {high:+.1f}]"
        )


def _train(
    variant: str,
    buckets: str,
    bucketing: str,
    recall: str,
    iterations: int | None,
    seconds: float | None,
    seed: int,
) -> tuple[Any, Any]:
    from pokerlab.abstraction.buckets import METHODS, build_abstraction
    from pokerlab.cli.train import _parse_buckets
    from pokerlab.games.registry import load_game
    from pokerlab.solvers.limit_holdem import LimitPCSSolver

    counts = _parse_buckets(buckets)
    if recall not in ("perfect", "imperfect"):
        raise PokerlabError(f"--recall must be perfect or imperfect, got {recall!r}")
    if bucketing.lower() not in METHODS:
        raise PokerlabError(f"unknown bucketing {bucketing!r}; known: {', '.join(METHODS)}")
    game = load_game("limit-holdem", variant=variant)
    abstraction = build_abstraction(game.rules.ranks, counts, bucketing, seed=seed)
    solver = LimitPCSSolver(game, abstraction, recall=recall, seed=seed)
    if iterations is None and seconds is None:
        iterations = 100
    solver.solve(iterations=iterations, seconds=seconds)
    return game, solver
