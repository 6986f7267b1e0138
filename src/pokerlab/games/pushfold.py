"""Heads-up no-limit push/fold (SPEC 3.4): the small blind shoves or folds, the big blind calls or
folds, and an all-in is settled by the exact preflop equity of the two specific hands.

Blinds are 0.5 and 1 big blind, with an optional ante from each player; both players start the
hand with ``stack_bb`` (blinds and antes come out of it; a post larger than the stack is capped).
Payoffs are in big blinds, for the hand, from each player's point of view:

* small blind folds: it loses its posts (0.5 + ante);
* big blind folds: it loses its posts (1 + ante);
* call: each has ``S`` in the pot, so the small blind nets ``(2 * equity - 1) * S``.

The public tree has one decision per player and 1326 private states (every combo, card removal
exact: the big blind's combo never shares a card with the small blind's). The showdown is a dense
matrix-vector product with ``compat * (2 * equity - 1)``. Because the game is symmetric under
permutations of the suits, an equilibrium can be taken constant over the combos of each of the 169
classes (AKs, T9o, 22); ``hands="classes"`` builds that exact reduction, with 169 private states
and pair weights equal to the number of compatible combo pairs. Solvers use it for speed; results
are expanded to combos and measured in the combo game.

In the variable-stack scenario the stack is drawn each hand from a given distribution and both
players see it: a public chance node over stacks above the two decisions.

Keys: ``"AKs:"`` (small blind, classes), ``"AsKs:s"`` (big blind facing a shove, combos),
``"AKs@10bb:"`` (variable stack). Actions: ``f`` fold, ``s`` shove, ``c`` call.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Literal

import numpy as np

from pokerlab.cards.deck import (
    COMBO_CARDS,
    COMBO_CLASS,
    N_CLASSES,
    N_COMBOS,
    class_name,
    format_combo,
)
from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.tree.builder import NodeList, assemble_public_tree, private_tables

if TYPE_CHECKING:
    from pokerlab.tree.public.tree import PublicTree

__all__ = [
    "PushFoldGame",
    "PushFoldHistory",
    "HandSet",
    "build_pushfold_tree",
    "class_matrices",
    "combo_matrices",
]

HandSet = Literal["combos", "classes"]
FOLD_ACTION, PUSH_ACTION = 0, 1  # fold / shove (small blind), fold / call (big blind)


@lru_cache(maxsize=1)
def combo_matrices() -> tuple[np.ndarray, np.ndarray]:
    """(compat, payoff_share) over combos: compat 0/1, share = compat * (2 equity - 1)."""
    from pokerlab.cards import preflop

    compat = preflop.compatible_mask().astype(np.float64)
    share = np.where(compat > 0, 2.0 * np.nan_to_num(preflop.equity_matrix()) - 1.0, 0.0)
    return compat, share


@lru_cache(maxsize=1)
def class_matrices() -> tuple[np.ndarray, np.ndarray]:
    """(weights, payoff_share) over classes, exact sums over compatible combo pairs.

    weights[c, d] = number of (combo of c, combo of d) pairs that share no card;
    payoff_share[c, d] = sum over those pairs of (2 equity - 1).
    """
    compat, share = combo_matrices()
    member = np.zeros((N_CLASSES, N_COMBOS))
    member[COMBO_CLASS, np.arange(N_COMBOS)] = 1.0
    return member @ compat @ member.T, member @ share @ member.T


def posts(stack: float, ante: float) -> tuple[float, float]:
    """What each player has in the pot before acting (capped by the stack)."""
    return min(stack, 0.5 + ante), min(stack, 1.0 + ante)


class PushFoldGame(HistoryGame):
    """Heads-up push/fold at a fixed stack or a stack drawn from a distribution.

    Parameters
    ----------
    stack_bb:
        Effective stack in big blinds (> 0.5), for the fixed-stack game.
    ante_bb:
        Ante each player posts, in big blinds (>= 0).
    stacks:
        Variable-stack scenario: the possible stacks (big blinds) ...
    stack_probs:
        ... and their probabilities (default uniform).
    hands:
        ``"combos"`` (1326 private states, the game itself) or ``"classes"`` (the exact
        169-class reduction for suit-symmetric strategies).
    """

    name = "pushfold"
    num_players = 2

    def __init__(
        self,
        stack_bb: float | None = 10.0,
        ante_bb: float = 0.0,
        stacks: Sequence[float] | None = None,
        stack_probs: Sequence[float] | None = None,
        hands: HandSet = "combos",
    ) -> None:
        super().__init__()
        if stacks is not None:
            values = [float(s) for s in stacks]
            if not values:
                raise PokerlabError("pushfold: the list of stacks is empty")
            stack_bb = None
        else:
            if stack_bb is None:
                raise PokerlabError("pushfold: give stack_bb or stacks")
            values = [float(stack_bb)]
        for s in values:
            if not (s > 0.5) or not np.isfinite(s):
                raise PokerlabError(f"pushfold: stack must be a number > 0.5 big blinds, got {s!r}")
        if not (ante_bb >= 0.0) or not np.isfinite(ante_bb):
            raise PokerlabError(f"pushfold: ante must be >= 0 big blinds, got {ante_bb!r}")
        if stack_probs is None:
            probs = [1.0 / len(values)] * len(values)
        else:
            probs = [float(p) for p in stack_probs]
            if len(probs) != len(values) or any(not p >= 0 for p in probs) or sum(probs) <= 0:
                raise PokerlabError("pushfold: stack_probs must be non-negative, one per stack")
            total = sum(probs)
            probs = [p / total for p in probs]
        if hands not in ("combos", "classes"):
            raise PokerlabError(f"pushfold: hands must be 'combos' or 'classes', got {hands!r}")
        self.stacks = values
        self.stack_probs = probs
        self.ante_bb = float(ante_bb)
        self.hands: HandSet = hands
        self.variable = stacks is not None
        self.params = {"ante_bb": self.ante_bb, "hands": hands}
        if self.variable:
            self.params.update(stacks=values, stack_probs=probs)
        else:
            self.params["stack_bb"] = values[0]

    # --- conversions ----------------------------------------------------------------------------
    def with_hands(self, hands: HandSet) -> PushFoldGame:
        """The same game over combos or over classes."""
        if self.variable:
            return PushFoldGame(None, self.ante_bb, self.stacks, self.stack_probs, hands)
        return PushFoldGame(self.stacks[0], self.ante_bb, hands=hands)

    @property
    def private_names(self) -> list[str]:
        if self.hands == "classes":
            return [class_name(c) for c in range(N_CLASSES)]
        return [format_combo(h) for h in range(N_COMBOS)]

    def stack_prefix(self, stack: float) -> str:
        return f"@{stack:g}bb" if self.variable else ""

    # --- history interface ----------------------------------------------------------------------
    def initial_history(self) -> PushFoldHistory:
        return PushFoldHistory(self)

    # --- public tree ----------------------------------------------------------------------------
    def public_tree(self) -> PublicTree:
        return self._public_tree

    @cached_property
    def _public_tree(self) -> PublicTree:
        return build_pushfold_tree(self)


class PushFoldHistory(History):
    """Push/fold through the history interface (deal stack, small blind's hand, big blind's hand,
    then the two decisions). Utilities are expectations over the board (the exact equity)."""

    __slots__ = ("game", "stack", "hands", "actions")

    def __init__(
        self,
        game: PushFoldGame,
        stack: int = -1,
        hands: tuple[int, ...] = (),
        actions: str = "",
    ) -> None:
        self.game = game
        self.stack = stack if (stack >= 0 or game.variable) else 0
        self.hands = hands
        self.actions = actions

    def current_player(self) -> int:
        if self.stack < 0 or len(self.hands) < 2:
            return CHANCE
        return len(self.actions)

    def is_terminal(self) -> bool:
        return self.actions in ("f", "sf", "sc")

    def legal_actions(self) -> Sequence[int]:
        return (FOLD_ACTION, PUSH_ACTION)

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        g = self.game
        if self.stack < 0:
            return list(enumerate(g.stack_probs))
        if g.hands == "classes":
            weights, _ = class_matrices()
            if not self.hands:
                row = weights.sum(axis=1)
            else:
                row = weights[self.hands[0]]
            total = row.sum()
            return [(int(c), float(row[c] / total)) for c in np.flatnonzero(row)]
        if not self.hands:
            return [(h, 1.0 / N_COMBOS) for h in range(N_COMBOS)]
        first = set(COMBO_CARDS[self.hands[0]].tolist())
        ok = [h for h in range(N_COMBOS) if not (set(COMBO_CARDS[h].tolist()) & first)]
        return [(h, 1.0 / len(ok)) for h in ok]

    def child(self, action: int) -> PushFoldHistory:
        if self.stack < 0:
            return PushFoldHistory(self.game, action, self.hands, self.actions)
        if len(self.hands) < 2:
            return PushFoldHistory(self.game, self.stack, self.hands + (action,), self.actions)
        label = ("f", "s")[action] if not self.actions else ("f", "c")[action]
        return PushFoldHistory(self.game, self.stack, self.hands, self.actions + label)

    def terminal_utility(self, player: int) -> float:
        g = self.game
        stack = g.stacks[self.stack]
        sb_post, bb_post = posts(stack, g.ante_bb)
        if self.actions == "f":
            sb = -sb_post
        elif self.actions == "sf":
            sb = bb_post
        else:
            a, b = self.hands
            if g.hands == "classes":
                weights, share = class_matrices()
                sb = stack * share[a, b] / weights[a, b]
            else:
                _, share = combo_matrices()
                sb = stack * share[a, b]
        return sb if player == 0 else -sb

    def info_set_key(self) -> str:
        g = self.game
        p = self.current_player()
        prefix = g.stack_prefix(g.stacks[self.stack])
        return f"{g.private_names[self.hands[p]]}{prefix}:{self.actions}"

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return str(action)
        return ("f", "s")[action] if not self.actions else ("f", "c")[action]


def build_pushfold_tree(game: PushFoldGame) -> PublicTree:
    """The public tree of heads-up push/fold, described to the game-neutral builder API.

    One decision per player (per stack, under a public chance node over stacks when the stack is
    variable). Terminal amounts are in big blinds, weighted by the stack's probability and by
    ``1 / (number of compatible deals)``. Showdowns use the dense ``compat * (2 equity - 1)``
    table; folds use it too over classes and the exact card sweep over combos.
    """
    classes = game.hands == "classes"
    num_h = N_CLASSES if classes else N_COMBOS
    if classes:
        weights, share = class_matrices()
        deal_pairs = float(weights.sum())
        dense_compat = weights[None, :, :].copy()
        dense_sign = share[None, :, :].copy()
        private_cards = np.full((num_h, 2), -1, dtype=np.int32)
    else:
        _, share = combo_matrices()
        deal_pairs = float(N_COMBOS * 1225)  # each combo meets 1225 disjoint combos
        dense_compat = np.zeros((0, 0, 0))  # folds use the exact card sweep
        dense_sign = share[None, :, :]
        private_cards = COMBO_CARDS.astype(np.int32)
    scale = 1.0 / deal_pairs

    nodes = NodeList()

    def decisions(stack: float, prob: float, prefix: str) -> int:
        sb_post, bb_post = posts(stack, game.ante_bb)
        w = prob * scale
        sb = nodes.decision(0, 0, f"{prefix}:", ("f", "s"))
        sb_fold = nodes.fold(0, 0, sb_post * w, f"{prefix}:f")
        bb = nodes.decision(1, 0, f"{prefix}:s", ("f", "c"))
        bb_fold = nodes.fold(1, 0, bb_post * w, f"{prefix}:sf")
        call = nodes.showdown(0, stack * w, f"{prefix}:sc")
        nodes.link(sb, [sb_fold, bb])
        nodes.link(bb, [bb_fold, call])
        return sb

    if game.variable:
        root = nodes.chance(0, "")
        nodes.link(
            root,
            [
                decisions(s, p, game.stack_prefix(s))
                for s, p in zip(game.stacks, game.stack_probs, strict=True)
            ],
        )
    else:
        decisions(game.stacks[0], 1.0, "")

    tables = private_tables(
        valid=np.ones((1, num_h), dtype=np.bool_),
        strength=np.zeros((1, num_h), dtype=np.int32),
        private_cards=private_cards,
        dense_compat=dense_compat,
        dense_sign=dense_sign,
    )
    return assemble_public_tree(
        "pushfold",
        nodes,
        tables,
        game.private_names,
        [""],
        lambda private, board, hist: f"{private}{hist}",
    )
