"""Monte Carlo CFR's one front (:class:`SampledCFR`), whatever tree its sampled pass walks: the
options (pruning, discount blocks, a time budget for discounting), checked once; the schedule
counted in blocks; the run loop that freezes the discounting horizon when its time budget is
spent; and the state schema (:meth:`SampledCFR.state_dict`).

Each backend gives a :class:`SampledPass`: an object that owns the run's arrays (regrets,
strategy sums, the xoshiro256** state: :meth:`~SampledPass.arrays`) and runs a number of sampled
iterations, or one traversal for one player, with the discounts and pruning of a
:class:`Blocks` (:meth:`~SampledPass.run`). The fronts are configurations of :class:`SampledCFR`
with one pass each: :class:`~pokerlab.solvers.mccfr.MCCFRSolver` (history tree, chance / external
/ outcome sampling), :class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR` (a postflop spot's
vector tree) and :class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` (limit hold'em's bucketed
betting tree).

Discounting follows Pluribus (Brown & Sandholm 2019): the schedule's discount is applied every
``discount_every`` iterations (block j weighted as the schedule weighs iteration j) and only
while ``linear_until`` (iterations) or ``linear_seconds`` (solving time, frozen into an
iteration count when spent) lasts; after that, plain CFR. Regret-based pruning (Brown, Kroer &
Sandholm 2017) skips, in a fraction ``prune_probability`` of traversals, actions whose regret is
below ``prune_threshold``; with pruning on and no floor given, regrets are floored at Pluribus'
310/300 of the threshold, so a pruned action is never far from coming back.
"""

from __future__ import annotations

import math
import numbers
import time
from typing import Any, ClassVar, NamedTuple, Protocol

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.solvers.base import STATE_FORMAT, state_record, timed_step
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name
from pokerlab.tree._primitives import RegretPruning

__all__ = ["PLURIBUS_FLOOR_RATIO", "Blocks", "SampledCFR", "SampledPass", "SampledRun"]

#: Pluribus floored regrets at -310,000,000 and pruned below -300,000,000: the floor sits this
#: factor below the threshold.
PLURIBUS_FLOOR_RATIO = 310.0 / 300.0
#: The largest ``discount_every`` (iterations): block numbers stay exact in float64.
MAX_DISCOUNT_EVERY = 2**53


class Blocks(NamedTuple):
    """What the front hands a sampled pass for one call: the schedule counted in blocks
    (``linear_until`` in blocks; its :meth:`~DiscountSchedule.as_array` is the kernels' input),
    the block length in iterations, whether the schedule discounts at all, and the pruning."""

    schedule: DiscountSchedule
    every: int
    discounts: bool
    pruning: RegretPruning


class SampledPass(Protocol):
    """A backend's sampled pass: made by the front with the tree and the seed, it allocates the
    run's arrays and runs its numba kernel on them."""

    def run(self, blocks: Blocks, first: int, iterations: int, only_player: int) -> int:
        """Iterations ``first .. first + iterations - 1`` (each: one traversal per player, the
        discount of ``blocks`` before the first iteration of each block j >= 2), or, with
        ``only_player >= 0``, one traversal for that player and nothing else; nodes visited."""
        ...

    def arrays(self) -> dict[str, np.ndarray]:
        """The run's arrays, live (regrets, strategy sums and the generator state): what a
        checkpoint holds and what loading writes into."""
        ...


