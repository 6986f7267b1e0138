"""``pokerlab blueprint play`` (and ``pokerlab play nolimit-holdem``): a person against a trained
no-limit blueprint. The game loop is scripted with inputs: bad tokens are answered by name with
the legal range, an off-tree raise is read by the bot's action translation and answered in real
chips, every hand's total equals the rules' payoffs of its replayed actions, and the session's
total is their sum; the same seed deals the same cards whatever is played."""

from __future__ import annotations

import io
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cli.blueprint_eval import load_agent
from pokerlab.cli.blueprint_play import parse_move, play_blueprint
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import AlwaysCall, PublicView
from pokerlab.evaluate.nolimit.matches import showdown_values
from pokerlab.games.nolimit.rules import ALLIN, BET, CALL, CHECK, FOLD, RAISE, NoLimitRules, payoffs


@pytest.fixture(scope="module")
def checkpoint(tiny_blueprint) -> Path:
    """The tiny blueprint of conftest.py (8 cards, two rounds, fcpa, stacks 300)."""
    return tiny_blueprint


def _replayed_chips(rules: NoLimitRules, hand) -> Fraction:
    """The person's net chips of a played hand by the rules alone: its actions replayed from
    the blinds (each must be legal), then :func:`payoffs` with the evaluator's showdown values."""
    state = rules.initial_state()
    for seat, kind, amount in hand.actions:
        assert state.to_act == seat
        state = state.apply(rules, kind, amount)
    assert state.is_terminal()
    values = None
    if state.status == "showdown":
        values = showdown_values(rules, np.asarray([hand.cards]))[0].tolist()
    return payoffs(rules, state, values)[hand.seat]


def test_scripted_session_with_bad_tokens_and_an_off_tree_raise(checkpoint) -> None:
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    rules = game.rules
    bad = ["zz", "r 50", "r 999", "b 7y", "f 3", "r 2.55"]
    inputs = [*bad, "r 250"] + ["c"] * 40  # then check or call to the end
    out: list[str] = []
    session = play_blueprint(rules, agent, inputs, out.append, hands=6, seed=11)
    text = "\n".join(out)
    legal = "legal are f, c 50 (call), r 200..300 (2-3 bb), a 300 (all-in)"
    assert "'zz' is not an action: type f (fold)" in text and legal in text
    assert f"'r 50': a raise to 50 is below the smallest legal raise, 200; {legal}" in text
    assert f"'r 999': a raise to 999 is above your all-in, 300; {legal}" in text
    assert "'b 7y': '7y' is not an amount" in text
    assert "'f 3': 'f' takes no amount" in text
    assert "'r 2.55': chips are whole numbers" in text
    # every bad token is answered and the question asked again, then the good one is played
    first_prompt = f"pot 150, to call 50; {legal.removeprefix('legal are ')} > "
    assert out[: out.index("you raise to 250")].count(first_prompt) == len(bad) + 1
    # the off-tree raise to 250 (the tree raises only to 300) is played and translated
    first = session.hands[0]
    assert first.seat == 0 and first.actions[0] == (0, RAISE, 250)
    assert "you raise to 250" in text
    assert "(off the bot's tree: it reads this line by action translation)" in text
    bot_seat, bot_kind, bot_amount = first.actions[1]
    assert bot_seat == 1 and bot_kind in (FOLD, CALL, ALLIN)
    # six hands, seats alternating, each total equal to the rules' payoffs
    assert len(session.hands) == 6 and session.stopped == "hands"
    assert [h.seat for h in session.hands] == [0, 1, 0, 1, 0, 1]
    for i, hand in enumerate(session.hands, start=1):
        chips = _replayed_chips(rules, hand)
        assert hand.chips == chips
        sign = "+" if chips >= 0 else "-"
        assert f"hand {i}: you {sign}{abs(float(chips)):,.0f} chips" in text
    total = sum(_replayed_chips(rules, h) for h in session.hands)
    assert session.chips == total and session.bb == float(total) / 100
    assert out[-1].startswith(
        f"session: 6 hands, you {'+' if total >= 0 else '-'}{abs(float(total)):,.0f} chips "
        f"({float(total) / 100:+g} bb)"
    )
    # each showdown shows the bot's cards
    for hand in session.hands:
        state = rules.initial_state()
        for _, kind, amount in hand.actions:
            state = state.apply(rules, kind, amount)
        if state.status == "showdown":
            from pokerlab.cli.terminal import spaced_cards as _cards

            bot = 1 - hand.seat
            assert f"bot {_cards(hand.cards[2 * bot : 2 * bot + 2])} (" in text


