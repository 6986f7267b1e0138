"""CFR with public chance sampling on abstracted heads-up limit hold'em (issue 10).

Public chance sampling (Johanson, Bard, Lanctot, Gibson and Bowling 2012, "Efficient Nash
equilibrium approximation through Monte Carlo counterfactual regret minimization"): each
iteration samples the public cards (the whole five-card board; a batch of boards with
``boards_per_iteration``) and walks the shared betting tree once per player with vectors over
the hole-card pairs that miss each board, mapped per round to its bucket
(imperfect recall) or bucket sequence (perfect recall) by the card abstraction
(:mod:`pokerlab.abstraction.buckets`). Showdowns compare the real cards on the sampled board, so
the abstract game is exactly "the real game where a player only remembers its buckets"; chance
weights are folded into a scale so that a pass returns unbiased counterfactual values.

Regrets and strategy sums are float32 arrays laid out per decision node as ``actions x states``
(states: the node's round's bucket count, or the product of the counts so far with perfect
recall); the engine's discount schedules (:mod:`pokerlab.solvers.schedule`) scale them before
each iteration. The solver has the engine's verbs: ``step``, ``solve``, ``average_strategy``,
``state_dict`` / ``load_state_dict`` (exact resume: the generator state travels with it).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from pokerlab._rng import generator
from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DEAL, DECISION, LimitHoldemGame
from pokerlab.solvers.schedule import (
    DiscountSchedule,
    LazyScale,
    discount_factors,
    schedule_by_name,
)
from pokerlab.strategy import BettingStrategy
from pokerlab.tree._primitives import RunArrays
from pokerlab.tree.betting import _kernels as K
from pokerlab.tree.betting._kernels import BettingArrays, BoardBatch, Discounts, betting_arrays
from pokerlab.tree.betting._subtree_kernels import (
    NO_CUTS,
    Cuts,
    SubtreeScratch,
    pcs_subtree,
    subtree_buffers,
    tree_depth,
)
from pokerlab.tree.betting.layout import BettingLayout
from pokerlab.tree.betting.layout import state_counts as layout_states

__all__ = ["BoardBatch", "LimitAbstractSolver", "LimitPCSSolver", "LimitTrainResult"]

#: Bytes of storage per (information set, action): a float32 regret and a float32 strategy sum.
BYTES_PER_INFOSET_ACTION = 8


def _ranked(
    cards: np.ndarray, order: np.ndarray, strength: np.ndarray, segments: np.ndarray
) -> np.ndarray:
    """:attr:`BoardBatch.ranked`: per sorted position, the entry's two cards and the end of its
    run of equal strength within its board."""
    ranked = np.empty((order.size, 3), dtype=np.int64)
    ranked[:, :2] = cards[order]
    s = strength[order]
    # a run ends where the strength changes or the board's segment ends
    ends = np.zeros(order.size, dtype=bool)
    ends[segments[1:] - 1] = True
    ends[:-1] |= s[1:] != s[:-1]
    stops = np.flatnonzero(ends) + 1
    ranked[:, 2] = stops[np.searchsorted(stops, np.arange(order.size), side="right")]
    return ranked


def _path_bytes_per_entry(depth: int) -> int:
    """Bytes per hand entry of one worker's depth-first pass scratch (:func:`subtree_buffers`)."""
    return (2 * 4 + 3 * 8 + 3 * 4) * (depth + 1) + 3 * 8


def full_chance_bytes(
    game: LimitHoldemGame, workers: int = 1, split_round: int = 0, board_chunk: int | None = None
) -> int:
    """Bytes of scratch that :class:`LimitPCSSolver` with ``chance="full"`` needs besides its
    regrets and sums: every canonical board's hand entries (92 bytes each in a
    :class:`BoardBatch`, plus the root reach), each worker's depth-first pass buffers, and with
    several workers the reach and value rows at each subtree root. 12 cards: 16,506 entries,
    22 MiB on one worker, 43-53 MiB on two; 24 cards: 7.1 million entries, 9.1 GiB on one
    worker, 18-22 GiB on two (so refused under the default 8 GiB limit). The Ray object
    store's copy of the entries and the temporaries of building them come on top."""
    rules = game.rules
    tree = game.betting_tree
    boards = HandIndexer((3, 1, 1), rules.ranks).size
    entries = comb(rules.num_cards - 5, 2) * boards
    width = comb(rules.num_cards - 5, 2) * min(boards, board_chunk or boards)
    depth = tree_depth(tree.child_start, tree.children)
    # every board's entries and root reach; per pass (a chunk's width) its own root, reach and
    # value rows (one row each), the workers' path buffers and the cut rows
    per_pass = 16 + workers * _path_bytes_per_entry(depth)
    if workers > 1:
        per_pass += 3 * 4 * int(((tree.kind == DEAL) & (tree.round == split_round)).sum())
    return (92 + 8) * entries + per_pass * width


