"""Cross-check against OpenSpiel's universal_poker with betting abstraction fcpa (issue 24):
the same betting sequences per round, and on a tiny deck the same information sets, value of
the uniform strategy and best-response values against it."""

from __future__ import annotations

import pytest

import pokerlab
from pokerlab.games.nolimit import count_tree

pyspiel = pytest.importorskip("pyspiel")


def _gamedef(stacks: list[int], rounds: int = 4, ranks: int = 13) -> str:
    """Seat 0 posts the small blind; heads-up it acts first preflop and seat 1 first after;
    with 3+ players seat 2 acts first preflop and seat 0 after (1-based in the gamedef)."""
    n = len(stacks)
    boards = "0 3 1 1"[: 2 * rounds - 1]
    first = " ".join(["1" if n == 2 else "3"] + ["2" if n == 2 else "1"] * (rounds - 1))
    blinds = " ".join(["50", "100"] + ["0"] * (n - 2))
    return (
        f"universal_poker(betting=nolimit,numPlayers={n},numRounds={rounds},blind={blinds},"
        f"firstPlayer={first},numSuits=4,numRanks={ranks},numHoleCards=2,"
        f"numBoardCards={boards},stack={' '.join(map(str, stacks))},bettingAbstraction=fcpa)"
    )


def _openspiel_betting_counts(stacks: list[int]) -> tuple[list[int], list[int]]:
    """Decision nodes and their actions per round, walking OpenSpiel's tree for one deal (the
    betting does not depend on the cards)."""
    game = pyspiel.load_game(_gamedef(stacks))
    nodes, actions = [0] * 4, [0] * 4

    def walk(state) -> None:  # noqa: ANN001 - a pyspiel state
        while state.is_chance_node():
            state = state.child(state.legal_actions()[0])
        if state.is_terminal():
            return
        betting = str(state).split("ACPC State: ")[1].split(":")[2]
        rnd = betting.count("/")
        nodes[rnd] += 1
        actions[rnd] += len(state.legal_actions())
        for a in state.legal_actions():
            walk(state.child(a))

    walk(game.new_initial_state())
    return nodes, actions


def _ours(stacks: list[int], reopens: bool = False) -> tuple[list[int], list[int]]:
    game = pokerlab.load_game(
        "nolimit-holdem",
        config="fcpa",
        players=len(stacks),
        stacks=stacks,
        short_allin_reopens=reopens,
    )
    size = count_tree(game.rules, game.abstraction)
    return list(size.decisions), list(size.actions)


@pytest.mark.parametrize("stack", [300, 777, 2500, 20_000])
def test_fcpa_betting_sequences_equal_openspiel(stack: int) -> None:
    nodes, actions = _openspiel_betting_counts([stack, stack])
    assert _ours([stack, stack]) == (nodes, actions)
    if stack == 20_000:  # ACPC HUNL stacks: 1,360 betting sequences with fcpa
        assert sum(nodes) == 1360 and nodes == [20, 100, 340, 900]


@pytest.mark.parametrize("stacks", [[1000] * 3, [800] * 4, [250, 1000, 400], [700, 300]])
def test_multiway_fcpa_betting_equals_openspiel(stacks: list[int]) -> None:
    # equal stacks, or no short all-in a player who acted could face: the TDA rule and the ACPC
    # dealer agree
    assert _ours(stacks) == _openspiel_betting_counts(stacks)


@pytest.mark.parametrize("stacks", [[500, 1000, 1500], [400, 1000, 1500, 700]])
def test_short_all_ins_reopen_in_openspiel(stacks: list[int]) -> None:
    """With unequal stacks OpenSpiel (the ACPC dealer's logic) lets a player who has acted
    raise again after a short all-in; ``short_allin_reopens=True`` gives its tree, the default
    TDA rule a smaller one (for [500, 1000, 1500]: UTG and the small blind limp, the big blind
    raises to 400, UTG calls, the small blind is all-in for 100 more: the big blind may only
    call or fold)."""
    expected = _openspiel_betting_counts(stacks)
    assert _ours(stacks, reopens=True) == expected
    tda = _ours(stacks)
    assert sum(tda[0]) < sum(expected[0])
    if stacks == [500, 1000, 1500]:
        assert tda[0][0] == expected[0][0] - 3 == 66


def test_tiny_fcpa_game_equals_openspiel() -> None:
    """8 cards (K, A), two rounds, stacks of 3 big blinds: the same information sets, the same
    value of the uniform strategy and the same best-response values against it."""
    os_game = pyspiel.load_game(_gamedef([300, 300], rounds=2, ranks=2))
    uniform_os = pyspiel.UniformRandomPolicy(os_game)
    os_values = pyspiel.expected_returns(os_game.new_initial_state(), uniform_os, -1, True)
    os_infosets = len(pyspiel.CFRSolver(os_game).tabular_current_policy().policy_table())
    os_nash_conv = pyspiel.nash_conv(os_game, uniform_os, True)

    game = pokerlab.load_game(
        "nolimit-holdem", actions="fcpa", ranks=2, rounds=2, stack=300, blinds=[50, 100]
    )
    uniform = pokerlab.uniform_strategy(game)
    values = pokerlab.expected_values(game, uniform)
    assert pokerlab.compile_game(game).tree.num_infosets == os_infosets == 2352
    assert values[0] == pytest.approx(os_values[0], abs=1e-9)
    assert values[0] == pytest.approx(-10.416666666666, abs=1e-9)
    assert pokerlab.nash_conv(game, uniform) == pytest.approx(os_nash_conv, abs=1e-9)
    root = os_game.new_initial_state().history_str()
    os_best = [pyspiel.TabularBestResponse(os_game, p, uniform_os).value(root) for p in (0, 1)]
    best = pokerlab.best_response_values(game, uniform)
    assert list(best) == pytest.approx(os_best, abs=1e-9)
    assert list(best) == pytest.approx([50.0, 37.619047619], abs=1e-6)
