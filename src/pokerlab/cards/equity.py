"""All-in equity of a hand or range against another, on any board.

Equity is the first player's expected share of the pot at showdown: P(win) + P(tie) / 2, where
the two hands are drawn by their range weights conditioned on sharing no card with each other or
with the board, and the missing board cards are dealt uniformly from the rest of the deck (exact
card removal). Every compatible pair of hands sees the same number of runouts, so the pair's weight
is the product of the two combo weights.

Methods, chosen automatically unless forced:

- exact enumeration of every runout: hand vs hand on any board (1,712,304 boards preflop); ranges
  on a flop, turn or river (all runouts, every live combo evaluated once per runout);
- preflop ranges: the exact preflop table (:mod:`pokerlab.cards.preflop`) when it is installed;
- Monte Carlo otherwise or on request (``samples=N``): independent deals, reported with the
  standard error of the mean and a reproducible seed.

>>> from pokerlab.cards.equity import equity
>>> r = equity("AsKs", "QdQc", "Td9d6h")
>>> (r.exact, round(r.equity, 4))
(True, 0.2268)
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from pokerlab._rng import seed_state
from pokerlab.cards import _equity_kernels as EK
from pokerlab.cards import _eval_kernels as K
from pokerlab.cards.deck import (
    COMBO_CARDS,
    combos_blocked_by,
    format_card,
    format_cards,
    format_combo,
    parse_cards,
)
from pokerlab.cards.evaluator import eval_tables
from pokerlab.cards.ranges import parse_range
from pokerlab.errors import FileFormatError, PokerlabError

__all__ = ["EquityResult", "equity", "hand_vs_hand", "hand_vs_range", "range_vs_range"]

EXACT_BUDGET = 400_000_000
"""Largest number of (pair of hands x runout) evaluations done exactly in automatic mode."""
DEFAULT_SAMPLES = 1_000_000


@dataclass(frozen=True)
class EquityResult:
    """Outcome of an equity computation, from the first player's side.

    Attributes
    ----------
    equity:
        Share of the pot, ``win + tie / 2``, in [0, 1].
    win, tie, lose:
        Probabilities of winning, splitting and losing (they sum to 1).
    exact:
        True when every runout was enumerated (no sampling error).
    std_error:
        Standard error of ``equity`` (0 when exact).
    samples:
        Showdowns counted: enumerated (pair, board) outcomes, or Monte Carlo deals.
    seconds:
        Wall time of the computation.
    method:
        "enumeration", "preflop table" or "monte carlo".
    """

    equity: float
    win: float
    tie: float
    lose: float
    exact: bool
    std_error: float
    samples: int
    seconds: float = 0.0
    method: str = "enumeration"

    def to_dict(self) -> dict[str, float | int | bool | str]:
        """Plain dict for JSON output."""
        return asdict(self)


def _weights(spec: str | np.ndarray, name: str) -> np.ndarray:
    if isinstance(spec, str):
        return parse_range(spec)
    w = np.asarray(spec, dtype=np.float64)
    if w.shape != (1326,) or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise PokerlabError(f"{name}: a range is 1326 non-negative finite weights")
    return w.copy()


def _board(board: str | list[int]) -> list[int]:
    cards = parse_cards(board) if isinstance(board, str) else [int(c) for c in board]
    if len(cards) not in (0, 3, 4, 5):
        raise PokerlabError(f"a board has 0, 3, 4 or 5 cards, got {len(cards)}")
    if len(set(cards)) != len(cards):
        raise PokerlabError("the board holds the same card twice")
    return cards


def _samples(samples: object) -> int | None:
    """``samples`` as a positive int (an integral float such as 1e6 too), None for None;
    PokerlabError naming anything else (1.5 would otherwise run 1 deal)."""
    if samples is None:
        return None
    if isinstance(samples, (int, np.integer)) and not isinstance(samples, bool):
        n = int(samples)
    elif isinstance(samples, (float, np.floating)) and float(samples).is_integer():
        n = int(samples)
    else:
        raise PokerlabError(f"samples must be a whole number of deals, got {samples!r}")
    if n <= 0:
        raise PokerlabError(f"samples must be positive, got {samples!r}")
    return n


def _pair_weights(w1: np.ndarray, w2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Live combos of both ranges and the (n1, n2) product weights of compatible pairs."""
    c1, c2 = np.flatnonzero(w1 > 0), np.flatnonzero(w2 > 0)
    cards1, cards2 = COMBO_CARDS[c1].astype(np.int64), COMBO_CARDS[c2].astype(np.int64)
    share = (cards1[:, None, :, None] == cards2[None, :, None, :]).any(axis=(2, 3))
    pw = np.where(share, 0.0, w1[c1][:, None] * w2[c2][None, :])
    return c1, c2, pw


