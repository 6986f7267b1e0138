"""Reading a solved postflop spot: any node's ranges, per-hand strategy, EV, equity and EQR.

A line names a node by its actions from the root, comma separated, with dealt cards by name:
``"check, bet 66, call"`` or ``"check, check, Qs, bet 33"``. A dealt card that the solver folded
onto an isomorphic one (a suit swap) is read through that swap, so every card can be named.

Conventions (chips): a hand's EV at a node is what it expects to collect from the pot at the end
minus what it still puts in from this node on; at the root the two players' range EVs add up to
the starting pot (less rake). Equity is the share of the pot the hand would win if the rest were
checked down, against the opponent's range at the node. EQR = EV / (equity x pot at the node).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, COMBO_CLASS, COMBO_INDEX
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.games.postflop.hand_lists import _swap_card
from pokerlab.games.postflop.naming import SpotNaming
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import CompiledGame, compile_game
from pokerlab.tree.vector.tree import DECISION, SUIT_PAIRS

__all__ = ["SolvedSpot", "NodeView", "deal_scale"]

PLAYERS = ("OOP", "IP")


@dataclass
class NodeView:
    """One node of a solved spot.

    ``combos[p]`` are player p's combo ids; ``reach[p]`` their range weights at the node
    (reach-weighted, card removal applied) times the probability of the cards dealt since the
    spot's start (1/45 after a turn card on a flop spot); ``weights(p)`` undoes that
    probability (``deal_scale``), giving combos as if the dealt cards had been chosen, the
    numbers every output shows. For a decision node, ``strategy`` is the actor's
    (hands x actions) average strategy. ``ev[p]``, ``equity[p]`` and ``eqr[p]`` per combo
    (NaN where the combo cannot be at the node).
    """

    line: tuple[str, ...]
    kind: str
    player: int
    board: tuple[int, ...]
    actions: list[str]
    pot: float
    combos: tuple[np.ndarray, np.ndarray]
    reach: tuple[np.ndarray, np.ndarray]
    strategy: np.ndarray | None
    ev: tuple[np.ndarray, np.ndarray]
    equity: tuple[np.ndarray, np.ndarray]
    eqr: tuple[np.ndarray, np.ndarray]
    compat: tuple[np.ndarray, np.ndarray]  # opponent reach compatible with each combo
    locked: np.ndarray | None = None  # per actor hand: True where a node lock fixes its strategy
    #: What undoes the chance probabilities in ``reach``: the product over the cards dealt since
    #: the spot's start of the number of cards that could come (``deck - board cards - 4``, the
    #: deck 52 cards or a small deck's).
    deal_scale: float = 1.0

    def weights(self, player: int) -> np.ndarray:
        """Player's combo weights at the node as if the dealt cards had been chosen: ``reach``
        times ``deal_scale`` (1 per combo fully in the range and never folded)."""
        return self.reach[player] * self.deal_scale

    def action_totals(self) -> dict[str, float]:
        """Range-weighted frequency of each action of the actor."""
        if self.strategy is None:
            return {}
        w = self.reach[self.player]
        total = w.sum()
        freq = (w @ self.strategy) / total if total > 0 else np.zeros(len(self.actions))
        return {a: float(f) for a, f in zip(self.actions, freq, strict=True)}

    def range_value(self, player: int) -> tuple[float, float]:
        """(EV, equity) of ``player``'s whole range at the node, reach-weighted."""
        w = self.reach[player] * self.compat[player]
        ok = w > 0
        if not ok.any():
            return float("nan"), float("nan")
        return (
            float(np.average(self.ev[player][ok], weights=w[ok])),
            float(np.average(self.equity[player][ok], weights=w[ok])),
        )

    def grid(self, scaled: bool = True) -> dict[str, Any]:
        """13x13 class grid of the actor (or of OOP at non-decision nodes): per class the
        combined weight in combos (:meth:`weights`; the raw ``reach`` with ``scaled=False``) and
        the weight-averaged action mix (``mix[row, col, action]``)."""
        p = self.player if self.player >= 0 else 0
        w = self.weights(p) if scaled else self.reach[p]
        cls = COMBO_CLASS[self.combos[p]]
        weight = np.bincount(cls, weights=w, minlength=169)
        na = max(len(self.actions), 1)
        mix = np.zeros((169, na))
        if self.strategy is not None:
            for a in range(na):
                mix[:, a] = np.bincount(cls, weights=w * self.strategy[:, a], minlength=169)
            with np.errstate(invalid="ignore", divide="ignore"):
                mix = np.where(weight[:, None] > 0, mix / weight[:, None], 0.0)
        return {"weight": weight.reshape(13, 13), "mix": mix.reshape(13, 13, na)}


