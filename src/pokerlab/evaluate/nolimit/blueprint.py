"""A trained no-limit blueprint as something the evaluators take (issue 24): a match agent
(:class:`BlueprintAgent`) and, on tiny decks, the same strategy on the history interface
(:func:`history_strategy`), whose exact best response is the engine's.

Both read a :class:`~pokerlab.strategy.BettingStrategy` on the game's betting tree
(:meth:`~pokerlab.solvers.blueprint.BlueprintSolver.average_strategy`)
and the card abstraction it was trained with: the line played so far names the tree's node (its
labels are the history interface's tokens), the seat's cards and the board shown name its state
(this round's bucket, or the bucket sequence with perfect recall). Lines off the tree (a bet
size the abstraction lacks) are read onto it by randomised pseudo-harmonic action translation
(:mod:`pokerlab.evaluate.nolimit.translation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pokerlab.cards.deck import parse_cards
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import (
    Action,
    NoLimitAgent,
    PublicView,
    normalize_action,
    passive_action,
)
from pokerlab.evaluate.nolimit.blueprint_states import (
    bucket_state,
    bucket_states,
    node_probs,
    per_board_rows,
    row_states,
)
from pokerlab.evaluate.nolimit.translation import (
    ReadLine,
    play_back,
    read_line,
    read_lines,
    read_split,
)
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.games.nolimit.betting import token
from pokerlab.strategy import BettingStrategy, Strategy
from pokerlab.tree._primitives import DEAL, DECISION
from pokerlab.tree.compiled import compile_game

__all__ = ["BlueprintAgent", "bucket_state", "bucket_states", "history_strategy", "node_probs"]


class BlueprintAgent(NoLimitAgent):
    """Plays ``strategy`` (a blueprint's :class:`~pokerlab.strategy.BettingStrategy`) with the
    card ``abstraction`` it was trained with, in any seat of :func:`duplicate_match
    <pokerlab.evaluate.nolimit.matches.duplicate_match>` or against local best response.

    Lines off its tree are read onto it by randomised pseudo-harmonic action translation and its
    answers played back as real actions (:mod:`pokerlab.evaluate.nolimit.translation`); ``seed``
    picks the translation's draws (a hash of the seed, the hole cards and the line, so the agent
    is a pure function of its view)."""

    def __init__(
        self, strategy: BettingStrategy, abstraction: Any, name: str = "blueprint", seed: int = 0
    ):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "strategy", strategy)
        object.__setattr__(self, "abstraction", abstraction)
        object.__setattr__(self, "seed", int(seed))
        object.__setattr__(self, "_nodes", {})

    def _walk(self, history: tuple[tuple[int, int, int], ...]) -> tuple[int, str]:
        """The tree's node after ``history`` when every action is on the tree, else -1 and why
        (on-tree lines cached)."""
        cache: dict[tuple[tuple[int, int, int], ...], int] = self._nodes  # type: ignore[attr-defined]
        got = cache.get(history)
        if got is not None:
            return got, ""
        tree = self.strategy.layout.tree  # type: ignore[attr-defined]
        n = 0
        for seat, kind, amount in history:
            if tree.kind[n] != DECISION or int(tree.player[n]) != seat:
                return -1, f"blueprint: seat {seat} does not act at this point"
            want = token(kind, amount)
            kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
            match = [int(k) for k in kids if tree.labels[int(k)] == want]
            if not match:
                return (
                    -1,
                    f"blueprint: the action {want!r} after {tree.history[n]!r} is off the tree",
                )
            n = match[0]
            if tree.kind[n] == DEAL:
                n = int(tree.children[tree.child_start[n]])
        cache[history] = n
        return n, ""

    def node(self, history: tuple[tuple[int, int, int], ...]) -> int:
        """The tree's decision node after the actions ``history`` (``(seat, kind, amount)``),
        every one on the tree; :class:`~pokerlab.errors.PokerlabError` naming the first action
        off it (:meth:`read` translates instead)."""
        n, why = self._walk(history)
        if n < 0:
            raise PokerlabError(why)
        return n

    def read(self, view: PublicView, hole: tuple[int, int]) -> ReadLine:
        """Where the hand's real line stands on the tree for a seat holding ``hole`` (on-tree
        lines from a cache; others translated, :func:`~.translation.read_line`)."""
        n, _ = self._walk(view.history)
        if n >= 0:
            return ReadLine(n, view.state, 0)
        game = self.strategy.game  # type: ignore[attr-defined]
        tree = self.strategy.layout.tree  # type: ignore[attr-defined]
        seed: int = self.seed  # type: ignore[attr-defined]
        return read_line(tree, game.rules, game.abstraction, view.history, hole, seed)

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        strategy = self.strategy  # type: ignore[attr-defined]
        game = strategy.game
        line = self.read(view, hole)
        if line.lost or line.abstract is None:
            return {passive_action(view): 1.0}
        rnd = int(strategy.layout.tree.round[line.node])
        s = bucket_state(strategy, self.abstraction, rnd, [*hole, *view.board])  # type: ignore[attr-defined]
        probs = node_probs(strategy, line.node, s)
        acts = abstract_actions(game.rules, game.abstraction, line.abstract)
        return play_back(game.rules, acts, probs, line.abstract, view.state)

    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        """:meth:`policy`'s probability of ``action`` for every row of ``hands`` at once where
        the line so far is on the tree (one bucket lookup per hand; Bayes' rule over a hand's
        actions, as search and LBR need it); off the tree, hand by hand (the translation's
        draws depend on the hole cards). Hands meeting the board get 0."""
        n, _ = self._walk(view.history)
        if n < 0:
            return self._translated_probability(view, hands, action)
        strategy = self.strategy  # type: ignore[attr-defined]
        tree = strategy.layout.tree
        want = token(*normalize_action(view, action, self.name))
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        match = [i for i, k in enumerate(kids) if tree.labels[int(k)] == want]
        hands = np.asarray(hands, dtype=np.int64)
        out = np.zeros(len(hands), dtype=np.float64)
        if not match:
            return out  # on the tree the blueprint plays only the tree's actions
        ok = ~np.isin(hands, np.asarray(view.board, dtype=np.int64)).any(axis=1)
        rnd = int(tree.round[n])
        states = bucket_states(strategy, self.abstraction, rnd, hands[ok], view.board)  # type: ignore[attr-defined]
        layout = strategy.layout
        ns = int(layout.num_states[rnd])
        out[ok] = strategy.probs[int(layout.offset[n]) + match[0] * ns + states]
        return out

    def _translated_probability(
        self, view: PublicView, hands: np.ndarray, action: Action
    ) -> np.ndarray:
        """:meth:`action_probability` off the tree: :meth:`policy`'s answers for every hand,
        grouped by how the hand's draws read the line (:func:`~.translation.read_lines`)."""
        key = normalize_action(view, action, self.name)
        strategy = self.strategy  # type: ignore[attr-defined]
        game, layout = strategy.game, strategy.layout
        hands = np.asarray(hands, dtype=np.int64)
        out = np.zeros(len(hands), dtype=np.float64)
        ok = ~np.isin(hands, np.asarray(view.board, dtype=np.int64)).any(axis=1)
        groups = read_lines(
            layout.tree,
            game.rules,
            game.abstraction,
            view.history,
            hands[ok],
            self.seed,  # type: ignore[attr-defined]
        )
        where = np.flatnonzero(ok)
        for line, rows in groups:
            rows = where[rows]
            if line.lost or line.abstract is None:
                out[rows] = 1.0 if key == passive_action(view) else 0.0
                continue
            acts = abstract_actions(game.rules, game.abstraction, line.abstract)
            took = []
            for j in range(len(acts)):
                onehot = [1.0 if i == j else 0.0 for i in range(len(acts))]
                back = play_back(game.rules, acts, onehot, line.abstract, view.state)
                real = next(a for a, p in back.items() if p == 1.0)
                if normalize_action(view, real, self.name) == key:
                    took.append(j)
            if not took:
                continue
            rnd = int(layout.tree.round[line.node])
            states = bucket_states(strategy, self.abstraction, rnd, hands[rows], view.board)  # type: ignore[attr-defined]
            ns = int(layout.num_states[rnd])
            base = int(layout.offset[line.node])
            total = np.zeros(len(rows), dtype=np.float64)
            for j in took:
                total = total + strategy.probs[base + j * ns + states]
            out[rows] = total
        return out

    def belief_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        """The probability of ``action`` for every row of ``hands`` under the blueprint read
        through translation: an action on the tree is :meth:`action_probability`; a size off
        it is as likely as the tree's sizes it reads as, weighted by the pseudo-harmonic split
        (the translation's draw averaged out; :func:`~.translation.read_split`). The belief
        that search keeps about a player whose actual sizes the blueprint lacks (a player who
        makes them is otherwise impossible under the blueprint). Hands meeting the board get
        0; a lost line (the agent would check or call) gives the passive action 1."""
        return self.belief_probabilities(view, hands, [action])[0]

    def belief_probabilities(
        self,
        view: PublicView,
        hands: np.ndarray,
        actions: Sequence[Action],
        memo: dict[Any, Any] | None = None,
    ) -> np.ndarray:
        """:meth:`belief_probability` of each of ``actions`` at once, float64 ``(A, H)``: the
        line read and the hands' buckets once for all of them (what a node's actions share).

        ``memo``: a dict the caller keeps while it reads many views with the same ``hands``
        (a subgame's projection reads every node of a tree): the hands live on each board,
        their buckets per round and board, and what each line reads (:meth:`_plan`: the
        translation's readings and splits, which depend on the hole cards and the line, not
        the board) are kept in it and reused; the numbers are the same as without it."""
        return self.belief_boards(view, [view.board], hands, actions, memo)[:, 0]

    def belief_boards(
        self,
        view: PublicView,
        boards: Sequence[tuple[int, ...]],
        hands: np.ndarray,
        actions: Sequence[Action],
        memo: dict[Any, Any] | None = None,
    ) -> np.ndarray:
        """:meth:`belief_probabilities` of the view's line on each of ``boards`` (the cards
        dealt differ, the actions do not; each as long as the view's), float64 ``(A, B, H)``:
        the line read once and the buckets of every board looked up together (a projection
        reads one line under every river card)."""
        hands, memo, boards, ok, plan = self._read(view, boards, hands, actions, memo)
        out = np.zeros((len(actions), len(boards), len(hands)), dtype=np.float64)
        probs = self.strategy.probs  # type: ignore[attr-defined]
        # every hand's entries are written, the dead ones (state -1) zeroed at the end: the
        # same numbers as masking each term (probabilities are finite and non-negative)
        for rows, lost, rnd, base, ns, splits in plan:
            at = slice(None) if rows is None else rows  # None: every hand reads the line alike
            if lost:  # a lost line: the passive action
                for row, value in enumerate(splits):
                    out[row][:, at] = value
                continue
            states = self._states(memo, rnd, hands, boards, ok)
            states = states if rows is None else states[:, rows]
            for row, split in enumerate(splits):
                for j, w in split:
                    out[row][:, at] += w * probs[base + j * ns + states]
        out *= ok
        return out

    def write_belief_boards(
        self,
        view: PublicView,
        boards: Sequence[tuple[int, ...]],
        hands: np.ndarray,
        actions: Sequence[Action],
        offsets: np.ndarray,
        out: np.ndarray,
        memo: dict[Any, Any] | None = None,
    ) -> None:
        """:meth:`belief_boards` normalised over ``actions`` per board and hand (1 / A where
        they sum to 0, as for a dead hand) and written into ``out`` (float32): board ``b``'s
        block of ``(A, H)`` starts at ``offsets[b]``, the layout of a spot's decision node (a
        projection writes one line's nodes under every card at once; the same numbers as
        normalising :meth:`belief_boards` in float64 and copying it there)."""
        hands, memo, boards, ok, plan = self._read(view, boards, hands, actions, memo)
        n_a = len(actions)
        width = max((len(split) for entry in plan for split in entry[5] if not entry[1]), default=1)
        entry_of = np.zeros(len(hands), dtype=np.int64)
        base = np.zeros(len(plan), dtype=np.int64)
        ns = np.ones(len(plan), dtype=np.int64)
        lost = np.zeros(len(plan), dtype=np.bool_)
        split_j = np.full((len(plan), n_a, width), -1, dtype=np.int64)
        split_w = np.zeros((len(plan), n_a, width), dtype=np.float64)
        states = np.zeros((len(boards), len(hands)), dtype=np.int64)
        for e, (rows, is_lost, rnd, b, n_s, splits) in enumerate(plan):
            at = slice(None) if rows is None else rows
            entry_of[at] = e
            if is_lost:
                lost[e] = True
                split_w[e, :, 0] = splits
                continue
            base[e], ns[e] = b, n_s
            for row, split in enumerate(splits):
                for k, (j, w) in enumerate(split):
                    split_j[e, row, k], split_w[e, row, k] = j, w
            found = self._states(memo, rnd, hands, boards, ok)
            states[:, at] = found if rows is None else found[:, rows]
        from pokerlab.evaluate.nolimit._projection_kernels import write_line

        probs = np.asarray(self.strategy.probs, dtype=np.float64)  # type: ignore[attr-defined]
        offsets = np.asarray(offsets, dtype=np.int64)
        write_line(probs, states, ok, entry_of, base, ns, split_j, split_w, lost, offsets, out)

    def _read(
        self, view: PublicView, boards: Sequence[tuple[int, ...]], hands: np.ndarray,
        actions: Sequence[Action], memo: dict[Any, Any] | None,
    ) -> tuple[np.ndarray, dict[Any, Any], list[Any], np.ndarray, list[Any]]:  # fmt: skip
        """What both belief readers start from: the hands (int64), the memo, the boards as
        tuples, which hands are live on each board (``(B, H)``) and the line's plan
        (:meth:`_plan`, kept in the memo)."""
        hands = np.asarray(hands, dtype=np.int64)
        memo = {} if memo is None else memo
        boards = [tuple(b) for b in boards]
        ok = self._live(memo, hands, boards)  # (B, H)
        plan = memo.get(("plan", view.history, tuple(actions)))
        if plan is None:
            plan = memo[("plan", view.history, tuple(actions))] = self._plan(view, hands, actions)
        return hands, memo, boards, ok, plan

    def _plan(
        self, view: PublicView, hands: np.ndarray, actions: Sequence[Action]
    ) -> list[tuple[Any, ...]]:
        """What :meth:`belief_probabilities` reads for ``actions`` after the view's line, which
        does not depend on the board: per group of hands that read the line alike (``None``:
        every hand, the line is on the tree; else their rows of ``hands``), whether the reading
        is lost, the tree node's round, offset and private-state count, and per action the
        pseudo-harmonic split over the node's actions (a lost line: the passive action's 1 or
        0)."""
        keys = [normalize_action(view, a, self.name) for a in actions]
        strategy = self.strategy  # type: ignore[attr-defined]
        game = strategy.game
        layout = strategy.layout
        n, _ = self._walk(view.history)
        if n >= 0:
            acts = abstract_actions(game.rules, game.abstraction, view.state)
            rnd = int(layout.tree.round[n])
            splits = [read_split(game.rules, acts, view.state, view.state, *k) for k in keys]
            return [(None, False, rnd, int(layout.offset[n]), int(layout.num_states[rnd]), splits)]
        # off the tree: the hands grouped by how their draws read the line (one tree walk and
        # one bucket lookup per group, as :meth:`_translated_probability`); a hand's reading
        # depends on its hole cards and the line, not on the board
        passive = passive_action(view)
        plan = []
        groups = read_lines(
            layout.tree, game.rules, game.abstraction, view.history, hands,
            self.seed,  # type: ignore[attr-defined]
        )  # fmt: skip
        for line, rows in groups:
            if line.lost or line.abstract is None:
                plan.append((rows, True, 0, 0, 0, [1.0 if k == passive else 0.0 for k in keys]))
                continue
            acts = abstract_actions(game.rules, game.abstraction, line.abstract)
            rnd = int(layout.tree.round[line.node])
            splits = [read_split(game.rules, acts, line.abstract, view.state, *k) for k in keys]
            base = int(layout.offset[line.node])
            plan.append((rows, False, rnd, base, int(layout.num_states[rnd]), splits))
        return plan

    @staticmethod
    def _live(memo: dict[Any, Any], hands: np.ndarray, boards: list[tuple[int, ...]]) -> np.ndarray:
        """Which rows of ``hands`` meet no card of each of ``boards`` (bool ``(B, H)``; the
        boards' rows found at once by card bit masks, :func:`per_board_rows`)."""

        def make(missing: list[int]) -> np.ndarray:
            held = (np.int64(1) << hands[:, 0]) | (np.int64(1) << hands[:, 1])
            shown = np.array([sum(1 << c for c in boards[i]) for i in missing], dtype=np.int64)
            return (held[None, :] & shown[:, None]) == 0

        return per_board_rows(memo, ("live",), boards, make)

    def _states(
        self, memo: dict[Any, Any], rnd: int, hands: np.ndarray, boards: list[tuple[int, ...]],
        ok: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """The private state (:func:`bucket_state`) in round ``rnd`` of every hand of
        ``hands`` live on each of ``boards`` (``ok``: ``(B, H)``), -1 for the others, int64
        ``(B, H)``; the boards' rows looked up from one table (:func:`per_board_rows`)."""

        def make(missing: list[int]) -> np.ndarray:
            table = np.asarray([boards[i] for i in missing], dtype=np.int64)  # (M, board)
            live = ok[missing]  # (M, H)
            rows = np.empty((len(missing), len(hands), 2 + table.shape[1]), dtype=np.int64)
            rows[:, :, :2], rows[:, :, 2:] = hands, table[:, None, :]
            states = np.full(live.shape, -1, dtype=np.int64)
            states[live] = row_states(self.strategy, self.abstraction, rnd, rows[live])  # type: ignore[attr-defined]
            return states

        return per_board_rows(memo, ("states", rnd), boards, make)


def history_strategy(strategy: BettingStrategy, abstraction: Any) -> Strategy:
    """``strategy`` on the game's history interface (tiny decks: every information set
    ``"hole|board:betting"`` of :func:`pokerlab.compile_game`), for the exact evaluators of
    :mod:`pokerlab.evaluate` (best response, exploitability, expected values)."""
    game = strategy.game
    compiled = compile_game(game)
    tree = strategy.layout.tree
    probs = compiled.uniform()
    index = compiled.index
    for k, key in enumerate(index.keys):
        cards_part, _, betting = key.partition(":")
        hole, _, board = cards_part.partition("|")
        cards = [int(c) for c in parse_cards(hole + board)]
        n = tree.find(betting)
        rnd = int(tree.round[n])
        s = bucket_state(strategy, abstraction, rnd, cards)
        probs[index.positions(k)] = node_probs(strategy, n, s)
    return Strategy(compiled, probs)
