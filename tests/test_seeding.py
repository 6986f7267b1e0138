"""One seeding convention (pokerlab._rng): user seed -> integer -> SeedSequence -> streams."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import pokerlab
from pokerlab._rng import child_seeds, generator, seed_int, seed_sequence, seed_state
from pokerlab.cards.equity import equity
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.matches import PushFoldPlayer, play_match, play_matches
from pokerlab.evolve.tournaments import SimulationSettings, match_blocks

SRC = Path(pokerlab.__file__).parent


def test_an_integer_seed_is_itself_and_a_generator_draws_one() -> None:
    assert seed_int(0) == 0 and seed_int(2**70) == 2**70 and seed_int(np.int64(7)) == 7
    expected = int(np.random.default_rng(4).integers(0, 2**63, dtype=np.int64))
    assert seed_int(np.random.default_rng(4)) == expected
    fresh = {seed_int(None) for _ in range(3)}
    assert len(fresh) == 3  # fresh entropy each time


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, [1]])
def test_bad_seeds_are_refused_by_name(bad) -> None:
    with pytest.raises(PokerlabError, match="seed"):
        seed_int(bad)


def test_streams_derive_from_one_seed_sequence() -> None:
    for seed in (0, 1, 12345, 2**64 + 3):
        words = np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64)
        np.testing.assert_array_equal(seed_state(seed), words)
        assert seed_sequence(seed).entropy == seed
        # the numpy generator is NumPy's default construction from the same sequence
        np.testing.assert_array_equal(
            generator(seed).random(5), np.random.default_rng(seed).random(5)
        )
    drawn = seed_int(np.random.default_rng(8))
    np.testing.assert_array_equal(seed_state(np.random.default_rng(8)), seed_state(drawn))
    assert generator(np.random.default_rng(8)).random() == generator(drawn).random()


def test_child_seeds_are_spawned_and_prefix_stable() -> None:
    children = np.random.SeedSequence(5).spawn(4)
    expected = [int(c.generate_state(1, dtype=np.uint64)[0]) for c in children]
    assert child_seeds(5, 4) == expected
    assert child_seeds(5, 2) == expected[:2]  # child k does not depend on how many are asked
    assert len(set(child_seeds(5, 100))) == 100
    assert child_seeds(6, 4) != expected
    assert child_seeds(5, 0) == []
    with pytest.raises(PokerlabError):
        child_seeds(5, -1)


def test_no_other_seeding_in_the_package() -> None:
    # Every seeded stream goes through pokerlab._rng: no direct SeedSequence / default_rng /
    # legacy global seeding, and no ad-hoc seed draws from a generator.
    pattern = re.compile(
        r"default_rng\(|SeedSequence\(|np\.random\.seed\(|RandomState\(|\.integers\(0, 2\*\*"
    )
    offenders = [
        f"{path.relative_to(SRC)}:{n}"
        for path in SRC.rglob("*.py")
        if path.name != "_rng.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_monte_carlo_equity_follows_the_convention() -> None:
    a = equity("AsKs", "QQ", samples=20_000, seed=3)
    b = equity("AsKs", "QQ", samples=20_000, seed=3)
    c = equity("AsKs", "QQ", samples=20_000, seed=4)
    assert a.equity == b.equity and a.equity != c.equity
    assert a.equity == pytest.approx(0.46, abs=0.02)  # AKs vs QQ preflop: about 46%
    drawn = seed_int(np.random.default_rng(1))
    g = equity("AsKs", "QQ", samples=20_000, seed=np.random.default_rng(1))
    assert g.equity == equity("AsKs", "QQ", samples=20_000, seed=drawn).equity


def _players() -> tuple[PushFoldPlayer, PushFoldPlayer]:
    always = np.ones((1, 1326))
    half = np.full((1, 1326), 0.5)
    return PushFoldPlayer(always, half), PushFoldPlayer(half, always)


def test_simulated_matches_use_child_seeds() -> None:
    a, b = _players()
    series = play_matches(a, b, 300, 10.0, matches=3, seed=21)
    for k, s in enumerate(child_seeds(21, 3)):
        alone = play_match(a, b, 300, 10.0, seed=s)
        assert alone.total_bb == series.matches[k].total_bb
    assert len({m.total_bb for m in series.matches}) > 1
    drawn = seed_int(np.random.default_rng(2))
    from_generator = play_match(a, b, 300, 10.0, seed=np.random.default_rng(2))
    assert from_generator.total_bb == play_match(a, b, 300, 10.0, seed=drawn).total_bb


def test_tournament_blocks_use_child_seeds() -> None:
    a, b = _players()
    stacks = np.array([5.0, 10.0])
    settings = SimulationSettings(hands=200, matches=2)
    grid_a = (np.repeat(a.shove, 2, axis=0), np.repeat(a.call, 2, axis=0))
    grid_b = (np.repeat(b.shove, 2, axis=0), np.repeat(b.call, 2, axis=0))
    blocks = match_blocks(grid_a, grid_b, stacks, settings, seed=9)
    pa = PushFoldPlayer(grid_a[0], grid_a[1], stacks)
    pb = PushFoldPlayer(grid_b[0], grid_b[1], stacks)
    for m, match_seed in enumerate(child_seeds(9, 2)):
        for k, block_seed in enumerate(child_seeds(match_seed, 2)):
            alone = play_match(pa, pb, 100, float(stacks[k]), seed=block_seed)
            assert blocks[m][k].total_bb == alone.total_bb