def test_fold_loses_the_blind_and_quit_or_end_of_input_stop_cleanly(checkpoint) -> None:
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    rules = game.rules
    out: list[str] = []
    session = play_blueprint(rules, agent, ["f"], out.append, seat="0", seed=2)
    assert [h.chips for h in session.hands] == [Fraction(-50)]
    assert session.stopped == "end of input"
    assert "you fold: you lose 50 chips" in out
    assert "end of input: stopping (the hand under way is not counted)" in out
    assert out[-1] == "session: 1 hand, you -50 chips (-0.5 bb), -500 mbb/hand"
    out.clear()
    session = play_blueprint(rules, agent, ["help", "q", "c"], out.append, seat="1", seed=2)
    assert session.hands == [] and session.stopped == "quit"
    assert any(line.startswith("type f (fold)") for line in out)
    assert out[-2:] == [
        "quit: stopping (the hand under way is not counted)",
        "session: 0 hands, you +0 chips (+0 bb)",
    ]
    assert "hand 1: you are BB (seat 1), the bot BTN/SB" in "\n".join(out)


def test_the_seed_deals_the_same_cards_whatever_is_played(checkpoint) -> None:
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    a = play_blueprint(game.rules, agent, ["c"] * 60, lambda _: None, hands=5, seed=7)
    b = play_blueprint(game.rules, agent, ["f", "c"] * 60, lambda _: None, hands=5, seed=7)
    c = play_blueprint(game.rules, agent, ["c"] * 60, lambda _: None, hands=5, seed=8)
    assert [h.cards for h in a.hands] == [h.cards for h in b.hands]
    assert [h.cards for h in a.hands] != [h.cards for h in c.hands]
    again = play_blueprint(game.rules, agent, ["c"] * 60, lambda _: None, hands=5, seed=7)
    assert [h.actions for h in again.hands] == [h.actions for h in a.hands]


DEEP = NoLimitRules(players=2, stacks=(1000, 1000), small_blind=50, big_blind=100)


def _view(*actions: tuple[int, int]) -> PublicView:
    state = DEEP.initial_state()
    for kind, amount in actions:
        state = state.apply(DEEP, kind, amount)
    return PublicView(DEEP, state, ())


@pytest.mark.parametrize(
    "typed,actions,want",
    [
        ("c", (), (CALL, 100)),
        ("K", (), (CALL, 100)),
        ("fold", (), (FOLD, 0)),
        ("a", (), (ALLIN, 1000)),
        ("all-in", (), (ALLIN, 1000)),
        ("r 250", (), (RAISE, 250)),
        ("R250", (), (RAISE, 250)),
        ("b 350", (), (RAISE, 350)),
        ("350", (), (RAISE, 350)),
        ("2.5bb", (), (RAISE, 250)),
        ("r 2bb", (), (RAISE, 200)),
        # 75% of the pot after calling (200) on top of the 100 faced; the pot raise; 3x the bet
        ("r 75%", (), (RAISE, 250)),
        ("100%", (), (RAISE, 300)),
        ("r 3x", (), (RAISE, 300)),
        ("r 1000", (), (ALLIN, 1000)),
        ("r 1,000", (), (ALLIN, 1000)),
        ("b a", (), (ALLIN, 1000)),
        # the flop, nothing bet: check, and bets (the pot is 200)
        ("k", ((CALL, 100), (CHECK, 100)), (CHECK, 0)),
        ("b 50%", ((CALL, 100), (CHECK, 100)), (BET, 100)),
        ("b 150", ((CALL, 100), (CHECK, 100)), (BET, 150)),
    ],
)
def test_parse_move(typed, actions, want) -> None:
    assert parse_move(typed, _view(*actions)) == want


