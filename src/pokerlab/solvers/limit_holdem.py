"""CFR with public chance sampling on abstracted heads-up limit hold'em (issue 10): the engine's
:class:`~pokerlab.solvers.cfr.CFRSolver` on the betting-tree backend.

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
each iteration. The run (storage, boards, passes, the head/worker split) is the backend's
(:class:`~pokerlab.tree.betting.backend.BettingBackend`,
:class:`~pokerlab.tree.betting.pcs.PCSState`); :class:`LimitPCSSolver` is the configuration:
the backend from the game, the abstraction and the chance options, the verbs of a solver on
buckets (:class:`~pokerlab.solvers.limit_base.BucketedVerbs`) and the checkpoint in the
engine's state schema (older ``limit-pcs`` checkpoints still load).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.solvers.base import STATE_FORMAT
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.limit_base import (
    BYTES_PER_INFOSET_ACTION,
    BucketedVerbs,
    LimitAbstractSolver,
    bucketed_layout,
    check_storage,
    layout_size,
    schedule_of,
    state_counts,
    state_family,
)
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.tree.betting import pcs
from pokerlab.tree.betting._kernels import BoardBatch
from pokerlab.tree.betting.backend import BettingBackend, ChanceOptions
from pokerlab.tree.compiled import CompiledGame

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

#: The flat identity fields of ``limit-pcs`` checkpoints (before the engine's schema), by the
#: config key that holds each now.
_LEGACY_FIELDS = ("schedule", "recall", "ranks", "buckets", "bucketing")


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
    return pcs.full_chance_bytes(
        game.betting_tree, rules.num_cards, rules.ranks, workers, split_round, board_chunk
    )


class LimitPCSSolver(BucketedVerbs, CFRSolver):
    """Public-chance-sampling CFR on ``game``'s betting tree with ``abstraction``'s buckets: a
    :class:`~pokerlab.solvers.cfr.CFRSolver` whose compiled game has the betting backend
    (:class:`~pokerlab.tree.betting.backend.BettingBackend`, kind ``"bucketed"``) as its tree.

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

    #: The solver family (older checkpoints' ``format``; now the config's ``sampling``).
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
        state_factory: Any = None,
    ) -> None:
        schedule = schedule_of(algorithm)
        layout = bucketed_layout(game, abstraction, recall, schedule, max_bytes)
        if int(boards_per_iteration) < 1:
            raise PokerlabError(f"boards_per_iteration must be >= 1, got {boards_per_iteration}")
        if chance not in ("sampled", "full"):
            raise PokerlabError(f"chance must be 'sampled' or 'full', got {chance!r}")
        if chance == "full" and int(boards_per_iteration) != 1:
            raise PokerlabError(
                "boards_per_iteration is the sampled board batch; chance='full' walks every board"
            )
        if board_chunk is not None and chance != "full":
            raise PokerlabError("board_chunk is an option of chance='full'")
        if board_chunk is not None and int(board_chunk) < 1:
            raise PokerlabError(f"board_chunk must be >= 1, got {board_chunk}")
        if board_chunk is not None and schedule.predictive:
            raise PokerlabError(
                f"board_chunk with {schedule.name}: a predictive update needs every board "
                "in one pass"
            )
        if workers < 1:
            raise PokerlabError(f"workers must be >= 1, got {workers}")
        options = ChanceOptions(
            chance=chance,
            boards_per_iteration=int(boards_per_iteration),
            board_chunk=None if board_chunk is None else int(board_chunk),
            workers=int(workers),
            split_round=int(split_round),
            seed=seed,
            lazy_discounts=bool(lazy_discounts),
            max_bytes=int(max_bytes),
        )
        backend = BettingBackend(
            layout, game.rules.cards, game.rules.ranks, abstraction.labels, options, state_factory
        )
        self.abstraction = abstraction
        self.recall = recall
        self.seed = seed
        self.layout = layout
        self.options = options
        self.boards_per_iteration = options.boards_per_iteration
        self.chance = chance
        self.board_chunk = options.board_chunk
        self.lazy_discounts = options.lazy_discounts
        self.workers = options.workers
        # about ten boards between callbacks (progress, logs, the seconds limit), whatever the
        # batch; one iteration over every board
        self._default_every = 1 if chance == "full" else max(1, 10 // self.boards_per_iteration)
        CFRSolver.__init__(self, CompiledGame(game, backend), schedule)  # type: ignore[arg-type]

    # --- the run's arrays and facts (the backend state's) ---------------------------------------
    @property
    def regrets(self) -> np.ndarray:  # type: ignore[override]
        """The stored regrets (float32, times the lazy regret scale)."""
        return self.state.regrets()

    @property
    def sums(self) -> np.ndarray:
        """The stored strategy sums (float32, times the lazy sum scale)."""
        return self.state.strategy_sum()

    @property
    def prediction(self) -> np.ndarray:
        """The predicted regrets (empty unless the schedule is predictive)."""
        return self.state.prediction()

    @property
    def tree(self) -> Any:
        return self.layout.tree

    @property
    def size(self) -> int:
        return self.layout.size

    @property
    def offset(self) -> np.ndarray:
        return self.layout.offset

    @property
    def num_states(self) -> np.ndarray:
        return self.layout.num_states

    @property
    def hands(self) -> np.ndarray:
        """The deck's hole-card pairs (the rows of :meth:`root_values`)."""
        return self.state.hands

    @property
    def live_hands(self) -> int:
        return self.state.live_hands

    @property
    def rng(self) -> np.random.Generator:
        """The board generator."""
        return self.state.rng

    @property
    def subtrees(self) -> list[tuple[int, int, int]]:
        """The split's subtrees: (root, end, worker)."""
        return self.state.subtrees

    @property
    def worker_nodes(self) -> list[int]:
        """Nodes each worker owns (only with a split: ``workers`` > 1)."""
        if self.state.worker_nodes is None:
            raise AttributeError("worker_nodes: the tree is split only with workers > 1")
        return self.state.worker_nodes

    @property
    def full_boards(self) -> int:
        """Canonical boards an iteration walks with ``chance="full"`` (0 when sampling)."""
        return self.state.full_boards

    def root_values(self, board: np.ndarray, traverser: int) -> np.ndarray:
        """Counterfactual value of each hole-card pair of ``traverser`` at the root for
        ``board`` under the current strategy (:meth:`PCSState.root_values`)."""
        return self.state.root_values(board, traverser)

    # --- the state schema -----------------------------------------------------------------------
    def strategy_sum(self) -> np.ndarray:
        """The strategy sums as stored (float32; times the lazy scale, which normalising
        ignores)."""
        return self.state.strategy_sum()

    def _config(self) -> dict[str, Any]:
        """The settings a checkpoint must share with the run that loads it."""
        return {
            "sampling": "pcs",
            "schedule": self.schedule.name,
            "recall": self.recall,
            "ranks": self.game.rules.ranks,
            "buckets": list(self.abstraction.buckets),
            "bucketing": self.abstraction.method,
            "boards_per_iteration": self.boards_per_iteration,
            "chance": self.chance,
        }

    def _extra_state(self) -> dict[str, Any]:
        return self.state.extra()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state_dict` (the engine's schema) or an older ``limit-pcs``
        checkpoint (flat identity fields, ``scales`` and ``rng`` at the top level); another run
        is refused by the name of the first field that differs."""
        family = state_family(state)
        if family != self.format:
            raise PokerlabError(
                f"checkpoint of another run: format {family or state.get('format')!r}, "
                f"this run {self.format!r}"
            )
        mine = self._config()
        if state.get("format") == STATE_FORMAT:
            theirs = dict(state.get("config") or {})
            extra = dict(state.get("extra") or {})
        else:  # limit-pcs: the identity flat; files before the batch: one board, sampled
            theirs = {key: state.get(key) for key in _LEGACY_FIELDS}
            theirs["boards_per_iteration"] = int(state.get("boards_per_iteration", 1))
            theirs["chance"] = str(state.get("chance", "sampled"))
            extra = {"rng": state.get("rng"), "scales": state.get("scales", (1.0, 1.0))}
        for key, value in mine.items():
            if key != "sampling" and theirs.get(key) != value:
                raise PokerlabError(
                    f"checkpoint of another run: {key} {theirs.get(key)!r}, this run {value!r}"
                )
        if state.get("game", self.game.name) != self.game.name:
            raise PokerlabError(f"checkpoint of game {state.get('game')!r}, not limit-holdem")
        arrays = state.get("arrays", {})
        regrets = arrays.get("regrets")
        if regrets is None or regrets.shape != (self.size,):
            raise PokerlabError("checkpoint of another abstract game (array sizes differ)")
        prediction = arrays.get("prediction")
        if self.schedule.predictive and (prediction is None or prediction.shape != regrets.shape):
            raise PokerlabError(
                f"checkpoint without the predicted regrets that {self.schedule.name} needs"
            )
        if extra.get("rng") is None:
            raise PokerlabError("checkpoint without the board generator's state (rng)")
        self.state.load(arrays, extra)
        self.iterations = int(state["iterations"])
        self.nodes_touched = int(state.get("nodes_touched", 0))
        self.seconds = float(state.get("seconds", 0.0))
