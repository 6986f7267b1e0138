"""``pokerlab duplicate limit-holdem`` and ``pokerlab play limit-holdem`` (issue 10).

``duplicate`` trains an abstract strategy (the options of ``pokerlab train``) or loads a training
checkpoint, then plays duplicate matches against the simple bots (always call, always raise, the
E[HS] rule player) and any other checkpoints given with ``--against``, and reports the agent's
result in mbb/g with a 95% confidence interval (:mod:`pokerlab.evaluate.limit_matches`). (The
name ``match`` is the push/fold simulator's, :mod:`pokerlab.cli.pushfold`.)

``play`` lets a person play hands against a checkpoint's strategy (or a bot) in the terminal:
seats alternate each hand, the cards, the board, the pot and the legal actions are shown, the
actions are read from stdin (``f``/``fold``, ``c``/``call``/``check``/``k``, ``r``/``raise``/
``bet``/``b``; ``q`` or end of input stops), and each hand's result and the running total are
printed. ``play nolimit-holdem --checkpoint F`` plays a no-limit blueprint instead
(:mod:`pokerlab.cli.blueprint_play`, the body of ``pokerlab blueprint play``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import typer

from pokerlab.cli.app import app
from pokerlab.cli.terminal import QUIT, spaced_cards, stdin_lines
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


# --- playing against the agent ---------------------------------------------------------------

_WORDS = {
    "f": 0,
    "fold": 0,
    "c": 1,
    "call": 1,
    "check": 1,
    "k": 1,
    "r": 2,
    "raise": 2,
    "bet": 2,
    "b": 2,
}
def _labels(tree: Any, n: int) -> dict[int, str]:
    """Each legal action of decision ``n`` in words, with the amounts (big blinds)."""
    p = int(tree.player[n])
    mine, theirs = float(tree.contrib[n][p]), float(tree.contrib[n][1 - p])
    labels: dict[int, str] = {}
    for kid in tree.children[tree.child_start[n] : tree.child_start[n + 1]]:
        a = int(tree.action[kid])
        if a == 0:
            labels[a] = "[f]old"
        elif a == 1:
            labels[a] = f"[c]all {theirs - mine:g}" if theirs > mine else "[c]heck"
        else:
            to = float(tree.contrib[kid][p])
            raising = theirs > mine or int(tree.round[n]) == 0  # the big blind is a bet
            labels[a] = f"[r]aise to {to:g}" if raising else f"[b]et {to - mine:g}"
    return labels


def _words(a: int) -> str:
    return ("folds", "calls", "raises")[a]


def play_session(
    game: Any,
    agent: Any,
    *,
    hands: int | None,
    seed: int,
    read: Callable[[str], str],
    echo: Callable[[str], None],
) -> dict[str, Any]:
    """Play hands of ``game`` between a person (``read(prompt)`` shows the prompt and returns an
    input line, ``""`` at end of input; ``echo`` prints a line) and ``agent``; the person's seat
    alternates, starting as the small blind. Returns the hands played and the person's total
    (big blinds)."""
    from pokerlab._rng import generator
    from pokerlab.cards.evaluator import category_name, evaluate
    from pokerlab.evaluate.limit_matches import deal_cards
    from pokerlab.games.limit_holdem import CALL, DEAL, DECISION, FOLD_END

    tree = game.betting_tree
    rng = generator(seed)
    total = 0.0
    played = 0
    names = ("small blind", "big blind")
    street = ("preflop", "flop", "turn", "river")
    shown = (0, 3, 4, 5)
    while hands is None or played < hands:
        deal = deal_cards(game, 1, rng)[0]
        me = played % 2
        hole = {0: deal[0:2], 1: deal[2:4]}
        board = deal[4:9]
        states = agent.states(hole[1 - me][None, :], board[None, :])[0]
        echo("")
        echo(f"hand {played + 1}: you are the {names[me]}; your cards {spaced_cards(hole[me])}")
        n = 0
        while int(tree.kind[n]) in (DECISION, DEAL):
            if int(tree.kind[n]) == DEAL:
                n = int(tree.children[tree.child_start[n]])
                r = int(tree.round[n])
                echo(f"{street[r]}: board {spaced_cards(board[: shown[r]])}")
                continue
            p = int(tree.player[n])
            kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
            acts = [int(tree.action[k]) for k in kids]
            if p == me:
                labels = _labels(tree, n)
                pot = float(tree.contrib[n].sum())
                prompt = f"pot {pot:g}; " + ", ".join(labels[a] for a in acts) + " > "
                while True:
                    line = read(prompt)
                    if line == "":
                        echo("end of input: stopping (this hand is not counted)")
                        return {"hands": played, "total_bb": total}
                    token = line.strip().lower()
                    if token in QUIT:
                        echo("quit (this hand is not counted)")
                        return {"hands": played, "total_bb": total}
                    if token not in _WORDS:
                        echo(
                            f"{token!r} is not an action: type one of "
                            + ", ".join(labels[a].split("]")[0][1] for a in acts)
                            + " (or q to quit)"
                        )
                        continue
                    a = _WORDS[token]
                    if a not in acts:
                        why = "there is no bet to fold to" if a == 0 else "raises are capped"
                        echo(f"{token!r} is not allowed here: {why}")
                        continue
                    break
            else:
                probs = agent.action_probs(n, int(states[int(tree.round[n])]), tree)
                u = rng.random()
                a_idx = int(np.searchsorted(np.cumsum(probs), u, side="right"))
                a = acts[min(a_idx, len(acts) - 1)]
                word = _words(a)
                if a == CALL and tree.contrib[n][0] == tree.contrib[n][1]:
                    word = "checks"
                elif a == 2 and tree.contrib[n][0] == tree.contrib[n][1] and tree.round[n] > 0:
                    word = "bets"
                echo(f"agent {word}")
            n = int(kids[acts.index(a)])
        amount = float(tree.payoff_table[tree.payoff_id[n]])
        if int(tree.kind[n]) == FOLD_END:
            won = -amount if int(tree.player[n]) == me else amount
            who = "you fold" if int(tree.player[n]) == me else "the agent folds"
            echo(f"{who}: you {'win' if won > 0 else 'lose'} {abs(won):g}")
        else:
            mine = evaluate([int(c) for c in hole[me]] + [int(c) for c in board])
            theirs = evaluate([int(c) for c in hole[1 - me]] + [int(c) for c in board])
            won = amount if mine > theirs else (-amount if mine < theirs else 0.0)
            echo(
                f"showdown on {spaced_cards(board)}: you {spaced_cards(hole[me])} "
                f"({category_name(mine)}), "
                f"agent {spaced_cards(hole[1 - me])} ({category_name(theirs)})"
            )
            echo("split pot" if won == 0 else f"you {'win' if won > 0 else 'lose'} {abs(won):g}")
        total += won
        played += 1
        echo(f"running total after {played} hand{'s' if played != 1 else ''}: {total:+g} bb")
    return {"hands": played, "total_bb": total}


@app.command()
def play(
    game_name: str = typer.Argument(..., metavar="GAME", help="limit-holdem or nolimit-holdem"),
    checkpoint: Path | None = typer.Option(
        None,
        "--checkpoint",
        help="a `pokerlab train limit-holdem` (or `pokerlab blueprint train`) checkpoint",
    ),
    bot: str | None = typer.Option(None, "--bot", help="play a bot instead: call, raise, ehs"),
    variant: str = typer.Option("small", "--variant", help="deck with --bot: small, tiny, full"),
    hands: int | None = typer.Option(None, "--hands", min=1, help="stop after N hands"),
    seed: int | None = typer.Option(None, "--seed", min=0, help="seed of the deals"),
) -> None:
    """Play heads-up limit (or no-limit) hold'em hands against a trained strategy in the
    terminal."""
    from pokerlab._rng import seed_int

    if game_name.lower() == "nolimit-holdem":  # a person against a blueprint, any bet size
        from pokerlab.cli.blueprint_play import run_play

        if checkpoint is None or bot is not None:
            raise PokerlabError(
                "play nolimit-holdem: give --checkpoint PATH, a checkpoint of pokerlab blueprint "
                "train (no --bot)"
            )
        run_play(checkpoint, hands=hands, seat="alternate", seed=seed)
        return
    if game_name.lower() != "limit-holdem":
        raise PokerlabError(f"play: limit-holdem or nolimit-holdem are played, got {game_name!r}")
    if (checkpoint is None) == (bot is None):
        raise PokerlabError("play: give exactly one of --checkpoint PATH or --bot NAME")
    if checkpoint is not None:
        from pokerlab.evaluate.limit_matches import strategy_agent

        game, solver = _load(checkpoint, "--checkpoint")
        agent = strategy_agent(solver.average_strategy())
    else:
        from pokerlab.games.registry import load_game

        key = str(bot).lower()
        if key not in _BOT_NAMES:
            raise PokerlabError(f"--bot: unknown bot {bot!r}; known: {', '.join(_BOT_NAMES)}")
        game = load_game("limit-holdem", variant=variant)
        agent = _make_bot(key, game, 0.65, 0.45)
    seed_value = seed_int(seed)
    lines = stdin_lines()

    def read(prompt: str) -> str:
        typer.echo(prompt, nl=False)
        return next(lines, "")

    typer.echo(
        f"limit hold'em, {game.rules.num_cards} cards ({game.variant}); blinds 0.5/1, bets 1 "
        f"then 2; seed {seed_value}. Actions: f(old), c(all)/check, r(aise)/bet; q quits."
    )
    result = play_session(
        game,
        agent,
        hands=hands,
        seed=seed_value,
        read=read,
        echo=typer.echo,
    )
    n = result["hands"]
    per = f", {1000 * result['total_bb'] / n:+.0f} mbb/hand" if n else ""
    typer.echo(f"played {n} hand{'s' if n != 1 else ''}: you {result['total_bb']:+g} bb{per}")
