"""The ACPC dealer protocol (issue 25, "Playing"): match states parsed and written on the
protocol specification's own examples, replayed on pokerlab's rules (seats, chips, who is on
move, the final chips), bad tokens refused by name; the local dealer plays agents over loopback
TCP exactly as pokerlab's match engine plays the same deals, applies the ACPC dealer's rules to
invalid answers, and runs a trained blueprint against a baseline and against itself, the CLI
client included."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pokerlab._rng import generator
from pokerlab.cli.blueprint_eval import load_agent
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.acpc import play_acpc
from pokerlab.evaluate.nolimit.acpc_dealer import AcpcDealer
from pokerlab.evaluate.nolimit.agents import (
    AlwaysCall,
    HandStrengthRule,
    PotRaise,
    PublicView,
    check_policy,
)
from pokerlab.evaluate.nolimit.matches import deal_cards, play_hand, showdown_values
from pokerlab.games.nolimit.rules import (
    ALLIN,
    CALL,
    CHECK,
    NoLimitRules,
    payoffs,
)
from pokerlab.interop.acpc import AcpcGame, parse_matchstate, parse_response

HUNL = NoLimitRules(2, (20000, 20000), 50, 100)  # holdem.nolimit.2p.reverse_blinds.game
SMALL = NoLimitRules(2, (300, 300), 50, 100, ranks=2, rounds=2)
TINY = 'base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n'

# The two-player no-limit example of the ACPC protocol specification 2.0.0: "S->" lines the
# dealer sends, "<-C" the client's answers.
SPEC_NOLIMIT = """\
S-> MATCHSTATE:0:30::9s8h|
S-> MATCHSTATE:0:30:c:9s8h|
<-C MATCHSTATE:0:30:c:9s8h|:c
S-> MATCHSTATE:0:30:cc/:9s8h|/8c8d5c
<-C MATCHSTATE:0:30:cc/:9s8h|/8c8d5c:r250
S-> MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c
S-> MATCHSTATE:0:30:cc/r250c/:9s8h|/8c8d5c/6s
<-C MATCHSTATE:0:30:cc/r250c/:9s8h|/8c8d5c/6s:r500
S-> MATCHSTATE:0:30:cc/r250c/r500:9s8h|/8c8d5c/6s
S-> MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d
<-C MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d:r1250
S-> MATCHSTATE:0:30:cc/r250c/r500c/r1250:9s8h|/8c8d5c/6s/2d
S-> MATCHSTATE:0:30:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d
S-> MATCHSTATE:1:31::|JdTc
<-C MATCHSTATE:1:31::|JdTc:r300
S-> MATCHSTATE:1:31:r300:|JdTc
S-> MATCHSTATE:1:31:r300r900:|JdTc
<-C MATCHSTATE:1:31:r300r900:|JdTc:c
S-> MATCHSTATE:1:31:r300r900c/:|JdTc/6dJc9c
S-> MATCHSTATE:1:31:r300r900c/r1800:|JdTc/6dJc9c
<-C MATCHSTATE:1:31:r300r900c/r1800:|JdTc/6dJc9c:r3600
S-> MATCHSTATE:1:31:r300r900c/r1800r3600:|JdTc/6dJc9c
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c
<-C MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c:c
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/:|JdTc/6dJc9c/Kh
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh
<-C MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh:c
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc
"""


def _spec_lines() -> list[tuple[str, str]]:
    return [(line[:3], line[4:]) for line in SPEC_NOLIMIT.splitlines()]


def test_the_specifications_examples_round_trip_and_replay_on_the_rules() -> None:
    game = AcpcGame(HUNL)
    lines = _spec_lines()
    for i, (who, text) in enumerate(lines):
        if who == "<-C":
            continue
        message = parse_matchstate(text + "\r\n")
        assert message.text() == text
        replay = game.replay(message)
        # the receiver is on move exactly where the specification shows an answer
        answered = i + 1 < len(lines) and lines[i + 1][0] == "<-C"
        assert replay.on_move == answered, text
        if answered:
            state_text, token = parse_response(lines[i + 1][1])
            assert state_text == message
            # the answer is legal, and pokerlab's action writes back to the same token
            action = game.to_action(replay.state, token)
            assert game.action_token(replay.state, action) == token
    # hand 30: position 0 is the big blind (pokerlab seat 1), first to act after the flop
    first = game.replay(parse_matchstate("MATCHSTATE:0:30:cc/:9s8h|/8c8d5c"))
    assert first.seat == 1 and first.hole == (parse_matchstate("MATCHSTATE:0:0::9s8h|").holes[0])
    assert first.history == ((0, CALL, 100), (1, CHECK, 100))
    assert first.board == (24, 25, 12)  # 8c 8d 5c: card = 4 * rank + suit
    # raise sizes: ACPC totals over the hand, pokerlab street totals
    river = game.replay(parse_matchstate(lines[11][1]))  # ...r500c/r1250
    assert river.history[-1] == (1, 3, 750)  # a bet of 750 on the river: 500 + 750 = 1250
    assert river.state.contrib == (500, 1250) and river.state.bets == (0, 750)
    end30 = game.replay(parse_matchstate(lines[12][1]))
    assert end30.finished and end30.state.status == "showdown"
    assert end30.shown[0] == (parse_matchstate("MATCHSTATE:0:0::9c6h|").holes[0])
    assert end30.chips() == [Fraction(-1250), Fraction(1250)]  # trip eights beat two pair
    # hand 31: position 1 is the button (seat 0), first to act preflop; an all-in on the turn
    # is called and the river is dealt with an empty betting round after the last '/'
    end31 = game.replay(parse_matchstate(lines[-1][1]))
    assert end31.seat == 0 and end31.message.betting[-1] == ()
    assert end31.history[-2:] == ((1, ALLIN, 11000), (0, CALL, 11000))
    assert end31.chips() == [Fraction(20000), Fraction(-20000)]  # JdTc makes the straight
    assert parse_matchstate("MATCHSTATE:1:31:r300:|JdTc").betting == (("r300",),)


def test_seats_game_definitions_and_normal_blinds() -> None:
    reverse, normal = AcpcGame(HUNL), AcpcGame(HUNL, reverse_blinds=False)
    assert [reverse.seat(p) for p in (0, 1)] == [1, 0]
    assert [normal.seat(p) for p in (0, 1)] == [0, 1]
    text = reverse.gamedef()
    assert "blind = 100 50\n" in text and "firstPlayer = 2 1 1 1\n" in text
    assert "stack = 20000 20000\n" in text and "numBoardCards = 0 3 1 1\n" in text
    text = normal.gamedef()
    assert "blind = 50 100\n" in text and "firstPlayer = 1 2 2 2\n" in text
    small = AcpcGame(SMALL).gamedef()
    assert "numRounds = 2\n" in small and "numRanks = 2\n" in small
    assert "numBoardCards = 0 3\n" in small
    # with normal blinds position 0 is the small blind and acts first preflop
    replay = normal.replay(parse_matchstate("MATCHSTATE:0:5::AsKd|"))
    assert replay.seat == 0 and replay.on_move
    with pytest.raises(PokerlabError, match="heads-up games only"):
        AcpcGame(NoLimitRules(3, (1000,) * 3, 50, 100))
    with pytest.raises(PokerlabError, match="no antes"):
        AcpcGame(NoLimitRules(2, (1000,) * 2, 50, 100, ante=10))


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("STATE:0:30::9s8h|", "must start with MATCHSTATE:"),
        ("MATCHSTATE:0:30:9s8h|", "has five fields separated by ':', this one has 4"),
        ("MATCHSTATE:x:30::9s8h|", "position is not a whole number: 'x'"),
        ("MATCHSTATE:2:30::9s8h|", "position 2 in a game of 2: '2'"),
        ("MATCHSTATE:0:3a::9s8h|", "hand number is not a whole number: '3a'"),
        ("MATCHSTATE:0:30:cx:9s8h|", "not an action (f, c or r<chips>): 'x'"),
        ("MATCHSTATE:0:30:rr:9s8h|", "fixed-limit betting is not supported"),
        ("MATCHSTATE:0:30::9s8z|", "not a card (rank of 23456789TJQKA, suit of cdhs): '8z'"),
        ("MATCHSTATE:0:30::9s8|", "cards are two characters each: '9s8'"),
        ("MATCHSTATE:0:30::9s8h", "1 hole-card sections for 2 positions: '9s8h'"),
        ("MATCHSTATE:0:30:cc/:9s8h|", "1 board section(s)"),
    ],
)
def test_malformed_messages_name_the_bad_token(line: str, needle: str) -> None:
    with pytest.raises(PokerlabError) as err:
        parse_matchstate(line)
    assert needle in str(err.value)


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("MATCHSTATE:0:30:r25000:9s8h|", "'r25000' raises to more than the stack of 20,000"),
        ("MATCHSTATE:0:30:r150:9s8h|", "'r150' is outside the legal raises r200..r20000"),
        ("MATCHSTATE:0:30:cf:9s8h|", "'f': a fold is not valid when checking is free"),
        ("MATCHSTATE:0:30:cc:9s8h|", "is in round 2 but has 1 round(s)"),
        ("MATCHSTATE:0:30:c/c:9s8h|/8c8d5c", "the action 'c' is in round 2, but the betting"),
        ("MATCHSTATE:0:30:f/:9s8h|/8c8d5c", "the betting 'f/' is in round 1 but has 2 round(s)"),
        ("MATCHSTATE:0:30:cc/:9s8h|/8c8d", "round 2 shows 2 board card(s), this game deals 3"),
        ("MATCHSTATE:0:30::9s9s|", "the card '9s' is dealt twice"),
        ("MATCHSTATE:0:30::9s8h|7c6c", "the opponent's cards show before a showdown"),
        ("MATCHSTATE:0:30::|9s8h", "no hole cards for the receiver's position 0"),
    ],
)
def test_illegal_lines_name_the_bad_token(line: str, needle: str) -> None:
    with pytest.raises(PokerlabError) as err:
        AcpcGame(HUNL).replay(parse_matchstate(line))
    assert needle in str(err.value)


def test_a_card_outside_a_small_deck_is_named() -> None:
    with pytest.raises(PokerlabError, match=r"'9s' is not in this game's deck of 8 cards \(K to A"):
        AcpcGame(SMALL).replay(parse_matchstate("MATCHSTATE:0:1::9sAs|"))


def _run_match(game, agents, hands, seed, **dealer_options):
    """The local dealer and one protocol client per seat on loopback; returns the dealer's
    result and the clients' results."""
    dealer = AcpcDealer(game, hands, seed, timeout=60, **dealer_options)
    out: dict[int, object] = {}

    def client(k: int) -> None:
        try:
            out[k] = play_acpc(game, agents[k], "127.0.0.1", dealer.ports[k], seed=k, timeout=60)
        except Exception as exc:  # surfaced by the assertions below
            out[k] = exc

    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(2)]
    for t in threads:
        t.start()
    result = dealer.run()
    for t in threads:
        t.join(60)
    assert not any(isinstance(v, Exception) for v in out.values()), out
    return result, out


