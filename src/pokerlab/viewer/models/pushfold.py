"""Push/fold strategies and stack sweeps in the viewer."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.deck import (
    CLASS_COMBOS,
    COMBO_CLASS,
    N_CLASSES,
    N_COMBOS,
    class_name,
    format_combo,
    parse_class,
)
from pokerlab.errors import PokerlabError
from pokerlab.viewer.files import json_kind, read_json
from pokerlab.viewer.models.base import Model, TableModel, _list, finite

# --- push/fold --------------------------------------------------------------------------------


class PushFoldModel(Model):
    """Push/fold shove and call strategies per combo, with EV and equity per combo."""

    kind = "pushfold"

    def __init__(
        self,
        path: Path,
        rel: str,
        sb: np.ndarray,
        bb: np.ndarray,
        stacks: list[float],
        ante: float,
        meta: dict[str, Any],
    ) -> None:
        super().__init__(path, rel)
        self.sb = np.atleast_2d(sb)  # (stacks, 1326) shove probability
        self.bb = np.atleast_2d(bb)  # (stacks, 1326) call probability
        self.stacks = stacks
        self.ante = ante
        self.meta = meta
        self._values: dict[int, dict[str, np.ndarray]] = {}

    @classmethod
    def from_file(cls, path: Path, rel: str) -> PushFoldModel:
        """From a push/fold strategy or checkpoint ``.npz`` or a ``pushfold --json`` result."""
        if path.suffix == ".json":
            obj = read_json(path)
            if json_kind(obj) != "pushfold-result":
                raise PokerlabError(f"{rel} is not a push/fold result")
            sb = np.array([_class_value(obj["sb_shove"], c) for c in range(N_CLASSES)])
            bb = np.array([_class_value(obj["bb_call"], c) for c in range(N_CLASSES)])
            stack = float(obj.get("stack_bb", math.nan))
            if not stack > 0.5:
                raise PokerlabError(f"{rel}: stack_bb missing or not above 0.5")
            meta = {
                "algorithm": "dcfr (class reduction)",
                "iterations": obj.get("iterations"),
                "exploitability": obj.get("exploitability_bb"),
            }
            return cls(
                path, rel, sb[COMBO_CLASS], bb[COMBO_CLASS], [stack], float(obj["ante_bb"]), meta
            )
        table = TableModel(path, rel)
        from pokerlab.analysis.pushfold import shove_call_arrays

        game = table.game
        sb, bb = shove_call_arrays(table.strategy)
        if sb.shape[1] == N_CLASSES:
            sb, bb = sb[:, COMBO_CLASS], bb[:, COMBO_CLASS]
        meta = dict(table.meta)
        meta["exploitability"] = table.exploitability()
        return cls(path, rel, sb, bb, list(game.stacks), float(game.ante_bb), meta)

    def info(self) -> dict[str, Any]:
        return {
            "path": self.rel,
            "kind": self.kind,
            "game": "pushfold",
            "stacks": self.stacks,
            "ante_bb": self.ante,
            "algorithm": self.meta.get("algorithm"),
            "iterations": self.meta.get("iterations"),
            "exploitability": finite(self.meta.get("exploitability")),
            "unit": "bb/hand",
        }

    def values(self, row: int) -> dict[str, np.ndarray]:
        """Per combo at stack ``row``: EV of each action and all-in equity against the other
        seat's range (SB against BB's calling range, BB against SB's shoving range)."""
        from pokerlab.cards.preflop import compatible_mask, equity_matrix
        from pokerlab.games.pushfold import posts

        with self.lock:
            if row in self._values:
                return self._values[row]
            stack = self.stacks[row]
            sb_post, bb_post = posts(stack, self.ante)
            m = compatible_mask().astype(np.float64)
            eq = np.nan_to_num(equity_matrix())
            share = m * (2.0 * eq - 1.0)
            p, q = self.sb[row], self.bb[row]
            with np.errstate(invalid="ignore", divide="ignore"):
                sb_shove = ((m @ (1.0 - q)) * bb_post + stack * (share @ q)) / m.sum(axis=1)
                called = m @ q
                sb_equity = ((m * eq) @ q) / called
                shoves = m @ p
                bb_call = -stack * (share.T @ p) / shoves
                bb_equity = ((m * eq.T) @ p) / shoves
            out = {
                "sb_shove_ev": sb_shove,
                "sb_fold_ev": np.full(N_COMBOS, -sb_post),
                "sb_equity": sb_equity,
                "bb_call_ev": bb_call,
                "bb_fold_ev": np.full(N_COMBOS, -bb_post),
                "bb_equity": bb_equity,
            }
            self._values[row] = out
            return out

    def grids(self, row: int = 0) -> dict[str, Any]:
        """Per class (169, id = 13 * row + column, AA top left): the share of its combos that
        shove / call, and the combo-weighted share of all hands."""
        from pokerlab.analysis.pushfold import class_frequencies, combo_fraction

        row = self._row(row)
        return {
            "stack_bb": self.stacks[row],
            "row": row,
            "classes": [class_name(c) for c in range(N_CLASSES)],
            "sb_shove": _list(class_frequencies(self.sb[row])),
            "bb_call": _list(class_frequencies(self.bb[row])),
            "sb_fraction": finite(combo_fraction(self.sb[row])),
            "bb_fraction": finite(combo_fraction(self.bb[row])),
        }

    def cell(self, seat: str, hand: str, row: int = 0) -> dict[str, Any]:
        """The combos of class ``hand`` for ``seat`` (``sb`` or ``bb``): strategy, EV, equity."""
        if seat not in ("sb", "bb"):
            raise PokerlabError(f"seat must be 'sb' or 'bb', got {seat!r}")
        row = self._row(row)
        cls = parse_class(hand)
        v = self.values(row)
        play = self.sb[row] if seat == "sb" else self.bb[row]
        act = "shove" if seat == "sb" else "call"
        combos = []
        for c in CLASS_COMBOS[cls]:
            c = int(c)
            combos.append(
                {
                    "combo": format_combo(c),
                    "strategy": {"fold": finite(1.0 - play[c], 6), act: finite(play[c], 6)},
                    "ev": {
                        "fold": finite(v[f"{seat}_fold_ev"][c], 6),
                        act: finite(v[f"{seat}_{act}_ev"][c], 6),
                    },
                    "equity": finite(v[f"{seat}_equity"][c], 6),
                }
            )
        return {
            "hand": class_name(cls),
            "seat": seat,
            "stack_bb": self.stacks[row],
            "combos": combos,
        }

    def _row(self, row: int) -> int:
        if not 0 <= int(row) < len(self.stacks):
            raise PokerlabError(f"stack row {row} out of range (0..{len(self.stacks) - 1})")
        return int(row)


