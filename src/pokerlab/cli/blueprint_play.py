"""``pokerlab blueprint play CHECKPOINT``: a person against a no-limit blueprint in the terminal
(issue 24, "Judging it"; also ``pokerlab play nolimit-holdem --checkpoint F``).

Heads-up only. The checkpoint is loaded as a :class:`~pokerlab.evaluate.nolimit.blueprint.
BlueprintAgent` by :func:`pokerlab.cli.blueprint_eval.load_agent`: the person may bet any legal
size; the bot reads a size its tree lacks by randomised pseudo-harmonic action translation
(:mod:`pokerlab.evaluate.nolimit.translation`) and plays its answer back in real chips.

What the person types (:func:`parse_move`, case-insensitive)::

    f, fold                      fold (only facing a bet)
    c, call, k, check, x         check, or call
    b 350, r 900, r900           bet or raise to 350 / 900 chips (the street total)
    r 2.5bb, b 75%, r 3x         to 2.5 big blinds; 75% of the pot (for a raise: of the pot
                                 after calling); 3 times the bet faced (the sizes of the
                                 action abstraction, :func:`~pokerlab.games.nolimit.actions.
                                 raise_to`); the bare amount works too (350, 2.5bb, 75%)
    a, allin, all-in             all-in (a raise to every chip, or a call that is all-in)
    q, quit, exit; end of input  stop (the hand under way is not counted)
    ?, h, help                   the list above

Anything else, or an amount outside the legal raises, is answered with one line naming the bad
token and what is legal, and the person is asked again.

:func:`play_blueprint` is the game loop, a function of an input iterator and an output callback
(the tests script it). Deals and the bot's draws come from two child seeds of ``--seed``
(:mod:`pokerlab._rng`), so the same seed deals the same cards whatever the person plays. Hands
are settled by :func:`pokerlab.games.nolimit.rules.payoffs`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import typer

from pokerlab.cli.blueprint import blueprint_app
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
from pokerlab.cli.terminal import QUIT, spaced_cards, stdin_lines
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import Action, NoLimitAgent, PublicView
from pokerlab.evaluate.nolimit.moves import (
    HELP,
    HELP_WORDS,
    describe_action,
    format_chips,
    legal_text,
    parse_move,
)
from pokerlab.games.nolimit.rules import (
    STREETS,
    NoLimitRules,
)

__all__ = ["PlayedHand", "PlaySession", "SEATS", "describe_action", "parse_move", "play_blueprint"]

#: Values of ``--seat``: the person's seat every hand, or alternating from seat 0.
SEATS = ("0", "1", "alternate")


@dataclass(frozen=True)
class PlayedHand:
    """One finished hand: the person's ``seat``, the deal ``cards`` (a row of
    :func:`~pokerlab.evaluate.nolimit.matches.deal_cards`: seat ``s``'s cards ``2s, 2s + 1``,
    then the board), the ``actions`` ``(seat, kind, amount)`` and the person's net ``chips``
    (:func:`~pokerlab.games.nolimit.rules.payoffs`)."""

    seat: int
    cards: tuple[int, ...]
    actions: tuple[tuple[int, int, int], ...]
    chips: Fraction


@dataclass
class PlaySession:
    """A session's result: the finished hands and the person's total (chips and big blinds);
    ``stopped``: ``"hands"`` (the number asked was played), ``"quit"`` or ``"end of input"``."""

    big_blind: int
    hands: list[PlayedHand] = field(default_factory=list)
    stopped: str = "hands"

    @property
    def chips(self) -> Fraction:
        """The person's net chips over the finished hands."""
        return sum((h.chips for h in self.hands), Fraction(0))

    @property
    def bb(self) -> float:
        """The person's net chips in big blinds."""
        return float(self.chips) / self.big_blind

    def summary(self) -> str:
        """One line: hands played, chips, big blinds and mbb per hand."""
        n = len(self.hands)
        per = f", {1000 * self.bb / n:+,.0f} mbb/hand" if n else ""
        return (
            f"session: {n} hand{'s' if n != 1 else ''}, you {_signed(self.chips)} chips "
            f"({self.bb:+g} bb){per}"
        )


def _signed(chips: Fraction | float) -> str:
    return ("+" if chips >= 0 else "-") + format_chips(abs(chips))


class _Stop(Exception):
    def __init__(self, why: str) -> None:
        self.why = why


