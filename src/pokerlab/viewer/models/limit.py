"""A limit hold'em training checkpoint in the viewer: the average strategy per bucket.

``pokerlab train limit-holdem --checkpoint FILE`` stores, for every decision node of the
public betting tree, an ``actions x states`` block of strategy sums (states: the round's card
buckets with imperfect recall, the bucket sequences so far with perfect recall; the layout of
:class:`~pokerlab.solvers.limit_holdem.LimitAbstractSolver`). :class:`LimitModel` reads those
blocks straight from the file (no abstraction, no game tree of cards: the history tree of limit
hold'em is far too large to build) and shows one row per (round, betting line, bucket):
``flop:rc/cr:3`` is bucket 3 on the flop after preflop raise-call and flop check-raise. The
rows use the information-set table of the small games (filter by prefix: ``flop:rc/`` lists a
line's buckets, ``turn:`` a round's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.viewer.models.base import MAX_TABLE_ROWS, Model, TableModel, finite

__all__ = ["LimitModel", "ROUND_NAMES"]

ROUND_NAMES = ("preflop", "flop", "turn", "river")
#: Largest strategy (information-set actions) the viewer reads (float32 sums: 4 bytes each).
MAX_LIMIT_ACTIONS = 400_000_000


class LimitModel(TableModel):
    """The average strategy of a limit hold'em checkpoint, per round, line and bucket (drawn
    by the information-set table page, hence a :class:`TableModel` with its own reading)."""

    kind = "table"
    #: Counted with the postflop spots in the model cache (its sums can be large).
    heavy = True

    def __init__(self, path: Path, rel: str) -> None:
        Model.__init__(self, path, rel)  # not TableModel's: there is no history tree to build
        from pokerlab.games.limit_holdem import DECISION, LimitHoldemGame
        from pokerlab.io.files import load_checkpoint, read_metadata

        self.meta = read_metadata(path)
        meta = self.meta
        fmt = str(meta.get("state_format", ""))
        if not fmt.startswith("limit-"):
            raise PokerlabError(f"{rel} is not a limit hold'em training checkpoint")
        buckets = meta.get("buckets")
        if not (isinstance(buckets, list) and len(buckets) == 4):
            raise PokerlabError(f"{rel}: no bucket counts in the checkpoint")
        self.buckets = [int(b) for b in buckets]
        self.recall = str(meta.get("recall", "imperfect"))
        ranks = meta.get("ranks")
        self.game = LimitHoldemGame(
            variant=str(meta.get("variant", "full")),
            ranks=int(ranks) if isinstance(ranks, int) else None,
        )
        tree = self.game.betting_tree
        if self.recall == "perfect":
            states = np.cumprod(np.array(self.buckets, dtype=np.int64))
        else:
            states = np.array(self.buckets, dtype=np.int64)
        nodes = np.flatnonzero(tree.kind == DECISION)
        widths = np.diff(tree.child_start)[nodes].astype(np.int64)
        size = int(np.sum(widths * states[tree.round[nodes]]))
        if size > MAX_LIMIT_ACTIONS:
            raise PokerlabError(
                f"{rel}: {size:,} information-set actions, more than the viewer reads "
                f"({MAX_LIMIT_ACTIONS:,})"
            )
        sums = load_checkpoint(path)["arrays"].get("sums")
        if sums is None or sums.shape != (size,):
            got = "none" if sums is None else f"{sums.size:,}"
            raise PokerlabError(
                f"{rel}: its strategy sums ({got}) do not match the layout of {self.buckets} "
                f"buckets with {self.recall} recall ({size:,}); a round used fewer buckets than "
                "asked, which only its abstraction knows"
            )
        self.tree = tree
        self.nodes = nodes
        self.states = states
        offset = np.zeros(len(nodes) + 1, dtype=np.int64)
        offset[1:] = np.cumsum(widths * states[tree.round[nodes]])
        self.offset = offset
        self.sums = sums
        self.node_keys = [
            f"{ROUND_NAMES[int(tree.round[n])]}:{tree.history[n]}:" for n in nodes.tolist()
        ]
        self.labels = [self._labels(int(n)) for n in nodes.tolist()]

    def _labels(self, n: int) -> list[str]:
        from pokerlab.games.limit_holdem import CALL, FOLD

        t = self.tree
        facing = t.contrib[n, 1 - t.player[n]] > t.contrib[n, t.player[n]]
        out = []
        for a in t.actions(n):
            if a == FOLD:
                out.append("fold")
            elif a == CALL:
                out.append("call" if facing else "check")
            else:
                out.append("raise" if facing else "bet")
        return out

    def state_name(self, rnd: int, s: int) -> str:
        """A state's label: the bucket (imperfect recall) or the buckets of each round so far,
        dash separated (perfect recall)."""
        if self.recall != "perfect":
            return str(s)
        parts = []
        for r in range(rnd, -1, -1):
            s, b = divmod(s, self.buckets[r])
            parts.append(str(b))
        return "-".join(reversed(parts))

    def strategy(self, i: int) -> np.ndarray:
        """(states x actions) average strategy of decision ``i`` (of :attr:`nodes`): the sums
        normalised over the actions, uniform where they are all 0."""
        na = len(self.labels[i])
        block = self.sums[self.offset[i] : self.offset[i + 1]].astype(np.float64).reshape(na, -1)
        total = block.sum(axis=0)
        probs = np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / na)
        return probs.T

    def exploitability(self) -> float | None:
        """Not measured here (the abstract best response needs the abstraction)."""
        return None

    def info(self) -> dict[str, Any]:
        return {
            "path": self.rel,
            "kind": self.kind,
            "limit": True,
            "game": "limit-holdem",
            "game_params": dict(self.game.params),
            "players": 2,
            "playable": False,
            "algorithm": self.meta.get("schedule"),
            "iterations": self.meta.get("iterations"),
            "exploitability": None,
            "unit": "mbb/g",
            "infosets": int(sum(int(self.states[self.tree.round[n]]) for n in self.nodes)),
            "format": "checkpoint",
            "buckets": self.buckets,
            "recall": self.recall,
            "decisions": int(len(self.nodes)),
            "key": "round:betting line:bucket (c check/call, r bet/raise, / next round)",
        }

    def table(
        self, query: str = "", mode: str = "prefix", offset: int = 0, limit: int = 500
    ) -> dict[str, Any]:
        """Rows ``{key, player, actions: [{label, p}]}`` whose key matches ``query``, in the
        betting tree's order, buckets ascending."""
        if mode not in ("prefix", "contains", "exact"):
            raise PokerlabError(f"unknown filter mode {mode!r}: prefix, contains or exact")
        limit = max(1, min(int(limit), MAX_TABLE_ROWS))
        offset = max(0, int(offset))
        total = 0
        rows: list[dict[str, Any]] = []
        for i, node_key in enumerate(self.node_keys):
            rnd = int(self.tree.round[self.nodes[i]])
            ns = int(self.states[rnd])
            if mode == "prefix" and node_key.startswith(query):
                picked: Any = range(ns)  # every bucket matches: no key is built
            elif mode == "prefix" and not query.startswith(node_key):
                continue
            else:
                picked = [
                    s for s in range(ns) if _match(node_key + self.state_name(rnd, s), query, mode)
                ]
            count = len(picked)
            first = max(0, offset - total)
            total += count
            if len(rows) >= limit or first >= count:
                continue
            probs = self.strategy(i)
            player = int(self.tree.player[self.nodes[i]])
            for s in list(picked)[first : first + limit - len(rows)]:
                rows.append(
                    {
                        "key": node_key + self.state_name(rnd, s),
                        "player": player,
                        "actions": [
                            {"label": lab, "p": finite(p, 6)}
                            for lab, p in zip(self.labels[i], probs[s], strict=True)
                        ],
                    }
                )
        return {"total": total, "offset": offset, "rows": rows}


def _match(key: str, query: str, mode: str) -> bool:
    if not query:
        return True
    if mode == "prefix":
        return key.startswith(query)
    if mode == "contains":
        return query in key
    return key == query