def _class_value(table: dict[str, Any], cls: int) -> float:
    value = table.get(class_name(cls))
    if not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise PokerlabError(f"class {class_name(cls)}: missing or not a probability")
    return float(value)


class SweepModel(Model):
    """``pokerlab pushfold --sweep --json``: the largest stack at which each class plays."""

    kind = "pushfold-sweep"

    def __init__(self, path: Path, rel: str) -> None:
        super().__init__(path, rel)
        obj = read_json(path)
        if json_kind(obj) != "pushfold-sweep":
            raise PokerlabError(f"{rel} is not a push/fold sweep")
        self.obj = obj

    def info(self) -> dict[str, Any]:
        stacks = [s for s in self.obj.get("stacks", []) if isinstance(s, dict)]

        def chart(name: str) -> list[float | None]:
            table = self.obj[name]
            return [finite(table.get(class_name(c))) for c in range(N_CLASSES)]

        return {
            "path": self.rel,
            "kind": self.kind,
            "game": "pushfold",
            "ante_bb": self.obj.get("ante_bb"),
            "classes": [class_name(c) for c in range(N_CLASSES)],
            "sb_shove_max_bb": chart("sb_shove_max_bb"),
            "bb_call_max_bb": chart("bb_call_max_bb"),
            "top": max((finite(s.get("stack_bb")) or 0.0 for s in stacks), default=None),
            "stacks": [
                {k: finite(s.get(k)) for k in ("stack_bb", "sb_shove_fraction", "bb_call_fraction")}
                for s in stacks
            ],
        }
