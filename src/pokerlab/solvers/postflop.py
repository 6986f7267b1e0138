"""Full-width CFR on no-limit postflop spots (the vector tree), with the engine's schedules.

:class:`PostflopSolver` keeps the verb set of every pokerlab solver (``step``, ``solve``,
``average_strategy``, ``state_dict``, ``load_state_dict``) and runs alternating updates (OOP's pass
then IP's) with the discount schedule named by ``algorithm``:

* ``cfr``, ``cfr+``, ``linear``, ``dcfr`` as in :mod:`pokerlab.solvers.schedule`;
* ``dcfr-ps``: the DCFR variant of the native solvers (postflop-solver's ``DiscountParams``:
  alpha 1.5, beta a constant 0.5, gamma 3, the average restarting at powers of 4), the default.

Exploitability is in chips: the mean over the two players of what a best response gains
(``exploitability_pct`` divides by the starting pot). Regrets and strategy sums are float32.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.base import Callback, Progress
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.tree import _vector_kernels as K
from pokerlab.tree.vector_tree import Passes

__all__ = ["PostflopSolver", "POSTFLOP_ALGORITHMS", "postflop_schedule"]

POSTFLOP_ALGORITHMS = ("dcfr-ps", "dcfr", "cfr+", "linear", "cfr")
STATE_FORMAT = 1


def postflop_schedule(algorithm: str) -> np.ndarray:
    """Kernel schedule ``[alpha, beta, gamma, floor, linear_until, reset_base, beta_const]``."""
    if algorithm == "dcfr-ps":
        return np.array([1.5, 0.5, 3.0, 0.0, -1.0, 4.0, 1.0])
    if algorithm not in POSTFLOP_ALGORITHMS:
        raise PokerlabError(
            f"unknown postflop algorithm {algorithm!r}; "
            f"choose one of {', '.join(POSTFLOP_ALGORITHMS)}"
        )
    base = schedule_by_name(algorithm).as_array()
    return np.concatenate([base, [0.0, 0.0]])


def warmup_kernels(passes: Passes) -> None:
    """Compile (or load from numba's cache) every pass outside any timed region."""
    size = passes.tree.size
    r = np.zeros(size, dtype=np.float32)
    s = np.zeros(size, dtype=np.float32)
    for mode in (K.MODE_CFR, K.MODE_BR, K.MODE_EV):
        passes.pass_(0, mode, r, s)
    passes.record(0, 0, r, s)
    K.factors(postflop_schedule("dcfr-ps"), 1)


class PostflopSolver:
    """CFR on a postflop spot's vector tree.

    Parameters
    ----------
    game:
        The spot (:func:`pokerlab.load_game` ``("postflop", ...)``).
    algorithm:
        One of :data:`POSTFLOP_ALGORITHMS` (default ``dcfr-ps``).
    threads:
        Threads for the subtrees below the first dealt card (results equal to one thread's).
    """

    def __init__(self, game: PostflopGame, algorithm: str = "dcfr-ps", threads: int = 1) -> None:
        if not isinstance(game, PostflopGame):
            raise PokerlabError("PostflopSolver needs a postflop game")
        if not isinstance(threads, int) or threads < 1:
            raise PokerlabError(f"threads must be a positive integer, got {threads!r}")
        self.game = game
        self.algorithm = algorithm
        self.params = postflop_schedule(algorithm)
        self.floor = bool(self.params[3])
        self.spot = game.expanded
        self.tree = self.spot.tree
        self.passes = Passes(self.tree, threads)
        self.regrets = np.zeros(self.tree.size, dtype=np.float32)
        self.strat_sum = np.zeros(self.tree.size, dtype=np.float32)
        self.iterations = 0
        self.nodes_touched = 0
        self.seconds = 0.0
        self.locks: np.ndarray | None = None
        warmup_kernels(self.passes)

    @property
    def threads(self) -> int:
        return self.passes.threads

    def set_threads(self, threads: int) -> None:
        """Change the thread count (results do not depend on it)."""
        self.passes.set_threads(threads)

    # --- iterations ----------------------------------------------------------------------------
    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` more iterations (each: OOP's pass, then IP's)."""
        if iterations < 0:
            raise PokerlabError(f"iterations must be >= 0, got {iterations}")
        start = time.perf_counter()
        for _ in range(iterations):
            t = self.iterations + 1
            fa, fb, fg = K.factors(self.params, t)
            for player in (0, 1):
                _, visited = self.passes.pass_(
                    player,
                    K.MODE_CFR,
                    self.regrets,
                    self.strat_sum,
                    fa,
                    fb,
                    fg,
                    self.floor,
                    self.locks,
                )
                self.nodes_touched += visited
            self.iterations = t
        self.seconds += time.perf_counter() - start

    # --- measures ------------------------------------------------------------------------------
    def values(self) -> dict[str, tuple[float, float]]:
        """Expected values (chips won from the pot minus chips put in, per player) of the average
        strategy, and each player's best-response value against it."""
        ev, br = [], []
        for p in (0, 1):
            out, _ = self.passes.pass_(p, K.MODE_EV, self.regrets, self.strat_sum)
            ev.append(self.passes.root_value(p, out))
            out, _ = self.passes.pass_(p, K.MODE_BR, self.regrets, self.strat_sum)
            br.append(self.passes.root_value(p, out))
        return {"ev": (ev[0], ev[1]), "best_response": (br[0], br[1])}

    def exploitability(self) -> float:
        """Mean over the players of what a best response gains against the average strategy
        (chips)."""
        v = self.values()
        return (sum(v["best_response"]) - sum(v["ev"])) / 2.0

    def exploitability_pct(self) -> float:
        """Exploitability in percent of the starting pot."""
        return 100.0 * self.exploitability() / float(self.game.config.pot)

    def solve(
        self,
        iterations: int | None = None,
        target_exploitability: float | None = None,
        seconds: float | None = None,
        callback: Callback | None = None,
        check_every: int = 10,
        target_pct: float | None = None,
    ) -> Progress:
        """Iterate until a limit: ``iterations`` more, exploitability at most
        ``target_exploitability`` chips (or ``target_pct`` percent of the pot), checked every
        ``check_every`` iterations, ``seconds`` of solving, or the callback returning True."""
        if target_pct is not None:
            if not target_pct > 0:
                raise PokerlabError(f"target must be > 0% of the pot, got {target_pct}")
            target_exploitability = target_pct / 100.0 * float(self.game.config.pot)
        if iterations is None and target_exploitability is None and seconds is None:
            raise PokerlabError("solve needs iterations, a target exploitability or seconds")
        if iterations is not None and iterations < 0:
            raise PokerlabError(f"iterations must be >= 0, got {iterations}")
        if check_every < 1:
            raise PokerlabError(f"check_every must be >= 1, got {check_every}")
        limit = math.inf if iterations is None else iterations
        done = 0
        start = self.seconds
        expl = math.nan
        while True:
            if (target_exploitability is not None or callback is not None) and self.iterations:
                expl = self.exploitability()
            progress = Progress(self.iterations, self.seconds, self.nodes_touched, expl)
            if callback is not None and callback(progress):
                break
            if target_exploitability is not None and expl <= target_exploitability:
                break
            if done >= limit or (seconds is not None and self.seconds - start >= seconds):
                break
            chunk = int(min(check_every, limit - done))
            self.step(chunk)
            done += chunk
        if math.isnan(expl) or not (target_exploitability is not None or callback is not None):
            expl = self.exploitability()
        return Progress(self.iterations, self.seconds, self.nodes_touched, expl)

    # --- results ---------------------------------------------------------------------------------
    def average_strategy(self) -> Any:
        """The solved spot for reading (:class:`~pokerlab.analysis.postflop.SolvedSpot`)."""
        from pokerlab.analysis.postflop import SolvedSpot

        return SolvedSpot(self.game, self.strat_sum, self.regrets, self.passes)

    # --- checkpoints -----------------------------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm}

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume exactly (the thread count is not part of it)."""
        return {
            "format": STATE_FORMAT,
            "algorithm": self.algorithm,
            "game": self.game.name,
            "game_params": dict(self.game.params),
            "representation": "vector",
            "config": self._config(),
            "iterations": self.iterations,
            "nodes_touched": self.nodes_touched,
            "seconds": self.seconds,
            "arrays": {"regrets": self.regrets.copy(), "strategy_sum": self.strat_sum.copy()},
            "extra": {},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state of a solver for the same spot and algorithm."""
        if state.get("format") != STATE_FORMAT:
            raise PokerlabError(f"unsupported postflop state format {state.get('format')!r}")
        if state.get("game") != self.game.name or state.get("game_params") != self.game.params:
            raise PokerlabError("the state is for a different spot")
        if state.get("algorithm") != self.algorithm:
            raise PokerlabError(
                f"the state was solved with {state.get('algorithm')!r}, not {self.algorithm!r}"
            )
        arrays = state["arrays"]
        for name, arr in (("regrets", self.regrets), ("strategy_sum", self.strat_sum)):
            if name not in arrays or arrays[name].shape != arr.shape:
                raise PokerlabError(f"state array {name!r} is missing or has the wrong shape")
            arr[...] = arrays[name]
        self.iterations = int(state["iterations"])
        self.nodes_touched = int(state["nodes_touched"])
        self.seconds = float(state["seconds"])
