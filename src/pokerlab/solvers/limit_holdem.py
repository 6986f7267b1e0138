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

This module holds the solver's run (settings, storage, the iteration and its discounts,
checkpoints); what every limit solver shares is :mod:`pokerlab.solvers.limit_base`, the board
passes are :mod:`pokerlab.solvers._limit_passes`.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from pokerlab._rng import generator
from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.abstraction.isomorphism import HandIndexer
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DEAL, LimitHoldemGame
from pokerlab.solvers._limit_passes import (
    PCSPasses,
    _path_bytes_per_entry,
    full_chance_bytes,
)
from pokerlab.solvers.limit_base import (
    BYTES_PER_INFOSET_ACTION,
    LimitAbstractSolver,
    check_storage,
    layout_size,
    state_counts,
)
from pokerlab.solvers.schedule import DiscountSchedule, LazyScale, discount_factors
from pokerlab.tree.betting import _kernels as K
from pokerlab.tree.betting._kernels import BettingArrays, BoardBatch, betting_arrays
from pokerlab.tree.betting._subtree_kernels import subtree_buffers, tree_depth

__all__ = [
    "BYTES_PER_INFOSET_ACTION",
    "BoardBatch",
    "LimitAbstractSolver",
    "LimitPCSSolver",
    "check_storage",
    "full_chance_bytes",
    "layout_size",
    "state_counts",
]


class LimitPCSSolver(LimitAbstractSolver, PCSPasses):
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
        self._default_every = max(1, 10 // self.boards_per_iteration)
        if chance == "full":
            self._default_every = 1

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

    # --- the verbs ----------------------------------------------------------------------------
    def _run(self, iterations: int) -> int:
        """Run ``iterations`` more iterations (``boards_per_iteration`` sampled boards, or every
        board, both players in turn, each; :meth:`step` counts them). Returns the public nodes
        walked: two passes over the tree per iteration, one per chunk of boards with
        ``chance="full"`` (each pass carries a whole vector of hands over its boards)."""
        walks = len(self._full_chunks) if self.chance == "full" else 1
        for i in range(int(iterations)):
            t = self.iterations + i + 1
            self._begin_iteration(t)
            if self.chance == "full":
                self._full_pass(0, update=True)
                self._full_pass(1, update=True)
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
        return 2 * walks * self.tree.num_nodes * int(iterations)

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

    def _config(self) -> dict[str, Any]:
        return {
            **super()._config(),
            "boards_per_iteration": self.boards_per_iteration,
            "chance": self.chance,
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
