"""Heads-up no-limit hold'em against a blueprint checkpoint in the viewer (issue 25, "Playing"):
``POST /api/play`` on a checkpoint of ``pokerlab blueprint train``, with or without search.

Every finished hand is replayed through the rules (each action legal, the page's words those of
``describe_action``) and its result compared with :func:`~pokerlab.games.nolimit.rules.payoffs`;
the bot's actions are ones its blueprint plays; an illegal amount is refused naming it and the
legal range; the searching bot says how long it searched; a seed replays the same hands."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cards.deck import parse_card
from pokerlab.cli.blueprint_play import describe_action, parse_move
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import KIND_NAMES, PublicView, check_policy, normalize_action
from pokerlab.evaluate.nolimit.matches import showdown_values
from pokerlab.games.nolimit.rules import STREETS, NoLimitRules, payoffs
from pokerlab.solvers.blueprint_load import load_blueprint

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("httpx", reason="httpx (test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.viewer import create_app  # noqa: E402

#: 12 cards, four rounds, 50 bb deep, half-pot bets and one raise after the preflop (the game of
#: tests/test_search_agent.py): hands reach the river with chips behind, where search runs.
MICRO = (
    'ranks = 3\nrounds = 4\nstack = 5000\n[actions]\npreflop = "100%"\nflop = "50%"\n'
    'turn = "50%"\nriver = "50%"\nraise_cap = 1\n'
)


@pytest.fixture(scope="module")
def nolimit_checkpoint(tmp_path_factory) -> Path:
    """The micro game trained by ``pokerlab blueprint train`` (lossless, 20,000 iterations),
    alone in the served folder as ``bp.npz``."""
    folder = tmp_path_factory.mktemp("nolimit-play")
    config = folder / "micro.toml"
    config.write_text(MICRO)
    path = folder / "served" / "bp.npz"
    path.parent.mkdir()
    args = ["blueprint", "train", str(config), "--bucketing", "lossless", "-n", "20000"]
    assert main([*args, "--checkpoint", str(path), "--json"]) == 0
    return path


@pytest.fixture(scope="module")
def client(nolimit_checkpoint) -> TestClient:
    return TestClient(create_app(nolimit_checkpoint.parent))


@pytest.fixture(scope="module")
def rules(nolimit_checkpoint) -> NoLimitRules:
    return load_blueprint(nolimit_checkpoint)[1].rules


def _cards(names: list[str]) -> list[int]:
    return [parse_card(c) for c in names]


def replay(rules: NoLimitRules, hand: dict, agent: object = None) -> Fraction:
    """The user's chips from the rules for the finished ``hand`` (a play state): its actions
    replayed from the start (each one legal, in turn, described as the terminal describes it;
    with ``agent``, each of the bot's actions one that ``agent``'s policy plays, which needs the
    bot's cards: showdowns only), then :func:`payoffs`."""
    assert hand["done"]
    seat, bot = hand["seat"], 1 - hand["seat"]
    board = _cards(hand["board"])
    state, history = rules.initial_state(), []
    for entry in hand["history"]:
        if entry["who"] == "dealer":
            street, cards = entry["action"].split(" ", 1)
            size = rules.board_size(STREETS.index(street))
            assert (
                _cards(cards.split()) == board[rules.board_size(STREETS.index(street) - 1) : size]
            )
            continue
        assert entry["player"] == state.to_act and entry["street"] == STREETS[state.street]
        assert entry["who"] == ("you" if entry["player"] == seat else "bot")
        shown = tuple(board[: rules.board_size(state.street)])
        view = PublicView(rules, state, shown, tuple(history))
        action = (KIND_NAMES.index(entry["kind"]), entry["amount"])
        assert normalize_action(view, action) == action  # legal, in its canonical form
        assert entry["action"] == describe_action(view, action, you=entry["who"] == "you")
        if agent is not None and entry["who"] == "bot":
            hole = tuple(_cards(hand["bot_cards"]))
            policy = check_policy(view, agent.policy(view, hole), "blueprint")  # type: ignore[attr-defined]
            assert policy.get(action, 0.0) > 0.0, (entry, policy)
        history.append((entry["player"], *action))
        state = state.apply(rules, *action)
    assert state.is_terminal()
    assert hand["showdown"] == (state.status == "showdown")
    values = None
    if hand["showdown"]:
        row = [0] * 9
        row[2 * seat : 2 * seat + 2] = _cards(hand["your_cards"])
        row[2 * bot : 2 * bot + 2] = _cards(hand["bot_cards"])
        row[4:9] = board
        assert len(set(row)) == 9
        values = showdown_values(rules, np.array([row]))[0].tolist()
    else:
        assert hand["bot_cards"] is None  # a folded hand is not shown
    return payoffs(rules, state, values)[seat]


def choose(state: dict, plan: str, step: int) -> str:
    """The scripted user's action text: ``passive`` checks or calls; ``fold`` folds to any bet;
    ``raise`` raises to an amount off the blueprint's tree (the smallest raise plus 37 chips)
    first, then calls down; ``allin`` moves in; ``pot`` bets or raises 75% of the pot, typed as
    the terminal takes it."""
    legal = state["legal"]
    passive = "check" if "check" in legal else "call"
    if plan == "fold":
        return "fold" if "fold" in legal else passive
    if plan == "raise" and step == 0 and state["raise"] is not None:
        low, high = state["raise"]["min"], state["raise"]["max"]
        return f"raise {min(low + 37, high)}"
    if plan == "allin":
        return "all-in" if "all-in" in legal else passive
    if plan == "pot" and step == 0 and state["raise"] is not None:
        return "75%"
    return passive


def play(client: TestClient, state: dict, plan: str) -> dict:
    """Play the hand of ``state`` to its end by ``plan``; the final state."""
    step = 0
    while not state["done"]:
        assert state["legal"] and state["bot_cards"] is None
        got = client.post(
            f"/api/play/{state['id']}/act", json={"action": choose(state, plan, step)}
        )
        assert got.status_code == 200, got.text
        state, step = got.json(), step + 1
    return state


def _without_times(state: dict) -> dict:
    """``state`` less what the clock says (the bot's thinking time) and the session's id."""
    out = {k: v for k, v in state.items() if k != "id"}
    history = []
    for entry in state["history"]:
        entry = {k: v for k, v in entry.items() if k != "seconds"}
        if "search" in entry:
            entry["search"] = {
                k: v for k, v in entry["search"].items() if k not in ("seconds", "text")
            }
        history.append(entry)
    out["history"] = history
    return out


PLANS = ("passive", "fold", "raise", "allin", "pot")


@pytest.mark.parametrize("seat", [0, 1])
def test_scripted_session_chips_add_up_to_the_rules_payoffs(
    client, rules, nolimit_checkpoint, seat
) -> None:
    agent, _ = load_blueprint(nolimit_checkpoint)
    state = client.post("/api/play", json={"path": "bp.npz", "seat": seat, "seed": 7}).json()
    assert state["game"] == "nolimit-holdem" and state["seat_name"] == ["BTN/SB", "BB"][seat]
    assert state["bot"] == "bp.npz" and state["search"] is None and state["seed"] == 7
    assert state["stacks"] == [5000, 5000] and state["blinds"] == [50, 100]
    total, kinds, notes = Fraction(0), set(), 0
    for number in range(15):
        plan = PLANS[number % len(PLANS)]
        state = play(client, state, plan)
        won = replay(rules, state, agent if state["showdown"] else None)
        assert state["result"] == float(won) and state["result_bb"] == float(won) / 100
        total += won
        assert state["total"] == float(total) and state["total_bb"] == pytest.approx(total / 100)
        assert state["hands"] == number + 1
        kinds.add("showdown" if state["showdown"] else "fold")
        if state["showdown"]:
            assert len(state["board"]) == 5 and "showdown on" in state["message"]
        you = [e for e in state["history"] if e["who"] == "you"]
        if plan == "raise" and you and you[0]["kind"] in ("bet", "raise"):
            # a size off the tree (the smallest raise plus 37 chips): the bot says it translates
            assert any(e.get("note", "").startswith("off the bot's tree") for e in state["history"])
            notes += 1
        assert all("search" not in e for e in state["history"])  # the blueprint never searches
        state = client.post(f"/api/play/{state['id']}/next").json()
        if state["done"]:  # only the bot's fold as the small blind ends a hand before you act
            assert seat == 1 and [e["action"] for e in state["history"]] == ["folds"]
    assert kinds == {"showdown", "fold"} and notes >= 1


def test_an_illegal_amount_is_refused_by_name(client, rules) -> None:
    state = client.post("/api/play", json={"path": "bp.npz", "seat": 0, "seed": 1}).json()
    sid = state["id"]
    # the small blind's first move: 50 to call, raises to 200..5,000
    assert state["legal"] == ["fold", "call", "all-in"] and state["to_call"] == 50
    assert state["raise"] == {"min": 200, "max": 5000, "word": "raise to"}
    legal = "legal are f, c 50 (call), r 200..5,000 (2-50 bb), a 5,000 (all-in)"
    assert state["legal_text"] == legal.removeprefix("legal are ")
    view = PublicView(rules, rules.initial_state(), ())
    for text, why in [
        ("raise 150", "a raise to 150 is below the smallest legal raise, 200"),
        ("raise 6000", "a raise to 6,000 is above your all-in, 5,000"),
        ("bet 1.5", "chips are whole numbers"),
        ("zz", "'zz' is not an action"),
        ("check 100", "'check' takes no amount"),
    ]:
        got = client.post(f"/api/play/{sid}/act", json={"action": text})
        assert got.status_code == 400, text
        error = got.json()["error"]
        assert f"'{text}'" in error and why in error and error.endswith(legal), error
        with pytest.raises(PokerlabError) as exc:  # the terminal's words, exactly
            parse_move(text, view)
        assert error == str(exc.value)
        again = client.get(f"/api/play/{sid}").json()
        assert again["history"] == state["history"] and again["legal"] == state["legal"]
    # a legal amount off the tree is played as typed
    got = client.post(f"/api/play/{sid}/act", json={"action": "raise 237"}).json()
    assert got["history"][0] == {
        "player": 0,
        "who": "you",
        "action": "raise to 237",
        "street": "preflop",
        "kind": "raise",
        "amount": 237,
    }
    done = play(client, got, "passive")
    refused = client.post(f"/api/play/{sid}/act", json={"action": "call"})
    assert refused.status_code == 400 and "the hand is over" in refused.json()["error"]
    assert done["result"] == float(replay(rules, done))


def test_the_searching_bot_reports_its_thinking_time(client, rules) -> None:
    body = {"path": "bp.npz", "seat": 0, "seed": 2, "search": True, "search_iterations": 30}
    first = client.post("/api/play", json=body).json()
    assert first["search"] == {
        "streets": ["river"],
        "iterations": 30,
        "gadget": "unsafe",
        "seconds": None,
        "options": None,
    }
    assert first["bot"] == "search:bp.npz"
    state = play(client, first, "passive")  # checked and called down: the river is reached
    assert state["done"] and state["showdown"]
    assert state["result"] == float(replay(rules, state))
    searched = [e for e in state["history"] if "search" in e]
    assert searched and all(e["street"] == "river" and e["who"] == "bot" for e in searched)
    for entry in searched:
        s = entry["search"]
        assert s["subgames"] >= 1 and s["iterations"] == 30 * s["subgames"]
        assert 0 < s["seconds"] <= entry["seconds"]
        assert s["text"] == f"searched {s['iterations']} iterations in {s['seconds']:.2f} s"
        assert re.fullmatch(r"searched \d+ iterations in \d+\.\d\d s", s["text"])
    # the bot (seat 1) acts first after the flop: it searched at its first river decision
    river = [e for e in state["history"] if e.get("street") == "river"]
    assert river[0]["who"] == "bot" and "search" in river[0]
    # the same seed and the same moves: the same hand, the same search results
    again = play(client, client.post("/api/play", json=body).json(), "passive")
    assert _without_times(again) == _without_times(state)


def test_the_bot_searches_with_a_safe_gadget(client, rules) -> None:
    body = {"path": "bp.npz", "seat": 0, "seed": 2, "search": True, "search_iterations": 20,
            "search_gadget": "maxmargin"}  # fmt: skip
    first = client.post("/api/play", json=body).json()
    assert first["search"] == {
        "streets": ["river"],
        "iterations": 20,
        "gadget": "maxmargin",
        "seconds": None,
        "options": None,
    }
    state = play(client, first, "passive")
    assert state["done"] and state["result"] == float(replay(rules, state))
    assert any("search" in e for e in state["history"])


def test_the_bot_searches_within_a_time_budget(client, rules) -> None:
    """``search_seconds``: a budget per decision (a number for every searched street, or per
    street), shown in the state; the bot still plays legal hands that replay."""
    body = {"path": "bp.npz", "seat": 0, "seed": 2, "search": True, "search_seconds": 0.05,
            "search_gadget": "resolve"}  # fmt: skip
    first = client.post("/api/play", json=body).json()
    assert first["search"]["seconds"] == {"river": 0.05}
    state = play(client, first, "passive")
    assert state["done"] and state["result"] == float(replay(rules, state))
    searched = [e["search"] for e in state["history"] if "search" in e]
    assert searched and all(s["iterations"] >= 1 for s in searched)
    body = {**body, "search_streets": "turn,river", "search_seconds": {"turn": 0.1}}
    got = client.post("/api/play", json=body).json()
    assert got["search"]["seconds"] == {"turn": 0.1} and got["search"]["iterations"] == 100


def test_the_bot_searches_with_the_agents_other_settings(client, rules) -> None:
    """``search_options``: the search agent's other settings by name, here the preflop
    depth-limited with one continuation and searched only far from the blueprint's sizes, the
    turn and river to the end; echoed in the state, and the hand replays."""
    options = {"depth": "preflop", "continuations": 1, "preflop_far": 0.5}
    body = {"path": "bp.npz", "seat": 0, "seed": 2, "search": True, "search_iterations": 10,
            "search_streets": "preflop,turn,river", "search_options": options}  # fmt: skip
    first = client.post("/api/play", json=body).json()
    assert first["search"]["options"] == options
    assert first["search"]["streets"] == ["preflop", "turn", "river"]
    state = play(client, first, "passive")
    assert state["done"] and state["result"] == float(replay(rules, state))


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"search": True, "search_streets": "showdown"}, ["search_streets", "'showdown'"]),
        ({"search": True, "search_iterations": 0}, ["search_iterations", "1..2000", "0"]),
        ({"search": "yes"}, ["search must be true or false", "'yes'"]),
        ({"search_streets": "river"}, ["need search: true"]),
        ({"search": True, "search_iterations": 2.5}, ["search_iterations", "2.5"]),
        ({"search": True, "search_gadget": "safe"}, ["search_gadget", "unknown gadget 'safe'"]),
        ({"search_gadget": "resolve"}, ["need search: true"]),
        (
            {"search": True, "search_streets": "turn,river", "search_gadget": "reach-maxmargin"},
            ["reach-maxmargin searches the river alone"],
        ),
        ({"search": True, "search_seconds": -1}, ["search_seconds", "> 0", "-1"]),
        ({"search": True, "search_seconds": {"pre": 1}}, ["search_seconds", "'pre'"]),
        ({"search": True, "search_seconds": "1s"}, ["search_seconds", "'1s'"]),
        ({"search_seconds": 1}, ["need search: true"]),
        ({"search": True, "search_options": {"depht": "round"}}, ["search_options", "'depht'"]),
        ({"search": True, "search_options": 3}, ["search_options must be an object", "3"]),
        (
            {"search": True, "search_options": {"preflop_far": -1}},
            ["search_options", "preflop_far"],
        ),
        ({"search_options": {"depth": "round"}}, ["need search: true"]),
        (
            {"search": True, "search_options": {"deal_sample": [5, 5]}, "search_streets": "turn"},
            ["search_options", "depth 'round'"],
        ),
    ],
)
def test_bad_search_options_are_refused_by_name(client, body, words) -> None:
    got = client.post("/api/play", json={"path": "bp.npz", "seat": 0, **body})
    assert got.status_code == 400
    assert all(w in got.json()["error"] for w in words), got.json()["error"]


