"""A blueprint in a richer no-limit game with its randomised action translation averaged out,
answered for every board and hand at once (issue 24: the exact cost of the action abstraction).

:class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent` reads a line off its tree by
pseudo-harmonic translation with one draw per off-tree action (a hash of its seed, cards and
the line; :mod:`pokerlab.evaluate.nolimit.translation`). The draws are the agent's private
randomness, so the strategy it plays in the real game is the mixture, over every reading ``R``
of the line (each translated action read as one neighbouring size with its pseudo-harmonic
probability), of the blueprint played through ``R``. By Kuhn's theorem the exact best response
to that mixture is the best response to its behaviour strategy: at line ``L`` with hand ``h``,

    P(a | h, L) = sum_R w(R) rho_R(h, L) pi_R(a | h, L) / sum_R w(R) rho_R(h, L),

``w(R)`` the product of the reading's split probabilities, ``rho_R`` the probability that the
agent took its own actions of ``L`` when it read the line as ``R`` (its earlier decisions,
played back as real actions with :func:`~.translation.play_back`), ``pi_R`` its answer at
``L`` under ``R``. The readings are public (they depend on the line, never on the cards), so
they are enumerated once per line; the hand part is a bucket lookup per round, for every board
of the round at once (:meth:`AveragedTranslationAgent.board_probabilities`, which
:func:`~pokerlab.evaluate.nolimit.exact.exact_best_response` uses instead of one question per
board). A reading that loses the line (:class:`~.translation.ReadLine`) checks or calls from
there, as the hashed agent does. On a line that stays on the tree there is one reading and the
answer is :class:`BlueprintAgent`'s to the bit; the agent is blind to suits wherever its card
abstraction is (lossless or any suit-canonical buckets), so suit isomorphism is exact for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.evaluate.nolimit.agents import Action, PublicView, normalize_action
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.translation import play_back, read_split
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.games.nolimit.rules import BettingState, NoLimitRules
from pokerlab.tree._primitives import DEAL, DECISION

__all__ = ["AveragedTranslationAgent", "Reading"]

_SHOWN = (0, 3, 4, 5)

Move = tuple[int, int, int]


@dataclass(frozen=True)
class Reading:
    """One reading of a real line on the blueprint's tree: its probability ``weight``, the
    agent's own earlier decisions as ``(node, round, indices)`` (the tree actions whose real
    play-back is the action it took), and where it ends: ``node`` and ``abstract`` state, or
    ``node == -1`` when the line is lost (the agent checks or calls)."""

    weight: float
    own: tuple[tuple[int, int, tuple[int, ...]], ...]
    node: int
    abstract: BettingState | None


def _passive(rules: NoLimitRules, real: BettingState) -> tuple[int, int]:
    legal = real.legal_actions(rules)
    return legal[1] if real.to_call() > 0 else legal[0]


def _played(
    rules: NoLimitRules, acts: list[tuple[int, int]], abstract: BettingState, real: BettingState
) -> list[tuple[int, int]]:
    """The real action that each of the tree's actions ``acts`` (at ``abstract``) is played
    back as at ``real``."""
    if abstract == real:
        return list(acts)
    out = []
    for j in range(len(acts)):
        onehot = [1.0 if i == j else 0.0 for i in range(len(acts))]
        back = play_back(rules, acts, onehot, abstract, real)
        out.append(next(a for a, p in back.items() if p == 1.0))
    return out


class AveragedTranslationAgent(BlueprintAgent):
    """A :class:`BlueprintAgent` whose translation draws are averaged out (module docstring):
    the behaviour strategy of the randomised pseudo-harmonic translation, exact, suit-blind,
    and answered for many boards at once. Same arguments as :class:`BlueprintAgent` (``seed``
    is unused: no draw is made)."""

    suit_blind = True

    def __init__(self, strategy: Any, abstraction: Any, name: str = "blueprint") -> None:
        super().__init__(strategy, abstraction, name=name)
        object.__setattr__(self, "_readings", {})
        object.__setattr__(self, "_states", {})

    # the public part: readings of a line ---------------------------------------------
    def readings(self, history: tuple[Move, ...]) -> list[Reading]:
        """Every reading of the real line ``history`` with positive weight under which the
        agent on move after it could have taken its own actions of it (cached per line)."""
        real = self._real(history)
        seat = real.to_act  # the seat whose answers these are
        tree = self.strategy.layout.tree  # type: ignore[attr-defined]
        out = []
        for r in self._frontier(history, seat):
            if (
                r.node >= 0
                and r.abstract is not None
                and (
                    tree.kind[r.node] != DECISION
                    or r.abstract.street != real.street
                    or r.abstract.to_act != real.to_act
                )
            ):
                r = Reading(r.weight, r.own, -1, None)
            out.append(r)
        return out

    def _real(self, history: tuple[Move, ...]) -> BettingState:
        """The real betting state after ``history`` (cached)."""
        cache: dict[Any, Any] = self._readings  # type: ignore[attr-defined]
        got = cache.get(("real", history))
        if got is None:
            rules = self.strategy.game.rules  # type: ignore[attr-defined]
            if history:
                _, kind, amount = history[-1]
                got = self._real(history[:-1]).apply(rules, kind, amount)
            else:
                got = rules.initial_state()
            cache[("real", history)] = got
        return got

    def _frontier(self, history: tuple[Move, ...], seat: int) -> list[Reading]:
        """The readings of ``history`` for the agent in ``seat`` before the last check of
        :meth:`readings`, each line's from its parent's (cached)."""
        cache: dict[Any, Any] = self._readings  # type: ignore[attr-defined]
        key = (seat, history)
        got = cache.get(key)
        if got is not None:
            return got
        game = self.strategy.game  # type: ignore[attr-defined]
        rules, abstraction = game.rules, game.abstraction
        if not history:
            got = cache[key] = [Reading(1.0, (), 0, rules.initial_state())]
            return got
        tree = self.strategy.layout.tree  # type: ignore[attr-defined]
        s, kind, amount = history[-1]
        real = self._real(history[:-1])
        new: list[Reading] = []
        for r in self._frontier(history[:-1], seat):
            node, abstract = r.node, r.abstract
            if (
                node >= 0
                and abstract is not None
                and (
                    tree.kind[node] != DECISION
                    or int(tree.player[node]) != s
                    or abstract.street != real.street
                    or abstract.to_act != s
                )
            ):
                node, abstract = -1, None
            if node < 0 or abstract is None:  # lost: the agent checks or calls
                if s != seat or (kind, amount) == _passive(rules, real):
                    new.append(Reading(r.weight, r.own, -1, None))
                continue
            acts = abstract_actions(rules, abstraction, abstract)
            own = r.own
            if s == seat:
                played = _played(rules, acts, abstract, real)
                took = tuple(j for j, a in enumerate(played) if a == (kind, amount))
                if not took:
                    continue  # never played under this reading
                own = (*own, (node, int(tree.round[node]), took))
            for j, p in read_split(rules, acts, abstract, real, kind, amount):
                if p <= 0.0:
                    continue
                child = int(tree.children[tree.child_start[node] + j])
                if tree.kind[child] == DEAL:
                    child = int(tree.children[tree.child_start[child]])
                new.append(Reading(r.weight * p, own, child, abstract.apply(rules, *acts[j])))
        cache[key] = new
        return new

    # the private part: buckets of every board and hand --------------------------------
    def _bucket_rows(self, rnd: int, boards: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """The private state (:func:`~.blueprint.bucket_state`) of every hand on every board
        (``boards`` int ``(B, shown)`` of round ``rnd``), int64 ``(B, H)``; 0 where the hand
        meets the board. Kept per board (a sorted table of board codes per round) for the
        latest ``hands`` asked about."""
        cache: dict[Any, Any] = self._states  # type: ignore[attr-defined]
        who = hands.tobytes()
        if cache.get("hands") != who:
            cache.clear()
            cache["hands"] = who
        codes = boards @ (52 ** np.arange(boards.shape[1], dtype=np.int64))
        known, table = cache.get(rnd, (np.zeros(0, np.int64), np.zeros((0, len(hands)), np.int64)))
        pos = np.minimum(np.searchsorted(known, codes), max(len(known) - 1, 0))
        found = (known[pos] == codes) if len(known) else np.zeros(len(codes), dtype=bool)
        if not found.all():
            fresh, first = np.unique(codes[~found], return_index=True)
            sub = boards[~found][first]
            known = np.concatenate([known, fresh])
            table = np.concatenate([table, self._compute_rows(rnd, sub, hands)])
            order = np.argsort(known, kind="stable")
            known, table = known[order], table[order]
            cache[rnd] = (known, table)
            pos = np.searchsorted(known, codes)
        return table[pos]

    def _compute_rows(self, rnd: int, boards: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """:meth:`_bucket_rows` without the table."""
        layout = self.strategy.layout  # type: ignore[attr-defined]
        ab = self.abstraction  # type: ignore[attr-defined]
        B, H = len(boards), len(hands)
        ok = ~(hands[None, :, :, None] == boards[:, None, None, :]).any(axis=(2, 3))  # (B, H)
        bi, hi = np.nonzero(ok)
        rows = np.concatenate([hands[hi], boards[bi]], axis=1)
        first = rnd if layout.recall != "perfect" else 0
        s = np.zeros(len(rows), dtype=np.int64)
        for r in range(first, rnd + 1):
            index = round_indexer(r, ab.ranks).index(rows[:, : 2 + _SHOWN[r]])
            labels = np.asarray(ab.labels[r])[index].astype(np.int64)
            s = s * int(layout.buckets[r]) + labels
        full = np.zeros((B, H), dtype=np.int64)
        full[bi, hi] = s
        return full

    def _node_probs(self, node: int, states: np.ndarray, idx: tuple[int, ...]) -> np.ndarray:
        """The summed probability of the tree actions ``idx`` at ``node`` for private states
        ``states`` (any shape)."""
        layout = self.strategy.layout  # type: ignore[attr-defined]
        rnd = int(layout.tree.round[node])
        ns = int(layout.num_states[rnd])
        base = int(layout.offset[node])
        probs = self.strategy.probs  # type: ignore[attr-defined]
        out = np.asarray(probs[base + idx[0] * ns + states], dtype=np.float64)
        for j in idx[1:]:
            out = out + probs[base + j * ns + states]
        return out

    def board_probabilities(
        self,
        rules: NoLimitRules,
        state: BettingState,
        history: tuple[Move, ...],
        boards: np.ndarray,
        hands: np.ndarray,
        held: np.ndarray,
        actions: list[Action],
    ) -> np.ndarray:
        """The probability of each of ``actions`` (canonical real actions at ``state``) for
        every board (rows of ``boards``, the cards shown this round) and hand (rows of
        ``hands``), float64 ``(A, B, H)``; 0 where ``held`` (``(B, H)``) is false. Actions the
        agent plays that are not among ``actions`` are left out (the rows then sum below 1)."""
        boards = np.asarray(boards, dtype=np.int64).reshape(len(held), -1)
        hands = np.asarray(hands, dtype=np.int64)
        out = np.zeros((len(actions), *held.shape), dtype=np.float64)
        readings = self.readings(tuple(history))
        game = self.strategy.game  # type: ignore[attr-defined]
        position = {a: i for i, a in enumerate(actions)}
        states: dict[int, np.ndarray] = {}

        def states_of(rnd: int) -> np.ndarray:
            got = states.get(rnd)
            if got is None:
                got = states[rnd] = self._bucket_rows(rnd, boards[:, : _SHOWN[rnd]], hands)
            return got

        total = np.zeros(held.shape, dtype=np.float64)
        flat = np.zeros_like(out)  # weighed by the translation alone (hands reached by none)
        single = len(readings) == 1
        for r in readings:
            reach = np.full(held.shape, r.weight)
            if not single:
                for node, rnd, took in r.own:
                    reach = reach * self._node_probs(node, states_of(rnd), took)
            total += reach
            if r.node < 0 or r.abstract is None:
                a = position.get(_passive(rules, state))
                if a is not None:
                    out[a] += 1.0 if single else reach
                    flat[a] += r.weight
                continue
            acts = abstract_actions(game.rules, game.abstraction, r.abstract)
            groups: dict[int, list[int]] = {}
            for j, real in enumerate(_played(rules, acts, r.abstract, state)):
                a = position.get(real)
                if a is not None:
                    groups.setdefault(a, []).append(j)
            rnd = int(self.strategy.layout.tree.round[r.node])  # type: ignore[attr-defined]
            for a, idx in groups.items():
                pi = self._node_probs(r.node, states_of(rnd), tuple(idx))
                if single:
                    out[a] = pi
                else:
                    out[a] += reach * pi
                    flat[a] += r.weight * pi
        if not single:
            prior = max(sum(r.weight for r in readings), 1e-300)
            reached = total > 0
            out = np.where(reached, out / np.where(reached, total, 1.0), flat / prior)
        return out * held

    # the agent interface ---------------------------------------------------------------
    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        """The averaged translation's probability of ``action`` for every row of ``hands``
        (0 for hands meeting the board)."""
        key = normalize_action(view, action, self.name)
        hands = np.asarray(hands, dtype=np.int64).reshape(-1, 2)
        held = ~np.isin(hands, np.asarray(view.board, dtype=np.int64)).any(axis=1)
        board = np.asarray([view.board], dtype=np.int64).reshape(1, len(view.board))
        got = self.board_probabilities(
            view.rules, view.state, view.history, board, hands, held[None, :], [key]
        )
        return got[0, 0]

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        """Every real action the averaged translation may play holding ``hole``, with its
        probability."""
        rules = view.rules
        game = self.strategy.game  # type: ignore[attr-defined]
        candidates = {_passive(rules, view.state)}
        for r in self.readings(tuple(view.history)):
            if r.node >= 0 and r.abstract is not None:
                acts = abstract_actions(game.rules, game.abstraction, r.abstract)
                candidates.update(_played(rules, acts, r.abstract, view.state))
        actions = sorted(candidates)
        hands = np.asarray([hole], dtype=np.int64)
        board = np.asarray([view.board], dtype=np.int64).reshape(1, len(view.board))
        got = self.board_probabilities(
            rules, view.state, view.history, board, hands, np.ones((1, 1), bool), actions
        )
        return {a: float(p) for a, p in zip(actions, got[:, 0, 0], strict=True) if p > 0}
