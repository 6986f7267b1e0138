"""What the viewer reads out of each kind of file, as JSON-ready dictionaries.

* :class:`TableModel`: a strategy or checkpoint of a small game (Kuhn, Leduc, any history game):
  information sets as rows, filtered and paged.
* :class:`PushFoldModel`: a push/fold strategy (``.npz``) or ``pokerlab pushfold --json`` result:
  the small blind's shove and the big blind's call grids, and per combo its strategy, EV and
  all-in equity against the other seat's range.
* :class:`SweepModel`: ``pokerlab pushfold --sweep --json``: the largest stack each class plays.
* :class:`PostflopModel`: a solved postflop spot, read node by node through
  :class:`~pokerlab.analysis.postflop.SolvedSpot` (the tree is never expanded as a whole).
* :class:`CurveModel`: a ``--log`` file or ``pokerlab compare --json`` output.

Models are loaded once per file version (path, modification time, size) and kept in a small
cache (:class:`ModelCache`); loading runs in a worker thread, so a large spot loading does not
hold up other requests. Every model that keeps scratch state guards it with its own lock.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.deck import (
    CLASS_COMBOS,
    COMBO_CARDS,
    COMBO_CLASS,
    N_CLASSES,
    N_COMBOS,
    class_name,
    format_card,
    format_combo,
    parse_class,
)
from pokerlab.errors import PokerlabError
from pokerlab.viewer.files import json_kind, read_json, read_log

__all__ = [
    "Model",
    "TableModel",
    "PushFoldModel",
    "SweepModel",
    "PostflopModel",
    "CurveModel",
    "ModelCache",
    "load_model",
    "lock_and_resolve",
    "unlock_and_resolve",
    "finite",
]

#: Largest page of information-set rows one request returns.
MAX_TABLE_ROWS = 5000
STREET_NAMES = ("flop", "turn", "river")


def finite(x: Any, digits: int | None = None) -> float | None:
    """``x`` as a float, or None when it is NaN or infinite (JSON has no NaN)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(v):
        return None
    return round(v, digits) if digits is not None else v


def _list(values: np.ndarray, digits: int = 6) -> list[float | None]:
    return [finite(v, digits) for v in np.asarray(values, dtype=np.float64).ravel()]


class Model:
    """Base class: what every loaded file offers."""

    kind = "model"

    def __init__(self, path: Path, rel: str) -> None:
        self.path = path
        self.rel = rel
        self.lock = threading.RLock()

    def info(self) -> dict[str, Any]:
        """Summary of the file for the page's header."""
        return {"path": self.rel, "kind": self.kind}


# --- small games: information-set tables -------------------------------------------------------


class TableModel(Model):
    """A strategy (or checkpoint's average strategy) shown as information sets."""

    kind = "table"

    def __init__(self, path: Path, rel: str) -> None:
        super().__init__(path, rel)
        from pokerlab.io.files import load_checkpoint, load_strategy, read_metadata

        self.meta = read_metadata(path)
        if self.meta.get("format") == "pokerlab-checkpoint":
            from pokerlab.solvers.factory import restore_solver

            solver = restore_solver(load_checkpoint(path))
            self.strategy = solver.average_strategy()
        else:
            self.strategy = load_strategy(path)
        self.game = self.strategy.game
        self._exploitability: float | None = None
        self._measured = False

    def exploitability(self) -> float | None:
        """From the file's metadata, else computed once (two-player games only)."""
        value = self.meta.get("exploitability")
        if isinstance(value, int | float):
            return float(value)
        with self.lock:
            if not self._measured:
                self._measured = True
                if self.game.num_players == 2:
                    from pokerlab.evaluate.exploitability import exploitability

                    self._exploitability = float(exploitability(self.game, self.strategy))
        return self._exploitability

    def info(self) -> dict[str, Any]:
        return {
            "path": self.rel,
            "kind": self.kind,
            "game": self.game.name,
            "game_params": dict(self.game.params),
            "players": self.game.num_players,
            "algorithm": self.meta.get("algorithm"),
            "iterations": self.meta.get("iterations"),
            "exploitability": finite(self.exploitability()),
            "unit": "chips",
            "infosets": len(self.strategy),
            "format": self.meta.get("format"),
        }

    def table(
        self, query: str = "", mode: str = "prefix", offset: int = 0, limit: int = 500
    ) -> dict[str, Any]:
        """Rows ``{key, player, actions: [{label, p}]}`` whose key matches ``query``."""
        if mode not in ("prefix", "contains", "exact"):
            raise PokerlabError(f"unknown filter mode {mode!r}: prefix, contains or exact")
        limit = max(1, min(int(limit), MAX_TABLE_ROWS))
        offset = max(0, int(offset))
        idx = self.strategy.compiled.index
        keys = idx.keys

        def keep(k: str) -> bool:
            if not query:
                return True
            if mode == "prefix":
                return k.startswith(query)
            if mode == "contains":
                return query in k
            return k == query

        matched = [i for i, k in enumerate(keys) if keep(k)]
        rows = []
        for k in matched[offset : offset + limit]:
            probs = self.strategy.probs[idx.positions(k)]
            rows.append(
                {
                    "key": keys[k],
                    "player": int(idx.player[k]),
                    "actions": [
                        {"label": lab, "p": finite(p, 6)}
                        for lab, p in zip(idx.labels[k], probs, strict=True)
                    ],
                }
            )
        return {"total": len(matched), "offset": offset, "rows": rows}


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