def test_search_needs_four_rounds(tiny_blueprint) -> None:
    """A two-round checkpoint plays without search and refuses it, naming why."""
    api = TestClient(create_app(tiny_blueprint.parent))
    got = api.post("/api/play", json={"path": "bp.npz", "seat": 1, "seed": 0, "search": True})
    assert got.status_code == 400 and "four rounds" in got.json()["error"]
    state = api.post("/api/play", json={"path": "bp.npz", "seat": 1, "seed": 0}).json()
    assert state["game"] == "nolimit-holdem" and state["stacks"] == [300, 300]


def test_search_is_refused_for_other_files(tmp_path) -> None:
    """Only a blueprint searches: a small game's file refuses ``search`` and plays without it."""
    assert main(["solve", "kuhn", "-a", "cfr", "-n", "10", "--out", str(tmp_path / "k.npz")]) == 0
    api = TestClient(create_app(tmp_path))
    got = api.post("/api/play", json={"path": "k.npz", "seat": 0, "search": True})
    assert got.status_code == 400
    assert got.json()["error"] == (
        "search: only a no-limit blueprint checkpoint searches in play; k.npz is a table file"
    )
    assert api.post("/api/play", json={"path": "k.npz", "seat": 0}).json()["game"] == "kuhn"


def test_a_seed_replays_the_same_hands(client) -> None:
    def session(seed: int | None, plans: tuple[str, ...]) -> list[dict]:
        body = {"path": "bp.npz", "seat": 1} | ({} if seed is None else {"seed": seed})
        state = client.post("/api/play", json=body).json()
        hands = []
        for plan in plans:
            state = play(client, state, plan)
            hands.append(_without_times(state))
            state = client.post(f"/api/play/{state['id']}/next").json()
        return hands

    plans = ("raise", "passive", "allin", "pot", "fold")
    a, b = session(11, plans), session(11, plans)
    assert a == b
    # the deals do not depend on what the user plays; another seed deals other cards
    folded = session(11, ("fold",) * len(plans))
    assert [h["your_cards"] for h in folded] == [h["your_cards"] for h in a]
    other = session(12, plans)
    assert [h["your_cards"] for h in other] != [h["your_cards"] for h in a]
    # without a seed the session picks one and says which: it replays the session
    fresh = session(None, plans[:2])
    assert session(fresh[0]["seed"], plans[:2]) == fresh