def play_blueprint(
    rules: NoLimitRules,
    agent: NoLimitAgent,
    inputs: Iterable[str],
    echo: Callable[[str], None],
    *,
    hands: int | None = None,
    seat: str = "alternate",
    seed: int = 0,
    prompt: Callable[[str], None] | None = None,
) -> PlaySession:
    """Play heads-up hands of ``rules`` between a person and ``agent`` (the bot).

    ``inputs``: the person's lines (one action each; the iterator's end stops the session);
    ``echo``: prints one line; ``prompt``: shows the question before a line is read (default:
    ``echo``). ``hands``: stop after that many (None: until ``q`` or the end of input);
    ``seat``: the person's seat, ``"0"`` (small blind, the button), ``"1"`` (big blind) or
    ``"alternate"`` (0 in odd hands); ``seed``: the deals and the bot's draws
    (:mod:`pokerlab._rng`). The session's total line is echoed last. Returns the
    :class:`PlaySession`."""
    from pokerlab._rng import child_seeds, generator
    from pokerlab.cards.evaluator import category_name
    from pokerlab.evaluate.nolimit.agents import check_policy
    from pokerlab.evaluate.nolimit.matches import deal_cards, sample_action, showdown_values
    from pokerlab.games.nolimit.rules import payoffs

    if rules.players != 2:
        raise PokerlabError(
            f"play: heads-up only, and this blueprint's game has {rules.players} players"
        )
    if seat not in SEATS:
        raise PokerlabError(f"--seat: unknown {seat!r}; known: {', '.join(SEATS)}")
    ask = prompt or echo
    lines = iter(inputs)
    deal_seed, bot_seed = child_seeds(seed, 2)
    deal_rng, bot_rng = generator(deal_seed), generator(bot_seed)
    session = PlaySession(rules.big_blind)
    shown_board = rules.board_size(rules.rounds - 1)

    def read(view: PublicView) -> Action:
        state = view.state
        call = f", to call {state.to_call():,}" if state.to_call() > 0 else ""
        while True:
            ask(f"pot {state.pot():,}{call}; {legal_text(view)} > ")
            line = next(lines, None)
            if line is None:
                raise _Stop("end of input")
            word = line.strip().lower()
            if word in QUIT:
                raise _Stop("quit")
            if word in HELP_WORDS:
                echo(HELP)
                continue
            try:
                action = parse_move(line, view)
            except PokerlabError as exc:
                echo(f"{exc}")
                continue
            echo(f"you {describe_action(view, action, you=True)}")
            return action

    try:
        while hands is None or len(session.hands) < hands:
            number = len(session.hands) + 1
            me = (number - 1) % 2 if seat == "alternate" else int(seat)
            bot = 1 - me
            row = [int(c) for c in deal_cards(rules, 1, deal_rng)[0].tolist()]
            board = row[4 : 4 + shown_board]
            echo("")
            echo(
                f"hand {number}: you are {rules.position(me)} (seat {me}), the bot "
                f"{rules.position(bot)}; stacks {rules.stacks[me]:,}/{rules.stacks[bot]:,}, "
                f"blinds {rules.small_blind}/{rules.big_blind}; your cards "
                f"{spaced_cards(row[2 * me : 2 * me + 2])}"
            )
            state = rules.initial_state()
            history: list[tuple[int, int, int]] = []
            street, noted = 0, False
            while not state.is_terminal():
                if state.street != street:
                    street = state.street
                    echo(
                        f"{STREETS[street]}: {spaced_cards(board[: rules.board_size(street)])}; "
                        f"pot {state.pot():,}; behind: you {state.behind(rules, me):,}, bot "
                        f"{state.behind(rules, bot):,}"
                    )
                view = PublicView(
                    rules, state, tuple(board[: rules.board_size(state.street)]), tuple(history)
                )
                if state.to_act == me:
                    kind, amount = read(view)
                else:
                    hole = (row[2 * bot], row[2 * bot + 1])
                    searched = len(getattr(agent, "records", ()))
                    policy = check_policy(view, agent.policy(view, hole), f"bot {agent.name!r}")
                    for rec in getattr(agent, "records", [])[searched:]:
                        echo(f"(the bot searched {rec.iterations} iterations: {rec.seconds:.2f} s)")
                    kind, amount = sample_action(policy, float(bot_rng.random()))
                    reading = getattr(agent, "read", None)
                    if reading is not None and not noted and reading(view, hole).translated:
                        noted = True
                        echo("(off the bot's tree: it reads this line by action translation)")
                    echo(f"bot {describe_action(view, (kind, amount))}")
                history.append((state.to_act, kind, amount))
                state = state.apply(rules, kind, amount)
            values = None
            if state.status == "showdown":
                values = showdown_values(rules, [row])[0].tolist()
            won = payoffs(rules, state, values)[me]
            if state.status == "fold":
                who = "you fold" if state.folded[me] else "the bot folds"
                echo(f"{who}: you {'win' if won > 0 else 'lose'} {format_chips(abs(won))} chips")
            else:
                mine, theirs = (
                    category_name(int(v))
                    for v in (values[me], values[bot])  # type: ignore[index]
                )
                yours, its = row[2 * me : 2 * me + 2], row[2 * bot : 2 * bot + 2]
                echo(
                    f"showdown on {spaced_cards(board)}: you {spaced_cards(yours)} ({mine}), "
                    f"bot {spaced_cards(its)} ({theirs})"
                )
                if won == 0:
                    echo("split pot: you +0 chips")
                else:
                    echo(f"you {'win' if won > 0 else 'lose'} {format_chips(abs(won))} chips")
            session.hands.append(PlayedHand(me, tuple(row), tuple(history), won))
            total = session.chips
            echo(
                f"hand {number}: you {_signed(won)} chips ({float(won) / rules.big_blind:+g} bb);"
                f" total after {number} hand{'s' if number != 1 else ''}: {_signed(total)} chips"
                f" ({session.bb:+g} bb)"
            )
    except _Stop as stop:
        session.stopped = stop.why
        echo(f"{stop.why}: stopping (the hand under way is not counted)")
    echo(session.summary())
    return session


