"""``pokerlab lbr limit-holdem``: local best response against a limit hold'em agent (issue 10).

Plays LBR (Lisy and Bowling 2017; :mod:`pokerlab.evaluate.limit_lbr`) against a training
checkpoint's strategy (``--checkpoint``) or a simple bot (``--bot call|raise|ehs`` on
``--variant``), ``--pairs`` duplicate pairs of games, and prints LBR's mean winnings in mbb/g with
a 95% interval: a lower bound on the agent's exploitability. ``--json`` prints one object.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

from pokerlab.cli.app import app
from pokerlab.cli.limit_match import _bot, _check_game, _load
from pokerlab.errors import PokerlabError


@app.command()
def lbr(
    game_name: str = typer.Argument(..., metavar="GAME", help="limit-holdem or nolimit-holdem"),
    checkpoint: Path | None = typer.Option(
        None, "--checkpoint", help="a `pokerlab train limit-holdem` checkpoint"
    ),
    bot: str | None = typer.Option(None, "--bot", help="a bot instead: call, raise, ehs"),
    variant: str = typer.Option("small", "--variant", help="deck with --bot: full, small, tiny"),
    pairs: int = typer.Option(
        10_000, "--pairs", min=2, max=10_000_000, help="duplicate pairs (2 games each)"
    ),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the deals and rollouts"),
    rollouts: int = typer.Option(
        256,
        "--rollouts",
        min=0,
        max=1_000_000,
        help="sampled boards for WP beyond --exact-limit (0: exact)",
    ),
    exact_limit: int = typer.Option(
        250_000, "--exact-limit", min=0, help="most evaluations WP enumerates exactly"
    ),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Local best response (Lisy and Bowling 2017) against a limit hold'em agent, mbb/g, 95% CI."""
    from pokerlab.evaluate.limit_lbr import local_best_response
    from pokerlab.evaluate.limit_matches import strategy_agent

    if game_name.lower() == "nolimit-holdem":
        from pokerlab.cli.nolimit_judge import nolimit_lbr

        nolimit_lbr(checkpoint, bot, pairs, seed, as_json)
        return
    _check_game(game_name, "lbr")
    if (checkpoint is None) == (bot is None):
        raise PokerlabError("lbr: give exactly one of --checkpoint PATH or --bot NAME")
    t0 = time.perf_counter()
    about: dict = {}
    if checkpoint is not None:
        game, solver = _load(checkpoint, "--checkpoint")
        agent = strategy_agent(solver.average_strategy(), name=str(checkpoint))
        about = {
            "checkpoint": str(checkpoint),
            "buckets": list(solver.abstraction.buckets),
            "bucketing": solver.abstraction.method,
            "recall": solver.recall,
            "iterations": solver.iterations,
        }
    else:
        game, agent = _bot(str(bot), variant)
        about = {"bot": agent.name}
    load_seconds = time.perf_counter() - t0
    result = local_best_response(
        game, agent, pairs, seed=seed, exact_limit=exact_limit, rollouts=rollouts
    )
    out = {
        "game": "limit-holdem",
        "variant": game.variant,
        "ranks": game.rules.ranks,
        **about,
        "load_seconds": load_seconds,
        **result.as_dict(),
    }
    if as_json:
        typer.echo(json.dumps(out))
        return
    low, high = result.interval
    acts = result.actions
    typer.echo(
        f"limit-holdem {game.variant} ({game.rules.num_cards} cards): local best response "
        f"against {agent.name}"
    )
    typer.echo(
        f"  {result.pairs:,} pairs ({2 * result.pairs:,} games), seed {result.seed}, "
        f"{result.seconds:.1f} s: LBR {result.mbb_per_game:+.1f} +- {result.ci95_mbb:.1f} mbb/g "
        f"[{low:+.1f}, {high:+.1f}]"
    )
    typer.echo(
        f"  by seat {result.seat_means[0]:+.1f} (small blind) / {result.seat_means[1]:+.1f} "
        f"(big blind); LBR folds {acts['fold']:,}, calls {acts['call']:,}, raises "
        f"{acts['raise']:,}; sampled rounds {result.sampled_rounds:,}"
    )