def state_counts(abstraction: CardAbstraction, recall: str) -> tuple[int, ...]:
    """Private states per round, as Python integers: with imperfect recall the buckets used in
    that round, with perfect recall the bucket sequences so far (the product of the requested
    counts of rounds 0..r, the mixed radix of :func:`bucket_sequence_ids`)."""
    used = abstraction.num_buckets if recall == "imperfect" else abstraction.buckets
    return layout_states(used, recall)


def layout_size(tree: Any, states: tuple[int, ...]) -> int:
    """Information-set actions of the ``actions x states`` layout (a Python integer, exact
    however large the counts): per decision node its actions times its round's states."""
    decisions = tree.kind == DECISION
    actions = np.diff(tree.child_start)[decisions]
    rounds = tree.round[decisions]
    return sum(int(actions[rounds == r].sum()) * int(s) for r, s in enumerate(states))


def check_storage(size: int, bytes_per_action: int, max_bytes: int) -> None:
    """Refuse (:class:`PokerlabError`, with the estimate) storage of ``size`` information-set
    actions at ``bytes_per_action`` each above ``max_bytes``; Python integers throughout."""
    need = int(size) * int(bytes_per_action)
    if need > max_bytes:
        raise PokerlabError(
            f"the abstract game needs about {_bytes_text(need)} "
            f"({int(size):,} information-set actions); limit {max_bytes / 2**30:.1f} GiB"
        )


def _bytes_text(need: int) -> str:
    """``need`` bytes in GiB, in powers of ten beyond a million GiB (no float overflow)."""
    gib = need / 2**30 if need < 2**1000 else float("inf")
    if gib < 1e6:
        return f"{gib:.1f} GiB"
    digits = len(str(need >> 30)) - 1
    return f"10^{digits} GiB"


@dataclass
class LimitTrainResult:
    iterations: int
    seconds: float