@blueprint_app.command("play")
def play(
    checkpoint: Path = typer.Argument(..., metavar="CHECKPOINT", help="a blueprint .npz"),
    hands: int | None = typer.Option(None, "--hands", min=1, help="stop after N hands"),
    seat: str = typer.Option("alternate", "--seat", help="your seat: 0 (button), 1 or alternate"),
    seed: int | None = typer.Option(None, "--seed", min=0, help="seed of the deals"),
    search: bool = typer.Option(False, "--search", help="the bot searches in play (issue 25)"),
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
    """Play heads-up no-limit hold'em against a blueprint in the terminal, any bet size."""
    settings = SearchSettings(
        search_streets, search_iterations, search_seconds, gadget=search_gadget,
        threads=search_threads, depth=search_depth, continuations=search_continuations,
        deal_sample=search_deal_sample, deal_draws=search_deal_draws,
        preflop_far=search_preflop_far,
    )  # fmt: skip
    run_play(checkpoint, hands=hands, seat=seat, seed=seed, search=settings if search else None)


def run_play(
    checkpoint: Path, *, hands: int | None, seat: str, seed: int | None,
    search: SearchSettings | None = None, option: str = "CHECKPOINT",
) -> PlaySession:  # fmt: skip
    """Load ``checkpoint`` and play on the terminal (stdin, stdout); the body of ``pokerlab
    blueprint play`` and ``pokerlab play nolimit-holdem``; ``search``: the bot searches;
    ``option``: how errors name the checkpoint (the argument, or ``--checkpoint``)."""
    from pokerlab._rng import seed_int
    from pokerlab.cli.blueprint_eval import _describe, load_agent

    if seat not in SEATS:
        raise PokerlabError(f"--seat: unknown {seat!r}; known: {', '.join(SEATS)}")
    token = str(checkpoint) if search is None else f"search:{checkpoint}"
    agent, game = load_agent(token, option, search)
    if game is None:
        raise PokerlabError(
            f"{option}: {str(checkpoint)!r} is a built-in agent, not a checkpoint of pokerlab "
            "blueprint train"
        )
    rules = game.rules
    if rules.players != 2:
        raise PokerlabError(
            f"play: heads-up only, and {str(checkpoint)!r} was trained for {rules.players} players"
        )
    seed_value = seed_int(seed)
    typer.echo(
        f"no-limit hold'em against {Path(checkpoint).name}: {_describe(rules)}; seed "
        f"{seed_value}. {HELP}."
    )
    return play_blueprint(
        rules,
        agent,
        stdin_lines(),
        typer.echo,
        hands=hands,
        seat=seat,
        seed=seed_value,
        prompt=lambda text: typer.echo(text, nl=False),
    )
