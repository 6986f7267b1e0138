"""A no-limit blueprint checkpoint (``pokerlab blueprint train --checkpoint``) in the viewer.

The checkpoint is read back as the agent it trained (:func:`~pokerlab.solvers.blueprint_load.
load_blueprint`); a node is named by a line of actions from the root, read as ``pokerlab
blueprint show --line`` reads it, and its figures are that command's
(:func:`~pokerlab.analysis.blueprint.node_summary`): preflop the action probabilities per hand
class (the 13x13 chart of the seat to act), after the flop per card-abstraction bucket.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerlab.analysis.blueprint import line_tokens, node_summary
from pokerlab.cards.deck import N_CLASSES, class_name
from pokerlab.errors import PokerlabError
from pokerlab.viewer.models.base import MAX_TABLE_ROWS, Model

__all__ = ["BlueprintModel"]


class BlueprintModel(Model):
    """The average strategy of a no-limit blueprint checkpoint, node by node."""

    kind = "blueprint"
    #: Counted with the postflop spots in the model cache (a real blueprint is large).
    heavy = True

    def __init__(self, path: Path, rel: str) -> None:
        super().__init__(path, rel)
        from pokerlab.io.files import read_metadata
        from pokerlab.solvers.blueprint_load import load_blueprint

        self.meta = read_metadata(path)
        try:
            agent, game = load_blueprint(path, "blueprint")
        except PokerlabError as exc:
            raise PokerlabError(str(exc).replace(str(path), rel)) from None
        self.strategy, self.abstraction = agent.strategy, agent.abstraction
        self.game, self.rules = game, game.rules

    def info(self) -> dict[str, Any]:
        rules, layout = self.rules, self.strategy.layout
        config = self.meta.get("config")
        config = config if isinstance(config, dict) else {}
        return {
            "path": self.rel,
            "kind": self.kind,
            "game": "nolimit-holdem",
            "game_params": {
                "players": rules.players,
                "stacks": list(rules.stacks),
                "blinds": [rules.small_blind, rules.big_blind],
                "ante": rules.ante,
                "ranks": rules.ranks,
                "rounds": rules.rounds,
            },
            "positions": [rules.position(p) for p in range(rules.players)],
            "algorithm": self.meta.get("algorithm"),
            "iterations": self.meta.get("iterations"),
            "exploitability": None,
            "unit": "chips",
            "format": "checkpoint",
            "bucketing": config.get("bucketing"),
            "buckets": [int(b) for b in layout.buckets],
            "recall": layout.recall,
            "big_blind": rules.big_blind,
        }

    def node(self, line: str = "") -> dict[str, Any]:
        """The decision ``line`` names: what ``pokerlab blueprint show --line LINE --json``
        prints (less the file name), plus ``tokens`` (the line read as tokens), ``short`` action
        names, ``next`` (per action: whether a decision follows it, else it ends the hand),
        preflop ``grid`` (169 probability lists in class-id order, ``13 * row + column`` with
        AA top left; null for classes the deck lacks) and after the flop ``states_total`` (the
        ``states`` map keeps the first :data:`~pokerlab.viewer.models.base.MAX_TABLE_ROWS`).
        A bad token is refused naming it and the actions where it stands."""
        from pokerlab.tree._primitives import DEAL, DECISION

        if not isinstance(line, str) or len(line) > 2000:
            raise PokerlabError("line: give the actions from the root as text (at most 2,000)")
        try:
            with self.lock:
                view, _, states, out = node_summary(
                    self.strategy, self.abstraction, self.rules, line
                )
        except PokerlabError as exc:
            message = str(exc)
            raise PokerlabError(
                "line: " + message[len("--line: ") :] if message.startswith("--line: ") else message
            ) from None
        tree = self.strategy.layout.tree
        kids = tree.children[tree.child_start[view.node] : tree.child_start[view.node + 1]]
        follows = []
        for k in kids:
            k = int(k)
            if tree.kind[k] == DEAL:
                k = int(tree.children[tree.child_start[k]])
            follows.append(bool(tree.kind[k] == DECISION))
        out["tokens"] = line_tokens(line)
        out["short"] = list(view.short)
        out["next"] = follows
        if states is None:
            classes = out["classes"]
            out["grid"] = [classes.get(class_name(c)) for c in range(N_CLASSES)]
        else:
            out["states_total"] = len(states)
            if len(states) > MAX_TABLE_ROWS:
                out["states"] = {name: out["states"][name] for name in states[:MAX_TABLE_ROWS]}
        return out