class SampledCFR:
    """Monte Carlo CFR: the options, the block schedule, the run loop and the state schema of
    every sampled solver; ``sampled`` (a :class:`SampledPass`) is the backend's part.

    A front sets ``algorithm`` (the variant, e.g. ``"es-mccfr"``), calls
    :meth:`_set_sampling_options` with its options and sets ``sampled``; it gives
    ``_backend_config`` (its settings in the state's ``config``), ``_state_game`` (game name,
    parameters and representation of the state) and ``num_players``. The counters
    ``iterations``, ``nodes_touched`` and ``seconds`` are the engine's
    (:class:`~pokerlab.solvers.base.Solver`).
    """

    #: The state's ``format`` (:data:`pokerlab.solvers.base.STATE_FORMAT`; postflop spots: 2,
    #: their player-major arrays).
    state_format: ClassVar[int] = STATE_FORMAT
    #: What the state's game is called in a refusal ("game", "spot").
    _game_noun: ClassVar[str] = "game"

    algorithm: str
    schedule: DiscountSchedule
    sampled: SampledPass
    num_players: int
    iterations: int
    nodes_touched: int
    seconds: float

    def _set_sampling_options(
        self,
        schedule: DiscountSchedule | None,
        prune: bool,
        prune_threshold: float,
        prune_probability: float,
        min_regret: float | None,
        discount_every: int,
        linear_seconds: float | None,
    ) -> None:
        """Check and keep the options (``prune_threshold``: the front's default already
        filled in); each bad value is refused by name."""
        if not 0.0 <= prune_probability <= 1.0:
            raise PokerlabError(f"prune_probability must be in [0, 1], got {prune_probability}")
        if (
            isinstance(discount_every, bool)
            or not isinstance(discount_every, numbers.Integral)
            or not 1 <= int(discount_every) <= MAX_DISCOUNT_EVERY
        ):
            raise PokerlabError(
                f"discount_every must be 1 .. 2**53 iterations, got {discount_every!r}"
            )
        if linear_seconds is not None and not linear_seconds > 0:
            raise PokerlabError(f"linear_seconds must be > 0, got {linear_seconds}")
        if schedule is not None and schedule.predictive:
            raise PokerlabError(
                f"schedule {schedule.name!r} is predictive: prediction is full-width only (a "
                "sampled regret is a poor prediction of the next one); Monte Carlo CFR takes "
                "cfr, cfr+, linear, dcfr or dcfr+"
            )
        if schedule is not None and schedule.scheduled:
            raise PokerlabError(
                f"schedule {schedule.name!r} moves its exponents over a horizon of iterations: "
                "hyperparameter schedules are full-width only (Monte Carlo CFR discounts in "
                "blocks); it takes cfr, cfr+, linear, dcfr or dcfr+"
            )
        self.schedule = schedule or schedule_by_name("cfr")
        self.prune = bool(prune)
        self.prune_threshold = float(prune_threshold)
        self.prune_probability = float(prune_probability)
        if min_regret is None and self.prune and -math.inf < self.prune_threshold < 0.0:
            min_regret = self.prune_threshold * PLURIBUS_FLOOR_RATIO
        self.min_regret = None if min_regret is None else float(min_regret)
        self.discount_every = int(discount_every)
        self.linear_seconds = None if linear_seconds is None else float(linear_seconds)
        #: Iteration at which ``linear_seconds`` ran out (None while it has not).
        self.linear_until_reached: int | None = None

    def _sampling_config(self) -> dict[str, Any]:
        """The options as a checkpoint's ``config`` holds them."""
        return {
            "schedule": self.schedule.to_dict(),
            "prune": self.prune,
            "prune_threshold": self.prune_threshold,
            "prune_probability": self.prune_probability,
            "min_regret": self.min_regret,
            "discount_every": self.discount_every,
            "linear_seconds": self.linear_seconds,
        }

    # --- the schedule in blocks -----------------------------------------------------------------
    def _discounts(self) -> bool:
        """Whether the schedule discounts at all (plain CFR has nothing to stop)."""
        s = self.schedule
        return s.alpha is not None or s.beta is not None or s.gamma is not None

    def _linear_until(self) -> int | None:
        """Iteration after which discounting stops (None: never)."""
        until = self.schedule.linear_until
        if self.linear_until_reached is not None:
            until = (
                self.linear_until_reached
                if until is None
                else min(until, self.linear_until_reached)
            )
        return until

    def _block_schedule(self) -> DiscountSchedule:
        """The schedule counted in blocks: block j is discounted as the schedule discounts
        iteration j, and only while the block's first iteration is within ``linear_until``."""
        until = self._linear_until()
        if until is not None and until > 0:
            # block j starts at iteration (j-1)K+1; it is discounted when that is <= until
            until = (until - 1) // self.discount_every + 1
        return self.schedule.with_linear_until(until)

    def _blocks(self) -> Blocks:
        """The discounts and pruning of the next call of the sampled pass."""
        return Blocks(
            self._block_schedule(),
            self.discount_every,
            self._discounts(),
            RegretPruning(
                self.prune,
                self.prune_probability,
                self.prune_threshold,
                -math.inf if self.min_regret is None else self.min_regret,
            ),
        )

    def _kernel(self, first: int, iterations: int, only_player: int = -1) -> int:
        """The sampled pass on iterations ``first`` .. ``first + iterations - 1``."""
        return int(self.sampled.run(self._blocks(), first, iterations, only_player))

    # --- the run --------------------------------------------------------------------------------
    def _run(self, iterations: int) -> int:
        """Advance ``iterations`` iterations; nodes touched. While ``linear_seconds`` still runs
        (and the schedule discounts), block by block, freezing the iteration count when the time
        is spent, so the schedule after that point is fixed (and stored in checkpoints)."""
        base = self.iterations
        timed = self.linear_seconds is not None and self.linear_until_reached is None
        if iterations == 0 or not (timed and self._discounts()):
            return self._kernel(base + 1, iterations)
        assert self.linear_seconds is not None
        k = self.discount_every
        touched = 0
        done = 0
        start = time.perf_counter()
        while done < iterations:
            if self.linear_until_reached is None and (
                self.seconds + time.perf_counter() - start >= self.linear_seconds
            ):
                self.linear_until_reached = base + done
            chunk = iterations - done
            if self.linear_until_reached is None:
                chunk = min(chunk, k - (base + done) % k)
            touched += self._kernel(base + done + 1, chunk)
            done += chunk
        return touched

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` more iterations (each: one traversal, or outcome-sampling
        episode, per player in turn)."""
        timed_step(self, iterations)

    def sampled_update(self, player: int) -> int:
        """One traversal (or outcome-sampling episode) for ``player`` and nothing else: no
        iteration is counted, no discount or pruning applied; nodes touched. For tests and
        experiments: from a given regret state, the mean of many such updates is the
        full-width instantaneous regret."""
        if not 0 <= player < self.num_players:
            raise PokerlabError(f"player must be in [0, {self.num_players}), got {player}")
        return self._kernel(self.iterations + 1, 0, only_player=player)

    # --- the state ------------------------------------------------------------------------------
    def _backend_config(self) -> dict[str, Any]:
        """The front's own settings in the state's ``config`` (seed, variant options, ...)."""
        return {}

    def _state_game(self) -> tuple[str, dict[str, Any], str]:
        """(game name, game parameters, representation) as the state names them."""
        raise NotImplementedError  # pragma: no cover - every front defines it

    def _config(self) -> dict[str, Any]:
        """Constructor settings that must match when a state is loaded."""
        return {**self._sampling_config(), **self._backend_config()}

    def _arrays(self) -> dict[str, np.ndarray]:
        return self.sampled.arrays()

    def _extra_state(self) -> dict[str, Any]:
        return {"linear_until_reached": self.linear_until_reached}

    def _load_extra_state(self, state: dict[str, Any]) -> None:
        reached = state.get("linear_until_reached")
        self.linear_until_reached = None if reached is None else int(reached)

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume exactly, in the engine's state schema: ``format``,
        ``algorithm``, ``game``, ``game_params``, ``representation``, ``config`` (the options),
        the counters, ``arrays`` (copies: regrets, strategy sums, generator state) and
        ``extra`` (the frozen discounting horizon)."""
        game, params, representation = self._state_game()
        return state_record(self, game, params, representation, self.state_format)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state of :meth:`state_dict` of a run of the same game, algorithm and
        settings; anything else is refused naming what differs."""
        if state.get("format") != self.state_format:
            raise PokerlabError(
                f"unsupported {self.algorithm} state format {state.get('format')!r} "
                f"(this solver reads format {self.state_format!r})"
            )
        workers = (state.get("extra") or {}).get("workers")
        if workers is not None and getattr(self, "workers", None) is None:
            raise PokerlabError(
                f"checkpoint of a run on {workers} batched workers (threads or Ray): resume it "
                "with the same workers and batch"
            )
        game, params, _ = self._state_game()
        theirs = (state.get("game"), state.get("game_params"))
        if theirs != (game, dict(params)):
            raise PokerlabError(
                f"the state is for a different {self._game_noun}: {theirs}, this solver's is "
                f"{(game, dict(params))}"
            )
        if state.get("algorithm") != self.algorithm:
            raise PokerlabError(
                f"the state was made by {state.get('algorithm')!r}, not {self.algorithm!r}"
            )
        mine = self._config()
        config = state.get("config")
        if config != mine:
            config = config if isinstance(config, dict) else {}
            absent = object()
            key = next(k for k in (*mine, *config) if config.get(k, absent) != mine.get(k, absent))
            raise PokerlabError(
                f"state settings differ from this solver's: {key} {config.get(key)!r} in the "
                f"state, {mine.get(key)!r} here"
            )
        arrays = self._arrays()
        incoming = state.get("arrays") or {}
        for name, arr in arrays.items():
            if name not in incoming or np.shape(incoming[name]) != arr.shape:
                raise PokerlabError(f"state array {name!r} is missing or has the wrong shape")
        for name, arr in arrays.items():
            arr[...] = incoming[name]
        self.iterations = int(state["iterations"])
        self.nodes_touched = int(state.get("nodes_touched", 0))
        self.seconds = float(state.get("seconds", 0.0))
        self._load_extra_state(state.get("extra") or {})


#: The name of the front before it owned the state and the loop (kept for imports).
SampledRun = SampledCFR
