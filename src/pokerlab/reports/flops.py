"""The flops (and turns) a report solves: the 1,755 suit-canonical flops with their weights,
the representative subsets of 184, 85, 49 and 25 flops, and flop files.

Two flops are isomorphic when a permutation of the four suits maps one onto the other: they are
strategically the same spot (ranges are suit-symmetric). A class's **weight** is how many of the
C(52, 3) = 22,100 flops it holds, so weights are proportional to how often each class is dealt.
The classes are built directly from the ranks and the suit pattern (``all_flops``): for three
ranks a > b > c the patterns are monotone (weight 4), rainbow (24) and the three two-tone
patterns (12 each, by which card is off-suit); a paired flop has two patterns (12 each: the odd
card shares a suit with the pair or not); trips one (4). That gives 286 x 5 + 156 x 2 + 13 =
1,755 classes of total weight 286 x 64 + 156 x 24 + 13 x 4 = 22,100 (the tests check both
against a brute-force enumeration of all 22,100 flops).

A class is written by its **canonical** representative: ranks high to low, suits given in the
order s, h, d, c as they first appear (``AsKsQh``, ``KsKh5d``, ``Ks5h5d``); ``canonical`` maps any
flop to it.

The subsets (``subset(n)``, n in 184, 85, 49, 25) follow one stated rule (``docs/reports.md``):
the classes are split into eight strata by pairing and suit pattern (unpaired: rainbow, the
three two-tone patterns, monotone; paired: rainbow, two-tone; trips); each stratum gets at least
one flop and the rest by largest remainder in proportion to its weight; within a stratum (whose
classes all have the same weight) the m classes, ordered high card first, are cut into that
many (k) runs of equal length (class i goes to run floor((i + 1/2) x k / m)), each run is
represented by its middle class (the three two-tone strata: the classes at 1/6, 3/6 and 5/6 of
the run, so that their flops differ in ranks) and carries the run's total weight. Weights of a
subset are whole numbers summing to 22,100.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pokerlab.cards.deck import format_cards, make_card, parse_card
from pokerlab.errors import ParseError, PokerlabError

__all__ = [
    "TOTAL_FLOPS",
    "SUBSET_SIZES",
    "Flop",
    "all_flops",
    "canonical",
    "subset",
    "flop_set",
    "read_flop_file",
    "turn_cards",
    "parse_board",
]

#: C(52, 3): every flop counted once; the weights of every flop set sum to this.
TOTAL_FLOPS = 22_100
#: Sizes of the representative subsets.
SUBSET_SIZES = (184, 85, 49, 25)
#: Suits in the order canonical boards use them: s, h, d, c (card suit ids 3, 2, 1, 0).
_SUIT_ORDER = (3, 2, 1, 0)
#: Largest flop file read, bytes.
MAX_FLOP_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class Flop:
    """One row of a report's plan: ``cards`` (card ids: 3 for a flop, 4 for a flop and a turn)
    and ``weight`` (how many flops, or turn cards, the row stands for)."""

    cards: tuple[int, ...]
    weight: float

    @property
    def text(self) -> str:
        """The board as text, e.g. ``"AsKh7d"``."""
        return format_cards(self.cards)


def _cards(ranks: Iterable[int], suits: Iterable[int]) -> tuple[int, ...]:
    return tuple(make_card(r, _SUIT_ORDER[s]) for r, s in zip(ranks, suits, strict=True))


@cache
def all_flops() -> tuple[Flop, ...]:
    """The 1,755 suit-canonical flops with their weights (summing to 22,100), high card first:
    ordered by ranks from high to low, then by suit pattern."""
    out: list[Flop] = []
    for a in range(12, -1, -1):
        for b in range(a, -1, -1):
            for c in range(b, -1, -1):
                if a == b == c:
                    out.append(Flop(_cards((a, b, c), (0, 1, 2)), 4))
                elif a == b:  # pair on top: the odd card shares a suit with it, or not
                    out.append(Flop(_cards((a, b, c), (0, 1, 0)), 12))
                    out.append(Flop(_cards((a, b, c), (0, 1, 2)), 12))
                elif b == c:  # pair below
                    out.append(Flop(_cards((a, b, c), (0, 0, 1)), 12))
                    out.append(Flop(_cards((a, b, c), (0, 1, 2)), 12))
                else:
                    out.append(Flop(_cards((a, b, c), (0, 0, 0)), 4))
                    for pattern in ((0, 0, 1), (0, 1, 0), (0, 1, 1)):
                        out.append(Flop(_cards((a, b, c), pattern), 12))
                    out.append(Flop(_cards((a, b, c), (0, 1, 2)), 24))
    return tuple(out)


def canonical(cards: Iterable[int]) -> tuple[int, ...]:
    """The canonical representative of a flop's class (see the module text): ranks high to
    low, suits renamed s, h, d, c in order of first appearance, the smallest such naming when
    equal ranks leave a choice."""
    board = tuple(cards)
    ranks = sorted({c >> 2 for c in board}, reverse=True)
    groups = [[c for c in board if c >> 2 == r] for r in ranks]
    best: tuple[int, ...] | None = None
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        seq = [c for group in orders for c in group]
        names: dict[int, int] = {}
        key = tuple(
            (-(c >> 2), names.setdefault(c & 3, len(names))) for c in seq
        )  # (rank high first, suit in order of appearance)
        cards_out = tuple(make_card(-r, _SUIT_ORDER[s]) for r, s in key)
        if best is None or _order_key(cards_out) < _order_key(best):
            best = cards_out
    assert best is not None
    return best


def _order_key(cards: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((-(c >> 2), _SUIT_ORDER.index(c & 3)) for c in cards)


def _stratum(cards: tuple[int, ...]) -> int:
    """0..7 for a canonical flop: unpaired rainbow; two-tone with the top two, the top and
    bottom, the bottom two cards suited; monotone; paired rainbow, paired two-tone; trips."""
    ranks = len({c >> 2 for c in cards})
    suits = len({c & 3 for c in cards})
    if ranks == 1:
        return 7
    if ranks == 2:
        return 5 if suits == 3 else 6
    if suits != 2:
        return 0 if suits == 3 else 4
    a, b, c = (card & 3 for card in cards)
    return 1 if a == b else 2 if a == c else 3


@cache
def subset(size: int) -> tuple[Flop, ...]:
    """The representative subset of ``size`` flops (one of :data:`SUBSET_SIZES`), built by the
    rule of the module text; weights are whole numbers summing to 22,100."""
    if size not in SUBSET_SIZES:
        raise PokerlabError(
            f"no flop subset of {size}; the subsets have {', '.join(map(str, SUBSET_SIZES))} flops"
        )
    strata: list[list[Flop]] = [[] for _ in range(8)]
    for flop in all_flops():
        strata[_stratum(flop.cards)].append(flop)
    totals = [sum(f.weight for f in s) for s in strata]
    share = [size * t / TOTAL_FLOPS for t in totals]
    picks = [max(1, int(x)) for x in share]
    order = sorted(range(8), key=lambda i: (-(share[i] - int(share[i])), i))
    for i in order[: size - sum(picks)]:
        picks[i] += 1
    out: list[Flop] = []
    for index, (flops, k) in enumerate(zip(strata, picks, strict=True)):
        m = len(flops)
        runs: list[list[Flop]] = [[] for _ in range(k)]
        for i, flop in enumerate(flops):
            runs[int((i + 0.5) * k / m)].append(flop)
        # the middle of each run; the three two-tone strata (same ranks, one run layout) take
        # the classes at 1/6, 3/6 and 5/6 of each run instead, so that they differ in ranks
        at = (2 * index - 1) if index in (1, 2, 3) else 3
        for run in runs:
            out.append(Flop(run[len(run) * at // 6].cards, sum(f.weight for f in run)))
    order_of = {f.cards: i for i, f in enumerate(all_flops())}
    return tuple(sorted(out, key=lambda f: order_of[f.cards]))


def parse_board(text: str, n_cards: int = 3, where: str = "flop") -> tuple[int, ...]:
    """Card ids of a board such as ``"AsKd7c"`` with exactly ``n_cards`` distinct cards; errors
    name ``where`` and the bad token."""
    cards: list[int] = []
    body = text.strip()
    i = 0
    while i < len(body):
        if body[i] in " ,\t":
            i += 1
            continue
        try:
            card = parse_card(body[i : i + 2], i)
        except ParseError as exc:
            raise PokerlabError(f"{where} {text.strip()!r}: {exc}") from None
        if card in cards:
            raise PokerlabError(f"{where} {text.strip()!r}: card {body[i : i + 2]!r} given twice")
        cards.append(card)
        i += 2
    if len(cards) != n_cards:
        raise PokerlabError(f"{where} {text.strip()!r} has {len(cards)} cards, not {n_cards}")
    return tuple(cards)


def _class_weight(cards: tuple[int, ...]) -> int:
    ranks = len({c >> 2 for c in cards})
    suits = len({c & 3 for c in cards})
    if ranks == 1:
        return 4
    if ranks == 2:
        return 12
    return {1: 4, 2: 12, 3: 24}[suits]


def read_flop_file(path: str | os.PathLike[str]) -> tuple[list[Flop], list[str]]:
    """Flops of a text file: one flop a line (``AsKd7c`` or ``As Kd 7c``), optionally followed
    by its weight (a number > 0; default: its class's weight, how many of the 22,100 flops it
    stands for); ``#`` starts a comment, blank lines are skipped. Isomorphic flops become one
    row (the first one written) with their weights summed. Returns the flops in file order and
    one note per merged line. Errors name the file, the line and the token."""
    from pokerlab.io.paths import check_input_file

    p = check_input_file(path, "flop file")
    if p.stat().st_size > MAX_FLOP_FILE_BYTES:
        raise PokerlabError(f"flop file {p}: larger than {MAX_FLOP_FILE_BYTES:,} bytes")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PokerlabError(f"flop file {p}: not UTF-8 text") from None
    rows: dict[tuple[int, ...], list[float | tuple[int, ...]]] = {}
    notes: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        weight_text = None
        if len(parts) > 1 and not any(ch.isalpha() for ch in parts[-1]):
            weight_text = parts.pop()
        where = f"flop file {p}, line {number}: flop"
        cards = parse_board("".join(parts), 3, where)
        if weight_text is None:
            weight = float(_class_weight(cards))
        else:
            try:
                weight = float(weight_text)
            except ValueError:
                weight = float("nan")
            if not weight > 0 or weight == float("inf"):
                raise PokerlabError(
                    f"flop file {p}, line {number}: weight {weight_text!r} is not a number > 0"
                )
        key = canonical(cards)
        if key in rows:
            first = rows[key]
            notes.append(
                f"{p}, line {number}: {format_cards(cards)} is isomorphic to "
                f"{format_cards(first[1])} (line {int(first[2])}): one row, weights summed"
            )
            first[0] = float(first[0]) + weight  # type: ignore[arg-type]
        else:
            rows[key] = [weight, cards, number]
    if not rows:
        raise PokerlabError(f"flop file {p}: no flops in it (one a line, e.g. 'AsKd7c')")
    return [Flop(v[1], float(v[0])) for v in rows.values()], notes  # type: ignore[arg-type]


def flop_set(spec: str) -> tuple[list[Flop], list[str]]:
    """The flops of ``--flops``: ``"all"`` (1,755), ``"184"``, ``"85"``, ``"49"``, ``"25"``, or
    a flop file (:func:`read_flop_file`). Returns the flops and notes for the user."""
    text = spec.strip()
    if text.lower() == "all":
        return list(all_flops()), []
    if text.isdigit() and not Path(text).exists():
        if int(text) not in SUBSET_SIZES:
            raise PokerlabError(
                f"--flops {spec!r}: no subset of {int(text)} flops; give all, "
                f"{', '.join(map(str, SUBSET_SIZES))} or a flop file"
            )
        return list(subset(int(text))), []
    if Path(text).suffix == "" and not Path(text).exists():
        raise PokerlabError(
            f"--flops {spec!r}: give all, {', '.join(map(str, SUBSET_SIZES))} or a flop file"
        )
    return read_flop_file(text)


def turn_cards(flop: Iterable[int]) -> list[Flop]:
    """The turn cards of ``flop`` up to the suit permutations that fix the flop: one row per
    class with its weight (how many of the 49 turn cards it stands for; the weights sum to 49),
    the lowest card id of each class, ordered by rank from high to low."""
    board = tuple(flop)
    fixing = [
        perm
        for perm in itertools.permutations(range(4))
        if {make_card(c >> 2, perm[c & 3]) for c in board} == set(board)
    ]
    seen: dict[int, list[int]] = {}
    for card in range(52):
        if card in board:
            continue
        orbit = min(make_card(card >> 2, perm[card & 3]) for perm in fixing)
        seen.setdefault(orbit, []).append(card)
    rows = [Flop((*board, min(cards)), float(len(cards))) for cards in seen.values()]
    return sorted(rows, key=lambda f: (-(f.cards[3] >> 2), _SUIT_ORDER.index(f.cards[3] & 3)))