class LimitAbstractSolver:
    """What the limit hold'em solvers on the abstract game share (public chance sampling,
    :class:`LimitPCSSolver`; external sampling,
    :class:`~pokerlab.solvers.limit_mccfr.LimitESSolver`): the checks of the game and
    abstraction, the storage layout (per decision node an
    ``actions x states`` block of float32 regrets and strategy sums, states = this round's
    buckets or the bucket sequences so far), the hole-card pairs of the deck, the stopping loop
    (:meth:`solve`), the average strategy and the checkpoint checks. Evaluators, agents and
    checkpoints read only these attributes (``game``, ``abstraction``, ``recall``, ``tree``,
    ``offset``, ``num_states``, ``size``, ``hands``) and :meth:`average_strategy`.
    """

    #: The checkpoint's ``format`` field.
    format = ""
    #: Iterations between callbacks in :meth:`solve` unless told.
    default_check_every = 10
    iterations: int
    sums: np.ndarray

    def _setup(
        self,
        game: LimitHoldemGame,
        abstraction: CardAbstraction,
        recall: str,
        algorithm: str | DiscountSchedule,
        seed: int | None,
        max_bytes: int = 8 << 30,
    ) -> None:
        """Check the inputs; set the schedule, the layout and the hole-card pairs. The layout's
        sizes are Python integers: storage above ``max_bytes`` is refused (with its estimate)
        before any array is made, so no count or index wraps around int64."""
        rules = game.rules
        if rules.rounds != 4:
            raise PokerlabError("the limit hold'em solver needs the four-round game")
        if abstraction.ranks != rules.ranks:
            raise PokerlabError(
                f"abstraction of a {4 * abstraction.ranks}-card deck for a "
                f"{rules.num_cards}-card game"
            )
        if recall not in ("perfect", "imperfect"):
            raise PokerlabError(f"recall must be 'perfect' or 'imperfect', got {recall!r}")
        self.schedule = (
            algorithm if isinstance(algorithm, DiscountSchedule) else schedule_by_name(algorithm)
        )
        self.game = game
        self.abstraction = abstraction
        self.recall = recall
        self.seed = seed
        tree = game.betting_tree
        self.tree = tree
        states = state_counts(abstraction, recall)
        size = layout_size(tree, states)
        per_action = BYTES_PER_INFOSET_ACTION + (4 if self.schedule.predictive else 0)
        check_storage(size, per_action, max_bytes)
        # every count below fits int64 now (size * per_action <= max_bytes)
        self._counts = tuple(int(b) for b in abstraction.buckets)
        #: The storage layout (``offset``, ``num_states``, ``size``) and its index.
        self.layout = BettingLayout(tree, self._counts, np.array(states), recall)
        self.num_states = self.layout.num_states
        self.offset = self.layout.offset
        self.size = self.layout.size
        deck = rules.cards
        self.hands = np.array(list(itertools.combinations(deck, 2)), dtype=np.int64)

    def step(self, iterations: int = 1) -> None:  # pragma: no cover - every solver defines it
        raise NotImplementedError

    def solve(
        self,
        iterations: int | None = None,
        seconds: float | None = None,
        callback: Callable[[Any], bool | None] | None = None,
        check_every: int | None = None,
    ) -> LimitTrainResult:
        """Iterate until ``iterations`` in all or ``seconds`` pass; ``callback(self)`` after each
        block of ``check_every`` iterations (default :attr:`default_check_every`) may return
        True to stop."""
        if iterations is None and seconds is None:
            raise PokerlabError("give iterations or seconds")
        if check_every is None:
            check_every = self.default_check_every
        start = time.perf_counter()
        done = 0
        while True:
            if iterations is not None and self.iterations >= iterations:
                break
            if seconds is not None and time.perf_counter() - start >= seconds:
                break
            block = check_every
            if iterations is not None:
                block = min(block, iterations - self.iterations)
            self.step(block)
            done += block
            if callback is not None and callback(self):
                break
        return LimitTrainResult(done, time.perf_counter() - start)

    def average_strategy(self) -> BettingStrategy:
        """The average strategy (a :class:`~pokerlab.strategy.BettingStrategy` with this run's
        layout and abstraction; its flat table is ``.probs``): each (node, state) block of the
        strategy sums normalised over its actions (uniform where the sums are 0)."""
        return BettingStrategy.of(
            self.game,
            self.layout,
            self.layout.normalise(self.sums),
            self.abstraction,
            {"ranks": self.game.rules.ranks, "bucketing": self.abstraction.method},
        )

    @property
    def num_infoset_actions(self) -> int:
        return self.size

    @property
    def bytes_per_infoset_action(self) -> int:
        """Bytes of float32 storage per (information set, action): regrets and sums, and the
        predicted regrets under a predictive schedule."""
        return BYTES_PER_INFOSET_ACTION + (4 if self.schedule.predictive else 0)

    def _common_state(self) -> dict[str, Any]:
        """The checkpoint fields every limit solver writes (the run's identity)."""
        return {
            "format": self.format,
            "iterations": self.iterations,
            "schedule": self.schedule.name,
            "recall": self.recall,
            "ranks": self.game.rules.ranks,
            "buckets": list(self.abstraction.buckets),
            "bucketing": self.abstraction.method,
        }

    def _check_state(self, state: dict[str, Any], keys: tuple[str, ...]) -> np.ndarray:
        """Refuse a checkpoint of another run (naming the first field that differs) or of
        another abstract game; return its regrets."""
        mine = self.state_dict()
        for key in keys:
            if state.get(key) != mine[key]:
                raise PokerlabError(
                    f"checkpoint of another run: {key} {state.get(key)!r}, this run {mine[key]!r}"
                )
        regrets = state.get("arrays", {}).get("regrets")
        if regrets is None or regrets.shape != (self.size,):
            raise PokerlabError("checkpoint of another abstract game (array sizes differ)")
        return regrets

    def state_dict(self) -> dict[str, Any]:  # pragma: no cover - every solver defines it
        raise NotImplementedError