class SolvedSpot(Strategy):
    """The average strategy of a postflop solve, with the passes that read it.

    A :class:`~pokerlab.strategy.Strategy` like every solver's average strategy: ``compiled``
    (the spot's compiled tree, ``compile_game(game)``) and ``probs`` (the normalised strategy
    sums, locks left out) are made on first use, since the index of a flop spot's information
    sets is large and most readers only walk nodes (:meth:`node`).

    ``locks``: the solver's lock array (see :meth:`PostflopSolver.lock
    <pokerlab.solvers.postflop.PostflopSolver.lock>`); a locked hand's strategy is read from it.
    ``solver``: the :class:`~pokerlab.solvers.postflop.PostflopSolver` whose arrays these are
    (set by its ``average_strategy()``), which :func:`pokerlab.save_strategy` saves.
    """

    def __init__(
        self,
        game: Any,
        strat_sum: np.ndarray,
        regrets: np.ndarray,
        passes: Any,
        locks: np.ndarray | None = None,
        solver: Any = None,
    ) -> None:
        self._game = game
        self.spot = game.expanded
        self.strat_sum = strat_sum
        self.regrets = regrets
        self.passes = passes
        self.locks = locks
        self.solver = solver
        self._compiled: CompiledGame | None = None
        self._probs: np.ndarray | None = None

    @property
    def game(self) -> Any:
        """The :class:`~pokerlab.games.postflop.game.PostflopGame` solved."""
        return self._game

    @property  # type: ignore[override]
    def compiled(self) -> CompiledGame:
        """The spot's compiled tree (``compile_game(game)``), made on first use."""
        if self._compiled is None:
            self._compiled = compile_game(self.game)
        return self._compiled

    @property  # type: ignore[override]
    def probs(self) -> np.ndarray:
        """The average strategy in the compiled layout (locks left out), made on first use."""
        if self._probs is None:
            self._probs = self.compiled.normalise(self.strat_sum)
        return self._probs

    def __repr__(self) -> str:
        return f"SolvedSpot({self.game.name!r}, {self.strat_sum.size} strategy entries)"

    def as_strategy(self) -> Strategy:
        """A plain :class:`~pokerlab.strategy.Strategy` copy of this average strategy on the
        spot's compiled tree: keys such as ``"AhKh|Td9d6hQc7s:check,bet 66"``,
        :func:`pokerlab.exploitability` (of the game without locks),
        :func:`pokerlab.expected_values`."""
        return Strategy(self.compiled, self.probs)

    # --- navigation ----------------------------------------------------------------------------
    def find(self, line: str | list[str] | tuple[str, ...]) -> tuple[int, tuple[str, ...], int]:
        """(arena node, the line's tokens, suit swap id or -1) for a line
        (:meth:`SpotNaming.locate <pokerlab.games.postflop.naming.SpotNaming.locate>`)."""
        return SpotNaming(self.spot).locate(line)

    def node(self, line: str | list[str] | tuple[str, ...] = "") -> NodeView:
        """The node at ``line`` with ranges, strategy, EV, equity and EQR."""
        arena, tokens, swap = self.find(line)
        spot = self.spot
        tree = spot.tree
        a, hd = tree.arrays, tree.hands
        an = spot.action_node[arena]
        board = tuple(int(c) for c in spot.node_board[arena] if c >= 0)
        recs = [self.passes.record(arena, p, self.regrets, self.strat_sum) for p in (0, 1)]
        combos = []
        reach = []
        ev = []
        compats = []
        for p in (0, 1):
            n = int(hd.num[p])
            reach.append(recs[1 - p][0, :n].copy())  # seen as the opponent's reach
            cfv = recs[p][2, :n]
            compat = _compatible_reach(hd, p, recs[p][0, : int(hd.num[1 - p])])
            with np.errstate(invalid="ignore", divide="ignore"):
                e = np.where(compat > 0, cfv / compat, np.nan) + an.commit[p]
            ev.append(e)
            compats.append(compat)
            combos.append(spot.combos[p].copy())
        if swap >= 0:
            s1, s2 = SUIT_PAIRS[swap]
            combos = [
                np.array(
                    [
                        COMBO_INDEX[_swap_card(int(x), s1, s2), _swap_card(int(y), s1, s2)]
                        for x, y in COMBO_CARDS[c]
                    ]
                )
                for c in combos
            ]
            board = tuple(_swap_card(c, s1, s2) for c in board)
        strategy = None
        locked = None
        actions: list[str] = []
        player = int(a.player[arena]) if a.kind[arena] == DECISION else -1
        if a.kind[arena] == DECISION:
            actions = an.labels()
            na = len(actions)
            n = int(hd.num[player])
            off = int(a.offset[arena])
            block = self.strat_sum[off : off + na * n].astype(np.float64).reshape(na, n).T
            tot = block.sum(axis=1, keepdims=True)
            strategy = np.where(tot > 0, block / np.where(tot > 0, tot, 1.0), 1.0 / na)
            if self.locks is not None:
                fixed = self.locks[off : off + na * n].astype(np.float64).reshape(na, n).T
                locked = fixed[:, 0] >= 0.0
                strategy[locked] = fixed[locked]
        pot = float(self.game.config.pot) + an.commit[0] + an.commit[1]
        equity = _equity(board, combos, reach, self.game.config.deck)
        with np.errstate(invalid="ignore", divide="ignore"):
            eqr = tuple(ev[p] / (equity[p] * pot) for p in (0, 1))
        return NodeView(
            line=tokens,
            kind=an.kind,
            player=player,
            board=board,
            actions=actions,
            pot=pot,
            combos=(combos[0], combos[1]),
            reach=(reach[0], reach[1]),
            strategy=strategy,
            ev=(ev[0], ev[1]),
            equity=equity,
            eqr=(eqr[0], eqr[1]),
            compat=(compats[0], compats[1]),
            locked=locked,
            deal_scale=deal_scale(
                len(self.game.config.board), len(board), len(self.game.config.deck)
            ),
        )