def _why_no_pair(
    specs: tuple[str | np.ndarray, str | np.ndarray],
    raw: tuple[np.ndarray, np.ndarray],
    live: tuple[np.ndarray, np.ndarray],
    board: list[int],
) -> str:
    """The simplest cause found of no dealable pair: a range empty, every hand of a range
    blocked by the board, or the hands of one side all sharing a card with the other's only
    hand; the generic cause otherwise."""
    names = [
        f"range {i + 1}" + (f" ({spec})" if isinstance(spec, str) else "")
        for i, spec in enumerate(specs)
    ]
    for name, weights in zip(names, raw, strict=True):
        if not np.any(weights > 0):
            return f"{name} is empty"
    for name, weights, combos in zip(names, raw, live, strict=True):
        if combos.size == 0:
            held = {int(c) for c in COMBO_CARDS[np.flatnonzero(weights > 0)].ravel()}
            blockers = format_cards(c for c in board if c in held)
            return (
                f"every hand of {name} shares a card with the board {format_cards(board)} "
                f"({blockers})"
            )
    c1, c2 = live
    if c1.size == 1 and c2.size == 1:
        shared = [int(c) for c in COMBO_CARDS[c1[0]] if c in COMBO_CARDS[c2[0]]]
        verb = "is" if len(shared) == 1 else "are"
        return f"{' and '.join(format_card(c) for c in shared)} {verb} in both hands"
    for i, one in enumerate(live):
        if one.size == 1:
            return (
                f"every hand of {names[1 - i]} shares a card with {names[i].split(' (')[0]}'s "
                f"only hand {format_combo(int(one[0]))}"
            )
    return "the ranges are empty or collide"


def _exact_pairs(
    c1: np.ndarray, c2: np.ndarray, pw: np.ndarray, board: list[int]
) -> tuple[float, float, float, int]:
    """Exact (win, tie, total weight, showdowns) by per-pair enumeration (few pairs)."""
    t = eval_tables()
    tabs = (t.card_key, t.card_bit, t.flush, t.disp, t.values)
    win = tie = total = 0.0
    showdowns = 0
    for a, b in zip(*np.nonzero(pw), strict=True):
        h1, h2 = COMBO_CARDS[c1[a]], COMBO_CARDS[c2[b]]
        used = set(board) | {int(h1[0]), int(h1[1]), int(h2[0]), int(h2[1])}
        deck = np.array([c for c in range(52) if c not in used], np.int64)
        k1, k2, m1, m2 = K.SUIT_INIT, K.SUIT_INIT, np.uint64(0), np.uint64(0)
        for c in [*board, int(h1[0]), int(h1[1])]:
            k1 += t.card_key[c]
            m1 |= t.card_bit[c]
        for c in [*board, int(h2[0]), int(h2[1])]:
            k2 += t.card_key[c]
            m2 |= t.card_bit[c]
        w, ti, n = EK.count_showdowns(k1, m1, k2, m2, deck, 5 - len(board), *tabs)
        weight = pw[a, b]
        win += weight * w / n
        tie += weight * ti / n
        total += weight
        showdowns += n
    return win, tie, total, showdowns


def _runouts(n_board: int) -> int:
    left = 52 - n_board - 4
    need = 5 - n_board
    return math.comb(left, need)


