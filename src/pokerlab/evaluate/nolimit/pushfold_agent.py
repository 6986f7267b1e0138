"""A heads-up push/fold agent for no-limit matches at short stacks (issue 24's baselines).

The push/fold game (:mod:`pokerlab.games.pushfold`) allows the small blind only to shove or
fold and the big blind only to call the shove or fold. This agent plays a given solution of it
(per starting-hand class, e.g. ``solve_pushfold(10.0)``'s ``sb_shove[0]`` and ``bb_call[0]``
from :mod:`pokerlab.solvers.pushfold`; evaluate/ cannot import solvers/, so the caller solves
and passes the arrays) in the real heads-up game:

- small blind (seat 0), first to act: all-in with probability ``sb_shove[class]``, else fold;
- big blind (seat 1) facing any raise: all-in (or the call, when it may not raise over an
  all-in) with probability ``bb_call[class]``, else fold; facing a limp, the same shove
  probability, else check (outside the push/fold game; documented choice);
- after the flop (reached only after a limp) it checks or calls.
"""

from __future__ import annotations

import numpy as np

from pokerlab.cards.deck import COMBO_CLASS, COMBO_INDEX, N_CLASSES
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import (
    Action,
    NoLimitAgent,
    PublicView,
    normalize_action,
    passive_action,
)
from pokerlab.games.nolimit.rules import ALLIN, FOLD

__all__ = ["PushFoldAgent"]


class PushFoldAgent(NoLimitAgent):
    """Plays push/fold class frequencies ``sb_shove`` and ``bb_call`` (169 each, class id
    ``13 * row + col`` of :mod:`pokerlab.cards.deck`) in the full-deck heads-up game (module
    docstring)."""

    def __init__(self, sb_shove: np.ndarray, bb_call: np.ndarray, name: str = "push-fold") -> None:
        arrays = []
        for label, arr in (("sb_shove", sb_shove), ("bb_call", bb_call)):
            a = np.asarray(arr, dtype=np.float64).reshape(-1)
            if a.shape != (N_CLASSES,) or not np.all((a >= 0.0) & (a <= 1.0)):
                raise PokerlabError(
                    f"PushFoldAgent: {label} must hold {N_CLASSES} probabilities in [0, 1], "
                    f"got shape {np.shape(arr)}"
                )
            arrays.append(a)
        self.sb_shove, self.bb_call = arrays
        self.name = name

    def _check(self, view: PublicView) -> None:
        if view.rules.players != 2 or view.rules.ranks != 13:
            raise PokerlabError("PushFoldAgent: heads-up on the full deck only")

    def _options(self, view: PublicView) -> tuple[Action, Action, np.ndarray | None]:
        """(aggressive action, other action, the class table giving the first's probability);
        no table: the passive action always."""
        self._check(view)
        state, rules = view.state, view.rules
        if state.street > 0:
            return passive_action(view), passive_action(view), None
        bounds = state.raise_bounds(rules)
        shove = (ALLIN, bounds[1]) if bounds is not None else passive_action(view)
        if state.to_act == 0 and not state.raises:
            return shove, (FOLD, 0), self.sb_shove
        other = (FOLD, 0) if state.to_call() > 0 else passive_action(view)
        return shove, other, self.bb_call

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        shove, other, table = self._options(view)
        if table is None:
            return {shove: 1.0}
        p = float(table[COMBO_CLASS[COMBO_INDEX[hole[0], hole[1]]]])
        return {shove: p, other: 1.0 - p} if shove != other else {shove: 1.0}

    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        key = normalize_action(view, action, self.name)
        shove, other, table = self._options(view)
        hands = np.asarray(hands, dtype=np.int64)
        if table is None or shove == other:
            return np.full(len(hands), 1.0 if key == shove else 0.0)
        p = table[COMBO_CLASS[COMBO_INDEX[hands[:, 0], hands[:, 1]]]]
        return p if key == shove else 1.0 - p if key == other else np.zeros(len(hands))
