"""A limit hold'em training checkpoint in the viewer: the average strategy per bucket.

``pokerlab train limit-holdem --checkpoint FILE`` stores, for every decision node of the
public betting tree, an ``actions x states`` block of strategy sums (states: the round's card
buckets with imperfect recall, the bucket sequences so far with perfect recall; the layout of
:class:`~pokerlab.tree.betting.layout.BettingLayout`); ``pokerlab.save_strategy`` of a limit
solver's average strategy stores the probabilities in the same layout. :class:`LimitModel`
reads those blocks straight from the file (no abstraction, no game tree of cards: the history
tree of limit hold'em is far too large to build) and shows one row per (round, betting line,
bucket): ``flop:rc/cr:3`` is bucket 3 on the flop after preflop raise-call and flop check-raise.
The rows use the information-set table of the small games (filter by prefix: ``flop:rc/`` lists
a line's buckets, ``turn:`` a round's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree.betting.layout import ROUND_NAMES, BettingLayout
from pokerlab.viewer.models.base import MAX_TABLE_ROWS, Model, TableModel, finite

__all__ = ["LimitModel", "ROUND_NAMES"]

#: Largest strategy (information-set actions) the viewer reads (float32 sums: 4 bytes each).
MAX_LIMIT_ACTIONS = 400_000_000


class LimitModel(TableModel):
    """The average strategy of a limit hold'em checkpoint, or a saved bucketed strategy
    (:class:`~pokerlab.strategy.BettingStrategy`), per round, line and bucket (drawn by the
    information-set table page, hence a :class:`TableModel` with its own reading). Rows and
    keys are the strategy's information-set index
    (:class:`~pokerlab.tree.betting.layout.BettingIndex`)."""

    kind = "table"
    #: Counted with the postflop spots in the model cache (its sums can be large).
    heavy = True

    def __init__(self, path: Path, rel: str) -> None:
        Model.__init__(self, path, rel)  # not TableModel's: there is no history tree to build
        from pokerlab.io.files import load_checkpoint, load_strategy, read_metadata

        self.meta = read_metadata(path)
        meta = self.meta
        if meta.get("representation") == BettingLayout.kind and "state_format" not in meta:
            # a saved strategy: probabilities (a checkpoint names its representation too)
            strategy = load_strategy(path)
            self.game = strategy.game
            layout = strategy.layout  # type: ignore[attr-defined]
            self._table, self._sums = strategy.probs, False
        else:
            layout = self._checkpoint_layout(meta, rel)
            sums = load_checkpoint(path)["arrays"].get("sums")
            if sums is None or sums.shape != (layout.size,):
                got = "none" if sums is None else f"{sums.size:,}"
                raise PokerlabError(
                    f"{rel}: its strategy sums ({got}) do not match the layout of "
                    f"{list(layout.buckets)} buckets with {layout.recall} recall "
                    f"({layout.size:,}); a round used fewer buckets than asked, which only its "
                    "abstraction knows"
                )
            self._table, self._sums = sums, True
        self.layout = layout
        self.buckets = list(layout.buckets)
        self.recall = layout.recall
        self.tree = layout.tree
        self.index = layout.index
        self.nodes = self.index.nodes
        self.states = layout.num_states
        self.node_keys = self.index.node_keys
        self.labels = self.index.node_labels

    def _checkpoint_layout(self, meta: dict[str, Any], rel: str) -> BettingLayout:
        """The layout a training checkpoint's fields name (every asked-for bucket used)."""
        from pokerlab.games.limit_holdem import LimitHoldemGame

        fmt = str(meta.get("state_format", ""))
        if not (fmt.startswith("limit-") or meta.get("representation") == BettingLayout.kind):
            raise PokerlabError(f"{rel} is not a limit hold'em training checkpoint")
        config = meta.get("config")
        if isinstance(config, dict):  # the engine's state schema: the run's identity there
            meta = {**config, **meta}  # flat fields (external sampling's) win
        buckets = meta.get("buckets")
        if not (isinstance(buckets, list) and len(buckets) == 4):
            raise PokerlabError(f"{rel}: no bucket counts in the checkpoint")
        recall = str(meta.get("recall", "imperfect"))
        ranks = meta.get("ranks")
        self.game = LimitHoldemGame(
            variant=str(meta.get("variant", "full")),
            ranks=int(ranks) if isinstance(ranks, int) else None,
        )
        layout = BettingLayout.of_buckets(self.game.betting_tree, buckets, recall)
        if layout.size > MAX_LIMIT_ACTIONS:
            raise PokerlabError(
                f"{rel}: {layout.size:,} information-set actions, more than the viewer reads "
                f"({MAX_LIMIT_ACTIONS:,})"
            )
        return layout

    def state_name(self, rnd: int, s: int) -> str:
        """A state's label: the bucket (imperfect recall) or the buckets of each round so far,
        dash separated (perfect recall)."""
        return self.index.state_name(rnd, s)

    def strategy(self, i: int) -> np.ndarray:
        """(states x actions) strategy of decision ``i`` (of :attr:`nodes`): a checkpoint's
        sums normalised over the actions (uniform where they are all 0), a strategy file's
        probabilities as they are."""
        n = int(self.nodes[i])
        na, ns = len(self.labels[i]), int(self.index.states[i])
        lo = int(self.layout.offset[n])
        block = self._table[lo : lo + na * ns].astype(np.float64).reshape(na, ns)
        if self._sums:
            total = block.sum(axis=0)
            block = np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / na)
        return block.T

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
            "algorithm": self.meta.get("schedule", self.meta.get("algorithm")),
            "iterations": self.meta.get("iterations"),
            "exploitability": None,
            "unit": "mbb/g",
            "infosets": len(self.index),
            "format": "checkpoint" if self._sums else "strategy",
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
            rnd = int(self.index.rounds[i])
            ns = int(self.index.states[i])
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
