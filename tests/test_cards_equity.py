"""Equity: exact enumeration checked against brute force with eval7, Monte Carlo, errors."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from pokerlab.cards import warmup
from pokerlab.cards.deck import COMBO_CARDS, parse_cards
from pokerlab.cards.equity import equity, hand_vs_hand, hand_vs_range, range_vs_range
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.cards.ranges import parse_range
from pokerlab.errors import ParseError, PokerlabError


@pytest.fixture(scope="session", autouse=True)
def _compiled() -> None:
    warmup()


def _brute_counts(h1: list[int], h2: list[int], board: list[int]) -> tuple[int, int, int]:
    """(wins, ties, boards) by evaluating every completed board with the batch API."""
    deck = [c for c in range(52) if c not in set(h1 + h2 + board)]
    rest = np.array(list(combinations(deck, 5 - len(board))), dtype=np.uint8).reshape(
        -1, 5 - len(board)
    )
    n = len(rest)
    fixed = np.array(board, dtype=np.uint8)
    a = np.hstack([np.tile(np.array(h1 + board, np.uint8), (n, 1)), rest])
    b = np.hstack([np.tile(np.array(h2 + board, np.uint8), (n, 1)), rest])
    del fixed
    va, vb = evaluate_batch(a), evaluate_batch(b)
    return int((va > vb).sum()), int((va == vb).sum()), n


def _eval7_equity(h1: str, h2: str, board: str) -> float:
    """Exact equity by brute force over runouts with eval7 (independent evaluator)."""
    eval7 = pytest.importorskip("eval7")
    cards = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    a, b, bd = parse_cards(h1), parse_cards(h2), parse_cards(board)
    deck = [c for c in range(52) if c not in set(a + b + bd)]
    score = 0.0
    n = 0
    for run in combinations(deck, 5 - len(bd)):
        full = bd + list(run)
        va = eval7.evaluate([cards[c] for c in a + full])
        vb = eval7.evaluate([cards[c] for c in b + full])
        score += 1.0 if va > vb else 0.5 if va == vb else 0.0
        n += 1
    return score / n


@pytest.mark.parametrize(
    ("h1", "h2", "board"),
    [
        ("AsKs", "QdQc", "Td9d6h"),
        ("AsKs", "QdQc", "Td9d6h2c"),
        ("AsKs", "QdQc", "Td9d6h2c3s"),
        ("7h6h", "AcKd", "5h4h2c"),
        ("AcAd", "KhKs", "QcJcTc"),
        ("2c3d", "2h3s", "AsKdQc"),
    ],
)
def test_postflop_hand_vs_hand_matches_eval7(h1: str, h2: str, board: str) -> None:
    r = hand_vs_hand(h1, h2, board)
    assert r.exact and r.std_error == 0.0
    assert r.win + r.tie + r.lose == pytest.approx(1.0)
    assert r.equity == pytest.approx(_eval7_equity(h1, h2, board), abs=1e-12)


def test_preflop_aa_vs_kk() -> None:
    """AA vs KK (all 36 combo pairs) is 0.8195; AsAh vs KsKh exactly equals brute force."""
    r = equity("AA", "KK")
    assert r.exact
    assert r.equity == pytest.approx(0.81946, abs=5e-5)
    one = hand_vs_hand("AsAh", "KsKh")
    w, t, n = _brute_counts(parse_cards("AsAh"), parse_cards("KsKh"), [])
    assert n == 1_712_304 == one.samples
    assert one.win == w / n and one.tie == t / n


def test_preflop_aks_vs_qq() -> None:
    """AKs vs QQ is the classic coin flip, about 46% for the suited AK."""
    r = hand_vs_range("AsKs", "QQ")
    assert r.exact
    assert r.equity == pytest.approx(0.4605, abs=5e-4)
    per_combo = [hand_vs_hand("AsKs", q).equity for q in ("QcQd", "QcQh", "QcQs")]
    assert min(per_combo) < r.equity < max(per_combo)


def test_range_vs_range_flop_matches_pairwise_enumeration() -> None:
    first, second, board = "AA, KdQd", "TT, 99, AdKc", "Td9d6h"
    r = range_vs_range(first, second, board)
    assert r.exact
    w1, w2 = parse_range(first), parse_range(second)
    dead = set(parse_cards(board))
    num = den = 0.0
    for i in np.flatnonzero(w1):
        for j in np.flatnonzero(w2):
            a, b = [int(c) for c in COMBO_CARDS[i]], [int(c) for c in COMBO_CARDS[j]]
            if set(a) & set(b) or (set(a) | set(b)) & dead:
                continue
            wins, ties, n = _brute_counts(a, b, parse_cards(board))
            num += (wins + ties / 2) / n
            den += 1.0
    assert r.equity == pytest.approx(num / den, abs=1e-12)


def test_weights_and_board_removal() -> None:
    full = equity("AA", "KK", "Ah7c2d")
    assert full.exact
    # the Ah on board removes AA combos holding it; giving them weight changes nothing
    assert equity("AA, AhKh:0.0", "KK", "Ah7c2d").equity == pytest.approx(full.equity)
    half = equity("AA:0.5", "KK", "Ah7c2d")
    assert half.equity == pytest.approx(full.equity)


def test_preflop_range_vs_range_table_matches_enumeration() -> None:
    import importlib

    eq_mod = importlib.import_module("pokerlab.cards.equity")

    first, second = "QQ+", "AKs, AKo, JJ"
    r = equity(first, second)
    if r.method != "preflop table":
        pytest.skip("preflop table not installed")
    c1, c2, pw = eq_mod._pair_weights(parse_range(first), parse_range(second))
    win, tie, total, _ = eq_mod._exact_pairs(c1, c2, pw, [])
    assert r.win == pytest.approx(win / total, abs=1e-12)
    assert r.tie == pytest.approx(tie / total, abs=1e-12)


def test_monte_carlo_is_seeded_and_within_error() -> None:
    exact = hand_vs_range("AsKs", "QQ", "Td9d6h")
    a = equity("AsKs", "QQ", "Td9d6h", samples=200_000, seed=7)
    b = equity("AsKs", "QQ", "Td9d6h", samples=200_000, seed=np.random.default_rng(7))
    c = equity("AsKs", "QQ", "Td9d6h", samples=200_000, seed=7)
    assert not a.exact and a.samples == 200_000 and a.std_error > 0
    assert a == c or (a.equity == c.equity and a.win == c.win)
    assert abs(a.equity - exact.equity) < 4 * a.std_error
    assert abs(b.equity - exact.equity) < 4 * b.std_error
    pre = equity("QQ+, AKs", "random", samples=100_000, seed=1)
    assert abs(pre.equity - equity("QQ+, AKs", "random").equity) < 4 * pre.std_error


@pytest.mark.parametrize(
    ("first", "second", "board", "error"),
    [
        ("AsKs", "AsQd", "", PokerlabError),  # the two hands share a card
        ("AsKs", "QQ", "Td9d", PokerlabError),  # a board has 0, 3, 4 or 5 cards
        ("AsKs", "QQ", "TdTd6h", PokerlabError),  # a card twice on the board
        ("AsKs", "QsQh", "QdQc2c", PokerlabError),  # the only combo is live, but...
        ("AsKs", "QQ", "Td9x6h", ParseError),
        ("AsKs", "QQx", "", ParseError),
    ],
)
def test_errors(first: str, second: str, board: str, error: type[Exception]) -> None:
    if board == "QdQc2c":  # ...QsQh is fine: the error comes from the hand holding a board card
        assert equity(first, second, board).exact
        board = "QsQc2c"
    with pytest.raises(error):
        equity(first, second, board)
