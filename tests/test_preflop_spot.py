"""A postflop spot that starts before the flop (``blinds``, no board): the whole hand of the
small-deck no-limit game in the vector engine, checked against the game's own rules and exact
best response (:mod:`pokerlab.evaluate.nolimit.exact`)."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.exact import exact_best_response
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.spot import spot_from_params
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
from pokerlab.solvers.search.lines import real_action
from pokerlab.solvers.search.safe import projected_blueprint
from pokerlab.tree.vector.passes import Passes

FULL = "QQ+,AK,AQ,KQ"  # every hole pair of the 12-card deck


def _spot(stack: int, **extra: object) -> PostflopGame:
    spot = spot_from_params(
        board="", blinds=(50, 100), ranges=(FULL, FULL), pot=0, stack=stack,
        bets={s: {"bet": "100%, a", "raise": "100%, a"}
              for s in ("preflop", "flop", "turn", "river")},
        add_allin_threshold=0.0, force_allin_threshold=0.0, merging_threshold=0.0,
        raise_limit=8, ranks=3, **extra,
    )  # fmt: skip
    return PostflopGame(spot)


def _game(stack: int) -> object:
    return pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=3, rounds=4, stack=stack)


@pytest.mark.parametrize("stack", [300, 1000])
def test_the_spot_offers_the_games_actions_everywhere(stack: int) -> None:
    """Walked with the real rules, every decision of the spot has exactly the actions of the
    game's fold / call / pot / all-in abstraction (blinds, the big blind's option, minimum
    raises, pot raises)."""
    game = _game(stack)
    rules = game.rules
    todo = [(_spot(stack).betting_tree, rules.initial_state())]
    seen = 0
    while todo:
        node, state = todo.pop()
        if node.kind == "chance":
            todo.append((node.children[0], state))
            continue
        if node.kind != "decision":
            continue
        seen += 1
        reals = [real_action(rules, state, k, a) for k, a in node.actions]
        assert sorted(reals) == sorted(abstract_actions(rules, game.abstraction, state))
        todo.extend(
            (c, state.apply(rules, k, a)) for c, (k, a) in zip(node.children, reals, strict=True)
        )
    assert seen > 10


def test_root_line_reads_like_the_game() -> None:
    root = _spot(1000).betting_tree
    assert (root.player, root.commit, root.labels()) == (
        1,
        (100, 50),
        ["fold", "call", "raise 300", "allin 1000"],
    )
    option = root.children[1]  # the small blind completes: the big blind's option
    assert (option.player, option.labels()) == (0, ["check", "raise 300", "allin 1000"])
    flop = option.children[0]  # checked: the flop's three cards, one chance node each
    assert [flop.kind, flop.children[0].kind, flop.children[0].children[0].kind] == ["chance"] * 3
    assert [flop.deal, flop.children[0].deal, flop.children[0].children[0].deal] == [0, 1, 2]
    assert flop.commit == (100, 100)


def test_blueprint_on_the_spot_has_the_exact_best_response_values() -> None:
    """A blueprint of the 12-card game read onto the preflop spot: the vector engine's best
    responses equal the exact public-tree best response's per seat (spot player 0 is the big
    blind, seat 1)."""
    stack = 300
    game = _game(stack)
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(2000)
    blueprint = BlueprintAgent(solver.average_strategy(), abstraction)
    exact = exact_best_response(game, blueprint)
    spot = _spot(stack)
    start = game.rules.initial_state()
    profile = projected_blueprint(blueprint, game.rules, spot, start, (), 1)
    small = projected_blueprint(blueprint, game.rules, spot, start, (), 0)
    tree = spot.expanded.tree
    lo, hi = tree.player_ranges[1]
    profile[lo:hi] = small[lo:hi]
    br = Passes(tree).best_responses(profile, np.zeros(tree.size, np.float32), (None, None))
    assert br[0] == pytest.approx(exact.best_response_values[1], rel=1e-6)
    assert br[1] == pytest.approx(exact.best_response_values[0], rel=1e-6)


def test_spot_file_round_trip_and_refusals() -> None:
    config = _spot(1000).config
    assert config.street == "preflop" and config.streets[0] == "preflop"
    again = spot_from_params(**config.to_dict())
    assert again == config and again.blinds == (50, 100)
    with pytest.raises(PokerlabError, match="blinds must be"):
        spot_from_params(board="", blinds=(100, 50), ranges=(FULL, FULL), pot=0, stack=1000)
    with pytest.raises(PokerlabError, match="no board"):
        spot_from_params(board="AsKhQd", blinds=(50, 100), ranges=(FULL, FULL), pot=0, stack=1000)
    with pytest.raises(PokerlabError, match="the big blind"):
        spot_from_params(board="", blinds=(50, 100), ranges=(FULL, FULL), pot=0, stack=60)
    with pytest.raises(PokerlabError, match="3, 4 or 5 cards"):
        spot_from_params(board="", ranges=(FULL, FULL), pot=100, stack=1000)


def test_a_river_fold_needs_a_swap_that_keeps_the_flop() -> None:
    """Flop Ks Qd Ac, turn Kh: swapping spades and hearts keeps the four cards but trades the
    turn with a flop card (the flop becomes Kh Qd Ac, whose strategies differ), so no river card
    is folded under it; swaps that keep the flop and the turn each, and before the turn those
    that keep the flop, still fold."""
    from pokerlab.cards.deck import SUITS, parse_cards
    from pokerlab.games.postflop.hand_lists import iso_pairs, street_pairs
    from pokerlab.tree.vector.tree import SUIT_PAIRS

    every = [True] * len(SUIT_PAIRS)
    spades_hearts = SUIT_PAIRS.index((SUITS.index("h"), SUITS.index("s")))
    board = parse_cards("KsQdAcKh")
    assert [p[0] for p in iso_pairs(board, every)] == [spades_hearts]  # the four cards allow it
    assert street_pairs(board, every, 0) == []  # the flop does not
    # Ks Kh Qd, turn Qc: spades-hearts keeps flop and turn, clubs-diamonds trades Qd and Qc
    paired = parse_cards("KsKhQdQc")
    clubs_diamonds = SUIT_PAIRS.index((SUITS.index("c"), SUITS.index("d")))
    assert sorted(p[0] for p in iso_pairs(paired, every)) == [clubs_diamonds, spades_hearts]
    assert [p[0] for p in street_pairs(paired, every, 0)] == [spades_hearts]
    flop = parse_cards("KsKhQd")
    assert street_pairs(flop, every, 0) == iso_pairs(flop, every) != []
