"""Hand ranges in the common text syntax, as 1326-entry weight vectors.

Grammar (items separated by commas, whitespace ignored, ranks case-insensitive)::

    range  := item ("," item)*
    item   := hands [":" weight]          weight in [0, 1], default 1
    hands  := "random" | "any"            all 1326 combos
            | CARD CARD                    one combo:            AhKh
            | CLASS ["+"]                  class, or upward run: QQ+  A2s+  KTo+  AK
            | CLASS "-" CLASS              span:                 22-55  A5s-A2s  T9s-65s
    CLASS  := RANK RANK ["s" | "o"]       no suffix on a non-pair means both s and o

``XX+`` is every pair from XX up to AA; ``XYs+`` raises the kicker up to one below the high card
(A2s+ = A2s..AKs), except for a connector, where it raises both ranks (T9s+ = T9s, JTs, QJs, KQs,
AKs), as in postflop-solver (``range.rs``). A span between two pairs covers the pairs between
them; between two non-pairs it either keeps the high card (A5s-A2s) or the gap between the ranks
(T9s-65s: T9s, 98s, 87s, 76s, 65s).

A combo named by two items keeps the weight of the **first** item that names it, as in
postflop-solver (b-inary, ``range.rs``, which reads the items last to first, each overwriting):
``"AA, AhAd:0.25"`` puts AhAd at weight 1. Naming a combo again with a *different* weight warns
(:class:`~pokerlab.errors.RangeOverlapWarning`, naming the combos and the items); naming it again
with the same weight (``"QQ+, KK"``) is silent. To weight a few combos of a class differently,
write them first: ``"AhAd:0.25, AA"`` (it warns, naming AhAd and the weight kept).

>>> from pokerlab.cards.ranges import parse_range, format_range
>>> w = parse_range("QQ+, AKs:0.5, AhKd")
>>> float(w.sum())
21.0
>>> format_range(parse_range("TT, JJ, QQ, KK, AA, A2s+, A2o+"))
'TT+, A2+'
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from pokerlab.cards.deck import (
    CLASS_COMBOS,
    COMBO_CARDS,
    COMBO_CLASS,
    N_CLASSES,
    N_COMBOS,
    RANKS,
    class_id,
    combo_id,
    combos_blocked_by,
    format_card,
    format_combo,
    parse_card,
)
from pokerlab.cards.range_text import RangeText
from pokerlab.errors import ParseError, PokerlabError, RangeOverlapWarning

__all__ = [
    "RangeText",
    "parse_range",
    "format_range",
    "remove_blocked",
    "range_grid",
    "combo_count",
    "RangeOverlapWarning",
]

_R = "[2-9TJQKAtjqka]"
_COMBO = re.compile(rf"^({_R}[cdhsCDHS])({_R}[cdhsCDHS])$")
_CLASS = re.compile(rf"^({_R})({_R})([soSO]?)(\+?)$")
_SPAN = re.compile(rf"^({_R})({_R})([soSO]?)-({_R})({_R})([soSO]?)$")
#: A weight: an ASCII decimal number (``0.25``, ``1``, ``.5``, ``5e-1``).
_WEIGHT = re.compile(r"^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def _classes(hi: int, lo: int, suffix: str) -> list[int]:
    """Class ids for ranks hi > lo with suffix "s", "o" or "" (both)."""
    if suffix == "s":
        return [class_id(hi, lo, True)]
    if suffix == "o":
        return [class_id(hi, lo, False)]
    return [class_id(hi, lo, True), class_id(hi, lo, False)]


def _parse_hands(tok: str, pos: int) -> list[int]:
    """Combo ids named by one item (weight already stripped)."""
    low = tok.lower()
    if low in ("random", "any"):
        return list(range(N_COMBOS))
    m = _COMBO.match(tok)
    if m:
        a, b = parse_card(m.group(1), pos), parse_card(m.group(2), pos + 2)
        if a == b:
            raise ParseError("a combo needs two different cards", tok, pos)
        return [combo_id(a, b)]
    classes: list[int] = []
    m = _CLASS.match(tok)
    if m:
        r1, r2 = RANKS.index(m.group(1).upper()), RANKS.index(m.group(2).upper())
        suffix, plus = m.group(3).lower(), m.group(4) == "+"
        if r1 == r2:
            if suffix:
                raise ParseError("a pair takes no 's'/'o' suffix", tok, pos)
            classes = [class_id(r, r, False) for r in range(r1, 13 if plus else r1 + 1)]
        else:
            hi, lo = max(r1, r2), min(r1, r2)
            if plus and hi - lo == 1:  # connector run (postflop-solver's rule): T9s+ .. AKs
                for h in range(hi, 13):
                    classes += _classes(h, h - 1, suffix)
            else:
                for k in range(lo, hi if plus else lo + 1):
                    classes += _classes(hi, k, suffix)
    else:
        m = _SPAN.match(tok)
        if not m:
            raise ParseError("not a hand, class, span or 'random'", tok, pos)
        a1, a2, s1 = RANKS.index(m.group(1).upper()), RANKS.index(m.group(2).upper()), m.group(3)
        b1, b2, s2 = RANKS.index(m.group(4).upper()), RANKS.index(m.group(5).upper()), m.group(6)
        if s1.lower() != s2.lower():
            raise ParseError("both ends of a span need the same suffix", tok, pos)
        suffix = s1.lower()
        if a1 == a2 or b1 == b2:
            if not (a1 == a2 and b1 == b2) or suffix:
                raise ParseError("a span of pairs needs two pairs, no suffix", tok, pos)
            classes = [class_id(r, r, False) for r in range(min(a1, b1), max(a1, b1) + 1)]
        else:
            ah, al, bh, bl = max(a1, a2), min(a1, a2), max(b1, b2), min(b1, b2)
            if ah == bh:  # same high card: kicker span
                for k in range(min(al, bl), max(al, bl) + 1):
                    classes += _classes(ah, k, suffix)
            elif ah - al == bh - bl:  # same gap: connector span
                gap = ah - al
                for h in range(min(ah, bh), max(ah, bh) + 1):
                    classes += _classes(h, h - gap, suffix)
            else:
                raise ParseError(
                    "a span keeps either the high card or the gap between the ranks", tok, pos
                )
    out: list[int] = []
    for c in classes:
        out += [int(x) for x in CLASS_COMBOS[c]]
    return out


@lru_cache(maxsize=1)
def _single_combos() -> dict[str, int]:
    """Every combo's four-character names, both card orders (``"AsKs"``, ``"KsAs"``), to its
    id."""
    table = {}
    for combo in range(N_COMBOS):
        a, b = (format_card(int(c)) for c in COMBO_CARDS[combo])
        table[a + b] = combo
        table[b + a] = combo
    return table


def _combo_list(text: str) -> np.ndarray | None:
    """The weights of a range written as one ``combo:weight`` item per combo (``"AsKs:0.25,
    KhQh:1"``, what search writes for 1,326 combos), read in one vectorised step; None when
    the text is anything else (a class, a spread, a combo given twice, an odd weight), which
    the general parser then reads and judges."""
    table = _single_combos()
    names, weights = [], []
    for item in text.split(","):
        name, sep, weight = item.strip().partition(":")
        combo = table.get(name)
        if combo is None or not sep or not _WEIGHT.match(weight):
            return None
        names.append(combo)
        weights.append(weight)
    ids = np.asarray(names, dtype=np.int64)
    values = np.asarray(weights, dtype=np.float64)
    if np.unique(ids).size != ids.size or not ((values >= 0.0) & (values <= 1.0)).all():
        return None
    out = np.zeros(N_COMBOS, dtype=np.float64)
    out[ids] = values
    return out


def parse_range(text: str) -> np.ndarray:
    """Parse a range string into a float64 weight vector of length 1326 (index = combo id).

    Parameters
    ----------
    text:
        Range in the grammar of this module, e.g. ``"QQ+, A2s+, KTo+, 76s, AhKh, AKs:0.5"``.
        An empty string is the empty range.

    A combo named by several items keeps the first item's weight (postflop-solver's rule);
    when a later item gives it a different weight, a :class:`~pokerlab.errors.RangeOverlapWarning`
    names the combos, the items and the weight kept.

    Raises
    ------
    ParseError
        For any item that does not parse, naming the item and its character offset.
    """
    if isinstance(text, RangeText):
        return text.weights.copy()
    weights = np.zeros(N_COMBOS, dtype=np.float64)
    if not text.strip():
        return weights
    fast = _combo_list(text) if text.count(",") > 100 else None
    if fast is not None:
        return fast
    owner = np.full(N_COMBOS, -1, dtype=np.int64)  # index of the item that set each combo
    items: list[str] = []
    clashes: dict[tuple[int, int], list[int]] = {}  # (first item, later item) -> combos
    pieces = text.split(",")
    offset = 0
    for n, raw in enumerate(pieces):
        pos = offset + len(raw) - len(raw.lstrip())
        item = raw.strip()
        if not item:
            comma = offset + len(raw) if n < len(pieces) - 1 else offset - 1
            raise ParseError("empty item (two commas in a row, or a comma at an end)", ",", comma)
        weight = 1.0
        if ":" in item:
            hands, _, wtext = item.partition(":")
            wpos = pos + len(hands) + 1 + len(wtext) - len(wtext.lstrip())
            hands, wtext = hands.strip(), wtext.strip()
            # ASCII decimals (float() takes "٠.٥", "1_0", "nan"); a minus sign is read so that
            # a negative weight is told its interval rather than called not a number
            if not _WEIGHT.match(wtext.removeprefix("-")):
                raise ParseError("weight is not a number", wtext, wpos)
            weight = float(wtext) + 0.0  # "-0" is 0
            if not 0.0 <= weight <= 1.0:
                raise ParseError("weight must be between 0 and 1", wtext, wpos)
            item = hands
        combos = np.asarray(_parse_hands(item, pos), dtype=np.int64)
        index = len(items)
        items.append(raw.strip())
        taken = owner[combos] >= 0
        for combo in combos[taken]:
            if weights[combo] != weight:
                clashes.setdefault((int(owner[combo]), index), []).append(int(combo))
        fresh = combos[~taken]
        weights[fresh] = weight
        owner[fresh] = index
        offset += len(raw) + 1
    if clashes:
        warnings.warn(_overlap_message(text, items, clashes), RangeOverlapWarning, stacklevel=2)
    return weights


def _overlap_message(text: str, items: list[str], clashes: dict[tuple[int, int], list[int]]) -> str:
    """One line naming every combo given twice with different weights, grouped by item pair."""
    total = len({c for combos in clashes.values() for c in combos})
    parts = []
    for (first, later), combos in clashes.items():
        names = [format_combo(c) for c in sorted(set(combos))]
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        parts.append(f"{shown} (kept from {items[first]!r}, not {items[later]!r})")
    combos_word = "combo" if total == 1 else "combos"
    return (
        f"range {text.strip()!r} gives {total} {combos_word} twice with different weights; "
        f"the first item wins (postflop-solver's rule): {'; '.join(parts)}"
    )


def _fmt_weight(w: float) -> str:
    return "" if w == 1.0 else ":" + repr(float(w))


def _runs(values: list[int]) -> list[list[int]]:
    """Split sorted-descending integers into runs of consecutive values."""
    runs: list[list[int]] = []
    for v in values:
        if runs and runs[-1][-1] == v + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return runs


def _format_classes(classes: set[int]) -> list[str]:
    """Shortest readable tokens for a set of class ids of one weight."""
    tokens: list[str] = []
    # Pairs: "QQ+" for a run reaching aces, "77-55" for other runs, "77" alone.
    pairs = sorted((r for r in range(13) if class_id(r, r, False) in classes), reverse=True)
    for run in _runs(pairs):
        a, b = RANKS[run[0]] * 2, RANKS[run[-1]] * 2
        if len(run) == 1:
            tokens.append(a)
        elif run[0] == 12:
            tokens.append(b + "+")
        else:
            tokens.append(f"{a}-{b}")
    # Non-pairs: kicker runs per (high rank, suffix).
    runs: dict[tuple[int, str], list[list[int]]] = {}
    singles: dict[tuple[str, int], list[int]] = {}  # (suffix, gap) -> high ranks
    for hi in range(12, 0, -1):
        for suffix in "so":
            suited = suffix == "s"
            kick = [lo for lo in range(hi - 1, -1, -1) if class_id(hi, lo, suited) in classes]
            kept = []
            for run in _runs(kick):
                if len(run) == 1:
                    singles.setdefault((suffix, hi - run[0]), []).append(hi)
                else:
                    kept.append(run)
            runs[(hi, suffix)] = kept
    # Singles on one diagonal (same gap) with three or more in a row become connector spans.
    connectors: dict[tuple[int, str], list[str]] = {}
    for (suffix, gap), highs in singles.items():
        for run in _runs(sorted(highs, reverse=True)):
            if len(run) >= 3:
                h1, h2 = run[0], run[-1]
                tok = f"{RANKS[h1]}{RANKS[h1 - gap]}{suffix}-{RANKS[h2]}{RANKS[h2 - gap]}{suffix}"
                connectors.setdefault((h1, suffix), []).append(tok)
            else:
                for h in run:
                    runs[(h, suffix)].append([h - gap])
    for hi in range(12, 0, -1):
        per_suffix: dict[str, list[str]] = {}
        for suffix in "so":
            toks = []
            for run in sorted(runs[(hi, suffix)], key=lambda r: -r[0]):
                top, bottom = RANKS[hi] + RANKS[run[0]], RANKS[hi] + RANKS[run[-1]]
                if len(run) == 1:
                    toks.append(top + "{s}")
                elif run[0] == hi - 1:
                    toks.append(bottom + "{s}+")
                else:
                    toks.append(top + "{s}-" + bottom + "{s}")
            per_suffix[suffix] = toks
        if per_suffix["s"] and per_suffix["s"] == per_suffix["o"]:
            tokens += [t.format(s="") for t in per_suffix["s"]]
        else:
            for suffix in "so":
                tokens += [t.format(s=suffix) for t in per_suffix[suffix]]
                tokens += connectors.get((hi, suffix), [])
            continue
        for suffix in "so":
            tokens += connectors.get((hi, suffix), [])
    return tokens


def format_range(weights: np.ndarray) -> str:
    """Write a weight vector back as a short range string that :func:`parse_range` reads back.

    Classes whose combos all share one weight are written as classes, grouped into ``+`` runs and
    spans; other combos are listed one by one. Weights other than 1 are written exactly
    (``repr`` of the float), so ``parse_range(format_range(w))`` equals ``w``.

    Parameters
    ----------
    weights:
        Array of 1326 weights in [0, 1], index = combo id; PokerlabError naming the first
        weight outside [0, 1] (or NaN), which no range string can write.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (N_COMBOS,):
        raise ValueError(f"a range has {N_COMBOS} weights, got shape {w.shape}")
    if bad := np.flatnonzero(~((w >= 0.0) & (w <= 1.0))).tolist():
        raise PokerlabError(f"weight {w[bad[0]]} of {format_combo(bad[0])} is not in [0, 1]")
    if np.all(w == 1.0):
        return "random"
    by_weight: dict[float, set[int]] = {}
    combos: dict[float, list[int]] = {}
    for c in range(N_CLASSES):
        members = CLASS_COMBOS[c]
        vals = w[members]
        if np.all(vals == vals[0]):
            if vals[0] > 0:
                by_weight.setdefault(float(vals[0]), set()).add(c)
        else:
            for k in members:
                if w[k] > 0:
                    combos.setdefault(float(w[k]), []).append(int(k))
    tokens: list[str] = []
    for wt in sorted(set(by_weight) | set(combos), reverse=True):
        suffix = _fmt_weight(wt)
        tokens += [t + suffix for t in _format_classes(by_weight.get(wt, set()))]
        tokens += [format_combo(k) + suffix for k in sorted(combos.get(wt, []), reverse=True)]
    return ", ".join(tokens)


def remove_blocked(weights: np.ndarray, cards: Iterable[int] | str) -> np.ndarray:
    """Copy of ``weights`` with every combo that holds one of ``cards`` (board, dead: card ids
    0..51 or a string such as ``"Td9d6h"``) set to 0; PokerlabError naming a bad card."""
    out = np.array(weights, dtype=np.float64, copy=True)
    out[combos_blocked_by(cards)] = 0.0
    return out


def combo_count(weights: np.ndarray) -> float:
    """Number of combos in a range, counting each by its weight."""
    return float(np.sum(weights))


def range_grid(weights: np.ndarray) -> np.ndarray:
    """(13, 13) mean weight of each class's combos, laid out as the hand grid (A..2)."""
    sums = np.bincount(COMBO_CLASS, weights=np.asarray(weights, dtype=np.float64), minlength=169)
    sizes = np.bincount(COMBO_CLASS, minlength=169)
    return (sums / sizes).reshape(13, 13)
