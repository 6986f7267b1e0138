"""Flop sets of reports: the 1,755 canonical flops and their weights against a brute-force
enumeration of all C(52, 3) flops, the subsets, turn cards, textures and flop files."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from pokerlab.cards.deck import parse_cards
from pokerlab.errors import PokerlabError
from pokerlab.reports.flops import (
    SUBSET_SIZES,
    TOTAL_FLOPS,
    all_flops,
    canonical,
    flop_set,
    read_flop_file,
    subset,
    turn_cards,
)
from pokerlab.reports.texture import texture

PERMS = list(itertools.permutations(range(4)))


def _brute_class(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Smallest sorted tuple of card ids over the 24 suit permutations (independent of the
    library's rank-and-pattern construction)."""
    return min(tuple(sorted(4 * (c >> 2) + p[c & 3] for c in cards)) for p in PERMS)


@pytest.fixture(scope="module")
def classes() -> dict[tuple[int, ...], tuple[int, ...]]:
    """Every one of the 22,100 flops (sorted card ids) -> its brute-force class."""
    return {f: _brute_class(f) for f in itertools.combinations(range(52), 3)}


@pytest.fixture(scope="module")
def brute(classes: dict) -> Counter:
    return Counter(classes.values())


def test_all_flops_match_brute_force_enumeration(brute: Counter) -> None:
    flops = all_flops()
    assert len(brute) == 1755 and sum(brute.values()) == 22100 == TOTAL_FLOPS
    assert len(flops) == 1755
    assert sum(f.weight for f in flops) == 22100
    mine = {_brute_class(f.cards): f.weight for f in flops}
    assert len(mine) == 1755  # no two listed flops are isomorphic
    assert mine == dict(brute)


def test_canonical_maps_every_flop_to_its_listed_class(classes: dict) -> None:
    listed = {f.cards: _brute_class(f.cards) for f in all_flops()}
    for cards, cls in classes.items():
        rep = canonical(cards)
        assert listed[rep] == cls
    assert canonical(parse_cards("Kc5dKd")) == tuple(parse_cards("KsKh5s"))
    assert canonical(parse_cards("Kc5hKd")) == tuple(parse_cards("KsKh5d"))
    assert canonical(parse_cards("2c7c9c")) == tuple(parse_cards("9s7s2s"))


@pytest.mark.parametrize("size", SUBSET_SIZES)
def test_subsets_are_stratified_and_weighted(size: int) -> None:
    rows = subset(size)
    assert len(rows) == size
    assert sum(f.weight for f in rows) == 22100
    assert all(f.weight == int(f.weight) and f.weight > 0 for f in rows)
    listed = {f.cards for f in all_flops()}
    assert all(f.cards in listed for f in rows)
    assert len({f.cards for f in rows}) == size

    # each (pairing, suits) stratum keeps its share of the 22,100 flops exactly
    def stratum(cards: tuple[int, ...]) -> tuple[str, str]:
        t = texture(cards)
        return t["pairing"], t["suits"]

    whole: Counter = Counter()
    for f in all_flops():
        whole[stratum(f.cards)] += f.weight
    part: Counter = Counter()
    for f in rows:
        part[stratum(f.cards)] += f.weight
    assert part == whole
    assert whole[("unpaired", "rainbow")] == 286 * 24
    assert whole[("trips", "rainbow")] == 52


def test_subset_25_is_stable() -> None:
    text = " ".join(f"{f.text}:{f.weight:g}" for f in subset(25)[:6])
    assert text == "AsQsJh:852 AsQh2d:984 AsTh4s:852 As6h2h:852 As5h3d:984 KsJs3h:864"
    with pytest.raises(PokerlabError, match="no flop subset of 30"):
        subset(30)


def test_turn_cards_are_the_orbits_fixing_the_flop() -> None:
    for text, classes in (("AsKhQd", 49), ("AsKsQs", 23), ("KsKh5d", 37), ("8s8h8d", 25)):
        flop = tuple(parse_cards(text))
        rows = turn_cards(flop)
        assert sum(f.weight for f in rows) == 49
        assert len(rows) == classes
        fixing = [p for p in PERMS if {4 * (c >> 2) + p[c & 3] for c in flop} == set(flop)]
        orbits = Counter(
            min(4 * (t >> 2) + p[t & 3] for p in fixing) for t in range(52) if t not in flop
        )
        assert sorted(orbits.values()) == sorted(int(f.weight) for f in rows)


def test_texture_columns() -> None:
    assert texture(parse_cards("JdTc9h")) == {
        "high": "J",
        "pairing": "unpaired",
        "suits": "rainbow",
        "connectedness": "connected",
        "straights": 3,
    }
    assert texture(parse_cards("Td9d6h"))["straights"] == 1
    assert texture(parse_cards("Kc7d2h"))["connectedness"] == "disconnected"
    assert texture(parse_cards("As2d3h"))["straights"] == 1  # the wheel
    assert texture(parse_cards("8c8d8h"))["pairing"] == "trips"
    assert texture(parse_cards("AhKhQh"))["suits"] == "monotone"
    assert texture(parse_cards("AhKhQdKd"))["pairing"] == "paired"


def test_flop_file(tmp_path) -> None:
    path = tmp_path / "flops.txt"
    path.write_text("# my flops\nAsKd7c\nKs Kh 5d, 2.5\n\nAhKc7d 10  # isomorphic to line 2\n")
    rows, notes = read_flop_file(path)
    assert [(f.text, f.weight) for f in rows] == [("AsKd7c", 34.0), ("KsKh5d", 2.5)]
    assert len(notes) == 1 and "line 5" in notes[0] and "AsKd7c" in notes[0]
    assert [f.text for f in flop_set(str(path))[0]] == ["AsKd7c", "KsKh5d"]
    assert len(flop_set("all")[0]) == 1755 and len(flop_set("49")[0]) == 49
    path.write_text("AsKd7c\nAsKx7c\n")
    with pytest.raises(PokerlabError, match=r"line 2: flop 'AsKx7c'.*'Kx'"):
        read_flop_file(path)
    path.write_text("AsKd7c -3\n")
    with pytest.raises(PokerlabError, match=r"line 1: weight '-3'"):
        read_flop_file(path)
    with pytest.raises(PokerlabError, match="give all, 184, 85, 49, 25 or a flop file"):
        flop_set("everything")