@pytest.mark.parametrize(
    "typed,actions,message",
    [
        ("zz", (), "'zz' is not an action"),
        ("", (), "no action typed"),
        ("r", (), "'r': 'r' needs one amount"),
        ("r 7y", (), "'r 7y': '7y' is not an amount"),
        ("r 10c", (), "'r 10c': '10c' is not an amount"),
        ("r 2.5", (), "'r 2.5': chips are whole numbers"),
        ("c 100", (), "'c 100': 'c' takes no amount"),
        ("r 150", (), "'r 150': a raise to 150 is below the smallest legal raise, 200"),
        ("r 1001", (), "'r 1001': a raise to 1,001 is above your all-in, 1,000"),
        ("f", ((CALL, 100), (CHECK, 100)), "'f': there is no bet to fold to"),
        ("3x", ((CALL, 100), (CHECK, 100)), "'3x' multiplies the bet faced, and there is none"),
        ("b 50", ((CALL, 100), (CHECK, 100)), "below the smallest legal raise, 100"),
    ],
)
def test_parse_move_refuses_by_name_with_the_legal_range(typed, actions, message) -> None:
    with pytest.raises(PokerlabError) as info:
        parse_move(typed, _view(*actions))
    text = str(info.value)
    assert message in text and "legal are " in text


def test_after_an_all_in_only_fold_or_call(checkpoint) -> None:
    view = _view((ALLIN, 1000))
    assert parse_move("a", view) == (CALL, 1000)  # the call is all-in
    with pytest.raises(PokerlabError, match=r"'r 500': no raise is possible here; legal are f, "):
        parse_move("r 500", view)


def test_more_than_two_players_is_refused() -> None:
    rules = NoLimitRules(players=3, stacks=(500, 500, 500), small_blind=50, big_blind=100)
    with pytest.raises(PokerlabError, match="heads-up only, and this blueprint's game has 3"):
        play_blueprint(rules, AlwaysCall(), [], print)


def test_cli_plays_from_stdin(checkpoint, monkeypatch, capsys) -> None:
    for command in (
        ["blueprint", "play", str(checkpoint), "--seat", "0"],
        ["play", "nolimit-holdem", "--checkpoint", str(checkpoint)],
    ):
        monkeypatch.setattr("sys.stdin", io.StringIO("f\n"))
        assert main([*command, "--seed", "4", "--hands", "3"]) == 0
        out = capsys.readouterr().out
        assert "8 cards, 2 rounds; seed 4." in out
        assert "hand 1: you are BTN/SB (seat 0)" in out
        assert "> f\nyou fold\nyou fold: you lose 50 chips" in out
        assert out.rstrip().endswith("session: 1 hand, you -50 chips (-0.5 bb), -500 mbb/hand")


@pytest.mark.parametrize(
    "args,message",
    [
        (["blueprint", "play", "{ckpt}", "--seat", "2"], "--seat: unknown '2'"),
        (["blueprint", "play", "always-call"], "'always-call' is a built-in agent"),
        (["blueprint", "play", "missing.npz"], "missing.npz"),
        (["play", "nolimit-holdem", "--bot", "call"], "give --checkpoint PATH"),
        (["play", "nolimit-holdem", "--checkpoint", "gone.npz"], "'gone.npz' (the --checkpoint)"),
        (["play", "nolimit-holdem", "--checkpoint", "always-call"], "--checkpoint: 'always-call'"),
        (["play", "poker", "--bot", "call"], "limit-holdem or nolimit-holdem"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(checkpoint, capsys, args, message) -> None:
    args = [a.replace("{ckpt}", str(checkpoint)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_the_prompt_names_the_pot_and_amounts_in_chips(checkpoint) -> None:
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    out: list[str] = []
    asked: list[str] = []
    play_blueprint(game.rules, agent, [], out.append, seat="0", seed=5, prompt=asked.append)
    assert asked == ["pot 150, to call 50; f, c 50 (call), r 200..300 (2-3 bb), a 300 (all-in) > "]
    assert re.fullmatch(r"hand 1: you are BTN/SB \(seat 0\), the bot BB; stacks 300/300, blinds "
                        r"50/100; your cards [AK][cdhs] [AK][cdhs]", out[1])  # fmt: skip
