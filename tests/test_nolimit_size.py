"""The abstract tree's size before allocation: counts by hand and by brute force, entries and
bytes, refusals; configurations from keywords, TOML files and the built-in ones; the limit
hold'em betting tree reproduced with fixed chip sizes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.games.nolimit import NoLimitHoldemGame, count_tree, enumerate_lines
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.games.nolimit.size import check_fits, memory_bytes
from pokerlab.tree._primitives import DECISION, FOLD_END, SHOWDOWN_END

ALLIN_ONLY = {"preflop": "a", "flop": "a", "turn": "a", "river": "a"}


def test_all_in_only_tree_counted_by_hand() -> None:
    # preflop: the small blind folds, limps or shoves (3); after the limp the big blind checks or
    # shoves (2); facing a shove: fold or call (2 nodes). Each later street: 4 nodes, 8 actions.
    game = NoLimitHoldemGame(stack=1000, actions=ALLIN_ONLY)
    size = count_tree(game.rules, game.abstraction)
    assert size.decisions == (4, 4, 4, 4)
    assert size.actions == (9, 8, 8, 8)
    assert size.folds == (3, 2, 2, 2)
    assert size.showdowns == (2, 2, 2, 3)  # calls of a shove, and the river's check-check
    assert size.sequences == 16


def _brute_force(game: NoLimitHoldemGame) -> tuple[list[int], list[int]]:
    """Decision nodes and actions per street by replaying every line from the root."""
    nodes, actions = [0] * 4, [0] * 4
    for line in enumerate_lines(game.rules, game.abstraction):
        state = game.rules.initial_state()
        for kind, amount in line:
            state = state.apply(game.rules, kind, amount)
        nodes[state.street] += 1
        actions[state.street] += len(abstract_actions(game.rules, game.abstraction, state))
    return nodes, actions


@pytest.mark.parametrize(
    "params",
    [
        {"stack": 2000, "actions": "hunl-100"},
        {"stack": 1500, "actions": {"preflop": "2.5bb, 3x, a", "flop": "50%, 100%, a"}},
        {"players": 3, "stack": 800, "actions": {"preflop": "100%, a", "flop": "a", "turn": "a"}},
        {"players": 3, "stacks": [400, 900, 1300], "ante": 10, "actions": "6max-100"},
        {"players": 4, "stack": 500, "rounds": 2, "actions": {"preflop": "3x, a", "flop": "a"}},
    ],
)
def test_memoised_count_equals_brute_force(params: dict) -> None:
    game = NoLimitHoldemGame(**params)
    size = count_tree(game.rules, game.abstraction)
    nodes, actions = _brute_force(game)
    assert list(size.decisions) == nodes and list(size.actions) == actions
    assert size.states < size.sequences  # the memo shares subtrees


def test_entries_and_bytes() -> None:
    game = NoLimitHoldemGame(stack=1000, actions=ALLIN_ONLY, buckets=[169, 200, 200, 200])
    info = game.summary(buckets=(169, 200, 200, 200), averages="all")
    assert info["infoset_actions"] == {"preflop": 1521, "flop": 1600, "turn": 1600, "river": 1600}
    assert info["total_infoset_actions"] == 6321
    assert info["bytes"] == 8 * 6321 and info["bytes_without_averages"] == 4 * 6321
    assert game.summary(averages="preflop")["bytes"] == 4 * 6321 + 4 * 1521
    assert memory_bytes([1, 2, 3, 4], "none") == 40
    assert "6,321" in info["text"] and "49.4 KiB" in info["text"]
    assert info["action_sequences"] == {"preflop": 4, "flop": 4, "turn": 4, "river": 4}
    assert info["infosets"] == {"preflop": 676, "flop": 800, "turn": 800, "river": 800}


def test_refused_with_the_estimate_when_it_does_not_fit() -> None:
    game = NoLimitHoldemGame(stack=1000, actions=ALLIN_ONLY, buckets=[169, 200, 200, 200])
    with pytest.raises(PokerlabError, match=r"needs 49\.4 KiB \(50,568 bytes\).*1000 B"):
        game.check_fits(available=1000)
    assert game.check_fits(available=10**9)["bytes"] == 50_568
    check_fits(10**6)  # a megabyte fits this machine


def test_count_refuses_past_the_state_budget() -> None:
    game = NoLimitHoldemGame(config="acpc-hunl")
    with pytest.raises(PokerlabError, match="too large to count: more than 100 distinct"):
        count_tree(game.rules, game.abstraction, max_states=100)


def test_builtin_configurations() -> None:
    acpc = pokerlab.load_game("nolimit-holdem", config="acpc-hunl")
    assert acpc.rules.stacks == (20_000, 20_000) and acpc.rules.big_blind == 100
    assert acpc.num_players == 2 and acpc.averages == "preflop"
    info = acpc.summary()
    assert info["buckets"] == {"preflop": 169, "flop": 200, "turn": 200, "river": 200}
    assert (
        info["bytes"] == 4 * info["total_infoset_actions"] + 4 * info["infoset_actions"]["preflop"]
    )
    small = pokerlab.load_game("nolimit-holdem")  # the default: HUNL 100 bb, few sizes
    assert small.rules.stacks == (10_000, 10_000)
    assert small.summary()["total_infoset_actions"] < info["total_infoset_actions"] / 100
    six = NoLimitHoldemGame(config="6max-100")
    assert six.rules.players == 6 and six.rules.first_to_act(0) == 2


def test_load_game_parameters_and_errors() -> None:
    game = pokerlab.load_game(
        "nolimit-holdem", players=3, stack=2000, blinds=(10, 20), ante=5, deck="small"
    )
    assert game.rules.stacks == (2000,) * 3 and game.rules.ante == 5 and game.rules.ranks == 6
    with pytest.raises(PokerlabError, match="players must be 2 to 6, got 7"):
        pokerlab.load_game("nolimit-holdem", players=7)
    with pytest.raises(PokerlabError, match="blinds above the stack: seat 1 has 100 chips"):
        pokerlab.load_game("nolimit-holdem", stack=100, blinds=(50, 100))
    with pytest.raises(PokerlabError, match="16 cards is too small for 6 players"):
        pokerlab.load_game("nolimit-holdem", players=6, deck="tiny")
    with pytest.raises(PokerlabError, match="unknown deck 'huge'"):
        pokerlab.load_game("nolimit-holdem", deck="huge")
    with pytest.raises(PokerlabError, match=r"bad bet size .*'3y'"):
        pokerlab.load_game("nolimit-holdem", actions={"flop": "50%, 3y"})
    with pytest.raises(PokerlabError, match=r"blinds \(small, big\) must be a list of 2 numbers"):
        pokerlab.load_game("nolimit-holdem", blinds=100)
    with pytest.raises(PokerlabError, match="buckets must be a list of 4 numbers"):
        pokerlab.load_game("nolimit-holdem", buckets=[169, 200])
    with pytest.raises(PokerlabError, match="unknown configuration 'hunl-1000'"):
        pokerlab.load_game("nolimit-holdem", config="hunl-1000")


def test_params_rebuild_the_same_game() -> None:
    game = NoLimitHoldemGame(config="acpc-hunl", stacks=[15_000, 20_000], ante=10)
    again = NoLimitHoldemGame(**game.params)
    assert again.rules == game.rules and again.abstraction == game.abstraction
    assert (again.buckets, again.averages) == ((169, 200, 200, 200), "preflop")
    with pytest.raises(PokerlabError, match="players must be a whole number, got 2.5"):
        NoLimitHoldemGame(players=2.5)


def test_toml_configuration(tmp_path: Path) -> None:
    path = tmp_path / "six.toml"
    path.write_text(
        'base = "6max-100"\nstack = 5000\n\n[actions]\npreflop = ["3bb, a", "a"]\n'
        'flop = "a"\nraise_cap = { preflop = 2 }\n'
    )
    game = pokerlab.load_game("nolimit-holdem", config=str(path))
    assert game.rules.players == 6 and game.rules.stacks == (5000,) * 6
    assert game.params["actions"]["preflop"] == ["3bb, a", "a"]
    assert game.params["actions"]["turn"] == []  # the table replaces the base's actions
    bad = tmp_path / "bad.toml"
    bad.write_text("stack = 5000\nstak = 3\n")
    with pytest.raises(PokerlabError, match="unknown configuration key 'stak'"):
        NoLimitHoldemGame(config=bad)
    bad.write_text("[actions]\nflop = '50%, 2.5'\n")
    with pytest.raises(PokerlabError, match=r"actions\.flop\[0\]: bad bet size .*'2\.5'"):
        NoLimitHoldemGame(config=bad)
    bad.write_text("stack = \n")
    with pytest.raises(PokerlabError, match="is not valid TOML"):
        NoLimitHoldemGame(config=bad)


def test_fixed_chip_sizes_reproduce_the_limit_holdem_betting_tree() -> None:
    """Issue 24's check: no-limit with fixed bets (a small bet of 2 chips, a big bet of 4, raise
    caps 3 preflop and 4 after) and deep stacks is heads-up limit hold'em's betting tree."""
    limit = LimitHoldemGame("tiny").betting_tree
    kind, rnd = np.asarray(limit.kind), np.asarray(limit.round)
    game = NoLimitHoldemGame(
        stack=1000,
        blinds=(1, 2),
        actions={
            "preflop": "2c",
            "flop": "2c",
            "turn": "4c",
            "river": "4c",
            "raise_cap": {"preflop": 3, "flop": 4, "turn": 4, "river": 4},
            "add_allin_threshold": 0,
            "force_allin_threshold": 0,
            "merging_threshold": 0,
        },
    )
    size = count_tree(game.rules, game.abstraction)
    assert list(size.decisions) == [int(np.sum((kind == DECISION) & (rnd == r))) for r in range(4)]
    assert list(size.folds) == [int(np.sum((kind == FOLD_END) & (rnd == r))) for r in range(4)]
    assert sum(size.showdowns) == int(np.sum(kind == SHOWDOWN_END))
    # the pots at the showdowns agree too (limit counts in big blinds = 2 chips)
    contrib = np.asarray(limit.contrib)[kind == SHOWDOWN_END][:, 0] * 2
    ours: Counter[int] = Counter()
    for line in enumerate_lines(game.rules, game.abstraction):
        state = game.rules.initial_state()
        for action in line:
            state = state.apply(game.rules, *action)
        for action in abstract_actions(game.rules, game.abstraction, state):
            end = state.apply(game.rules, *action)
            if end.status == "showdown":
                ours[end.contrib[0]] += 1
    assert ours == Counter(int(c) for c in contrib)
