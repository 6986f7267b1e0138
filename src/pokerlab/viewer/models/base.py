"""The viewer's model base class, the information-set table of small games, and the JSON helpers
every model uses."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError

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
