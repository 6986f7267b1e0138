"""Cards, two-card combos and the 169 starting-hand classes.

Encoding (the same as eval7 and phevaluator):

- a card is an integer ``4 * rank + suit`` in 0..51, with ranks 0..12 for 2..A and suits
  0..3 for clubs, diamonds, hearts, spades ("2c" = 0, "As" = 51);
- a combo (two distinct hole cards) has an id in 0..1325: for cards ``hi > lo`` the id is
  ``hi * (hi - 1) / 2 + lo``; :data:`COMBO_CARDS` maps id -> (hi, lo) and :data:`COMBO_INDEX`
  is the symmetric (52, 52) lookup (-1 on the diagonal);
- a starting-hand class has an id ``13 * row + col`` in 0..168, where row and col index the 13x13
  grid ordered A..2 (row 0 = aces). Pairs lie on the diagonal, suited classes above it
  (row < col: row is the high rank) and offsuit classes below it (row > col: col is the high rank).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

import numpy as np

from pokerlab.errors import ParseError, PokerlabError

__all__ = [
    "RANKS",
    "SUITS",
    "N_CARDS",
    "N_COMBOS",
    "N_CLASSES",
    "COMBO_CARDS",
    "COMBO_INDEX",
    "COMBO_CLASS",
    "COMBO_MASKS",
    "CLASS_COMBOS",
    "CLASS_SIZE",
    "card_rank",
    "card_suit",
    "make_card",
    "parse_card",
    "parse_cards",
    "format_card",
    "format_cards",
    "combo_id",
    "combo_cards",
    "format_combo",
    "class_id",
    "class_name",
    "class_ranks",
    "parse_class",
    "class_grid_position",
    "class_combos",
    "combos_conflict",
    "combos_blocked_by",
]

RANKS = "23456789TJQKA"
"""Rank characters, index = rank (0 = deuce, 12 = ace)."""
SUITS = "cdhs"
"""Suit characters, index = suit."""
N_CARDS = 52
N_COMBOS = 1326
N_CLASSES = 169


def _checked(value: int, what: str, n: int) -> int:
    """``value`` as an int in 0..n-1; PokerlabError naming it (and ``what`` it is) otherwise."""
    try:
        i = operator.index(value)
    except TypeError:
        raise PokerlabError(f"{what} {value!r} is not an integer") from None
    if not 0 <= i < n:
        raise PokerlabError(f"{what} {value!r} is out of range 0..{n - 1}")
    return i


def card_rank(card: int) -> int:
    """Rank 0..12 (2..A) of a card id."""
    return card >> 2


def card_suit(card: int) -> int:
    """Suit 0..3 (c, d, h, s) of a card id."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    """Card id from rank 0..12 and suit 0..3 (PokerlabError naming one outside them)."""
    return 4 * _checked(rank, "rank", 13) + _checked(suit, "suit", 4)


def _build_combo_tables() -> tuple[np.ndarray, np.ndarray]:
    cards = np.empty((N_COMBOS, 2), dtype=np.int16)
    index = np.full((N_CARDS, N_CARDS), -1, dtype=np.int16)
    k = 0
    for hi in range(1, N_CARDS):
        for lo in range(hi):
            cards[k] = (hi, lo)
            index[hi, lo] = index[lo, hi] = k
            k += 1
    cards.setflags(write=False)
    index.setflags(write=False)
    return cards, index


COMBO_CARDS, COMBO_INDEX = _build_combo_tables()
"""``COMBO_CARDS[id] = (hi, lo)`` (int16, hi > lo); ``COMBO_INDEX[a, b]`` = combo id or -1."""


def _class_of_cards(hi: int, lo: int) -> int:
    rh, rl = 12 - card_rank(hi), 12 - card_rank(lo)  # grid coordinates, 0 = ace
    if rh == rl:
        return 13 * rh + rh
    top, bottom = min(rh, rl), max(rh, rl)  # top = higher rank
    if card_suit(hi) == card_suit(lo):
        return 13 * top + bottom  # suited: above the diagonal
    return 13 * bottom + top  # offsuit: below the diagonal


def _build_class_tables() -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    combo_class = np.array(
        [_class_of_cards(int(h), int(lo)) for h, lo in COMBO_CARDS], dtype=np.int16
    )
    members = [np.flatnonzero(combo_class == c).astype(np.int16) for c in range(N_CLASSES)]
    for m in members:
        m.setflags(write=False)
    size = np.array([len(m) for m in members], dtype=np.int8)
    combo_class.setflags(write=False)
    size.setflags(write=False)
    return combo_class, members, size


COMBO_CLASS, CLASS_COMBOS, CLASS_SIZE = _build_class_tables()
"""``COMBO_CLASS[combo]`` = class id; ``CLASS_COMBOS[class]`` = its combo ids (6 for a pair,
4 suited, 12 offsuit); ``CLASS_SIZE[class]`` = that count."""


def parse_card(text: str, position: int = 0) -> int:
    """Parse one card such as ``"As"`` or ``"td"`` (rank case-insensitive) into its id.

    Parameters
    ----------
    text:
        Two characters: rank (2-9, T, J, Q, K, A) then suit (c, d, h, s).
    position:
        Offset of ``text`` in a larger input, used in the error message.
    """
    if len(text) != 2:
        raise ParseError("a card is a rank and a suit, like 'As'", text, position)
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0 or suit < 0:
        raise ParseError("bad card", text, position)
    return make_card(rank, suit)


def parse_cards(text: str, allow_duplicates: bool = False) -> list[int]:
    """Parse a run of cards such as ``"Td9d6h"`` or ``"Td 9d 6h"`` into card ids.

    Parameters
    ----------
    text:
        Cards written one after another; spaces and commas between cards are ignored.
    allow_duplicates:
        When false (the default) a card given twice raises :class:`ParseError`.
    """
    out: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        if text[i] in " ,\t":
            i += 1
            continue
        card = parse_card(text[i : i + 2], i)
        if not allow_duplicates and card in out:
            raise ParseError("card given twice", text[i : i + 2], i)
        out.append(card)
        i += 2
    return out


def format_card(card: int) -> str:
    """Two-character name of a card id, e.g. ``51 -> "As"``."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card id out of range: {card}")
    return RANKS[card >> 2] + SUITS[card & 3]