# --- convergence curves -----------------------------------------------------------------------


class CurveModel(Model):
    """Exploitability curves: one from a ``--log`` file, several from ``compare --json``."""

    kind = "curve"

    def __init__(self, path: Path, rel: str) -> None:
        super().__init__(path, rel)
        if path.suffix in (".jsonl", ".log"):
            rows = read_log(path)
            last = rows[-1] if rows else {}
            name = last.get("algorithm") or last.get("schedule")
            self.game = rows[-1].get("game") if rows else None
            self.source = "log"
            self.curves = [
                {
                    "algorithm": str(name or path.stem),
                    "iterations": [r.get("iteration") for r in rows],
                    "nodes_touched": [r.get("nodes_touched") for r in rows],
                    "seconds": [finite(r.get("seconds")) for r in rows],
                    "exploitability": [finite(r.get("exploitability")) for r in rows],
                    "complete": True,
                }
            ]
        else:
            obj = read_json(path)
            if json_kind(obj) != "compare":
                raise PokerlabError(f"{rel} is not a pokerlab compare result")
            self.game = obj.get("game")
            self.source = "compare"
            self.curves = []
            for c in obj["curves"]:
                if not isinstance(c, dict):
                    continue
                self.curves.append(
                    {
                        "algorithm": str(c.get("algorithm")),
                        "iterations": list(c.get("iterations") or []),
                        "nodes_touched": list(c.get("nodes_touched") or []),
                        "seconds": [finite(x) for x in c.get("seconds") or []],
                        "exploitability": [finite(x) for x in c.get("exploitability") or []],
                        "complete": bool(c.get("complete", True)),
                    }
                )

    def info(self) -> dict[str, Any]:
        return {
            "path": self.rel,
            "kind": "curve",
            "source": self.source,
            "game": self.game,
            "unit": "mbb/g" if self.game == "limit-holdem" else "chips",
            "curves": self.curves,
        }


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
        from pokerlab.analysis.postflop import load_spot_solution

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
                "cards": [format_card(x) for x in range(52) if x not in board],
                "street": STREET_NAMES[min(len(board) - 2, 2)],
            }
        return out

    def _deal_scale(self, board_cards: int) -> float:
        """What undoes the chance probabilities in the reach of a node with ``board_cards`` board
        cards: the product of the cards that could come (``52 - board - 4``) for each card dealt
        since the spot's start. ``weight * scale`` is a class's weight in the range as if the
        dealt cards had been chosen (1 per combo fully in the range)."""
        from pokerlab.analysis.postflop import deal_scale

        return deal_scale(len(self.config.board), board_cards)

    def _range(self, v: Any, p: int, board: set[int]) -> dict[str, Any]:
        """Class weights of player ``p`` at the node, with the class's playable combos
        (not blocked by the board) and reach-weighted EV and equity."""
        cls = COMBO_CLASS[v.combos[p]]
        w = np.asarray(v.reach[p], dtype=np.float64)
        weight = np.bincount(cls, weights=w, minlength=N_CLASSES)
        available = np.array(
            [
                sum(1 for x in CLASS_COMBOS[k] if not (set(COMBO_CARDS[x].tolist()) & board))
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


class LockingUnavailable(PokerlabError):
    """The installed solver has no node locking."""


def _snapshot(model: PostflopModel, line: list[str]) -> dict[str, Any]:
    """Root values (EV per player, exploitability) and the range EVs at ``line``."""
    values = model.values()
    try:
        v = model.view(line)
        node_ev = [finite(v.range_value(p)[0], 6) for p in (0, 1)]
    except PokerlabError:
        node_ev = [None, None]
    return {
        "ev": values["ev"],
        "exploitability": values["exploitability"],
        "exploitability_pct": values["exploitability_pct"],
        "node_ev": node_ev,
    }


def lock_and_resolve(
    model: PostflopModel,
    line: str,
    strategy: dict[str, float],
    hands: str | None,
    iterations: int,
) -> dict[str, Any]:
    """Lock the actor's strategy at ``line`` for ``hands`` (None: all), run ``iterations`` more
    iterations, and return the values before and after (root EVs, exploitability of the locked
    game, both ranges' EV at the node) with the locks now set. The change stays in memory (the
    file is not written)."""
    if not hasattr(model.solver, "lock"):
        raise LockingUnavailable("this pokerlab's postflop solver has no node locking")
    tokens = _tokens(line)
    with model.lock:
        before = _snapshot(model, tokens)
        model.solver.lock(", ".join(tokens), dict(strategy), hands or None)
        model.solver.step(int(iterations))
        model.modified = True
        model.invalidate()
        after = _snapshot(model, tokens)
        return {
            "line": tokens,
            "iterations": int(iterations),
            "total_iterations": int(model.solver.iterations),
            "before": before,
            "after": after,
            "locks": _jsonable(model.solver.locks()),
        }


def unlock_and_resolve(model: PostflopModel, line: str | None, iterations: int) -> dict[str, Any]:
    """Remove the locks at ``line`` (None: all), run ``iterations`` more iterations; values
    before and after as :func:`lock_and_resolve` gives them."""
    if not hasattr(model.solver, "unlock"):
        raise LockingUnavailable("this pokerlab's postflop solver has no node locking")
    tokens = _tokens(line or "")
    with model.lock:
        before = _snapshot(model, tokens)
        model.solver.unlock(None if line is None else ", ".join(tokens))
        model.solver.step(int(iterations))
        model.modified = True
        model.invalidate()
        after = _snapshot(model, tokens)
        return {
            "line": tokens,
            "iterations": int(iterations),
            "total_iterations": int(model.solver.iterations),
            "before": before,
            "after": after,
            "locks": _jsonable(model.solver.locks()),
        }


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, float | np.floating):
        return finite(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    return obj if isinstance(obj, str | bool) or obj is None else str(obj)


# --- loading and the cache ------------------------------------------------------------------------


def load_model(path: Path, rel: str, kind: str) -> Model:
    """The model of file kind ``kind`` (as listed by :func:`pokerlab.viewer.files.summarize`)."""
    if kind == "table":
        return TableModel(path, rel)
    if kind == "limit":
        from pokerlab.viewer.limit import LimitModel

        return LimitModel(path, rel)
    if kind in ("pushfold", "pushfold-result"):
        return PushFoldModel.from_file(path, rel)
    if kind == "pushfold-sweep":
        return SweepModel(path, rel)
    if kind == "postflop":
        return PostflopModel(path, rel)
    if kind in ("log", "compare"):
        return CurveModel(path, rel)
    raise PokerlabError(f"{rel}: nothing to show for a file of kind {kind!r}")


class ModelCache:
    """Loaded models by file version; at most ``capacity`` (``postflop`` and limit models count as
    ``heavy``: at most ``heavy_capacity`` of them). One load per file version at a time: other
    requests for the same file wait for it instead of loading it again."""

    def __init__(self, capacity: int = 32, heavy_capacity: int = 2) -> None:
        self.capacity = capacity
        self.heavy_capacity = heavy_capacity
        self._items: OrderedDict[tuple[str, int, int], Model] = OrderedDict()
        self._loading: dict[tuple[str, int, int], threading.Lock] = {}
        self._lock = threading.Lock()

    def get(
        self, path: Path, rel: str, kind: str, loader: Callable[..., Model] = load_model
    ) -> Model:
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
            gate = self._loading.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                hit = self._items.get(key)
                if hit is not None:
                    return hit
            try:
                model = loader(path, rel, kind)
            finally:
                with self._lock:
                    self._loading.pop(key, None)
            with self._lock:
                self._items[key] = model
                self._evict()
            return model

    def peek(self, path: Path) -> Model | None:
        """The loaded model of ``path``'s current version, or None (never loads)."""
        try:
            st = path.stat()
        except OSError:
            return None
        with self._lock:
            return self._items.get((str(path), st.st_mtime_ns, st.st_size))

    def drop(self, path: Path) -> None:
        """Forget every loaded version of ``path`` (the next request reads the file again)."""
        with self._lock:
            for key in [k for k in self._items if k[0] == str(path)]:
                del self._items[key]

    def put(self, model: Model) -> None:
        """Replace the cached model of ``model.path`` (after a re-solve changed it)."""
        st = model.path.stat()
        with self._lock:
            for key in [k for k in self._items if k[0] == str(model.path)]:
                del self._items[key]
            self._items[(str(model.path), st.st_mtime_ns, st.st_size)] = model

    def _evict(self) -> None:
        heavy = [
            k for k, m in self._items.items() if m.kind == "postflop" or getattr(m, "heavy", False)
        ]
        while len(heavy) > self.heavy_capacity:
            self._items.pop(heavy.pop(0), None)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