class LimitPCSSolver(LimitAbstractSolver):
    """Public-chance-sampling CFR on ``game``'s betting tree with ``abstraction``'s buckets.

    Parameters
    ----------
    game:
        A :class:`~pokerlab.games.limit_holdem.LimitHoldemGame` (four rounds).
    abstraction:
        Buckets of the same deck.
    recall:
        ``"perfect"`` (bucket sequences) or ``"imperfect"`` (this round's bucket).
    algorithm:
        A discount schedule by name (``"cfr+"`` by default; ``"linear"``, ``"dcfr"``, ``"cfr"``,
        the predictive ``"pcfr+"`` and ``"pdcfr+"``, ``"dcfr+"``, the hyperparameter schedules
        ``"hs-dcfr"`` and ``"hs-pcfr+"``) or a :class:`DiscountSchedule`. A predictive schedule
        keeps a third float32 array, the predicted regrets (12 bytes per information-set action
        instead of 8; part of the checkpoint).
    seed:
        Seed of the board sampling.
    max_bytes:
        Refuse (before allocating) when regrets, sums and scratch would need more.
    workers:
        Threads that update the subtrees after the preflop betting in parallel (the seed's
        split: seven preflop sequences reach the flop; each subtree goes to the least loaded
        worker by node count). The results equal one worker's exactly.
    split_round:
        The subtrees start after this round's betting: 0 (the seed's seven preflop sequences)
        or 1 (after the flop betting: many more, smaller subtrees, a finer balance).
    boards_per_iteration:
        Boards sampled per iteration (the seed's board batch; 1 by default). The batch's
        boards share the iteration's current strategy and their regrets are summed into one
        update (each board weighted 1/B, so values stay per-board means): one pass per player
        with vectors B times as long, which gives each worker B times more work per call (what
        amortises the Ray actors' per-call overhead) and B times the pass scratch.
    chance:
        ``"sampled"`` (public chance sampling, the default) or ``"full"``: every iteration walks
        every suit-canonical ordered board (flop, turn, river) once per player, each weighted by
        the number of boards in its class, in one vector pass: CFR on the abstract game with
        chance enumerated, as Cepheus' CFR+ was run (Tammelin, Burch, Johanson and Bowling 2015,
        "Solving heads-up limit Texas hold'em"; Bowling et al. 2015). Deterministic (no board
        sampling noise, so the exploitability keeps its pace where sampled CFR+ slows down) and
        ``canonical boards`` times the work of a one-board iteration (786 boards on 12 cards,
        4,272 on 16, 41,460 on 24). Not with a board batch. With ``workers`` > 1 the head
        walks the betting above the split once down (collecting the reach rows at each subtree
        root) and once up (taking the workers' value rows), :func:`pcs_subtree`'s cut modes.
    board_chunk:
        With ``chance="full"``: walk the boards in chunks of this many (None: all at once), so
        the pass scratch is a chunk's (the 24-card deck's 41,460 boards at once need 9 GiB per
        worker). Every chunk reads the iteration's strategy from a frozen copy of the regrets
        (4 bytes per information-set action more) and the regret floor comes after the last
        chunk, so the numbers equal the one-chunk pass's bit for bit (tested). Not with a
        predictive schedule.
    lazy_discounts:
        Keep the schedule's uniform discounts as scales (:class:`LazyScale`; the default) or
        apply every discount to every stored number before each iteration (the rule as
        written: the reference the tests and ``benchmarks/limit.py --step-time`` compare with).
    """

    format = "limit-pcs"

    def __init__(
        self,
        game: LimitHoldemGame,
        abstraction: CardAbstraction,
        *,
        recall: str = "imperfect",
        algorithm: str | DiscountSchedule = "cfr+",
        seed: int | None = 0,
        max_bytes: int = 8 << 30,
        workers: int = 1,
        split_round: int = 0,
        boards_per_iteration: int = 1,
        lazy_discounts: bool = True,
        chance: str = "sampled",
        board_chunk: int | None = None,
    ) -> None:
        self._setup(game, abstraction, recall, algorithm, seed, max_bytes)
        self.lazy_discounts = bool(lazy_discounts)
        rules = game.rules
        tree = self.tree
        deck = rules.cards
        if int(boards_per_iteration) < 1:
            raise PokerlabError(f"boards_per_iteration must be >= 1, got {boards_per_iteration}")
        self.boards_per_iteration = int(boards_per_iteration)
        if chance not in ("sampled", "full"):
            raise PokerlabError(f"chance must be 'sampled' or 'full', got {chance!r}")
        if chance == "full" and self.boards_per_iteration != 1:
            raise PokerlabError(
                "boards_per_iteration is the sampled board batch; chance='full' walks every board"
            )
        self.chance = chance
        if board_chunk is not None and chance != "full":
            raise PokerlabError("board_chunk is an option of chance='full'")
        if board_chunk is not None and int(board_chunk) < 1:
            raise PokerlabError(f"board_chunk must be >= 1, got {board_chunk}")
        if board_chunk is not None and self.schedule.predictive:
            raise PokerlabError(
                f"board_chunk with {self.schedule.name}: a predictive update needs every board "
                "in one pass"
            )
        self.board_chunk = None if board_chunk is None else int(board_chunk)
        if workers < 1:
            raise PokerlabError(f"workers must be >= 1, got {workers}")
        self.workers = int(workers)
        #: Hole-card pairs that miss a board (the entries per board of a pass).
        self.live_hands = comb(rules.num_cards - 5, 2)
        h = self.live_hands * self.boards_per_iteration
        self._depth = tree_depth(tree.child_start, tree.children)
        if chance == "full":
            # every suit-canonical ordered board (flop set, turn, river): their entries
            self._board_indexer = HandIndexer((3, 1, 1), rules.ranks)
            chunk = min(self._board_indexer.size, self.board_chunk or self._board_indexer.size)
            h = self.live_hands * chunk
            scratch = full_chance_bytes(game, self.workers, split_round, self.board_chunk)
            if chunk < self._board_indexer.size:
                scratch += 4 * self.size  # the frozen regrets
        else:
            # the depth-first passes need rows for one root-to-leaf path per worker; a split
            # pass the reach and value rows at each subtree root (the cuts)
            roots = int(((tree.kind == DEAL) & (tree.round == split_round)).sum())
            scratch = (3 * 4 * roots if self.workers > 1 else 0) * h
            scratch += self.workers * _path_bytes_per_entry(self._depth) * h
        per_action = BYTES_PER_INFOSET_ACTION + (4 if self.schedule.predictive else 0)
        need = self.size * per_action + scratch
        if need > max_bytes and chance == "full":
            raise PokerlabError(
                f"chance='full' on {rules.num_cards} cards walks {self._board_indexer.size:,} "
                f"canonical boards ({h:,} hand entries per pass): about {need / 2**30:.1f} GiB "
                f"with the storage, limit {max_bytes / 2**30:.1f} GiB; walk them in smaller "
                "chunks (board_chunk) or sample boards"
            )
        if need > max_bytes:
            raise PokerlabError(
                f"the abstract game needs about {need / 2**30:.1f} GiB "
                f"({self.size:,} information-set actions); limit {max_bytes / 2**30:.1f} GiB"
            )
        self._allocate_storage()
        #: The tree and the storage layout as the kernel reads them.
        self._tree_arrays: BettingArrays = betting_arrays(tree, self.offset, self.num_states)
        #: Each entry's value at the root after the last pass (``root_values``).
        self._root = np.zeros(h, dtype=np.float32)
        #: The depth-first pass's scratch, one set per worker (:func:`subtree_buffers`).
        self._buffers = [subtree_buffers(self._depth, h) for _ in range(self.workers)]
        self._owner = np.full(tree.num_nodes, -1, dtype=np.int64)
        self.subtrees: list[tuple[int, int, int]] = []  # (root, end, worker)
        if self.workers > 1:
            end = np.arange(1, tree.num_nodes + 1, dtype=np.int64)
            for n in range(tree.num_nodes - 1, -1, -1):
                kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
                if kids.size:
                    end[n] = max(end[n], int(end[kids].max()))
            if split_round not in (0, 1, 2):
                raise PokerlabError(f"split_round must be 0, 1 or 2, got {split_round}")
            deals = np.flatnonzero((tree.kind == DEAL) & (tree.round == split_round))
            roots = [int(tree.children[tree.child_start[d]]) for d in deals]
            load = [0] * self.workers
            for root in sorted(roots, key=lambda r: int(end[r]) - r, reverse=True):
                w = int(np.argmin(load))
                load[w] += int(end[root]) - root
                self._owner[root : end[root]] = w
                self.subtrees.append((root, int(end[root]), w))
            self.worker_nodes = load
            self._setup_cuts(h)
        self._pool: Any = None  # the worker threads, started by the first split pass
        self._deck = deck
        left = rules.num_cards - 2 - 2 - 5
        # uniform deal: 1 / (pairs for the opponent given the hand and the board); per-hand sums
        # at the root then average over the traverser's hands through the reported value; a
        # batch of B boards weighs each 1/B
        #: The scale of a pass over one board (``root_values``).
        self._board_scale = 1.0 / comb(rules.num_cards - 2 - 5, 2)
        self._scale = self._board_scale / self.boards_per_iteration
        del left
        if chance == "full":
            self._setup_full()
        self.iterations = 0
        self.rng = generator(seed)
        self._params = self.schedule.as_array()
        self._next = (1.0, 1.0)  # the next iteration's (a, b) discounts, for the prediction
        # the discounts kept as one number each (strategy sums, regrets) and this iteration's
        # weights of the additions to them (sums, regrets)
        self._sum_scale = LazyScale()
        self._regret_scale = LazyScale()
        self._weights = (1.0, 1.0)
        # about ten boards between callbacks (progress, logs, the seconds limit), whatever the batch
        self.default_check_every = max(1, 10 // self.boards_per_iteration)
        if chance == "full":
            self.default_check_every = 1

    def _allocate_storage(self) -> None:
        """The regrets, strategy sums and predicted regrets (float32, flat, in node order)."""
        self.regrets = np.zeros(self.size, dtype=np.float32)
        self.sums = np.zeros(self.size, dtype=np.float32)
        #: Predicted regrets (predictive schedules only; 0 at the start: uniform play first).
        self.prediction = np.zeros(self.size if self.schedule.predictive else 0, dtype=np.float32)

    def _set_arrays(
        self, regrets: np.ndarray, sums: np.ndarray, prediction: np.ndarray | None
    ) -> None:
        """Overwrite the stored arrays (flat, full layout) with a checkpoint's."""
        self.regrets[:] = regrets
        self.sums[:] = sums
        if self.schedule.predictive and prediction is not None:
            self.prediction[:] = prediction

    def _discount(self, a: float, b: float, g: float) -> None:
        """Scale the stored regrets and sums before an iteration (the schedule's factors)."""
        K.discount(self.regrets, self.sums, a, b, g)

    # --- one sampled board (or a batch) --------------------------------------------------------
    def _board_arrays(self, boards: np.ndarray) -> BoardBatch:
        """The pass's entries for a batch of boards ``(B, 5)`` (or one board): the live hands of
        each board with their states, strengths and order (see :class:`BoardBatch`)."""
        boards = np.atleast_2d(np.asarray(boards, dtype=np.int64))
        hands = self.hands
        parts: list[list[np.ndarray]] = [[] for _ in range(5)]
        segments = np.zeros(boards.shape[0] + 1, dtype=np.int64)
        for b, board in enumerate(boards):
            idx = np.flatnonzero(~np.isin(hands, board).any(axis=1))
            labels = []
            for r, shown in enumerate((0, 3, 4, 5)):
                rows = np.concatenate(
                    [hands[idx], np.broadcast_to(board[:shown], (idx.size, shown))], axis=1
                )
                labels.append(
                    self.abstraction.labels[r][round_indexer(r, self.game.rules.ranks).index(rows)]
                )
            ids = bucket_sequence_ids(labels, self._counts, self.recall)
            seven = np.concatenate([hands[idx], np.broadcast_to(board, (idx.size, 5))], axis=1)
            strength = evaluate_batch(seven.astype(np.uint8)).astype(np.int32)
            parts[0].append(np.stack([np.asarray(x, dtype=np.int64) for x in ids]))
            parts[1].append(segments[b] + np.argsort(strength, kind="stable"))
            parts[2].append(strength)
            parts[3].append(hands[idx])
            parts[4].append(idx)
            segments[b + 1] = segments[b] + idx.size
        states, order, strength, cards, hand = (np.concatenate(x, axis=-1 if i == 0 else 0)
                                                for i, x in enumerate(parts))  # fmt: skip
        order = order.astype(np.int64)
        cards = cards.astype(np.int64)
        ranked = _ranked(cards, order, strength, segments)
        return BoardBatch(states, order, strength, segments, cards, hand, ranked)

    def _subtree(
        self,
        entries: BoardBatch,
        traverser: int,
        update: bool,
        root: int,
        root_reach: np.ndarray,
        out: np.ndarray,
        buffers: SubtreeScratch,
        cuts: Cuts = NO_CUTS,
        scale: float | None = None,
        frozen: np.ndarray | None = None,
        storage: tuple[BettingArrays, np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> float:
        """A depth-first pass over the subtree at ``root`` (the whole tree at 0) from the two
        players' reach rows there; writes the root's value row into ``out``. ``cuts``: the cuts
        of :func:`pcs_subtree` (none by default); ``scale``: another chance scale; ``frozen``:
        regrets that regret matching reads instead of the live ones (a chunked full pass; the
        pass then leaves the floor to its caller); ``storage``: (arrays, regrets, sums,
        predictions) of another layout (a Ray head's own nodes)."""
        if storage is None:
            storage = (self._tree_arrays, self.regrets, self.sums, self.prediction)
        arrays, regrets, sums, prediction = storage
        return pcs_subtree(
            arrays,
            entries,
            self._scale if scale is None else scale,
            np.int64(traverser),
            RunArrays(regrets, sums, prediction if frozen is None else frozen),
            Discounts(
                bool(self.schedule.regret_floor) and frozen is None,
                bool(self.schedule.predictive),
                float(self._next[0]),
                float(self._next[1]),
                *self._weights,
            ),
            update,
            np.int64(root),
            root_reach,
            out,
            buffers,
            cuts,
        )

    def _in_workers(self, run: Callable[[int], None]) -> None:
        """``run(w)`` for every worker ``w`` at once, on the solver's threads (started once)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=self.workers)
        list(self._pool.map(run, range(self.workers)))

    def _pass(self, boards: np.ndarray | BoardBatch, traverser: int, update: bool) -> float:
        """One pass for ``traverser`` over a batch of boards; returns the root value summed
        over the entries (each entry's in ``self._root``): a depth-first pass over the whole
        tree (one worker) or a split pass (:meth:`_split_pass`). ``boards``: (B, 5) cards, or
        their entries (:meth:`_board_arrays`)."""
        entries = boards if isinstance(boards, BoardBatch) else self._board_arrays(boards)
        width = entries.states.shape[1]
        reach = np.ones((2, width), dtype=np.float32)
        if self.workers == 1:
            return self._subtree(
                entries, traverser, update, 0, reach, self._root[:width], self._buffers[0]
            )
        return self._split_pass(entries, reach, traverser, update)

    def _setup_cuts(self, width: int) -> None:
        """The seam of a split pass: each subtree root's slot, and the reach and value rows
        there (``width`` entries each)."""
        cut = np.full(self.tree.num_nodes, -1, dtype=np.int64)
        for k, (root, _, _) in enumerate(self.subtrees):
            cut[root] = k
        self._cut = cut
        self._cut_reach = np.zeros((len(self.subtrees), 2, width), dtype=np.float32)
        self._cut_values = np.zeros((len(self.subtrees), width), dtype=np.float32)

    def _split_pass(
        self,
        entries: BoardBatch,
        reach: np.ndarray,
        traverser: int,
        update: bool,
        frozen: np.ndarray | None = None,
    ) -> float:
        """A pass split at the subtree roots: the head's way down over the nodes above them
        (cut mode 1, no update: it collects the reach rows arriving at each root), the workers'
        passes over their subtrees in threads, the head's way up (cut mode 2, taking their
        value rows). ``reach``: the root's reach rows; ``frozen``: see :meth:`_subtree`."""
        buffers = self._buffers
        width = reach.shape[1]
        out = self._root[:width]
        cut_reach, cut_values = self._cut_reach[:, :, :width], self._cut_values[:, :width]
        cuts = Cuts(self._cut, np.int64(1), cut_reach, cut_values)
        self._subtree(entries, traverser, False, 0, reach, out, buffers[0], cuts, frozen=frozen)

        def run(w: int) -> None:
            for k, (root, _, owner) in enumerate(self.subtrees):
                if owner == w:
                    self._subtree(
                        entries, traverser, update, root, np.ascontiguousarray(cut_reach[k]),
                        cut_values[k], buffers[w], frozen=frozen,
                    )  # fmt: skip

        self._in_workers(run)
        cuts = cuts._replace(mode=np.int64(2))
        return self._subtree(
            entries, traverser, update, 0, reach, out, buffers[0], cuts, frozen=frozen
        )

    # --- every board (chance="full") ------------------------------------------------------------
    def _setup_full(self) -> None:
        """The entries of every canonical board (one batch, built once), each entry's root reach
        (its board's class size, for both players: chance's weight enters through the
        opponent's reach into the values and through the own reach into the strategy sums), the
        scale (1 / (opponent pairs x ordered boards))."""
        indexer = self._board_indexer
        self._full_boards, self._full_weights = indexer.unindex(np.arange(indexer.size))
        step = self.board_chunk or len(self._full_boards)
        #: (entries, root reach) of each chunk of boards (one chunk unless ``board_chunk``).
        self._full_chunks: list[tuple[BoardBatch, np.ndarray]] = []
        for first in range(0, len(self._full_boards), step):
            entries = self._board_arrays(self._full_boards[first : first + step])
            weight = np.repeat(
                self._full_weights[first : first + step].astype(np.float32),
                np.diff(entries.segments),
            )
            self._full_chunks.append((entries, np.ascontiguousarray(np.stack([weight, weight]))))
        self._full_entries, self._full_reach = self._full_chunks[0]
        self._scale = self._board_scale / float(self._full_weights.sum())

    @property
    def full_boards(self) -> int:
        """Canonical boards an iteration walks with ``chance="full"`` (0 when sampling)."""
        return len(self._full_boards) if self.chance == "full" else 0

    def _full_pass(self, traverser: int, update: bool) -> float:
        """One pass for ``traverser`` over every canonical board, chunk by chunk. With several
        chunks every chunk's regret matching reads a frozen copy of the regrets (the
        iteration's strategy) and the regret floor comes after the last one."""
        if len(self._full_chunks) == 1:
            return self._full_chunk(self._full_entries, self._full_reach, traverser, update)
        frozen = self.regrets.copy()
        total = 0.0
        for entries, reach in self._full_chunks:
            total += self._full_chunk(entries, reach, traverser, update, frozen)
        if update and self.schedule.regret_floor:
            np.maximum(self.regrets, 0.0, out=self.regrets)
        return total

    def _full_chunk(
        self,
        entries: BoardBatch,
        reach: np.ndarray,
        traverser: int,
        update: bool,
        frozen: np.ndarray | None = None,
    ) -> float:
        """One pass over a chunk of boards: one worker, a depth-first pass over the whole
        tree; several, a split pass (:meth:`_split_pass`). ``frozen``: the regrets regret
        matching reads (then no floor here; see :meth:`_full_pass`)."""
        if self.workers == 1:
            width = reach.shape[1]
            return self._subtree(
                entries, traverser, update, 0, reach, self._root[:width], self._buffers[0],
                frozen=frozen,
            )  # fmt: skip
        return self._split_pass(entries, reach, traverser, update, frozen)

    def root_values(self, board: np.ndarray, traverser: int) -> np.ndarray:
        """Counterfactual value of each hole-card pair of ``traverser`` at the root for the
        given board under the current strategy (no update): the expectation over the opponent's
        hands, weighted by their reach (with a board batch, divided by its size B)."""
        board = np.asarray(board, dtype=np.int64)
        if self.chance == "full":
            # one board, one depth-first pass over the whole tree at a one-board scale (the
            # split passes' rows are sized for every board at once)
            entries = self._board_arrays(board)
            width = entries.states.shape[1]
            self._subtree(
                entries, traverser, False, 0, np.ones((2, width), dtype=np.float32),
                self._root[:width], self._buffers[0], scale=self._board_scale,
            )  # fmt: skip
        else:
            self._pass(board, traverser, update=False)
        out = np.zeros(len(self.hands), dtype=np.float32)
        hand = np.flatnonzero(~np.isin(self.hands, board).any(axis=1))
        out[hand] = self._root[: hand.size]
        return out

    # --- the verbs ----------------------------------------------------------------------------
    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations (``boards_per_iteration`` sampled boards, both players
        in turn, each)."""
        for _ in range(int(iterations)):
            t = self.iterations + 1
            self._begin_iteration(t)
            if self.chance == "full":
                self._full_pass(0, update=True)
                self._full_pass(1, update=True)
                self.iterations = t
                continue
            boards = np.stack(
                [
                    self.rng.choice(self._deck, size=5, replace=False)
                    for _ in range(self.boards_per_iteration)
                ]
            ).astype(np.int64)
            entries = self._board_arrays(boards)  # once for both players' passes
            self._pass(entries, 0, update=True)
            self._pass(entries, 1, update=True)
            self.iterations = t

    def _begin_iteration(self, t: int) -> None:
        """The schedule's discount before iteration ``t``: uniform factors kept lazily
        (:class:`LazyScale`: the strategy sums' g_t always; the regrets' when a_t = b_t, or with
        the regret floor, which leaves no regret below 0 to take b_t), the others applied to the
        stored arrays; then the weights of the iteration's additions and the next iteration's
        regret discount (for the prediction)."""
        a, b, g = discount_factors(self._params, t)
        if not self.lazy_discounts:
            ra, rb, gs, regret_weight, sum_weight = a, b, g, 1.0, 1.0
        else:
            if self.schedule.regret_floor:
                b = a
            ra, rb, regret_weight = self._regret_scale.advance(a, b)
            gs, _, sum_weight = self._sum_scale.advance(g)
        if (ra, rb, gs) != (1.0, 1.0, 1.0):
            self._discount(float(ra), float(rb), float(gs))
        self._weights = (float(sum_weight), float(regret_weight))
        na, nb, _ = discount_factors(self._params, t + 1)
        self._next = (float(na), float(nb))

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs, in the checkpoint layout of :mod:`pokerlab.io.files`
        (``arrays`` plus JSON-able fields; the generator state included). The arrays are stored
        as they are held: times the lazy scales ``scales`` (strategy sums, regrets; see
        :class:`LazyScale`)."""
        return {
            **self._common_state(),
            "scales": [self._sum_scale.weight, self._regret_scale.weight],
            "boards_per_iteration": self.boards_per_iteration,
            "chance": self.chance,
            "arrays": self._arrays(),
            "rng": self.rng.bit_generator.state,
        }

    def _arrays(self) -> dict[str, np.ndarray]:
        out = {"regrets": self.regrets.copy(), "sums": self.sums.copy()}
        if self.schedule.predictive:
            out["prediction"] = self.prediction.copy()
        return out

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state_dict` (or a loaded checkpoint); refuses another game."""
        keys = ("format", "schedule", "recall", "ranks", "buckets", "bucketing")
        regrets = self._check_state(state, keys)
        boards = int(state.get("boards_per_iteration", 1))  # files before the batch: one board
        if boards != self.boards_per_iteration:
            raise PokerlabError(
                f"checkpoint of another run: boards_per_iteration {boards}, "
                f"this run {self.boards_per_iteration}"
            )
        chance = str(state.get("chance", "sampled"))  # files before chance="full": sampled
        if chance != self.chance:
            raise PokerlabError(f"checkpoint of another run: chance {chance!r}, this run "
                                f"{self.chance!r}")  # fmt: skip
        arrays = state["arrays"]
        prediction = arrays.get("prediction")
        if self.schedule.predictive and (prediction is None or prediction.shape != regrets.shape):
            raise PokerlabError(
                f"checkpoint without the predicted regrets that {self.schedule.name} needs"
            )
        self._set_arrays(regrets, arrays["sums"], prediction)
        # checkpoints before the lazy scales hold the arrays at scale 1
        sum_scale, regret_scale = state.get("scales", (1.0, 1.0))
        self._sum_scale.weight = float(sum_scale)
        self._regret_scale.weight = float(regret_scale)
        self.iterations = int(state["iterations"])
        self.rng.bit_generator.state = state["rng"]
