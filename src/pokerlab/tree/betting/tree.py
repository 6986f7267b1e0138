"""The public betting tree of a poker game with card abstraction: flat arrays in preorder, no
cards. Games describe it (limit hold'em: :func:`pokerlab.games.limit_holdem.build_betting_tree`,
two players, fold / call / raise; no-limit hold'em:
:func:`pokerlab.games.nolimit.betting.build_betting_tree`, 2 to 6 players, the action
abstraction's sizes); the kernels of this package walk it with rows over bucket states."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pokerlab.tree._primitives import DEAL, DECISION, FOLD_END

__all__ = ["BettingTree"]


@dataclass
class BettingTree:
    """The public betting tree of a game (no cards), as flat arrays in preorder.

    Node ``n`` has kind ``kind[n]`` (``DECISION``, ``DEAL`` before the next round's cards,
    ``FOLD_END``: one player left, ``SHOWDOWN_END``), betting round ``round[n]``, acting player
    ``player[n]`` (the last folder at ``FOLD_END``; -1 otherwise), children
    ``children[child_start[n]:child_start[n+1]]`` (decisions: in the order of ``actions[n]``;
    ids 0 fold, 1 check or call, 2 bet or raise, any number of raises of different sizes), the
    chips each of the P players has put in, ``contrib[n]`` (N, P), and who is still in
    (``active[n]``, bool (N, P): not folded). Two-player trees also share their terminal
    payoffs: ``payoff_id[n]`` indexes :attr:`payoff_table` (``(amount, kind)`` rows: what the
    folder loses, or each player's stake at a showdown), -1 on other nodes; with more players
    the payoffs follow from ``contrib`` and ``active`` (side pots, :attr:`pot`).

    ``labels`` (None for limit hold'em, whose actions are named fold / call / raise): the token
    of the action into each node as the game's history interface names it (``"f"``, ``"c"``,
    ``"r<amount>"``; ``""`` at the root and after a deal). ``rounds``: betting rounds played.
    """

    kind: np.ndarray
    round: np.ndarray
    player: np.ndarray
    child_start: np.ndarray
    children: np.ndarray
    action: np.ndarray  # int8 (N,): action that led to the node (-1 at the root and deals' kids)
    contrib: np.ndarray  # float64 (N, P): limit hold'em in big blinds, no-limit in chips
    payoff_id: np.ndarray  # int32 (N,)
    payoff_table: np.ndarray  # float64 (K,): distinct terminal amounts (see payoff_kind)
    payoff_kind: np.ndarray  # int8 (K,): FOLD_END or SHOWDOWN_END of each amount
    history: list[str]
    active: np.ndarray | None = None  # bool (N, P); None: computed (every player but the folder)
    labels: list[str] | None = None
    rounds: int = 4

    def __post_init__(self) -> None:
        if self.active is None:
            active = np.ones(self.contrib.shape, dtype=bool)
            folds = np.flatnonzero(self.kind == FOLD_END)
            active[folds, self.player[folds]] = False
            self.active = active

    @property
    def num_players(self) -> int:
        """Players at the table (the columns of ``contrib``)."""
        return int(self.contrib.shape[1])

    @property
    def max_actions(self) -> int:
        """The most actions of any decision node."""
        decisions = self.kind == DECISION
        if not decisions.any():
            return 0
        return int(np.diff(self.child_start)[decisions].max())

    @property
    def pot(self) -> np.ndarray:
        """Chips in the middle at each node (float64 (N,))."""
        return self.contrib.sum(axis=1)

    @property
    def num_nodes(self) -> int:
        return int(self.kind.size)

    @property
    def num_decisions(self) -> int:
        return int(np.count_nonzero(self.kind == DECISION))

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.kind >= FOLD_END))

    @property
    def num_payoffs(self) -> int:
        """Distinct terminal amounts (kind and amount): the shared payoff table's length."""
        return int(self.payoff_table.size)

    def actions(self, n: int) -> list[int]:
        kids = self.children[self.child_start[n] : self.child_start[n + 1]]
        return [int(self.action[k]) for k in kids]

    def find(self, history: str) -> int:
        """Node id of a betting history such as ``"rc/cr"`` (KeyError when absent)."""
        return self._by_history[history]

    @cached_property
    def _by_history(self) -> dict[str, int]:
        return {h: n for n, h in enumerate(self.history) if self.kind[n] != DEAL}

    def flop_sequences(self) -> list[int]:
        """The deal nodes after the preflop betting: one per preflop sequence that sees a flop
        (seven in ACPC hold'em), the unit a distributed run hands to a worker."""
        return [int(n) for n in np.flatnonzero((self.kind == DEAL) & (self.round == 0))]

    def terminal_value(self, n: int, player: int, winner: int) -> float:
        """Payoff of ``player`` at terminal ``n``; ``winner`` is the showdown winner (0 or 1, or
        -1 for a split), ignored at folds."""
        amount = float(self.payoff_table[self.payoff_id[n]])
        if self.kind[n] == FOLD_END:
            return -amount if self.player[n] == player else amount
        if winner < 0:
            return 0.0
        return amount if winner == player else -amount
