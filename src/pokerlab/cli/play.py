"""``pokerlab play``: a person against a trained strategy in the terminal.

``play limit-holdem`` (issue 10) plays hands against a checkpoint's strategy (or a bot): seats
alternate each hand, the cards, the board, the pot and the legal actions are shown, the actions
are read from stdin (``f``/``fold``, ``c``/``call``/``check``/``k``, ``r``/``raise``/``bet``/
``b``; ``q`` or end of input stops), and each hand's result and the running total are printed.

``play nolimit-holdem --checkpoint F`` plays a no-limit blueprint, any bet size, and with
``--search`` the blueprint refined by real-time search (issue 25; the ``--search-*`` options of
``pokerlab blueprint play``, whose body :mod:`pokerlab.cli.blueprint_play` this calls).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import typer

from pokerlab.cli.app import app
from pokerlab.cli.blueprint_search import (
    ContinuationsOption,
    DealDrawsOption,
    DealSampleOption,
    DepthOption,
    GadgetOption,
    IterationsOption,
    PreflopFarOption,
    SearchSettings,
    SecondsOption,
    StreetsOption,
    ThreadsOption,
)
from pokerlab.cli.limit_match import _bot, _load
from pokerlab.cli.terminal import QUIT, spaced_cards, stdin_lines
from pokerlab.errors import PokerlabError

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
    seat: str = typer.Option(
        "alternate", "--seat", help="nolimit-holdem: your seat, 0 (button), 1 or alternate"
    ),
    search: bool = typer.Option(
        False, "--search", help="nolimit-holdem: the bot searches in play (issue 25)"
    ),
    search_streets: StreetsOption = "river",
    search_iterations: IterationsOption = 100,
    search_seconds: SecondsOption = None,
    search_gadget: GadgetOption = SearchSettings.gadget,
    search_depth: DepthOption = SearchSettings.depth,
    search_continuations: ContinuationsOption = SearchSettings.continuations,
    search_deal_sample: DealSampleOption = SearchSettings.deal_sample,
    search_deal_draws: DealDrawsOption = SearchSettings.deal_draws,
    search_preflop_far: PreflopFarOption = SearchSettings.preflop_far,
    search_threads: ThreadsOption = SearchSettings.threads,
) -> None:
    """Play heads-up limit (or no-limit) hold'em hands against a trained strategy in the
    terminal; no-limit with --search: against the blueprint refined by real-time search."""
    from pokerlab._rng import seed_int

    if game_name.lower() == "nolimit-holdem":  # a person against a blueprint, any bet size
        from pokerlab.cli.blueprint_play import run_play

        if checkpoint is None or bot is not None:
            raise PokerlabError(
                "play nolimit-holdem: give --checkpoint PATH, a checkpoint of pokerlab blueprint "
                "train (no --bot)"
            )
        settings = SearchSettings(
            search_streets, search_iterations, search_seconds, gadget=search_gadget,
            threads=search_threads, depth=search_depth,
            continuations=search_continuations, deal_sample=search_deal_sample,
            deal_draws=search_deal_draws,
        preflop_far=search_preflop_far,
        )  # fmt: skip
        run_play(
            checkpoint, hands=hands, seat=seat, seed=seed, search=settings if search else None,
            option="--checkpoint",
        )  # fmt: skip
        return
    if game_name.lower() != "limit-holdem":
        raise PokerlabError(f"play: limit-holdem or nolimit-holdem are played, got {game_name!r}")
    if search or seat != "alternate":
        raise PokerlabError(
            f"play limit-holdem: {'--search' if search else '--seat'} is for nolimit-holdem "
            "(limit hold'em seats alternate, and its agent does not search)"
        )
    if (checkpoint is None) == (bot is None):
        raise PokerlabError("play: give exactly one of --checkpoint PATH or --bot NAME")
    if checkpoint is not None:
        from pokerlab.evaluate.limit_matches import strategy_agent

        game, solver = _load(checkpoint, "--checkpoint")
        agent = strategy_agent(solver.average_strategy())
    else:
        game, agent = _bot(str(bot), variant)
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