def test_loopback_match_equals_the_match_engine_on_the_same_deals() -> None:
    game = AcpcGame(HUNL)
    agents = [HandStrengthRule(), PotRaise()]  # deterministic, one of them reads its cards
    hands = 30
    result, clients = _run_match(game, agents, hands, seed=8)
    cards = deal_cards(HUNL, hands, generator(8))
    values = showdown_values(HUNL, cards)
    totals = [Fraction(0), Fraction(0)]
    for h, hand in enumerate(result.hands):
        # positions alternate every hand as the ACPC dealer rotates them
        assert hand.positions == ((0, 1) if h % 2 == 0 else (1, 0))
        seat_of = [game.seat(p) for p in hand.positions]  # pokerlab seat of connection k
        seated = [agents[seat_of.index(s)] for s in range(2)]
        record = play_hand(HUNL, seated, cards[h], generator(h), values[h].tolist())
        assert record.actions == hand.actions
        for k in range(2):
            assert hand.chips[k] == Fraction(record.chips[seat_of[k]])
            totals[k] += hand.chips[k]
    assert result.totals == totals and sum(result.totals) == 0
    assert result.invalid == [0, 0]
    assert any(h.betting.count("/") == 3 for h in result.hands)  # some hands reach the river
    for k in range(2):  # each client's chips, read from the final states, are the dealer's
        assert clients[k].chips == result.totals[k] and len(clients[k].hands) == hands
        assert [h for h, _, _ in clients[k].hands] == list(range(hands))
    assert result.score_line() == (f"SCORE:{float(totals[0]):g}|{float(totals[1]):g}:seat0|seat1")