def deal_scale(start_cards: int, board_cards: int, deck_size: int = 52) -> float:
    """What undoes the chance probabilities in the reach of a node with ``board_cards`` board
    cards on a spot that starts with ``start_cards``: each dealt card comes with probability
    1 / (deck_size - board cards - 4), the cards of the deck (52, or a small deck's) neither
    player's two hands nor the board hold."""
    scale = 1.0
    for n in range(start_cards, board_cards):
        scale *= deck_size - n - 4
    return scale


def _compatible_reach(hd: Any, p: int, opp_reach: np.ndarray) -> np.ndarray:
    q = 1 - p
    n = int(hd.num[p])
    cards_sum = np.zeros(52)
    oc = hd.cards[q, : int(hd.num[q])]
    np.add.at(cards_sum, oc[:, 0], opp_reach)
    np.add.at(cards_sum, oc[:, 1], opp_reach)
    mine = hd.cards[p, :n]
    out = opp_reach.sum() - cards_sum[mine[:, 0]] - cards_sum[mine[:, 1]]
    same = hd.same[p, :n]
    out = out + np.where(same >= 0, opp_reach[np.maximum(same, 0)], 0.0)
    return out


def _equity(
    board: tuple[int, ...],
    combos: list[np.ndarray],
    reach: list[np.ndarray],
    cards_in_deck: tuple[int, ...] = tuple(range(52)),
) -> tuple[np.ndarray, np.ndarray]:
    """Each combo's check-down equity against the other player's reach at the node, the
    runouts dealt from ``cards_in_deck`` (a small deck's cards, or all 52)."""
    cards = [COMBO_CARDS[c] for c in combos]
    deck = [c for c in cards_in_deck if c not in board]
    need = 5 - len(board)
    if need == 0:
        runouts = [()]
    elif need == 1:
        runouts = [(c,) for c in deck]
    else:
        runouts = [(x, y) for i, x in enumerate(deck) for y in deck[i + 1 :]]
    num = [np.zeros(len(c)) for c in combos]
    den = [np.zeros(len(c)) for c in combos]
    conflict = (
        (cards[0][:, None, 0] == cards[1][None, :, 0])
        | (cards[0][:, None, 0] == cards[1][None, :, 1])
        | (cards[0][:, None, 1] == cards[1][None, :, 0])
        | (cards[0][:, None, 1] == cards[1][None, :, 1])
    )
    for run in runouts:
        full = np.array([*board, *run])
        ok = [~np.isin(c, full).any(axis=1) for c in cards]
        vals = []
        for p in (0, 1):
            v = np.zeros(len(cards[p]), dtype=np.int64)
            if ok[p].any():
                seven = np.concatenate(
                    [cards[p][ok[p]], np.broadcast_to(full, (int(ok[p].sum()), 5))], axis=1
                )
                v[ok[p]] = evaluate_batch(seven)
            vals.append(v)
        pair_ok = ok[0][:, None] & ok[1][None, :] & ~conflict
        score0 = (vals[0][:, None] > vals[1][None, :]) + 0.5 * (
            vals[0][:, None] == vals[1][None, :]
        )
        m = pair_ok.astype(np.float64)
        num[0] += (m * score0) @ reach[1]
        den[0] += m @ reach[1]
        num[1] += ((m * (1.0 - score0)).T) @ reach[0]
        den[1] += m.T @ reach[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (
            np.where(den[0] > 0, num[0] / den[0], np.nan),
            np.where(den[1] > 0, num[1] / den[1], np.nan),
        )


def spot_numbers(solver: Any, exploitability: float) -> tuple[dict[str, Any], Any]:
    """The numbers every postflop output shows (``pokerlab postflop``, reports, the viewer):
    iterations, seconds, exploitability (chips and % of the pot), both players' EV (chips),
    equity and EQR (EV / (equity x pot)), the root's action totals, node counts and memory;
    and the root's node view."""
    pot = float(solver.game.config.pot)
    root = solver.average_strategy().node("")
    ev = solver.values()["ev"]
    equity = [root.range_value(p)[1] for p in (0, 1)]
    eqr = [ev[p] / (equity[p] * pot) if equity[p] > 0 else math.nan for p in (0, 1)]
    numbers = {
        "iterations": solver.iterations,
        "seconds": solver.seconds,
        "exploitability": exploitability,
        "exploitability_pct": 100.0 * exploitability / pot,
        "pot": pot,
        "ev": {k: float(ev[p]) for p, k in enumerate(PLAYER_KEYS)},
        "equity": {k: float(equity[p]) for p, k in enumerate(PLAYER_KEYS)},
        "eqr": {k: float(eqr[p]) for p, k in enumerate(PLAYER_KEYS)},
        "root": {
            "player": PLAYER_KEYS[root.player] if root.actions else None,
            "actions": root.action_totals() if root.actions else {},
        },
        "nodes": solver.tree.node_counts(),
        "memory_bytes": int(solver.tree.memory_bytes(2 if solver.compressed else 4)),
        "compressed": bool(solver.compressed),
    }
    return numbers, root


PLAYER_KEYS = ("oop", "ip")
