"""What every Monte Carlo CFR front shares, whatever tree its sampled pass walks: the options
(pruning, discount blocks, a time budget for discounting), the schedule counted in blocks, and
the run loop that freezes the discounting horizon when its time budget is spent.

:class:`~pokerlab.solvers.mccfr.MCCFRSolver` (history tree) and
:class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR` (vector tree) mix :class:`SampledRun`
in and give their kernel call as ``_kernel(first, iterations, only_player)``.

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
import time
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name

__all__ = ["PLURIBUS_FLOOR_RATIO", "SampledRun"]

#: Pluribus floored regrets at -310,000,000 and pruned below -300,000,000: the floor sits this
#: factor below the threshold.
PLURIBUS_FLOOR_RATIO = 310.0 / 300.0


class SampledRun:
    """The sampling options and the block schedule of a Monte Carlo CFR front (a mixin; the
    front defines ``_kernel``, ``iterations`` and ``seconds``)."""

    schedule: DiscountSchedule
    iterations: int
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
        if not isinstance(discount_every, int) or discount_every < 1:
            raise PokerlabError(f"discount_every must be >= 1 iteration, got {discount_every}")
        if linear_seconds is not None and not linear_seconds > 0:
            raise PokerlabError(f"linear_seconds must be > 0, got {linear_seconds}")
        if schedule is not None and (schedule.predictive or schedule.scheduled):
            raise PokerlabError(
                f"schedule {schedule.name!r}: prediction and hyperparameter schedules are "
                "full-width only (sampled regrets make a poor prediction); Monte Carlo CFR "
                "takes cfr, cfr+, linear or dcfr"
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

    def _kernel(self, first: int, iterations: int, only_player: int = -1) -> int:
        raise NotImplementedError  # pragma: no cover - every front defines it

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

    def _sampled_update(self, player: int, players: int) -> int:
        """One traversal for ``player`` and nothing else (no iteration counted, no discount or
        pruning applied); nodes touched. For tests and experiments: from a given regret state,
        the mean of many such updates is the full-width instantaneous regret."""
        if not 0 <= player < players:
            raise PokerlabError(f"player must be in [0, {players}), got {player}")
        return self._kernel(self.iterations + 1, 0, only_player=player)
