"""Solved postflop spots in the viewer, node by node (node locking and its re-solves:
:mod:`pokerlab.viewer.models.locking`)."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.deck import (
    CLASS_COMBOS,
    COMBO_CARDS,
    COMBO_CLASS,
    N_CLASSES,
    class_name,
    format_card,
    format_combo,
    parse_class,
)
from pokerlab.errors import PokerlabError
from pokerlab.viewer.models.base import STREET_NAMES, Model, _jsonable, _list, finite

# --- postflop spots -----------------------------------------------------------------------------


def _tokens(line: str | list[str] | tuple[str, ...]) -> list[str]:
    items = line.split(",") if isinstance(line, str) else list(line)
    return [t.strip() for t in items if t and t.strip()]


class PostflopModel(Model):
    """A solved postflop spot: nodes read on demand (views cached per line)."""

    kind = "postflop"
    #: Node views kept per spot.
    VIEW_CACHE = 64

    def __init__(self, path: Path, rel: str) -> None:
        super().__init__(path, rel)
        from pokerlab.solvers.postflop import load_spot_solution

        self.solver = load_spot_solution(path)
        self.game = self.solver.game
        self.config = self.game.config
        self._views: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self._nodes: OrderedDict[tuple[str, ...], dict[str, Any]] = OrderedDict()
        self._values: dict[str, Any] | None = None
        #: True once a lock or re-solve changed the strategy in memory (the file is unchanged).
        self.modified = False

    # reading ----------------------------------------------------------------------------------
    def solved(self) -> Any:
        return self.solver.average_strategy()

    def invalidate(self) -> None:
        """Forget cached views and values (after the strategy changed)."""
        with self.lock:
            self._views.clear()
            self._nodes.clear()
            self._values = None

    def measured(self) -> dict[str, Any] | None:
        """The values of :meth:`values` if they were computed already and the strategy is still
        the file's (no lock or re-solve since); never computes them."""
        values = self._values
        return None if values is None or self.modified else dict(values)

    def values(self) -> dict[str, Any]:
        """EV of both players, best-response values and exploitability (computed once)."""
        with self.lock:
            if self._values is None:
                v = self.solver.values()
                expl = (sum(v["best_response"]) - sum(v["ev"])) / 2.0
                self._values = {
                    "ev": [finite(x) for x in v["ev"]],
                    "best_response": [finite(x) for x in v["best_response"]],
                    "exploitability": finite(expl),
                    "exploitability_pct": finite(100.0 * expl / float(self.config.pot)),
                }
            return dict(self._values)

    def view(self, line: str | list[str] | tuple[str, ...]) -> Any:
        """The :class:`~pokerlab.analysis.postflop.NodeView` at ``line`` (cached)."""
        key = tuple(_tokens(line))
        with self.lock:
            hit = self._views.get(key)
            if hit is not None:
                self._views.move_to_end(key)
                return hit
            v = self.solved().node(list(key))
            self._views[key] = v
            while len(self._views) > self.VIEW_CACHE:
                self._views.popitem(last=False)
            return v

    def action_node(self, line: str | list[str] | tuple[str, ...]) -> Any:
        """The action-tree node (kind, player, street, commit) at ``line``."""
        with self.lock:
            arena, _, _ = self.solved().find(_tokens(line))
            return self.solver.spot.action_node[arena]

    def strategy_at(self, line: list[str], combo: int) -> tuple[list[str], np.ndarray]:
        """(action labels, probabilities) of the actor holding ``combo`` at decision ``line``."""
        v = self.view(line)
        if v.strategy is None:
            raise PokerlabError("no decision at this line")
        hits = np.flatnonzero(v.combos[v.player] == combo)
        if not len(hits):
            raise PokerlabError(f"{format_combo(combo)} is not in the actor's range here")
        return list(v.actions), np.asarray(v.strategy[int(hits[0])], dtype=np.float64)

    def info(self) -> dict[str, Any]:
        c = self.config
        info = {
            "path": self.rel,
            "kind": self.kind,
            "game": "postflop",
            "algorithm": self.solver.algorithm,
            "iterations": self.solver.iterations,
            "board": [format_card(x) for x in c.board],
            "pot": float(c.pot),
            "stack": float(c.stack),
            "ranges": [c.to_dict().get("oop_range"), c.to_dict().get("ip_range")],
            "unit": "chips",
            "locking": hasattr(self.solver, "lock"),
            "modified": self.modified,
        }
        info.update(self.values())
        locks = getattr(self.solver, "locks", None)
        if callable(locks):
            try:
                info["locks"] = _jsonable(locks())
            except Exception:  # noqa: BLE001  a listing problem must not hide the spot
                info["locks"] = []
        return info

    def node(self, line: str | list[str] | tuple[str, ...]) -> dict[str, Any]:
        """Everything the page shows at a node: actions with frequencies, the actor's grid,
        both ranges, range EV and equity, the cards that can come at a chance node (cached
        per line until the strategy changes)."""
        key = tuple(_tokens(line))
        with self.lock:
            hit = self._nodes.get(key)
            if hit is None:
                hit = self._node(key)
                self._nodes[key] = hit
                while len(self._nodes) > self.VIEW_CACHE:
                    self._nodes.popitem(last=False)
            return hit

    def _node(self, line: tuple[str, ...]) -> dict[str, Any]:
        v = self.view(line)
        an = self.action_node(line)
        c = self.config
        tokens = list(v.line)
        out: dict[str, Any] = {
            "line": tokens,
            "kind": v.kind,
            "player": int(v.player),
            "street": STREET_NAMES[int(an.street)] if 0 <= int(an.street) < 3 else None,
            "board": [format_card(x) for x in v.board],
            "pot": finite(v.pot),
            "commit": [float(an.commit[0]), float(an.commit[1])],
            "stacks": [float(c.stack) - an.commit[0], float(c.stack) - an.commit[1]],
            "actions": [],
            "classes": [class_name(k) for k in range(N_CLASSES)],
            "scale": self._deal_scale(len(v.board)),
        }
        if v.kind == "fold":
            out["folder"] = int(an.player)
        if v.strategy is not None:
            totals = v.action_totals()
            out["actions"] = [{"label": a, "freq": finite(totals[a], 6)} for a in v.actions]
            g = v.grid(scaled=False)  # the page multiplies by "scale"
            out["grid"] = {
                "player": int(v.player),
                "weight": _list(g["weight"], 9),
                "mix": [_list(row, 9) for row in g["mix"].reshape(N_CLASSES, -1)],
            }
        board = set(int(x) for x in v.board)
        out["ranges"] = [self._range(v, p, board) for p in (0, 1)]
        if v.kind == "chance":
            out["chance"] = {
                "cards": [format_card(x) for x in c.deck if x not in board],
                "street": STREET_NAMES[min(len(board) - 2, 2)],
            }
        return out

    def _deal_scale(self, board_cards: int) -> float:
        """What undoes the chance probabilities in the reach of a node with ``board_cards`` board
        cards: the product of the cards that could come (``deck - board - 4``) for each card dealt
        since the spot's start. ``weight * scale`` is a class's weight in the range as if the
        dealt cards had been chosen (1 per combo fully in the range)."""
        from pokerlab.analysis.postflop import deal_scale

        return deal_scale(len(self.config.board), board_cards, len(self.config.deck))

    def _range(self, v: Any, p: int, board: set[int]) -> dict[str, Any]:
        """Class weights of player ``p`` at the node, with the class's playable combos
        (in the deck and not blocked by the board) and reach-weighted EV and equity."""
        cls = COMBO_CLASS[v.combos[p]]
        w = np.asarray(v.reach[p], dtype=np.float64)
        weight = np.bincount(cls, weights=w, minlength=N_CLASSES)
        low = self.config.deck[0]  # a small deck's lowest card id (0 on the full deck)
        available = np.array(
            [
                sum(
                    1
                    for x in CLASS_COMBOS[k]
                    if not (set(COMBO_CARDS[x].tolist()) & board) and COMBO_CARDS[x].min() >= low
                )
                for k in range(N_CLASSES)
            ],
            dtype=np.float64,
        )
        wc = w * np.asarray(v.compat[p], dtype=np.float64)
        ev = np.nan_to_num(v.ev[p])
        eq = np.nan_to_num(v.equity[p])
        ok = (wc > 0) & np.isfinite(v.ev[p]) & np.isfinite(v.equity[p])
        wc = np.where(ok, wc, 0.0)
        tot = np.bincount(cls, weights=wc, minlength=N_CLASSES)
        with np.errstate(invalid="ignore", divide="ignore"):
            cls_ev = np.bincount(cls, weights=wc * ev, minlength=N_CLASSES) / tot
            cls_eq = np.bincount(cls, weights=wc * eq, minlength=N_CLASSES) / tot
        range_ev, range_eq = v.range_value(p)
        return {
            "weight": _list(weight, 9),
            "available": _list(available, 0),
            "ev": _list(cls_ev, 4),
            "equity": _list(cls_eq, 4),
            "combos": finite(w.sum() * self._deal_scale(len(v.board)), 4),
            "range_ev": finite(range_ev, 6),
            "range_equity": finite(range_eq, 6),
        }

    def combos(self, line: str | list[str], player: int, hand: str) -> dict[str, Any]:
        """Combos of class ``hand`` in ``player``'s range at the node: weight, strategy (the
        actor's), EV, equity, EQR."""
        if player not in (0, 1):
            raise PokerlabError(f"player must be 0 (OOP) or 1 (IP), got {player!r}")
        cls = parse_class(hand)
        v = self.view(line)
        rows = []
        for i in np.flatnonzero(COMBO_CLASS[v.combos[player]] == cls):
            row: dict[str, Any] = {
                "combo": format_combo(int(v.combos[player][i])),
                "weight": finite(v.weights(player)[i], 6),
                "ev": finite(v.ev[player][i], 6),
                "equity": finite(v.equity[player][i], 6),
                "eqr": finite(v.eqr[player][i], 6),
            }
            if v.strategy is not None and player == v.player:
                row["strategy"] = {a: finite(v.strategy[i, k], 6) for k, a in enumerate(v.actions)}
            rows.append(row)
        return {
            "line": list(v.line),
            "player": player,
            "hand": class_name(cls),
            "actions": list(v.actions) if player == v.player else [],
            "combos": rows,
        }
