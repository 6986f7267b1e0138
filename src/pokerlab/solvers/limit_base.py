"""What the limit hold'em solvers on the abstract game share (:class:`LimitAbstractSolver`): the
checks of the game and abstraction, the storage layout (a
:class:`~pokerlab.tree.betting.layout.BettingLayout`), the stopping loop, the average strategy
(a :class:`~pokerlab.strategy.BettingStrategy`) and the checkpoint checks; with the storage
estimates the CLI checks before building anything."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DECISION, LimitHoldemGame
from pokerlab.solvers.base import Solver
from pokerlab.solvers.loop import Progress, iteration_count, run_loop
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name
from pokerlab.strategy import BettingStrategy
from pokerlab.tree.betting.layout import BettingLayout
from pokerlab.tree.betting.layout import state_counts as layout_states
from pokerlab.tree.compiled import CompiledGame

__all__ = [
    "BYTES_PER_INFOSET_ACTION",
    "LimitAbstractSolver",
    "BucketedVerbs",
    "bucketed_layout",
    "check_storage",
    "layout_size",
    "schedule_of",
    "state_counts",
    "state_family",
]

#: Bytes of storage per (information set, action): a float32 regret and a float32 strategy sum.
BYTES_PER_INFOSET_ACTION = 8


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


def state_family(state: dict[str, Any]) -> str | None:
    """The limit solver family a state belongs to: ``"limit-pcs"`` (public chance sampling) or
    ``"limit-es"`` (external sampling), from the format of older states or, in the engine's
    schema (``format`` :data:`~pokerlab.solvers.base.STATE_FORMAT`, representation
    ``"bucketed"``), from the ``sampling`` of its config (or its top level); None otherwise."""
    fmt = state.get("format")
    if fmt in ("limit-pcs", "limit-es"):
        return str(fmt)
    if state.get("representation") != "bucketed":
        return None
    config = state.get("config")
    sampling = (config if isinstance(config, dict) else {}).get("sampling", state.get("sampling"))
    return {"pcs": "limit-pcs", "es": "limit-es"}.get(str(sampling))


def schedule_of(algorithm: str | DiscountSchedule) -> DiscountSchedule:
    """The discount schedule ``algorithm`` names (or is)."""
    return algorithm if isinstance(algorithm, DiscountSchedule) else schedule_by_name(algorithm)


def bucketed_layout(
    game: LimitHoldemGame,
    abstraction: CardAbstraction,
    recall: str,
    schedule: DiscountSchedule,
    max_bytes: int = 8 << 30,
) -> BettingLayout:
    """The storage layout of a limit solver on ``game`` with ``abstraction`` after the checks of
    the inputs (four rounds, the abstraction's deck, the recall). The layout's sizes are Python
    integers: storage above ``max_bytes`` (float32 regrets and sums, and the predictions of a
    predictive ``schedule``) is refused with its estimate before any array is made, so no count
    or index wraps around int64."""
    rules = game.rules
    if rules.rounds != 4:
        raise PokerlabError("the limit hold'em solver needs the four-round game")
    if abstraction.ranks != rules.ranks:
        raise PokerlabError(
            f"abstraction of a {4 * abstraction.ranks}-card deck for a {rules.num_cards}-card game"
        )
    if recall not in ("perfect", "imperfect"):
        raise PokerlabError(f"recall must be 'perfect' or 'imperfect', got {recall!r}")
    tree = game.betting_tree
    states = state_counts(abstraction, recall)
    size = layout_size(tree, states)
    per_action = BYTES_PER_INFOSET_ACTION + (4 if schedule.predictive else 0)
    check_storage(size, per_action, max_bytes)
    # every count below fits int64 now (size * per_action <= max_bytes)
    counts = tuple(int(b) for b in abstraction.buckets)
    return BettingLayout(tree, counts, np.array(states), recall)


class BucketedVerbs:
    """The verbs of a solver on the betting tree with card abstraction that differ from the
    engine's defaults, shared by public chance sampling
    (:class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver`, a :class:`CFRSolver` on the
    betting backend) and external sampling (:class:`LimitAbstractSolver`): the strategies are
    :class:`~pokerlab.strategy.BettingStrategy` tables with the abstraction; :meth:`solve` runs
    the engine's stopping loop without a target (the exploitability is the abstract game's,
    measured by :func:`pokerlab.evaluate.limit_abstract.abstract_exploitability_mbb` with its
    bucket tables, so :meth:`exploitability` is refused by name)."""

    #: Iterations between callbacks in :meth:`solve` unless told (:meth:`default_check_every`).
    _default_every = 10
    layout: BettingLayout
    abstraction: CardAbstraction
    schedule: DiscountSchedule
    compiled: CompiledGame
    iterations: int
    seconds: float
    nodes_touched: int
    regrets: np.ndarray
    game: Any

    def default_check_every(self) -> int:
        """Iterations between callbacks (and a training run's reports) unless told."""
        return self._default_every

    def solve(
        self,
        iterations: int | None = None,
        target_exploitability: float | None = None,
        seconds: float | None = None,
        callback: Callable[[Progress], bool | None] | None = None,
        check_every: int | None = None,
    ) -> Progress:
        """Iterate until ``iterations`` more iterations or ``seconds`` of solving pass, or
        ``callback(progress)`` returns True (after each block of ``check_every`` iterations,
        default :meth:`default_check_every`): the engine's stopping loop, as every solver's
        ``solve``. The real game's exploitability is not measured here (it needs the bucket
        tables): a target is refused; a :class:`~pokerlab.solvers.run.TrainingRun` with
        ``measure=`` (as ``pokerlab train limit-holdem`` runs it) stops on one."""
        if target_exploitability is not None:
            raise PokerlabError(
                "solve(target_exploitability=...) is not defined for limit hold'em: train with "
                "TrainingRun(solver, measure=...) and the abstract exploitability "
                "(pokerlab.evaluate.limit_abstract.abstract_exploitability_mbb)"
            )
        if iterations is None and seconds is None:
            raise PokerlabError("give iterations or seconds")
        if iterations is not None:
            iterations = iteration_count(iterations)
        every = self.default_check_every() if check_every is None else check_every
        if every < 1:
            raise PokerlabError(f"check_every must be >= 1, got {every}")
        end = run_loop(
            self.step,
            lambda: (self.iterations, self.seconds, self.nodes_touched),
            check_every=every,
            iterations=iterations,
            seconds=seconds,
            on_report=callback,
        )
        return end.progress

    def average_strategy(self) -> BettingStrategy:
        """The average strategy (a :class:`~pokerlab.strategy.BettingStrategy` with this run's
        layout and abstraction; its flat table is ``.probs``): each (node, state) block of the
        strategy sums normalised over its actions (uniform where the sums are 0)."""
        return BettingStrategy.of(
            self.game,
            self.layout,
            self.layout.normalise(self.strategy_sum()),
            self.abstraction,
            self._identity(),
        )

    def current_strategy(self) -> BettingStrategy:
        """Regret matching on the stored regrets (uniform where no regret of a (node, state)
        column is positive), as a :class:`~pokerlab.strategy.BettingStrategy`."""
        return BettingStrategy.of(
            self.game,
            self.layout,
            self.layout.normalise(np.maximum(self.regrets, 0.0)),
            self.abstraction,
            self._identity(),
        )

    def exploitability(self) -> float:
        """Refused by name: the abstract game's exploitability needs its bucket tables."""
        raise PokerlabError(
            "a limit hold'em solver's exploitability is the abstract game's: "
            "pokerlab.evaluate.limit_abstract.abstract_exploitability_mbb(solver.average_strategy())"
        )

    def _identity(self) -> dict[str, Any]:
        return {"ranks": self.game.rules.ranks, "bucketing": self.abstraction.method}

    @property
    def num_infoset_actions(self) -> int:
        return self.size

    @property
    def bytes_per_infoset_action(self) -> int:
        """Bytes of float32 storage per (information set, action): regrets and sums, and the
        predicted regrets under a predictive schedule."""
        return BYTES_PER_INFOSET_ACTION + (4 if self.schedule.predictive else 0)


class LimitAbstractSolver(BucketedVerbs, Solver):
    """A limit hold'em solver on the abstract game with its own run (external sampling,
    :class:`~pokerlab.solvers.limit_mccfr.LimitESSolver`; public chance sampling is
    :class:`~pokerlab.solvers.cfr.CFRSolver` on the betting backend): the checks of the game
    and abstraction, the storage layout (a :class:`~pokerlab.tree.betting.layout.BettingLayout`:
    per decision node an ``actions x states`` block of float32 regrets and strategy sums,
    states = this round's buckets or the bucket sequences so far), the hole-card pairs of the
    deck and the checkpoint checks; the verbs of :class:`BucketedVerbs`.

    A :class:`~pokerlab.solvers.base.Solver`: ``compiled`` is the game with the layout as its
    tree backend (kind ``"bucketed"``), ``step(n)`` runs ``n`` more iterations (the solver's
    :meth:`_run`), the counters ``iterations``, ``nodes_touched`` and ``seconds`` are kept.
    """

    #: The checkpoint's ``format`` field.
    format = ""
    #: Iterations between callbacks in :meth:`solve` unless told (:meth:`default_check_every`).
    _default_every = 10
    sums: np.ndarray
    regrets: np.ndarray

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
        self.schedule = schedule_of(algorithm)
        self.abstraction = abstraction
        self.recall = recall
        self.seed = seed
        self.tree = game.betting_tree
        #: The storage layout (``offset``, ``num_states``, ``size``) and its index.
        self.layout = bucketed_layout(game, abstraction, recall, self.schedule, max_bytes)
        self._counts = self.layout.buckets
        self.num_states = self.layout.num_states
        self.offset = self.layout.offset
        self.size = self.layout.size
        Solver.__init__(self, CompiledGame(game, self.layout))  # type: ignore[arg-type]
        self.algorithm = self.schedule.name
        deck = game.rules.cards
        self.hands = np.array(list(itertools.combinations(deck, 2)), dtype=np.int64)

    def strategy_sum(self) -> np.ndarray:
        """The (discounted) strategy sums as stored (float32; times a lazy scale where the
        solver keeps one, which normalising ignores)."""
        return self.sums

    def _config(self) -> dict[str, Any]:
        """The settings a checkpoint must share with the run that loads it."""
        return {
            "schedule": self.schedule.name,
            "recall": self.recall,
            "ranks": self.game.rules.ranks,
            "buckets": list(self.abstraction.buckets),
            "bucketing": self.abstraction.method,
        }

    def _common_state(self) -> dict[str, Any]:
        """The checkpoint fields every limit solver writes: the engine's state schema
        (``format``, here the family's: ``limit-pcs`` or ``limit-es``; ``algorithm``, ``game``,
        ``game_params``, ``representation``, ``config``, the counters) and, flat, the run's
        identity as checkpoints before the schema had it (what loading checks)."""
        return {
            "format": self.format,
            "algorithm": self.algorithm,
            "game": self.game.name,
            "game_params": dict(self.game.params),
            "representation": self.layout.kind,
            "config": self._config(),
            "nodes_touched": self.nodes_touched,
            "seconds": self.seconds,
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
        theirs = state_family(state)
        if theirs != self.format:
            raise PokerlabError(
                f"checkpoint of another run: format {theirs or state.get('format')!r}, "
                f"this run {self.format!r}"
            )
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