def equity(
    first: str | np.ndarray,
    second: str | np.ndarray,
    board: str | list[int] = "",
    *,
    exact: bool | None = None,
    samples: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> EquityResult:
    """Equity of ``first`` against ``second`` (hands or ranges) on ``board``.

    Parameters
    ----------
    first, second:
        A hand ("AsKs"), a class ("QQ") or any range string, or a 1326-weight vector.
    board:
        0, 3, 4 or 5 known board cards, e.g. "Td9d6h".
    exact:
        True forces enumeration, False forces Monte Carlo, None (default) enumerates when the
        work is at most :data:`EXACT_BUDGET` evaluations and samples otherwise.
    samples:
        Monte Carlo deals, a positive whole number (implies ``exact=False`` unless
        ``exact=True``); default 1,000,000.
    seed:
        Seed (integer >= 0) or ``numpy.random.Generator`` for Monte Carlo, turned into the
        sampler's state by the project's convention (:func:`pokerlab._rng.seed_state`); the same
        seed gives the same result. None: fresh entropy, not reproducible.

    Raises
    ------
    PokerlabError
        For bad hands, ranges or boards, or when no pair of hands can be dealt.
    """
    start = time.perf_counter()
    samples = _samples(samples)
    cards = _board(board)
    w1 = _weights(first, "first range")
    w2 = _weights(second, "second range")
    raw = (w1.copy(), w2.copy())
    blocked = combos_blocked_by(cards)
    w1[blocked] = 0.0
    w2[blocked] = 0.0
    c1, c2, pw = _pair_weights(w1, w2)
    n_pairs = int(np.count_nonzero(pw))
    if n_pairs == 0:
        why = _why_no_pair((first, second), raw, (c1, c2), cards)
        raise PokerlabError(f"no pair of hands can be dealt: {why}")
    if exact is None:
        from pokerlab.cards.preflop import data_path

        cheap = n_pairs * _runouts(len(cards)) <= EXACT_BUDGET
        table = not cards and n_pairs > 64 and data_path().exists()
        exact = samples is None and (cheap or table)
    t = eval_tables()
    tabs = (t.card_key, t.card_bit, t.flush, t.disp, t.values)

    if exact:
        method = "enumeration"
        if not cards and n_pairs > 64:
            try:
                win, tie, total, showdowns = _preflop_table(c1, c2, pw)
                method = "preflop table"
            except FileFormatError:
                win, tie, total, showdowns = _exact_pairs(c1, c2, pw, cards)
        elif not cards or n_pairs == 1:
            win, tie, total, showdowns = _exact_pairs(c1, c2, pw, cards)
        else:
            win, tie, total = EK.range_vs_range_exact(
                c1, w1[c1], c2, w2[c2], COMBO_CARDS, np.array(cards, np.int64), *tabs
            )
            showdowns = n_pairs * _runouts(len(cards))
        p_win, p_tie = float(win / total), float(tie / total)
        return EquityResult(
            equity=p_win + p_tie / 2,
            win=p_win,
            tie=p_tie,
            lose=max(0.0, 1.0 - p_win - p_tie),
            exact=True,
            std_error=0.0,
            samples=int(showdowns),
            seconds=time.perf_counter() - start,
            method=method,
        )

    n = DEFAULT_SAMPLES if samples is None else samples
    wins, ties, n, outcome = EK.sample_showdowns(
        c1,
        np.cumsum(w1[c1]),
        c2,
        np.cumsum(w2[c2]),
        COMBO_CARDS.astype(np.int64),
        np.array(cards, np.int64),
        n,
        seed_state(seed),
        *tabs,
    )
    shares = outcome.astype(np.float64) / 2.0
    std_error = float(shares.std(ddof=1) / math.sqrt(n)) if n > 1 else float("inf")
    p_win, p_tie = wins / n, ties / n
    return EquityResult(
        equity=p_win + p_tie / 2,
        win=p_win,
        tie=p_tie,
        lose=1.0 - p_win - p_tie,
        exact=False,
        std_error=std_error,
        samples=int(n),
        seconds=time.perf_counter() - start,
        method="monte carlo",
    )


def _preflop_table(
    c1: np.ndarray, c2: np.ndarray, pw: np.ndarray
) -> tuple[float, float, float, int]:
    """Exact (win, tie, total weight, showdowns) of preflop ranges from the preflop table."""
    from pokerlab.cards.preflop import BOARDS_PER_MATCHUP, win_tie_matrices

    win_m, tie_m = win_tie_matrices()
    sub_w = win_m[np.ix_(c1, c2)] / BOARDS_PER_MATCHUP
    sub_t = tie_m[np.ix_(c1, c2)] / BOARDS_PER_MATCHUP
    total = float(pw.sum())
    showdowns = int(np.count_nonzero(pw)) * BOARDS_PER_MATCHUP
    return float((pw * sub_w).sum()), float((pw * sub_t).sum()), total, showdowns


def hand_vs_hand(first: str, second: str, board: str = "") -> EquityResult:
    """Exact equity of one hand ("AsKs") against another ("QdQc") on a board."""
    return equity(first, second, board, exact=True)


def hand_vs_range(
    hand: str,
    villain: str | np.ndarray,
    board: str = "",
    *,
    samples: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> EquityResult:
    """Equity of one hand against a range (exact when feasible, see :func:`equity`)."""
    return equity(hand, villain, board, samples=samples, seed=seed)


def range_vs_range(
    first: str | np.ndarray,
    second: str | np.ndarray,
    board: str = "",
    *,
    samples: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> EquityResult:
    """Equity of one range against another (exact when feasible, see :func:`equity`)."""
    return equity(first, second, board, samples=samples, seed=seed)