def format_cards(cards: Iterable[int]) -> str:
    """Concatenated card names, e.g. ``"Td9d6h"``."""
    return "".join(format_card(int(c)) for c in cards)


def combo_id(card_a: int, card_b: int) -> int:
    """Combo id (0..1325) of two distinct cards (ids 0..51), in either order; PokerlabError
    naming a card outside 0..51 or a card given twice."""
    k = int(COMBO_INDEX[_checked(card_a, "card id", N_CARDS), _checked(card_b, "card id", N_CARDS)])
    if k < 0:
        raise PokerlabError(f"a combo needs two distinct cards, got {card_a!r} twice")
    return k


def combo_cards(combo: int) -> tuple[int, int]:
    """The two cards (hi, lo) of a combo id 0..1325 (PokerlabError naming one outside it)."""
    hi, lo = COMBO_CARDS[_checked(combo, "combo id", N_COMBOS)]
    return int(hi), int(lo)


def format_combo(combo: int) -> str:
    """Name of a combo, higher card first, e.g. ``"AsKd"``."""
    return format_cards(combo_cards(combo))


def class_id(high_rank: int, low_rank: int, suited: bool) -> int:
    """Class id from two ranks 0..12 (2..A) and suitedness (ignored for pairs)."""
    if high_rank < low_rank:
        high_rank, low_rank = low_rank, high_rank
    top, bottom = 12 - high_rank, 12 - low_rank
    if top == bottom:
        return 14 * top
    return 13 * top + bottom if suited else 13 * bottom + top


def class_ranks(cls: int) -> tuple[int, int, bool]:
    """(high rank, low rank, suited) of a class id 0..168; ranks 0..12 (2..A), pairs report
    False (PokerlabError naming a class id outside 0..168)."""
    row, col = divmod(_checked(cls, "class id", N_CLASSES), 13)
    if row <= col:
        return 12 - row, 12 - col, row < col
    return 12 - col, 12 - row, False


def class_name(cls: int) -> str:
    """Name of a class id: ``"AA"``, ``"AKs"``, ``"T9o"``."""
    hi, lo, suited = class_ranks(cls)
    if hi == lo:
        return RANKS[hi] * 2
    return RANKS[hi] + RANKS[lo] + ("s" if suited else "o")


def parse_class(text: str) -> int:
    """Class id of a name such as ``"AKs"``, ``"T9o"`` or ``"22"``."""
    t = text.strip()
    if len(t) not in (2, 3):
        raise ParseError("a hand class is two ranks and s/o, like 'AKs'", text, 0)
    hi, lo = RANKS.find(t[0].upper()), RANKS.find(t[1].upper())
    if hi < 0 or lo < 0:
        raise ParseError("bad rank in hand class", text, 0)
    if hi == lo:
        if len(t) == 3:
            raise ParseError("a pair has no suited/offsuit suffix", text, 0)
        return class_id(hi, lo, False)
    if len(t) != 3 or t[2].lower() not in "so":
        raise ParseError("a non-pair class needs 's' or 'o'", text, 0)
    return class_id(hi, lo, t[2].lower() == "s")


def class_grid_position(cls: int) -> tuple[int, int]:
    """(row, col) of a class id 0..168 in the 13x13 grid (A..2; suited above the diagonal)."""
    return divmod(_checked(cls, "class id", N_CLASSES), 13)


def class_combos(cls: int) -> np.ndarray:
    """Combo ids (int16, read-only) belonging to a class id 0..168."""
    return CLASS_COMBOS[_checked(cls, "class id", N_CLASSES)]


def _build_conflicts() -> np.ndarray:
    masks = np.zeros(N_COMBOS, dtype=np.uint64)
    for k, (h, lo) in enumerate(COMBO_CARDS):
        masks[k] = (np.uint64(1) << np.uint64(h)) | (np.uint64(1) << np.uint64(lo))
    masks.setflags(write=False)
    return masks


COMBO_MASKS = _build_conflicts()
"""``COMBO_MASKS[combo]``: 52-bit card mask (uint64) of each combo."""


def combos_conflict() -> np.ndarray:
    """(1326, 1326) bool: True where two combos share a card (including a combo with itself)."""
    return (COMBO_MASKS[:, None] & COMBO_MASKS[None, :]) != 0


def combos_blocked_by(cards: Iterable[int] | str) -> np.ndarray:
    """(1326,) bool: True for the combos that contain any of ``cards`` (board or dead cards):
    card ids 0..51 or a board string such as ``"Td9d6h"``; PokerlabError naming a card id
    outside 0..51 (a ParseError for a bad card in a string)."""
    if isinstance(cards, str):
        ids = parse_cards(cards, allow_duplicates=True)
    else:
        ids = [_checked(c, "card id", N_CARDS) for c in cards]
    mask = 0
    for c in ids:
        mask |= 1 << c
    return (COMBO_MASKS & np.uint64(mask)) != 0
