"""Codes and colours of postflop actions, shared by the terminal grid and the PNG picture.

A decision node either faces no bet (check, bets, all-in) or faces one (fold, call, raises,
all-in), so one-letter codes stay unambiguous within a node:

* ``F`` fold, ``X`` check, ``C`` call, ``A`` all-in;
* sized bets or raises by increasing amount: ``B`` (or ``R``) when there is one size, else
  ``S``/``L`` (two sizes), ``S``/``M``/``L`` (three), ``S``/``M``/``L``/``H`` (four), and the
  digits ``1``..``9`` beyond.

Colours follow the convention of solver interfaces: passive actions green (fold blue),
aggression from orange to dark red as the size grows, all-in purple. Each colour comes with the
text colour (black or white) that has the higher WCAG contrast on it. Importing this module does
not import matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence

from pokerlab.games.postflop.actions import ALLIN, BET, CALL, CHECK, FOLD, RAISE, parse_action_label

__all__ = ["ActionStyle", "action_styles", "text_colour"]

#: (background, text) of fold, check and call, and of all-in.
FOLD_COLOUR = ("#4a90d9", "black")
PASSIVE_COLOUR = ("#3fa34d", "black")
ALLIN_COLOUR = ("#5b2a86", "white")
#: Sized bets and raises, smallest to largest.
SIZED_COLOURS = (
    ("#f6bd60", "black"),
    ("#f28c38", "black"),
    ("#e4572e", "black"),
    ("#c0392b", "white"),
    ("#8e1b10", "white"),
)
_SIZE_LETTERS = {1: "?", 2: "SL", 3: "SML", 4: "SMLH"}


class ActionStyle:
    """How one action of a node is drawn: ``label`` (``"bet 66"``), one-character ``code``,
    ``colour`` (background, ``#rrggbb``) and ``text`` (``"black"`` or ``"white"``)."""

    __slots__ = ("label", "code", "colour", "text")

    def __init__(self, label: str, code: str, colour: str, text: str) -> None:
        self.label = label
        self.code = code
        self.colour = colour
        self.text = text

    def __repr__(self) -> str:
        return f"ActionStyle({self.label!r}, {self.code!r}, {self.colour!r}, {self.text!r})"


def text_colour(colour: str) -> str:
    """``"black"`` or ``"white"``, whichever has the higher WCAG 2.1 contrast ratio on the
    ``#rrggbb`` background ``colour`` (as :func:`pokerlab.plots.grids.text_color_for`)."""
    linear = []
    for i in (1, 3, 5):
        c = int(colour[i : i + 2], 16) / 255
        linear.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    lum = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def _blend(a: str, b: str, t: float) -> str:
    """The colour a fraction ``t`` of the way from ``a`` to ``b`` (``#rrggbb``, in sRGB)."""
    mixed = [round((1 - t) * int(a[i : i + 2], 16) + t * int(b[i : i + 2], 16)) for i in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _ladder(count: int) -> list[tuple[str, str]]:
    """``count`` distinct colours from small to large: the anchors of :data:`SIZED_COLOURS`
    where they suffice, colours blended between them beyond five sizes."""
    last = len(SIZED_COLOURS) - 1
    if count == 1:
        return [SIZED_COLOURS[2]]
    if count <= len(SIZED_COLOURS):
        return [SIZED_COLOURS[round(i * last / (count - 1))] for i in range(count)]
    out = []
    for i in range(count):
        x = i * last / (count - 1)
        k = min(int(x), last - 1)
        colour = _blend(SIZED_COLOURS[k][0], SIZED_COLOURS[k + 1][0], x - k)
        out.append((colour, text_colour(colour)))
    return out


def action_styles(actions: Sequence[str]) -> list[ActionStyle]:
    """Code and colours of each action label of one node (``["check", "bet 66", "allin 900"]``).

    Raises :class:`~pokerlab.errors.PokerlabError` for a label that is not an action.
    """
    parsed = [parse_action_label(label) for label in actions]
    sized = sorted(
        (amount or 0, i) for i, (kind, amount) in enumerate(parsed) if kind in (BET, RAISE)
    )
    rank = {i: r for r, (_, i) in enumerate(sized)}
    colours = _ladder(len(sized)) if sized else []
    out = []
    for i, (label, (kind, _)) in enumerate(zip(actions, parsed, strict=True)):
        if kind == FOLD:
            code, (colour, text) = "F", FOLD_COLOUR
        elif kind in (CHECK, CALL):
            code, (colour, text) = ("X" if kind == CHECK else "C"), PASSIVE_COLOUR
        elif kind == ALLIN:
            code, (colour, text) = "A", ALLIN_COLOUR
        else:
            r = rank[i]
            if len(sized) == 1:
                code = "B" if kind == BET else "R"
            elif len(sized) in _SIZE_LETTERS:
                code = _SIZE_LETTERS[len(sized)][r]
            else:
                code = str(r + 1) if r < 9 else chr(ord("a") + r - 9)
            colour, text = colours[r]
        out.append(ActionStyle(label, code, colour, text))
    return out
