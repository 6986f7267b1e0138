"""Exact push/fold values for whole populations at once (matrix products, no simulation).

Notation, for one stack ``S`` (blinds 0.5 / 1, ante ``a``; posts ``sbp = min(S, 0.5 + a)`` and
``bbp = min(S, 1 + a)``), over a hand basis (the 1326 combos, or the 169 classes for strategies
that are constant over each class, where the reduction is exact by suit symmetry):

* ``W[i, j]`` = number of dealt (small blind hand i, big blind hand j) pairs that share no card
  (0/1 over combos), ``w_i = sum_j W[i, j]``, ``P = sum W = 1326 * 1225``;
* ``G[i, j]`` = sum over those pairs of ``2 * equity - 1`` (the exact preflop table).

With shove probabilities ``s`` of the small blind and call probabilities ``c`` of the big blind,
the small blind's expected value per hand is (the rules of :mod:`pokerlab.games.pushfold` summed
over all deals)::

    EV_sb(s, c) = -sbp + (sbp + bbp) * (s . w) / P + s^T (S G - bbp W) c / P

so the values of every (small blind, big blind) pair of a population are ``const + s . alpha +
Shove @ M @ Call^T``: one matrix product. A match between players A and B with the seats
alternating is worth ``V[A, B] = (EV_sb(s_A, c_B) - EV_sb(s_B, c_A)) / 2`` big blinds per hand to A
(seat-averaged, the exact mean of an infinitely long match). In the variable-stack game the
stack is drawn from ``stack_probs`` each hand, and every term is the probability-weighted sum
over stacks.

Best responses are just as direct: the small blind's best response to ``c`` takes, per hand,
the larger of folding ``-sbp * w_i`` and shoving ``bbp * w_i + (M c)_i``; the big blind's to ``s``
the larger of folding ``-bbp (W s)_j`` and calling ``-S (G^T s)_j`` (plus the small blind's folds,
``sbp * (w_j - (W s)_j)``). Exploitability is their mean (OpenSpiel's convention, as
:func:`pokerlab.exploitability`); the tests check both against the game-tree evaluators.

For simple players (shove the best ``k`` combos of a fixed order) the product collapses further:
with ``T`` the two-dimensional prefix sum of ``M`` in hand-strength order, ``EV_sb`` of the
cutoffs ``(k_r, k_c)`` is ``const + A[k_r] + T[k_r, k_c]``, one lookup per pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pokerlab.cards.deck import CLASS_SIZE, COMBO_CLASS, N_CLASSES, N_COMBOS
from pokerlab.errors import PokerlabError

__all__ = ["PushFoldPayoffs", "SimplePrefixPayoffs"]


@dataclass(frozen=True)
class _Stack:
    stack_bb: float
    prob: float
    sb_post: float
    bb_post: float
    matrix: np.ndarray  # (H, H) = (S G - bbp W) / P
    alpha: np.ndarray  # (H,) = (sbp + bbp) w / P


class PushFoldPayoffs:
    """Exact small-blind values, match values and best responses over one hand basis.

    Parameters
    ----------
    stacks:
        The stacks (big blinds, each > 0.5) of the game; one for a fixed-stack game.
    stack_probs:
        Their probabilities (default uniform).
    ante_bb:
        Ante per player (big blinds).
    hands:
        ``"combos"`` (1326) or ``"classes"`` (169; exact for class-constant strategies).
    """

    def __init__(
        self,
        stacks: Sequence[float],
        stack_probs: Sequence[float] | None = None,
        ante_bb: float = 0.0,
        hands: str = "classes",
    ) -> None:
        from pokerlab.games.pushfold import class_matrices, combo_matrices

        stacks = [float(s) for s in stacks]
        if not stacks or any(not (s > 0.5) for s in stacks):
            raise PokerlabError(f"stacks must be > 0.5 big blinds, got {stacks!r}")
        probs = np.full(len(stacks), 1.0 / len(stacks))
        if stack_probs is not None:
            probs = np.asarray(stack_probs, dtype=np.float64)
            if probs.shape != (len(stacks),) or np.any(~(probs >= 0)) or probs.sum() <= 0:
                raise PokerlabError("stack_probs must be non-negative, one per stack")
            probs = probs / probs.sum()
        if hands == "classes":
            weights, share = class_matrices()
        elif hands == "combos":
            weights, share = combo_matrices()
        else:
            raise PokerlabError(f"hands must be 'combos' or 'classes', got {hands!r}")
        self.hands = hands
        self.num_hands = weights.shape[0]
        self.ante_bb = float(ante_bb)
        self.stacks = np.array(stacks)
        self.stack_probs = probs
        self.total_pairs = float(weights.sum())
        self.row_weights = weights.sum(axis=1)
        self._weights = weights / self.total_pairs
        self._share = share / self.total_pairs
        self._rows: list[_Stack] = []
        for s, p in zip(stacks, probs, strict=True):
            sbp, bbp = min(s, 0.5 + ante_bb), min(s, 1.0 + ante_bb)
            self._rows.append(
                _Stack(
                    stack_bb=s,
                    prob=float(p),
                    sb_post=sbp,
                    bb_post=bbp,
                    matrix=s * self._share - bbp * self._weights,
                    alpha=(sbp + bbp) * self.row_weights / self.total_pairs,
                )
            )

    # --- conversions -----------------------------------------------------------------------------
    def fit(self, per_hand: np.ndarray) -> np.ndarray:
        """(n, stacks, H) float array in this basis from (n, stacks, 169 or 1326) values.

        Class values expand to combos exactly; combo values reduce to classes only when they
        are constant over each class (checked), since otherwise the class reduction is not exact.
        """
        arr = np.asarray(per_hand, dtype=np.float64)
        if arr.ndim != 3 or arr.shape[1] != len(self._rows):
            raise PokerlabError(
                f"expected (players, {len(self._rows)} stacks, hands) arrays, got {arr.shape}"
            )
        if arr.shape[2] == self.num_hands:
            return arr
        if arr.shape[2] == N_CLASSES and self.num_hands == N_COMBOS:
            return arr[:, :, COMBO_CLASS]
        if arr.shape[2] == N_COMBOS and self.num_hands == N_CLASSES:
            sums = np.zeros(arr.shape[:2] + (N_CLASSES,))
            np.add.at(sums, (slice(None), slice(None), COMBO_CLASS), arr)
            means = sums / np.asarray(CLASS_SIZE, dtype=np.float64)
            if not np.allclose(means[:, :, COMBO_CLASS], arr, atol=1e-12):
                raise PokerlabError(
                    "combo strategies that differ within a class need hands='combos'"
                )
            return means
        raise PokerlabError(f"hands axis must have 169 or 1326 entries, got {arr.shape[2]}")

    # --- values ----------------------------------------------------------------------------
    def sb_values(self, shove: np.ndarray, call: np.ndarray) -> np.ndarray:
        """(n, m) small blind's EV (bb/hand) of shover ``a`` against caller ``b``.

        ``shove`` is (n, stacks, H) and ``call`` (m, stacks, H), probabilities in this basis.
        """
        shove, call = self.fit(shove), self.fit(call)
        out = np.zeros((shove.shape[0], call.shape[0]))
        for k, row in enumerate(self._rows):
            s, c = shove[:, k], call[:, k]
            block = (s @ row.matrix) @ c.T
            block += (s @ row.alpha - row.sb_post)[:, None]
            out += row.prob * block
        return out

    def match_values(self, shove: np.ndarray, call: np.ndarray) -> np.ndarray:
        """(n, n) seat-averaged value of player a against player b (bb/hand, antisymmetric)."""
        ev = self.sb_values(shove, call)
        return 0.5 * (ev - ev.T)

    def against(
        self, shove: np.ndarray, call: np.ndarray, opp_shove: np.ndarray, opp_call: np.ndarray
    ) -> np.ndarray:
        """(n,) seat-averaged value of each player against one fixed opponent (bb/hand)."""
        as_sb = self.sb_values(shove, opp_call)[:, 0]
        as_bb = self.sb_values(opp_shove, call)[0, :]
        return 0.5 * (as_sb - as_bb)

    def best_response_values(self, shove: np.ndarray, call: np.ndarray) -> np.ndarray:
        """(n, 2) value of the small blind's best response to each ``call`` and of the big
        blind's best response to each ``shove`` (bb/hand, each from the responder's seat)."""
        shove, call = self.fit(shove), self.fit(call)
        out = np.zeros((shove.shape[0], 2))
        w = self.row_weights / self.total_pairs
        for k, row in enumerate(self._rows):
            s, c = shove[:, k], call[:, k]
            fold_sb = -row.sb_post * w
            shove_sb = row.bb_post * w + c @ row.matrix.T  # (M c)_i per player
            out[:, 0] += row.prob * np.maximum(fold_sb[None, :], shove_sb).sum(axis=1)
            faced = s @ self._weights  # (W^T s)_j: shoves the big blind's hand j faces
            showdown = s @ self._share  # (G^T s)_j
            folds = row.sb_post * (w[None, :] - faced)
            best = np.maximum(-row.bb_post * faced, -row.stack_bb * showdown)
            out[:, 1] += row.prob * (folds + best).sum(axis=1)
        return out

    def exploitability(self, shove: np.ndarray, call: np.ndarray) -> np.ndarray:
        """(n,) exploitability (bb/hand, mean of the two best-response values) of each player."""
        return self.best_response_values(shove, call).mean(axis=1)


class SimplePrefixPayoffs:
    """Round-robin values of simple players (best-k-combos strategies) by prefix-sum lookups.

    ``EV_sb`` of the cutoffs ``(k_r, k_c)`` (numbers of combos shoved / called, in the
    hand-strength order) is ``A[k_r] + T[k_r, k_c] - sbp``; building ``T`` costs two cumulative
    sums of a 1326 x 1326 matrix per stack, then every match is one lookup.
    """

    def __init__(self, payoffs: PushFoldPayoffs) -> None:
        from pokerlab.evolve.players import combo_rank

        if payoffs.hands != "combos":
            raise PokerlabError("simple players are evaluated over combos")
        order = np.argsort(combo_rank())
        n = N_COMBOS + 1
        self.table = np.zeros((n, n))
        self.alpha = np.zeros(n)
        for row in payoffs._rows:
            m = row.matrix[np.ix_(order, order)]
            t = np.zeros((n, n))
            t[1:, 1:] = m.cumsum(axis=0).cumsum(axis=1)
            self.table += row.prob * t
            a = np.zeros(n)
            a[1:] = np.cumsum(row.alpha[order])
            self.alpha += row.prob * (a - row.sb_post)

    def sb_values(self, shove_cut: np.ndarray, call_cut: np.ndarray) -> np.ndarray:
        """(n, m) small blind's EV of cutoff ``shove_cut[a]`` against ``call_cut[b]``."""
        kr = np.asarray(shove_cut, dtype=np.int64)
        kc = np.asarray(call_cut, dtype=np.int64)
        return self.alpha[kr][:, None] + self.table[np.ix_(kr, kc)]

    def match_values(self, cutoffs: np.ndarray) -> np.ndarray:
        """(n, n) seat-averaged match values from (n, 2) cutoffs ``(k_r, k_c)``."""
        ev = self.sb_values(cutoffs[:, 0], cutoffs[:, 1])
        return 0.5 * (ev - ev.T)
