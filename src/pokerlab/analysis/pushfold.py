"""Push/fold equilibria, sweeps over stacks, strategies written as specs, best responses.

The equilibrium is computed on the exact 169-class reduction of the game (suit symmetry: see
:mod:`pokerlab.games.pushfold`) and then expanded to the 1326 combos, where its exploitability
is measured by an exact best response over combos. Strategy specs accepted everywhere a push/fold
strategy is asked for:

* ``"70/60"`` or ``"0.7/0.6"``: the small blind shoves the best 70% of hands by hand strength
  (equity against a random hand), the big blind calls with the best 60% (combo-weighted);
* ``"22+, A2s+, K9o+ / 55+, A8+"``: a shove range and a call range in range syntax;
* a JSON file with ``sb_shove`` and ``bb_call`` maps from class name to frequency (what
  ``pokerlab pushfold --json`` prints);
* a strategy file saved by pokerlab for a push/fold game.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pokerlab.cards.deck import CLASS_COMBOS, COMBO_CLASS, N_CLASSES, N_COMBOS, class_name
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.exploitability import (
    best_response_strategy,
    expected_values,
)
from pokerlab.games.pushfold import PushFoldGame
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import compile_game

__all__ = [
    "PushFoldSolution",
    "pushfold_strategy",
    "strategy_from_spec",
    "shove_call_arrays",
    "class_frequencies",
    "top_fraction",
    "best_response_report",
]

_CLASS_SIZES = np.array([len(CLASS_COMBOS[c]) for c in range(N_CLASSES)], dtype=np.float64)


def pushfold_strategy(game: PushFoldGame, sb_shove: np.ndarray, bb_call: np.ndarray) -> Strategy:
    """A strategy of ``game`` from per-hand probabilities.

    ``sb_shove`` and ``bb_call`` have one row per stack of the game (or are 1-D for one stack)
    and 1326 columns (combos) or 169 (classes, expanded to their combos when the game is over
    combos).
    """
    compiled = compile_game(game)
    tree = compiled.tree
    a = tree.arrays
    num_h = tree.num_private
    sb = np.atleast_2d(np.asarray(sb_shove, dtype=np.float64))
    bb = np.atleast_2d(np.asarray(bb_call, dtype=np.float64))
    rows = len(game.stacks)
    for name, arr in (("sb_shove", sb), ("bb_call", bb)):
        if arr.shape[0] != rows:
            raise PokerlabError(f"{name} needs {rows} row(s) (one per stack), got {arr.shape[0]}")
        if np.any(~(arr >= 0) | (arr > 1)):
            raise PokerlabError(f"{name} must hold probabilities in [0, 1]")

    def fit(arr: np.ndarray) -> np.ndarray:
        if arr.shape[1] == num_h:
            return arr
        if arr.shape[1] == N_CLASSES and num_h == N_COMBOS:
            return arr[:, COMBO_CLASS]
        raise PokerlabError(f"strategy rows must have {num_h} or 169 entries, got {arr.shape[1]}")

    sb, bb = fit(sb), fit(bb)
    probs = np.zeros(compiled.size)
    sb_nodes = a.decisions[a.player[a.decisions] == 0]
    bb_nodes = a.decisions[a.player[a.decisions] == 1]
    for row, (ns, nb) in enumerate(zip(sb_nodes, bb_nodes, strict=True)):
        for node, push in ((ns, sb[row]), (nb, bb[row])):
            off = a.offset[node]
            probs[off : off + num_h] = 1.0 - push
            probs[off + num_h : off + 2 * num_h] = push
    return Strategy(compiled, probs)


def shove_call_arrays(strategy: Strategy) -> tuple[np.ndarray, np.ndarray]:
    """(sb_shove, bb_call) probabilities, shape (stacks, private states)."""
    a = strategy.compiled.tree.arrays
    num_h = strategy.compiled.tree.num_private
    sb_nodes = a.decisions[a.player[a.decisions] == 0]
    bb_nodes = a.decisions[a.player[a.decisions] == 1]

    def push(nodes: np.ndarray) -> np.ndarray:
        return np.array(
            [strategy.probs[a.offset[n] + num_h : a.offset[n] + 2 * num_h] for n in nodes]
        )

    return push(sb_nodes), push(bb_nodes)


def class_frequencies(per_hand: np.ndarray) -> np.ndarray:
    """Per-class frequency (mean over its combos) from 1326 combo or 169 class values."""
    per_hand = np.asarray(per_hand, dtype=np.float64)
    if per_hand.shape[-1] == N_CLASSES:
        return per_hand
    sums = np.zeros(per_hand.shape[:-1] + (N_CLASSES,))
    np.add.at(sums, (..., COMBO_CLASS), per_hand)
    return sums / _CLASS_SIZES


def combo_fraction(per_hand: np.ndarray) -> float:
    """Combo-weighted share of hands played (0..1) from 1326 or 169 values (one stack)."""
    per_class = class_frequencies(per_hand)
    return float(per_class @ _CLASS_SIZES / N_COMBOS)


@dataclass
class PushFoldSolution:
    """An equilibrium of push/fold at one stack (or of the variable-stack game)."""

    game: PushFoldGame
    strategy: Strategy  # over combos
    exploitability_bb: float
    sb_game_value_bb: float
    iterations: int
    seconds: float
    sb_shove: np.ndarray = field(repr=False)  # (stacks, 169) class frequencies
    bb_call: np.ndarray = field(repr=False)

    @property
    def sb_shove_fraction(self) -> float:
        return combo_fraction(self.sb_shove[0])

    @property
    def bb_call_fraction(self) -> float:
        return combo_fraction(self.bb_call[0])

    def mixed_hands(self, tolerance: float = 1e-3, row: int = 0) -> dict[str, dict[str, float]]:
        """Classes played with a frequency strictly between 0 and 1 (beyond ``tolerance``)."""
        out: dict[str, dict[str, float]] = {"sb_shove": {}, "bb_call": {}}
        for name, arr in (("sb_shove", self.sb_shove[row]), ("bb_call", self.bb_call[row])):
            for c in np.flatnonzero((arr > tolerance) & (arr < 1 - tolerance)):
                out[name][class_name(int(c))] = float(arr[c])
        return out

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "ante_bb": self.game.ante_bb,
            "exploitability_bb": self.exploitability_bb,
            "sb_game_value_bb": self.sb_game_value_bb,
            "iterations": self.iterations,
            "seconds": self.seconds,
        }
        if not self.game.variable:
            out.update(
                stack_bb=self.game.stacks[0],
                sb_shove_fraction=self.sb_shove_fraction,
                bb_call_fraction=self.bb_call_fraction,
                sb_shove={class_name(c): float(self.sb_shove[0, c]) for c in range(N_CLASSES)},
                bb_call={class_name(c): float(self.bb_call[0, c]) for c in range(N_CLASSES)},
                mixed=self.mixed_hands(),
            )
        else:
            out["stacks"] = [
                {
                    "stack_bb": s,
                    "probability": p,
                    "sb_shove_fraction": combo_fraction(self.sb_shove[k]),
                    "bb_call_fraction": combo_fraction(self.bb_call[k]),
                    "sb_shove": {
                        class_name(c): float(self.sb_shove[k, c]) for c in range(N_CLASSES)
                    },
                    "bb_call": {class_name(c): float(self.bb_call[k, c]) for c in range(N_CLASSES)},
                }
                for k, (s, p) in enumerate(
                    zip(self.game.stacks, self.game.stack_probs, strict=True)
                )
            ]
        return out


def top_fraction(fraction: float) -> np.ndarray:
    """1326 indicator of the best ``fraction`` of combos by hand strength (SPEC 5.1 players)."""
    from pokerlab.cards.orderings import combo_strength_order

    if not 0.0 <= fraction <= 1.0:
        raise PokerlabError(f"fraction must be in [0, 1], got {fraction}")
    out = np.zeros(N_COMBOS)
    out[combo_strength_order()[: int(round(fraction * N_COMBOS))]] = 1.0
    return out


_PERCENT = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(%?)\s*/\s*([0-9]*\.?[0-9]+)\s*(%?)\s*$")


def _spec_fractions(spec: str, m: re.Match[str]) -> tuple[float, float]:
    """The (shove, call) fractions of an ``"R/C"`` spec, both numbers read on one scale.

    Percentages when either number carries ``%`` or is above 1 (``"70/60"``, ``"1/60"`` is 1% and
    60%, ``"0.5%/60"``); fractions when both are at most 1 and one is written with a decimal
    point (``"0.7/0.6"``, ``"1.0/0.5"``). Whole numbers no larger than 1 on both sides
    (``"1/1"``, ``"1/0"``) could be either and are refused; ``"0/0"`` is 0 on both scales.
    """
    texts = (m.group(1), m.group(3))
    values = [float(t) for t in texts]
    if m.group(2) or m.group(4) or max(values) > 1.0:
        fractions = [v / 100.0 for v in values]
    elif any("." in t for t in texts) or max(values) == 0.0:
        fractions = values
    else:
        a, b = texts
        raise PokerlabError(
            f"ambiguous strategy spec {spec!r}: write {a}%/{b}% for percentages or "
            f"{float(a):.1f}/{float(b):.1f} for fractions"
        )
    for value, text in zip(fractions, texts, strict=True):
        if not 0.0 <= value <= 1.0:
            raise PokerlabError(f"bad strategy spec {spec!r}: {text!r} is more than 100%")
    return fractions[0], fractions[1]


def _parse_side(text: str, offset: int, spec: str) -> np.ndarray:
    """``parse_range`` of one side of ``"SHOVE / CALL"``; error positions count in ``spec``."""
    from pokerlab.cards.ranges import parse_range
    from pokerlab.errors import ParseError

    try:
        return parse_range(text)
    except ParseError as exc:
        if exc.position < 0:
            raise
        shown = f" {exc.token!r}" if exc.token else ""
        suffix = f":{shown} at position {exc.position}"
        message = str(exc).removesuffix(suffix)
        raise ParseError(
            f"{message} in strategy spec {spec!r}", exc.token, exc.position + offset
        ) from None


def strategy_from_spec(spec: str, game: PushFoldGame) -> Strategy:
    """A push/fold strategy from a spec (see the module docstring) for a fixed-stack game.

    ``"R/C"`` numbers are read as in :func:`_spec_fractions`; in ``"SHOVE / CALL"`` ranges an
    error's position counts from the start of ``spec``. A spec naming a ``.json`` or ``.npz``
    file, or an existing path, must be a readable file (a directory or an over-long name is
    refused with :class:`~pokerlab.errors.PokerlabError`).
    """
    from pokerlab.io.files import load_strategy, read_metadata
    from pokerlab.io.paths import check_input_file, is_file

    rows = len(game.stacks)
    m = _PERCENT.match(spec)
    if m:
        r, c = _spec_fractions(spec, m)
        sb, bb = np.tile(top_fraction(r), (rows, 1)), np.tile(top_fraction(c), (rows, 1))
        return pushfold_strategy(game, sb, bb)
    path = Path(spec)
    suffix = path.suffix.lower()
    # A name too long for the file system is no file: such a spec is read as ranges (a long
    # "SHOVE / CALL" spec is valid); one ending in .json or .npz is refused as a file name.
    looks_like_file = suffix in (".json", ".npz")
    if looks_like_file or _is_dir(path):
        check_input_file(path, "strategy file")  # missing, a directory, too long, unreadable
    elif is_file(path):
        raise PokerlabError(f"{spec!r}: a strategy file's name ends in .json or .npz")
    if suffix == ".json":
        try:
            data = json.loads(path.read_text())
            sb = _class_map(data["sb_shove"])
            bb = _class_map(data["bb_call"])
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
            raise PokerlabError(
                f"{spec!r}: expected JSON with sb_shove and bb_call ({exc})"
            ) from None
        return pushfold_strategy(game, np.tile(sb, (rows, 1)), np.tile(bb, (rows, 1)))
    if suffix == ".npz":
        meta = read_metadata(path)
        if meta.get("game") != "pushfold":
            raise PokerlabError(f"{spec!r} is a strategy for {meta.get('game')!r}, not pushfold")
        saved = load_strategy(path)
        sb, bb = shove_call_arrays(saved)
        return pushfold_strategy(game, sb, bb)
    if "/" in spec:
        left, right = spec.split("/", 1)
        sb = _parse_side(left, 0, spec)
        bb = _parse_side(right, len(left) + 1, spec)
        return pushfold_strategy(game, np.tile(sb, (rows, 1)), np.tile(bb, (rows, 1)))
    raise PokerlabError(
        f"bad strategy spec {spec!r}: use 'R/C' percentages, 'SHOVE RANGE / CALL RANGE', "
        "a .json file or a .npz strategy file"
    )


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _class_map(table: dict[str, float]) -> np.ndarray:
    from pokerlab.cards.deck import parse_class

    out = np.zeros(N_CLASSES)
    for name, value in table.items():
        out[parse_class(name)] = float(value)
    return out


def best_response_report(game: PushFoldGame, strategy: Strategy) -> dict[str, object]:
    """Best responses of each seat to ``strategy``: their strategies, values and gains (bb/hand).

    ``gain`` is what the best response earns over the strategy's own play in that seat;
    ``exploitability_bb`` is the mean of the two best-response values (OpenSpiel convention).
    """
    values = expected_values(game, strategy)
    out: dict[str, object] = {}
    br_values = []
    for player, seat, key in ((0, "sb", "sb_shove"), (1, "bb", "bb_call")):
        br, value = best_response_strategy(game, strategy, player)
        br_values.append(value)
        arrays = shove_call_arrays(br)[player]
        freq = class_frequencies(arrays[0])
        out[f"{seat}_best_response"] = {
            "value_bb": value,
            "strategy_value_bb": float(values[player]),
            "gain_bb": value - float(values[player]),
            "fraction": combo_fraction(arrays[0]),
            key: {class_name(c): float(freq[c]) for c in range(N_CLASSES)},
        }
    out["values_bb"] = [float(v) for v in values]
    out["exploitability_bb"] = float(sum(br_values) / 2.0)
    return out
