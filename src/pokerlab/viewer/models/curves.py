"""Convergence curves (``--log`` files, ``pokerlab compare --json``) in the viewer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.viewer.files import json_kind, read_json, read_log
from pokerlab.viewer.models.base import Model, finite

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
