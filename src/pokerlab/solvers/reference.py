"""A plain, readable CFR over the history interface: the oracle the fast kernels are tested against.

Nothing here is optimised. Each update line carries the formula it implements, with the notation of
Zinkevich et al. (2007): pi_i(h) is player i's contribution to the probability of reaching h,
pi_-i(h) everyone else's including chance, v_i(h) player i's expected utility below h under the
current strategy sigma_t. Discounting follows :mod:`pokerlab.solvers.schedule`; a predictive
schedule (Predictive CFR+, Farina, Kroer & Sandholm 2021; PDCFR+, Xu et al. 2024) plays regret
matching on the predicted regrets P instead of R.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from pokerlab.games.base import History, HistoryGame
from pokerlab.solvers.schedule import DiscountSchedule

__all__ = ["ReferenceCFR"]


class ReferenceCFR:
    """Tabular CFR keyed by information-set strings, for small games and tests."""

    def __init__(
        self, game: HistoryGame, schedule: DiscountSchedule, alternating: bool = True
    ) -> None:
        self.game = game
        self.schedule = schedule
        self.alternating = alternating
        self.iterations = 0
        # R_T(I, a): cumulative counterfactual regret; S_T(I, a): cumulative strategy;
        # P_T(I, a): predicted regret (predictive schedules).
        self.regrets: dict[str, np.ndarray] = {}
        self.strategy_sum: dict[str, np.ndarray] = {}
        self.prediction: dict[str, np.ndarray] = {}
        self.player_of: dict[str, int] = {}

    def _table(self, key: str, num_actions: int, player: int) -> None:
        if key not in self.regrets:
            self.regrets[key] = np.zeros(num_actions)
            self.strategy_sum[key] = np.zeros(num_actions)
            self.prediction[key] = np.zeros(num_actions)
            self.player_of[key] = player

    def current_strategy(self, key: str) -> np.ndarray:
        """sigma_t(I, a) = R+(I, a) / sum_b R+(I, b), or uniform when no regret is positive;
        with a predictive schedule P+ instead of R+."""
        source = self.prediction if self.schedule.predictive else self.regrets
        positive = np.maximum(source[key], 0.0)
        total = positive.sum()
        if total > 0:
            return positive / total
        return np.full(len(positive), 1.0 / len(positive))

    def average_strategy(self) -> dict[str, np.ndarray]:
        """sigma_bar(I, a) = S(I, a) / sum_b S(I, b)."""
        out = {}
        for key, s in self.strategy_sum.items():
            total = s.sum()
            out[key] = s / total if total > 0 else np.full(len(s), 1.0 / len(s))
        return out

    def iterate(self) -> None:
        """One iteration: alternating (each player in turn) or simultaneous updates."""
        self.iterations += 1
        t = self.iterations
        a_t, b_t, g_t = self.schedule.factors(t)
        # the discounts the next iteration will apply: the prediction anticipates them
        a_next, b_next, _ = self.schedule.factors(t + 1)
        n = self.game.num_players
        groups = [[i] for i in range(n)] if self.alternating else [list(range(n))]
        for players in groups:
            self._discount(players, a_t, b_t, g_t)
            # The strategy of this pass is fixed before any regret of the pass is applied.
            sigma = {key: self.current_strategy(key) for key in self.regrets}
            instant: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(0))
            self._walk(self.game.initial_history(), np.ones(n), 1.0, players, sigma, instant)
            for key, r in instant.items():
                # R_t(I, a) = R_{t-1}(I, a) + r_t(I, a), clipped at 0 for CFR+.
                self.regrets[key] = self.regrets[key] + r
                if self.schedule.regret_floor:
                    self.regrets[key] = np.maximum(self.regrets[key], 0.0)
                if self.schedule.predictive:
                    # P_t(I, a) = R_t(I, a) d_{t+1} + r_t(I, a), the next instantaneous regret
                    # predicted to equal this one; d = a_{t+1} where R > 0, b_{t+1} elsewhere;
                    # clipped at 0 for the "+" variants (PCFR+: d = 1).
                    big_r = self.regrets[key]
                    pred = np.where(big_r > 0, big_r * a_next, big_r * b_next) + r
                    if self.schedule.regret_floor:
                        pred = np.maximum(pred, 0.0)
                    self.prediction[key] = pred

    def _discount(self, players: list[int], a_t: float, b_t: float, g_t: float) -> None:
        for key, r in self.regrets.items():
            if self.player_of[key] in players:
                # R <- R * a_t where R > 0, R * b_t elsewhere;  S <- S * g_t
                self.regrets[key] = np.where(r > 0, r * a_t, r * b_t)
                self.strategy_sum[key] = self.strategy_sum[key] * g_t

    def _walk(
        self,
        h: History,
        pi: np.ndarray,
        pi_chance: float,
        players: list[int],
        sigma: dict[str, np.ndarray],
        instant: dict[str, np.ndarray],
    ) -> np.ndarray:
        """Return v(h), every player's expected utility below h under sigma_t."""
        n = self.game.num_players
        if h.is_terminal():
            return np.array([h.terminal_utility(i) for i in range(n)])
        if h.is_chance():
            # v(h) = sum_o P(o) v(h.o)
            v = np.zeros(n)
            for outcome, p in h.chance_outcomes():
                v += p * self._walk(h.child(outcome), pi, pi_chance * p, players, sigma, instant)
            return v
        i = h.current_player()
        key = h.info_set_key()
        actions = list(h.legal_actions())
        self._table(key, len(actions), i)
        strategy = sigma.get(key)
        if strategy is None:
            strategy = self.current_strategy(key)
            sigma[key] = strategy
        child_values = []
        for a, action in enumerate(actions):
            pi_child = pi.copy()
            pi_child[i] *= strategy[a]  # pi_i(h.a) = pi_i(h) sigma(I, a)
            child_values.append(
                self._walk(h.child(action), pi_child, pi_chance, players, sigma, instant)
            )
        # v(h) = sum_a sigma(I, a) v(h.a)
        v = sum(strategy[a] * child_values[a] for a in range(len(actions)))
        if i in players:
            # pi_-i(h): the other players' and chance's contribution to reaching h
            pi_minus_i = pi_chance * float(np.prod(np.delete(pi, i)))
            # r(I, a) += pi_-i(h) (v_i(h.a) - v_i(h))
            r = np.array([pi_minus_i * (child_values[a][i] - v[i]) for a in range(len(actions))])
            instant[key] = instant[key] + r if len(instant[key]) else r
            # S(I, a) += pi_i(h) sigma(I, a)
            self.strategy_sum[key] += pi[i] * strategy
        return v
