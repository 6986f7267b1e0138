"""Node locking on a postflop spot (:class:`SpotLocking`, mixed into
:class:`~pokerlab.solvers.postflop.PostflopSolver`): fix the acting player's strategy at a node
for some or all of its hands, through isomorphic cards too, and keep the locks through
checkpoints; the passes play the locked hands' fixed strategy and the best response is measured
in the locked game."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, format_combo
from pokerlab.cards.ranges import parse_range
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import parse_action_label
from pokerlab.games.postflop.hand_lists import _swap_card, suit_swap_combo
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.backend import policy_best_response
from pokerlab.tree.vector.tree import DECISION, SUIT_PAIRS

__all__ = ["SpotLocking"]


class SpotLocking:
    """The locks of a postflop solver (the solver holds ``game``, ``spot``, ``tree``,
    ``passes``, ``strat_sum``, ``regrets``, ``_locks`` and ``lock_probs``)."""

    _locks: list[Any]
    lock_probs: np.ndarray | None

    def lock(
        self,
        line: str,
        strategy: Mapping[str, float],
        hands: str | Sequence[str] | None = None,
    ) -> None:
        """Fix the acting player's strategy at the node ``line`` for ``hands``.

        ``line`` names a decision node as :meth:`SolvedSpot.node
        <pokerlab.analysis.postflop.SolvedSpot.node>` reads it (dealt cards by name, isomorphic
        ones too: the solver stores one node for a card and its suit-swapped twin, so a lock
        through either locks both, the hands mapped through the swap). ``strategy`` maps action
        labels of the node (``"check"``, ``"bet 66"``, ``"allin"`` when the amount is
        unambiguous) to probabilities summing to 1; absent actions get 0. ``hands``: a range
        string (``"AA, KQs, AhKh"``) or a list of such items restricting the lock to those
        hands of the actor's range (default: every hand of the actor). A later lock of the same
        hands replaces the earlier one. The node's strategy sums of the locked hands are
        rescaled to the lock, so the average reports it from now on.
        """
        rec = self._resolve_lock(line, strategy, hands)
        self._locks = [
            r for r in self._locks if not (r.node == rec.node and set(r.rows) <= set(rec.rows))
        ]
        self._locks.append(rec)
        self._apply_lock(rec, rescale=True)

    def unlock(self, line: str | None = None) -> None:
        """Remove the locks of the node ``line`` (all its locked hands), or every lock."""
        if line is None:
            self._locks = []
        else:
            node, tokens, _ = self._find_decision(line)
            kept = [r for r in self._locks if r.node != node]
            if len(kept) == len(self._locks):
                raise PokerlabError(f"nothing is locked at {', '.join(tokens) or 'the root'!r}")
            self._locks = kept
        self._rebuild_locks()

    def locks(self) -> list[dict[str, Any]]:
        """The locks in the order they were set: ``line``, ``player`` (0 OOP, 1 IP), ``hands``
        (as given, None for all), ``combos`` (the locked combos, in the line's suits) and
        ``strategy`` (every action of the node with its probability)."""
        return [
            {
                "line": r.line,
                "player": r.player,
                "hands": r.hands,
                "combos": list(r.combos),
                "strategy": dict(r.strategy),
            }
            for r in self._locks
        ]

    def _find_decision(self, line: str) -> tuple[int, tuple[str, ...], int]:
        if not isinstance(line, str):
            raise PokerlabError(f"a line is a string such as 'check, bet 66', got {line!r}")
        node, tokens, swap = self.average_strategy().find(line)
        kind = int(self.tree.arrays.kind[node])
        if kind != DECISION:
            what = "a card is dealt" if kind == K.CHANCE else "the hand is over"
            raise PokerlabError(
                f"only decision nodes can be locked; at {', '.join(tokens) or 'the root'!r} {what}"
            )
        return node, tokens, swap

    def _resolve_lock(
        self,
        line: str,
        strategy: Mapping[str, float],
        hands: str | Sequence[str] | None,
    ) -> _Lock:
        """Check a lock and find its node, stored hand rows and probabilities."""
        node, tokens, swap = self._find_decision(line)
        where = ", ".join(tokens) or "the root"
        spot = self.spot
        labels = spot.action_node[node].labels()
        player = int(self.tree.arrays.player[node])
        probs = _lock_probabilities(strategy, labels, where)
        board = {int(c) for c in spot.node_board[node] if c >= 0}
        if swap >= 0:
            board = {_swap_card(c, *SUIT_PAIRS[swap]) for c in board}
        stored = spot.combos[player]
        if hands is None:
            rows = np.arange(stored.shape[0])
            combos: list[int] = []
            spec: str | list[str] | None = None
        else:
            row_of = {int(c): i for i, c in enumerate(stored)}
            items = _hand_items(hands)
            spec = hands if isinstance(hands, str) else list(items)
            picked: dict[int, int] = {}
            for item in items:
                found = 0
                for combo in _item_combos(item):
                    a, b = (int(x) for x in COMBO_CARDS[combo])
                    if a in board or b in board:
                        continue
                    key = combo if swap < 0 else suit_swap_combo(combo, *SUIT_PAIRS[swap])
                    if key in row_of:
                        picked.setdefault(combo, row_of[key])
                        found += 1
                if not found:
                    raise PokerlabError(
                        f"hand {item!r} is not in {('OOP', 'IP')[player]}'s range at {where} "
                        "(not in the range, or it holds a board card)"
                    )
            combos = sorted(picked)
            rows = np.array([picked[c] for c in combos], dtype=np.int64)
        if hands is None:
            names = [
                format_combo(int(c) if swap < 0 else suit_swap_combo(int(c), *SUIT_PAIRS[swap]))
                for c in stored
            ]
        else:
            names = [format_combo(c) for c in combos]
        return _Lock(
            line=", ".join(tokens),
            player=player,
            hands=spec,
            combos=tuple(names),
            strategy={lab: float(x) for lab, x in zip(labels, probs, strict=True)},
            node=node,
            rows=rows,
            probs=probs,
        )

    def _lock_index(self, rec: _Lock) -> np.ndarray:
        off = int(self.tree.arrays.offset[rec.node])
        nh = int(self.tree.hands.num[rec.player])
        na = rec.probs.shape[0]
        return off + np.arange(na)[:, None] * nh + rec.rows[None, :]

    def _locks_of(self, player: int) -> np.ndarray | None:
        """A lock array holding only ``player``'s locks (None when it has none)."""
        mine = [r for r in self._locks if r.player == player]
        if not mine:
            return None
        out = np.full(self.tree.size, -1.0, dtype=np.float32)
        for rec in mine:
            out[self._lock_index(rec)] = rec.probs.astype(np.float32)[:, None]
        return out

    def _apply_lock(self, rec: _Lock, rescale: bool) -> None:
        """Write a lock into the lock array (and rescale the node's strategy sums to it)."""
        if self.lock_probs is None:
            self.lock_probs = np.full(self.tree.size, -1.0, dtype=np.float32)
        idx = self._lock_index(rec)
        self.lock_probs[idx] = rec.probs.astype(np.float32)[:, None]
        if rescale and self.scales is not None:
            # 16 bits: the node's codes share one scale; rescale in floats, then re-encode the
            # block with its new largest entry
            off = int(self.tree.arrays.offset[rec.node])
            nh = int(self.tree.hands.num[rec.player])
            na = rec.probs.shape[0]
            block = self.strat_sum[off : off + na * nh].astype(np.float64).reshape(na, nh)
            total = block[:, rec.rows].sum(axis=0)
            block[:, rec.rows] = rec.probs[:, None] * np.where(total > 0.0, total, 1.0)[None, :]
            top = float(block.max())
            sscale = self.scales[1]
            if top > 0.0:
                codes = np.floor(block * (65535.0 / top) + 0.5)
                self.strat_sum[off : off + na * nh] = codes.astype(np.uint16).ravel()
                sscale[rec.node] = np.float32(float(sscale[rec.node]) * top / 65535.0)
        elif rescale:
            total = self.strat_sum[idx].astype(np.float64).sum(axis=0)
            scale = np.where(total > 0.0, total, 1.0)
            self.strat_sum[idx] = (self.lock_probs[idx] * scale[None, :]).astype(np.float32)

    def _rebuild_locks(self) -> None:
        self.lock_probs = None
        for rec in self._locks:
            self._apply_lock(rec, rescale=False)

    def _player_locked(self, player: int) -> bool:
        return any(r.player == player for r in self._locks)

    def _locked_best_response(self, trav: int) -> float:
        """Best-response value of ``trav`` in the locked game, by policy iteration
        (:func:`~pokerlab.tree.vector.backend.policy_best_response`, the locks overriding the
        locked hands): an independent check of the best-response pass (which plays the locks
        itself), used by the tests."""
        assert self.lock_probs is not None
        _, value = policy_best_response(self.passes, self.strat_sum, trav, self.lock_probs)
        return value


@dataclass
class _Lock:
    """One lock: as given (line, hands, strategy) and as stored (node, hand rows, probs)."""

    line: str
    player: int
    hands: str | list[str] | None
    combos: tuple[str, ...]
    strategy: dict[str, float]
    node: int
    rows: np.ndarray
    probs: np.ndarray


def _lock_probabilities(strategy: Mapping[str, float], labels: list[str], where: str) -> np.ndarray:
    """Probabilities per action of a node from ``{label: probability}`` (absent actions 0)."""
    if not isinstance(strategy, Mapping) or not strategy:
        raise PokerlabError(
            f"a lock's strategy maps actions to probabilities, e.g. {{{labels[0]!r}: 1.0}}; "
            f"got {strategy!r}"
        )
    parsed = [parse_action_label(lab) for lab in labels]
    probs = np.zeros(len(labels))
    seen: dict[int, str] = {}
    for key, value in strategy.items():
        if not isinstance(key, str):
            raise PokerlabError(f"action {key!r} is not an action label such as 'check'")
        kind, amount = parse_action_label(key)
        match = [
            i
            for i, (k, amt) in enumerate(parsed)
            if k == kind and (amount is None or amt == amount)
        ]
        if len(match) != 1:
            why = "is ambiguous" if match else "is not an action"
            raise PokerlabError(
                f"action {key!r} {why} at {where}; the actions are {', '.join(labels)}"
            )
        i = match[0]
        if i in seen:
            raise PokerlabError(
                f"actions {seen[i]!r} and {key!r} name the same action {labels[i]!r}"
            )
        seen[i] = key
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            raise PokerlabError(f"probability of {key!r} is not a number: {value!r}")
        x = float(value)
        if not (math.isfinite(x) and 0.0 <= x <= 1.0):
            raise PokerlabError(f"probability of {key!r} must be between 0 and 1, got {value!r}")
        probs[i] = x
    total = float(probs.sum())
    if abs(total - 1.0) > 1e-6:
        raise PokerlabError(
            f"the lock's probabilities at {where} sum to {total:g}, not 1: "
            + ", ".join(f"{k}: {v}" for k, v in strategy.items())
        )
    return probs / total


def _hand_items(hands: str | Sequence[str]) -> list[str]:
    """The items of a lock's hands: a range string's comma-separated items, or a list's."""
    if isinstance(hands, str):
        items = [x.strip() for x in hands.split(",")]
    elif isinstance(hands, Sequence) and all(isinstance(x, str) for x in hands):
        items = [x.strip() for x in hands]
    else:
        raise PokerlabError(
            f"hands are a range string such as 'AA, KQs, AhKh' or a list of them, got {hands!r}"
        )
    if not items:
        raise PokerlabError("no hands given to lock (hands=None locks every hand)")
    if any(not x for x in items):
        raise PokerlabError(f"empty hand item in {hands!r}")
    return items


def _item_combos(item: str) -> list[int]:
    """Combo ids of one range item (no weights: a lock holds for the hands it names)."""
    if ":" in item:
        raise PokerlabError(f"hand {item!r}: a lock takes hands without weights")
    try:
        weights = parse_range(item)
    except PokerlabError as exc:
        raise PokerlabError(f"hand {item!r} is not a hand, class or span ({exc})") from None
    return [int(c) for c in np.flatnonzero(weights > 0)]
