"""Public chance sampling of a spot's later deals (``deal_sample``): the leaves of a depth-limited
search on the full deck (issue 25). A sampled chance node deals a few of the cards left and the
passes renormalise each hand's chance mass (``sampled_renormalise``): exact when the sample is
every card, each hand's whole mass for any sample, and the full deal's values on average. And
the depth limit's leaves valued on two threads, the one thread's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import test_search_agent
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.matches import duplicate_match
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.search import search_everywhere
from pokerlab.solvers.search.agent import SearchAgent
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.passes import Passes
from pokerlab.tree.vector.tree import CHANCE

#: the 12-card blueprint of test_search_agent.py (20,000 MCCFR iterations), one fixture
blueprint = test_search_agent.blueprint

SPOT = {
    "board": "Td9d6hQc",
    "ranges": ("KK,AK,QJ,T9,76,A5s", "QQ,JT,AQ,K9s,88"),
    "pot": 100,
    "stack": 300,
    "bets": "50%",
    "raises": "a",
}


def _values(game: PostflopGame) -> list[np.ndarray]:
    """Both players' expected values at the root (float64, per hand) under the uniform
    profile."""
    tree = game.expanded.tree
    passes = Passes(tree, 1)
    probs = game.public_tree().uniform().astype(np.float32)
    zeros = np.zeros(tree.size, dtype=np.float32)
    w = tree.hands.weight
    return [
        np.asarray(
            passes.pass_at(0, p, K.MODE_EV, zeros, probs, w[1 - p], w[p], 0.0, 0.0, 0.0),
            dtype=np.float64,
        )
        for p in (0, 1)
    ]


def test_a_sample_of_every_card_is_the_full_deal() -> None:
    """The sampled path (negative weights) over every card left gives the full deal's values:
    the renormalisation is then the identity."""
    game = PostflopGame(isomorphism=False, **SPOT)
    exact = _values(game)
    a = game.expanded.tree.arrays
    assert np.all(a.chance_weight[a.kind == CHANCE] > 0)
    a.chance_weight[a.kind == CHANCE] *= -1.0  # every river dealt, marked sampled
    sampled = _values(game)
    scale = max(np.abs(v).max() for v in exact)
    for x, y in zip(exact, sampled, strict=True):
        np.testing.assert_allclose(y, x, atol=1e-5 * scale)


def test_each_hand_meets_its_whole_chance_mass_in_any_sample() -> None:
    """With every payoff 1 a hand's value is the opponent reach it meets; a sample of 6 rivers
    gives exactly the full deal's, and would not without the renormalisation (the same sample
    with plain weights is off by more than 1%)."""
    full = PostflopGame(isomorphism=False, **SPOT)
    a = full.expanded.tree.arrays
    a.win[:] = a.lose[:] = a.tie[:] = 1.0
    want = _values(full)
    for seed in (1, 2):
        game = PostflopGame(deal_sample=(6,), deal_seed=seed, **SPOT)
        a = game.expanded.tree.arrays
        a.win[:] = a.lose[:] = a.tie[:] = 1.0
        assert np.all(a.chance_weight[a.kind == CHANCE] < 0)
        assert np.all(np.diff(a.child_start)[a.kind == CHANCE] == 6)
        got = _values(game)
        for x, y in zip(want, got, strict=True):
            np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-9)
        a.chance_weight[a.kind == CHANCE] *= -1.0  # plain weights: no renormalisation
        plain = _values(game)
        off = [
            np.abs(y / np.where(x != 0, x, 1) - 1).max() for x, y in zip(want, plain, strict=True)
        ]
        assert max(off) > 0.01


def test_sampled_values_average_to_the_full_deal() -> None:
    """The mean of 200 samples of 8 rivers (seeds 0-199) is within 2% of the largest value of
    the full deal's, hand by hand (one sample is off by up to a quarter), and the range-weighted
    mean within 0.1%."""
    exact = _values(PostflopGame(isomorphism=False, **SPOT))
    scale = max(np.abs(v).max() for v in exact)
    n = 200
    mean = [np.zeros_like(v) for v in exact]
    first = None
    for seed in range(n):
        got = _values(PostflopGame(deal_sample=(8,), deal_seed=seed, **SPOT))
        first = got if first is None else first
        for m, v in zip(mean, got, strict=True):
            m += v / n
    assert max(np.abs(f - x).max() for f, x in zip(first, exact, strict=True)) > 0.05 * scale
    weights = PostflopGame(isomorphism=False, **SPOT).expanded.tree.hands.weight
    for p in (0, 1):
        assert np.abs(mean[p] - exact[p]).max() < 0.02 * scale
        gap = np.sum(weights[p] * (mean[p] - exact[p])) / np.sum(weights[p])
        assert abs(gap) < 1e-3 * scale


def test_a_sample_is_a_function_of_its_seed_and_refused_below_five_cards(blueprint) -> None:
    def cards(seed: int) -> list[int]:
        a = PostflopGame(deal_sample=(7,), deal_seed=seed, **SPOT).expanded.tree.arrays
        return a.edge_card[a.edge_card >= 0].tolist()

    assert cards(3) == cards(3)
    assert cards(3) != cards(4)
    # the memory bound counts the sampled deals (both players at the larger range's hands)
    game = PostflopGame(deal_sample=(7,), **SPOT)
    bound = game.tree_summary()["memory_upper_bound_bytes"]
    assert 8 * game.expanded.tree.size <= bound < 2 * 8 * game.expanded.tree.size
    assert PostflopGame(**SPOT).tree_summary()["memory_upper_bound_bytes"] > 6 * bound
    with pytest.raises(PokerlabError, match="at least 3 cards"):
        PostflopGame(deal_sample=(2,), **SPOT).expanded  # noqa: B018
    for bad, message in [
        ({"deal_sample": (6, 6)}, "depth 'round'"),
        ({"deal_sample": (6,), "depth": "round"}, r"\(turn cards, river cards\)"),
        ({"deal_sample": (2, 6), "depth": "round"}, "at least 3"),
        ({"deal_sample": (3, 3, 3, 3), "depth": "round"}, r"\(flop cards, turn cards"),
        ({"deal_sample": (5.5, 6), "depth": "round"}, "whole numbers"),
        ({"deal_sample": "six", "depth": "round"}, r"\(turn cards, river cards\)"),
        ({"deal_draws": 2, "depth": "round"}, "deal_draws rotates sampled deals"),
        ({"deal_draws": 0}, "deal_draws must be an integer >= 1"),
        (
            {"deal_draws": 2, "depth": "round", "deal_sample": (6, 6), "continuations": "self"},
            "with 1 or 4 continuations",
        ),
    ]:
        with pytest.raises(PokerlabError, match=message):
            SearchAgent(blueprint, "turn,river", **bad)


def test_a_sampled_depth_limited_agent_plays_repeatably(blueprint) -> None:
    """On the 12-card game, flop and turn subgames depth-limited with 5 cards of each later
    deal (of 9 and 8 left): the subgames' chance nodes deal 5 cards, the matches repeat to the
    chip; a sample at least as large as the cards left is the full deal, the unsampled agent's
    numbers exactly."""
    rules = blueprint.strategy.game.rules
    runs = []
    for sample, draws in (((5, 5), 1), ((5, 5), 1), ((9, 9), 1), (None, 1), ((5, 5), 2)):
        agent = SearchAgent(blueprint, "flop,turn,river", iterations=10, depth="round",
                            continuations=4, deal_sample=sample, deal_draws=draws)  # fmt: skip
        result = duplicate_match(rules, agent, blueprint, 2, 1)
        runs.append(result.mbb_per_game)
        assert any(r.street == 1 for r in agent.records)
        if sample == (5, 5) and draws == 1:
            for game in agent._games.values():
                a = game.expanded.tree.arrays
                chance = a.kind == CHANCE
                assert np.all(np.diff(a.child_start)[chance] == 5)
                assert np.all(a.chance_weight[chance] < 0)
    assert runs[0] == runs[1]
    assert runs[2] == runs[3]
    # two draws in turn: another solve, repeatable
    again = SearchAgent(blueprint, "flop,turn,river", iterations=10, depth="round",
                        continuations=4, deal_sample=(5, 5), deal_draws=2)  # fmt: skip
    assert duplicate_match(rules, again, blueprint, 2, 1).mbb_per_game == runs[4]


def test_a_depth_limited_solve_on_two_threads_is_the_one_threads(blueprint) -> None:
    """The leaves' subtrees shared out to two threads (whole leaves per worker, summed in the
    same order) give the one-thread solve's numbers exactly, sampled or not."""
    rules = blueprint.strategy.game.rules
    for sample in ((5, 5), None):
        runs = []
        for threads in (1, 2):
            agent = SearchAgent(blueprint, "flop,turn,river", iterations=10, depth="round",
                                continuations=4, deal_sample=sample, threads=threads)  # fmt: skip
            result = duplicate_match(rules, agent, blueprint, 2, 3)
            runs.append((result.mbb_per_game, [r.iterations for r in agent.records]))
            assert any(r.street == 1 for r in agent.records)
        assert runs[0] == runs[1], sample
    # the exact table's depth-limited search (search_everywhere) on two threads too
    game = PostflopGame(**SPOT)
    profile = game.public_tree().uniform()
    one, two = (
        search_everywhere(
            game,
            profile,
            "unsafe",
            street="turn",
            iterations=15,
            depth="round",
            continuations=4,
            threads=threads,
        )  # fmt: skip
        for threads in (1, 2)
    )
    np.testing.assert_array_equal(one.profile, two.profile)


def test_a_rotation_of_draws_shares_one_solve() -> None:
    """``rotation``: two copies of the same draw solved in turn are the single tree's solve to
    the bit (the regrets, sums and the opponent's picks shared, iterations numbered on); two
    other draws change it, and stay within the layout the first fixed."""
    game = PostflopGame(deal_sample=(6,), deal_seed=5, **SPOT)
    profile = game.public_tree().uniform()

    def run(rotation: list | None) -> np.ndarray:
        return search_everywhere(
            game, profile, "unsafe", street="turn", iterations=12, depth="round",
            continuations=4, rotation=rotation,
        ).profile  # fmt: skip

    alone = run(None)
    twin = PostflopGame(deal_sample=(6,), deal_seed=5, **SPOT)
    np.testing.assert_array_equal(run([(twin, twin.public_tree().uniform())]), alone)
    other = PostflopGame(deal_sample=(6,), deal_seed=6, **SPOT)
    rotated = run([(other, other.public_tree().uniform())])
    assert rotated.shape == alone.shape and not np.array_equal(rotated, alone)
    wider = PostflopGame(deal_sample=(7,), deal_seed=6, **SPOT)
    with pytest.raises(PokerlabError, match="share their layout"):
        run([(wider, wider.public_tree().uniform())])