def _answers(port: int, script: list[list[str]], game: AcpcGame, seen: list[str]) -> None:
    """A raw protocol client: at its k-th decision it sends the lines of ``script[k]``
    (``{state}`` is the match state received)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"VERSION:2.0.0\r\n")
        turn = 0
        for raw in sock.makefile("rb"):
            line = raw.decode().rstrip("\r\n")
            seen.append(line)
            if game.replay(parse_matchstate(line)).on_move:
                lines = script[turn] if turn < len(script) else ["{state}:c"]
                turn += 1
                for answer in lines:
                    sock.sendall((answer.format(state=line) + "\r\n").encode())


def test_the_dealer_plays_invalid_answers_as_the_acpc_dealer_does() -> None:
    game = AcpcGame(SMALL)
    wrong_hand = "MATCHSTATE:0:99::KsKh|:r300"  # an answer to another state: ignored
    script = [
        ["{state}:f"],  # hand 0, nothing to call after the limp: a fold becomes a check
        ["{state}:r5"],  # flop bet below the big blind: raised to the smallest, r200
        ["{state}:r99999"],  # hand 1 preflop: lowered to the all-in, r300
        [wrong_hand, "# a comment", "{state}:zz"],  # hand 2: unreadable, played as a call
    ]
    dealer = AcpcDealer(game, 3, 4, timeout=30, fixed_seats=True)
    seen: list[str] = []
    raw = threading.Thread(target=_answers, args=(dealer.ports[0], script, game, seen))
    raw.start()
    other = threading.Thread(
        target=play_acpc, args=(game, AlwaysCall(), "127.0.0.1", dealer.ports[1]), daemon=True
    )
    other.start()
    result = dealer.run()
    raw.join(30)
    other.join(30)
    # seat 0 keeps position 0 (the big blind) with fixed seats; the button limps each hand
    assert [h.positions for h in result.hands] == [(0, 1)] * 3
    assert [h.betting for h in result.hands] == ["cc/r200c", "cr300c/", "cc/cc"]
    assert result.invalid == [4, 0]
    assert [f.split(": ", 1)[1] for f in result.fixes] == [
        "a fold with nothing to call: played as a call",
        "raise 'r5' below the smallest, r200: raised to it",
        "raise 'r99999' above the largest, r300: lowered to it",
        "unreadable action 'zz': played as a call",
    ]
    assert result.hands[0].actions[1] == (1, CHECK, 100)
    assert result.hands[1].actions[1] == (1, ALLIN, 300)
    assert sum(result.totals) == 0
    assert seen[-1].startswith("MATCHSTATE:0:2:cc/cc:")  # the final state reached the client


def test_the_strict_dealer_stops_on_an_invalid_answer() -> None:
    game = AcpcGame(SMALL)
    dealer = AcpcDealer(game, 2, 4, timeout=30, fixed_seats=True, invalid="error")
    raw = threading.Thread(
        target=_raw_quiet, args=(dealer.ports[0], [["{state}:f"]], game), daemon=True
    )
    raw.start()
    other = threading.Thread(target=_quiet_client, args=(game, dealer.ports[1]), daemon=True)
    other.start()
    with pytest.raises(PokerlabError, match=r"seat 0 \(hand 0\): ACPC action 'f': a fold is"):
        dealer.run()
    raw.join(30)
    other.join(30)


def _raw_quiet(port: int, script: list[list[str]], game: AcpcGame) -> None:
    try:
        _answers(port, script, game, [])
    except OSError:  # the dealer stopped the match
        pass


def _quiet_client(game: AcpcGame, port: int) -> None:
    try:
        play_acpc(game, AlwaysCall(), "127.0.0.1", port, timeout=30)
    except PokerlabError:
        pass


@pytest.fixture(scope="module")
def checkpoint(tiny_blueprint) -> Path:
    """The tiny blueprint of conftest.py (8 cards, two rounds, fcpa, stacks 300)."""
    return tiny_blueprint


def test_a_blueprint_plays_over_loopback_and_every_hand_adds_up(checkpoint) -> None:
    agent, bp_game = load_agent(str(checkpoint), "CHECKPOINT")
    rules = bp_game.rules
    game = AcpcGame(rules)
    for opponent in (AlwaysCall(), agent):  # a baseline, then the blueprint itself
        result, clients = _run_match(game, [agent, opponent], 40, seed=21)
        assert result.invalid == [0, 0] and len(result.hands) == 40
        assert sum(result.totals) == 0
        for k in range(2):
            assert clients[k].chips == result.totals[k]
        values = showdown_values(rules, np.asarray([h.cards for h in result.hands]))
        decided = 0
        for h, hand in enumerate(result.hands):
            state = rules.initial_state()
            history: list[tuple[int, int, int]] = []
            for seat, kind, amount in hand.actions:
                assert state.to_act == seat
                k = hand.positions.index(game.position(seat))
                if k == 0:  # the blueprint's decision: an action its policy plays
                    view = PublicView(rules, state, tuple(hand.cards[4 : 4 + rules.board_size(
                        state.street)]), tuple(history))  # fmt: skip
                    hole = (hand.cards[2 * seat], hand.cards[2 * seat + 1])
                    policy = check_policy(view, agent.policy(view, hole), "blueprint")
                    assert policy.get((kind, amount), 0.0) > 0.0
                    decided += 1
                history.append((seat, kind, amount))
                state = state.apply(rules, kind, amount)
            chips = payoffs(rules, state, None if state.status == "fold" else values[h].tolist())
            assert hand.chips == (
                chips[game.seat(hand.positions[0])],
                chips[game.seat(hand.positions[1])],
            )
        assert decided >= 20 and clients[0].decisions == decided
        kinds = {kind for hand in result.hands for _, kind, _ in hand.actions}
        assert kinds - {CHECK, CALL}  # the blueprint does more than check and call


def test_cli_client_plays_a_checkpoint_and_reports_the_dealers_chips(checkpoint, capsys) -> None:
    _, bp_game = load_agent(str(checkpoint), "CHECKPOINT")
    game = AcpcGame(bp_game.rules)
    dealer = AcpcDealer(game, 12, 5, timeout=60)
    box: dict[str, object] = {}
    t = threading.Thread(target=lambda: box.update(result=dealer.run()), daemon=True)
    t.start()
    other = threading.Thread(target=_quiet_client, args=(game, dealer.ports[1]), daemon=True)
    other.start()
    args = ["blueprint", "acpc", str(checkpoint), "--port", str(dealer.ports[0])]
    assert main([*args, "--seed", "3", "--timeout", "60", "--json"]) == 0
    t.join(60)
    info = json.loads(capsys.readouterr().out)
    result = box["result"]
    assert info["hands"] == 12 and info["chips"] == float(result.totals[0])  # type: ignore[attr-defined]
    assert info["bb"] == float(result.totals[0]) / 100  # type: ignore[attr-defined]
    # the game definition for the ACPC dealer, and one-line errors
    assert main(["blueprint", "acpc", str(checkpoint), "--gamedef"]) == 0
    text = capsys.readouterr().out
    assert "stack = 300 300\n" in text and "numRanks = 2\n" in text
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    assert main(["blueprint", "acpc", str(checkpoint), "--port", str(free)]) == 2
    err = capsys.readouterr().err
    assert f"could not connect to 127.0.0.1:{free}" in err and "Traceback" not in err
    assert main(["blueprint", "acpc", str(checkpoint)]) == 2
    assert "--port: give the dealer's port" in capsys.readouterr().err


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _client_when_listening(game: AcpcGame, agent, port: int, box: dict, key: str) -> None:
    """play_acpc once the dealer listens (the CLI dealer starts in another thread)."""
    for _ in range(200):
        try:
            box[key] = play_acpc(game, agent, "127.0.0.1", port, seed=1, timeout=60)
            return
        except PokerlabError as exc:
            if "could not connect" not in str(exc):
                box[key] = exc
                return
            threading.Event().wait(0.05)


def test_cli_dealer_runs_a_match_and_prints_the_score(checkpoint, tmp_path, capsys) -> None:
    agent, bp_game = load_agent(str(checkpoint), "CHECKPOINT")
    game = AcpcGame(bp_game.rules)
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    ports = _free_ports(2)
    box: dict[str, object] = {}
    clients = [
        threading.Thread(target=_client_when_listening, args=(game, a, p, box, str(k)))
        for k, (a, p) in enumerate(zip((agent, AlwaysCall()), ports, strict=True))
    ]
    for t in clients:
        t.start()
    args = ["blueprint", "acpc-dealer", str(config), "--hands", "10", "--seed", "3"]
    assert main([*args, "--ports", f"{ports[0]},{ports[1]}", "--timeout", "60", "--json"]) == 0
    for t in clients:
        t.join(60)
    out = capsys.readouterr().out
    first, rest = out.split("\n", 1)
    assert first == f"{ports[0]} {ports[1]}"  # the ports first, as the ACPC dealer prints them
    info = json.loads(rest)
    chips = [box["0"].chips, box["1"].chips]  # type: ignore[attr-defined]
    assert info["hands"] == 10 and info["totals"] == [float(c) for c in chips]
    assert sum(chips) == 0 and info["invalid"] == [0, 0]
    assert info["score"] == f"SCORE:{float(chips[0]):g}|{float(chips[1]):g}:seat0|seat1"
    assert main(["blueprint", "acpc-dealer", str(config), "--ports", "1"]) == 2
    assert "--ports needs 2 counts" in capsys.readouterr().err


@pytest.mark.skipif(
    not os.environ.get("POKERLAB_ACPC_DEALER"),
    reason="set POKERLAB_ACPC_DEALER to the ACPC server's dealer binary to run",
)
def test_against_the_acpc_servers_own_dealer(checkpoint, tmp_path) -> None:
    """Opt-in interoperability check with the reference C dealer (project_acpc_server, not
    shipped here): it plays the blueprint against always-call on the checkpoint's game file,
    reports no invalid action, and its SCORE and every hand of its log agree with the clients'
    chips and with the rules' settlement of the logged hand."""
    agent, bp_game = load_agent(str(checkpoint), "CHECKPOINT")
    game = AcpcGame(bp_game.rules)
    gamedef = tmp_path / "tiny.game"
    gamedef.write_text(game.gamedef())
    proc = subprocess.Popen(
        [
            os.environ["POKERLAB_ACPC_DEALER"],
            str(tmp_path / "m"),
            str(gamedef),
            "200",
            "5",
            "bp",
            "call",
            "-q",
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ports = [int(p) for p in proc.stdout.readline().split()]  # type: ignore[union-attr]
    box: dict[str, object] = {}
    threads = [
        threading.Thread(target=_client_when_listening, args=(game, a, p, box, str(k)))
        for k, (a, p) in enumerate(zip((agent, AlwaysCall()), ports, strict=True))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    out, err = proc.communicate(timeout=120)
    chips = [box["0"].chips, box["1"].chips]  # type: ignore[attr-defined]
    assert out.strip() == f"SCORE:{float(chips[0]):g}|{float(chips[1]):g}:bp|call"
    assert "WARNING" not in err and "ERROR" not in err
    logged = [ln for ln in (tmp_path / "m.log").read_text().splitlines() if ln.startswith("STATE")]
    assert len(logged) == 200
    for line in logged:
        _, hand, betting, cards, values, _ = line.split(":")
        holes, _, board = cards.partition("/")
        shown = holes.split("|")
        if betting.endswith("f"):
            shown[1] = ""  # position 0's view: the folded hand's cards are not shown
        text = f"MATCHSTATE:0:{hand}:{betting}:{shown[0]}|{shown[1]}" + (
            f"/{board}" if board else ""
        )
        replay = game.replay(parse_matchstate(text))
        got = [replay.chips()[game.seat(p)] for p in (0, 1)]
        assert got == [Fraction(v) for v in values.split("|")], line
