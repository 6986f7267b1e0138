"""Full-width CFR on no-limit postflop spots (the vector tree), with the engine's schedules.

:class:`PostflopSolver` keeps the verb set of every pokerlab solver (``step``, ``solve``,
``average_strategy``, ``state_dict``, ``load_state_dict``) and runs alternating updates (OOP's pass
then IP's) with the discount schedule named by ``algorithm``:

* ``cfr``, ``cfr+``, ``linear``, ``dcfr`` as in :mod:`pokerlab.solvers.schedule`;
* ``dcfr-ps``: the DCFR variant of the native solvers (postflop-solver's ``DiscountParams``:
  alpha 1.5, beta a constant 0.5, gamma 3, the average restarting at powers of 4), the default;
* ``pcfr+``, ``dcfr+``, ``pdcfr+`` (predictive and optimistic CFR) and the hyperparameter
  schedules ``hs-pcfr+``, ``hs-dcfr``, as in :mod:`pokerlab.solvers.schedule`. A predictive
  schedule keeps one more float32 array, the predicted regrets that regret matching reads
  (:attr:`PostflopSolver.prediction`, part of :meth:`~PostflopSolver.state_dict`).

Exploitability is in chips: the mean over the two players of what a best response gains
(``exploitability_pct``: of the starting pot; ``check_exploitability``: float32 passes).

Node locking (:meth:`PostflopSolver.lock`): a locked node plays the fixed probabilities for the
locked hands in every pass, the others adapt. Conventions:

* the strategy sums of a locked node accumulate the locked probabilities, and locking rescales a
  node's existing sums (each locked hand's total kept) to the lock, so a lock added mid-run is
  what :meth:`~PostflopSolver.average_strategy` reports from then on; every reader (the EV and
  best-response passes, :meth:`SolvedSpot.node <pokerlab.analysis.postflop.SolvedSpot.node>`)
  reads the lock itself where one is set, so the reported average equals the lock exactly;
* :meth:`~PostflopSolver.values` and :meth:`~PostflopSolver.exploitability` are those of the
  **locked game**, as native solvers report them: a player's best response plays the lock at
  its own locked nodes for the locked hands (``respect_locks=False`` lets it deviate there);
* unlocking keeps the sums and regrets: the node goes on from where it is.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError, PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.io.files import load_checkpoint, save_checkpoint
from pokerlab.solvers import postflop_solve
from pokerlab.solvers.base import Callback, Progress
from pokerlab.solvers.loop import iteration_count
from pokerlab.solvers.postflop_locks import SpotLocking
from pokerlab.solvers.postflop_solve import check_finite, finite_exploitability, solve_spot
from pokerlab.solvers.schedule import PARAMS_LAYOUT, schedule_by_name
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.passes import Passes

__all__ = [
    "PostflopSolver",
    "POSTFLOP_ALGORITHMS",
    "AVERAGES",
    "postflop_schedule",
    "save_spot_solution",
    "load_spot_solution",
]

POSTFLOP_ALGORITHMS = (
    "dcfr-ps",
    "dcfr",
    "cfr+",
    "linear",
    "cfr",
    "pcfr+",
    "dcfr+",
    "pdcfr+",
    "hs-pcfr+",
    "hs-dcfr",
)
#: how strategy sums grow: times the player's own reach, or the current strategy as it is
AVERAGES = ("reach", "plain")
#: 2: the solver arrays are player-major (OOP's node blocks, then IP's); 1 was node preorder
STATE_FORMAT = 2


def postflop_schedule(algorithm: str) -> np.ndarray:
    """Kernel schedule: :meth:`DiscountSchedule.as_array
    <pokerlab.solvers.schedule.DiscountSchedule.as_array>` (layout
    :data:`~pokerlab.solvers.schedule.PARAMS_LAYOUT`) with slots 5 and 6, ``reset_base`` and
    ``beta_const``, set for ``dcfr-ps`` (see :func:`pokerlab.tree._primitives.discount_factors`)."""
    if algorithm == "dcfr-ps":
        params = schedule_by_name("dcfr", alpha=1.5, beta=0.5, gamma=3.0).as_array()
        params[5] = 4.0  # the average restarts at powers of 4
        params[6] = 1.0  # beta is a constant factor
        return params
    if algorithm not in POSTFLOP_ALGORITHMS:
        raise PokerlabError(
            f"unknown postflop algorithm {algorithm!r}; "
            f"choose one of {', '.join(POSTFLOP_ALGORITHMS)}"
        )
    return schedule_by_name(algorithm).as_array()


class PostflopSolver(SpotLocking):
    """CFR on a postflop spot's vector tree.

    Parameters
    ----------
    game:
        The spot (:func:`pokerlab.load_game` ``("postflop", ...)``).
    algorithm:
        One of :data:`POSTFLOP_ALGORITHMS` (default ``dcfr-ps``).
    threads:
        Threads for the subtrees below the first dealt card (results equal to one thread's).
    compressed:
        The 16-bit mode: regrets int16 and strategy sums uint16, each node's block with one
        float32 scale (half the memory of float32 storage; values within about 1e-4 of the
        block's largest entry, which moves convergence little: see ``benchmarks/postflop.py``).
    warmup:
        Compile or load every pass on construction, running them on a tiny spot
        (:func:`~pokerlab.solvers.postflop_solve.warm_kernels`: milliseconds once loaded); a
        caller that built solvers in this process before (search) skips it.
    average:
        How strategy sums grow (:data:`AVERAGES`): ``"reach"`` (None, the default) adds the
        current strategy times the own reach, the CFR theorem's average (Zinkevich et al.
        2007); ``"plain"`` the strategy as it is (postflop-solver's sums; no traverser reach
        in the CFR passes, 2% of an iteration): ``dcfr-ps`` is then postflop-solver's
        algorithm, the river's and turn's iterations to 0.5% and 0.1% its 60 / 240 and 90 /
        220 (``reach``: 60 / 230, 90 / 210). A loaded state keeps its averaging (another
        explicit ``average`` is refused).
    """

    def __init__(
        self,
        game: PostflopGame,
        algorithm: str = "dcfr-ps",
        threads: int = 1,
        compressed: bool = False,
        warmup: bool = True,
        average: str | None = None,
    ) -> None:
        if not isinstance(game, PostflopGame):
            raise PokerlabError("PostflopSolver needs a postflop game")
        if average is not None and average not in AVERAGES:
            raise PokerlabError(f"unknown average {average!r}; choose one of {', '.join(AVERAGES)}")
        if not isinstance(threads, int) or threads < 1:
            raise PokerlabError(f"threads must be a positive integer, got {threads!r}")
        self.game = game
        self.algorithm = algorithm
        self.params = postflop_schedule(algorithm)
        self._average_given = average is not None
        #: ``"reach"`` or ``"plain"`` strategy sums (see the class docstring)
        self.average = "reach" if average is None else average
        self.floor = bool(self.params[PARAMS_LAYOUT["floor"]])
        self.predictive = bool(self.params[PARAMS_LAYOUT["predictive"]])
        self.spot = game.expanded
        self.tree = self.spot.tree
        self.passes = Passes(self.tree, threads)
        self.passes.prepare()  # tables made on first use: 0.3 ms of a river's first 10 iterations
        self.compressed = bool(compressed)
        self.regrets: np.ndarray = np.zeros(
            self.tree.size, dtype=np.int16 if self.compressed else np.float32
        )
        self.strat_sum: np.ndarray = np.zeros(
            self.tree.size, dtype=np.uint16 if self.compressed else np.float32
        )
        #: the 16-bit mode's scales (regrets, strategy sums; float32 per node), else None
        n_nodes = int(self.tree.arrays.kind.shape[0])
        self.scales: tuple[np.ndarray, np.ndarray] | None = (
            (np.zeros(n_nodes, dtype=np.float32), np.zeros(n_nodes, dtype=np.float32))
            if self.compressed
            else None
        )
        #: predicted regrets of a predictive schedule (float32, ``tree.size``), else None
        self.prediction: np.ndarray | None = (
            np.zeros(self.tree.size, dtype=np.float32) if self.predictive else None
        )
        self.iterations = 0
        self.nodes_touched = 0
        self.seconds = 0.0
        #: wall seconds spent in the exploitability checks of :meth:`solve` (not in ``seconds``)
        self.check_seconds = 0.0
        #: locked probabilities (float32, ``tree.size``; negative = unlocked), None without locks
        self.lock_probs: np.ndarray | None = None
        self._locks: list[Any] = []  # postflop_locks._Lock records
        if warmup:  # a tree without deals never calls the split passes' kernels (20 MiB)
            threads = self.threads if self.tree.num_items > 0 else 1
            postflop_solve.warm_kernels(threads, self.compressed, postflop_schedule("dcfr-ps"))

    @property
    def threads(self) -> int:
        return self.passes.threads

    def set_threads(self, threads: int) -> None:
        """Change the thread count (results do not depend on it)."""
        self.passes.set_threads(threads)

    # --- iterations ----------------------------------------------------------------------------
    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` more iterations (each: OOP's pass, then IP's)."""
        iterations = iteration_count(iterations)
        start = time.perf_counter()
        self.nodes_touched += self.passes.run_cfr(
            self.iterations, iterations, self.params, self.predictive, self.floor,
            self.regrets, self.strat_sum, self.lock_probs, self.prediction, self.scales,
            weighted=self.average == "reach",
        )  # fmt: skip
        self.iterations += iterations
        self.seconds += time.perf_counter() - start

    # --- measures ------------------------------------------------------------------------------
    def values(self, respect_locks: bool = True) -> dict[str, tuple[float, float]]:
        """Expected values (chips won from the pot minus chips put in, per player) of the average
        strategy, and each player's best-response value against it.

        With locks, the average plays the locked probabilities, and a player's best response is
        the one of the locked game: at its own locked nodes it plays the lock for the locked
        hands (``respect_locks=False``: it may deviate there too)."""
        lock = self.lock_probs
        ev, br = [], []
        for p in (0, 1):
            out, _ = self.passes.pass_(p, K.MODE_EV, self.regrets, self.strat_sum, lock_probs=lock)
            ev.append(self.passes.root_value(p, out))
            # the best-response pass plays the locks at the traverser's own locked entries
            # and maximises elsewhere; without respect, only the opponent's locks stay
            br_lock = lock if respect_locks else self._locks_of(1 - p)
            out, _ = self.passes.pass_(
                p, K.MODE_BR, self.regrets, self.strat_sum, lock_probs=br_lock
            )
            br.append(self.passes.root_value(p, out))
        return {"ev": (ev[0], ev[1]), "best_response": (br[0], br[1])}

    def exploitability(self, respect_locks: bool = True) -> float:
        """Mean over the players of what a best response gains against the average strategy
        (chips); with locks, in the locked game (see :meth:`values`). Every array is checked
        first: a NaN or infinity stops with :class:`~pokerlab.errors.NonFiniteError`."""
        self.check_finite()
        if self.game.zero_sum:
            # without rake the two EVs sum to the starting pot whatever the strategies: the
            # two best-response passes suffice (postflop-solver's compute_exploitability too)
            lock = self.lock_probs
            locks = tuple(lock if respect_locks else self._locks_of(1 - p) for p in (0, 1))
            br = self.passes.best_responses(self.strat_sum, self.regrets, locks)
            gain = sum(br) - float(self.game.config.pot)
            return finite_exploitability(self, gain / 2.0)
        v = self.values(respect_locks)
        return finite_exploitability(self, (sum(v["best_response"]) - sum(v["ev"])) / 2.0)

    #: what :meth:`solve` and the command line check while solving (float32 best responses)
    check_exploitability = postflop_solve.check_exploitability

    def check_finite(self) -> None:
        """Raise :class:`~pokerlab.errors.NonFiniteError` naming the node where an array holds
        a NaN or an infinity (:func:`check_finite`)."""
        check_finite(self, self._arrays())

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
        return solve_spot(
            self, iterations, target_exploitability, seconds, callback, check_every, target_pct
        )

    # --- results ---------------------------------------------------------------------------------
    def average_strategy(self) -> Any:
        """The solved spot for reading (:class:`~pokerlab.analysis.postflop.SolvedSpot`)."""
        from pokerlab.analysis.postflop import SolvedSpot

        return SolvedSpot(
            self.game, self.strat_sum, self.regrets, self.passes, locks=self.lock_probs, solver=self
        )

    # --- node locking ----------------------------------------------------------------------------

    # --- checkpoints -----------------------------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"algorithm": self.algorithm, "average": self.average}
        if self.compressed:
            config["compressed"] = True
        return config

    def _arrays(self, copy: bool = False) -> dict[str, np.ndarray]:
        """The solver arrays by state name (the prediction only for a predictive schedule, the
        scales only in the 16-bit mode)."""
        out = {"regrets": self.regrets, "strategy_sum": self.strat_sum}
        if self.prediction is not None:
            out["prediction"] = self.prediction
        if self.scales is not None:
            out["regret_scale"], out["strategy_scale"] = self.scales
        return {k: v.copy() for k, v in out.items()} if copy else out

    def state_dict(self, copy: bool = True) -> dict[str, Any]:
        """Everything needed to resume exactly (the thread count is not part of it).

        ``copy=False`` hands out the solver's own arrays instead of copies (for a save that
        finishes before the next iteration: one copy of the arrays less at the peak)."""
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
            "arrays": self._arrays(copy=copy),
            "extra": {
                "locks": [
                    {"line": r.line, "hands": r.hands, "strategy": dict(r.strategy)}
                    for r in self._locks
                ]
            },
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state of a solver for the same spot and algorithm."""
        if state.get("format") == 1:
            raise PokerlabError(
                "this postflop state was saved by an earlier pokerlab (state format 1, arrays in "
                "node order; format 2 keeps each player's nodes together): solve the spot again"
            )
        if state.get("format") != STATE_FORMAT:
            raise PokerlabError(f"unsupported postflop state format {state.get('format')!r}")
        if state.get("game") != self.game.name or state.get("game_params") != self.game.params:
            raise PokerlabError("the state is for a different spot")
        if state.get("algorithm") != self.algorithm:
            raise PokerlabError(
                f"the state was solved with {state.get('algorithm')!r}, not {self.algorithm!r}"
            )
        # states saved before the choice existed were all reach-weighted
        average = (state.get("config") or {}).get("average", "reach")
        if average not in AVERAGES:
            raise PokerlabError(f"the state's average {average!r} is not one of {AVERAGES}")
        if self._average_given and average != self.average:
            raise PokerlabError(
                f"the state was solved with average={average!r}, not {self.average!r} "
                "(leave average out to continue it)"
            )
        compressed = bool((state.get("config") or {}).get("compressed", False))
        if compressed != self.compressed:
            modes = {True: "16-bit mode", False: "float32 mode"}
            raise PokerlabError(
                f"the state was saved in the {modes[compressed]}, this solver uses the "
                f"{modes[self.compressed]} (pass compressed={compressed})"
            )
        arrays = state["arrays"]
        mine = self._arrays()
        for name, arr in mine.items():
            if (
                name not in arrays
                or arrays[name].shape != arr.shape
                or arrays[name].dtype != arr.dtype
            ):
                raise PokerlabError(
                    f"state array {name!r} is missing or has the wrong shape or type"
                )
        saved = (state.get("extra") or {}).get("locks", [])
        if not isinstance(saved, list) or not all(
            isinstance(x, dict) and {"line", "hands", "strategy"} <= set(x) for x in saved
        ):
            raise PokerlabError("the state's locks are not a list of line, hands, strategy")
        # the locks were checked when set; a damaged state fails here before anything changes
        recs = [self._resolve_lock(x["line"], x["strategy"], x["hands"]) for x in saved]
        for name, arr in mine.items():
            arr[...] = arrays[name]
        self._locks = recs
        self._rebuild_locks()
        self.average = average
        self.iterations = int(state["iterations"])
        self.nodes_touched = int(state["nodes_touched"])
        self.seconds = float(state["seconds"])


def save_spot_solution(path: str | os.PathLike[str], solver: Any, **metadata: Any) -> None:
    """Save a solve (spot, algorithm, iterations, float32 arrays): atomic, checksummed.

    ``metadata`` (JSON values, e.g. ``status="interrupted", partial=True``) is stored with it and
    read back by :func:`pokerlab.io.files.read_metadata`."""
    # the solver's own arrays (not copies): they do not change while this call writes them
    state = solver.state_dict(copy=False) if isinstance(solver, PostflopSolver) else None
    save_checkpoint(path, state or solver.state_dict(), kind="postflop-solution", **metadata)


def load_spot_solution(path: str | os.PathLike[str], threads: int = 1) -> PostflopSolver:
    """Reopen a file written by :func:`save_spot_solution`: a solver ready to read or continue."""
    state = load_checkpoint(path)
    if state.get("game") != "postflop":
        raise FileFormatError(f"{os.fspath(path)} is not a postflop solution")
    game = PostflopGame(**state["game_params"])  # the file layout (+ isomorphism when off)
    compressed = bool((state.get("config") or {}).get("compressed", False))
    solver = PostflopSolver(game, state["algorithm"], threads=threads, compressed=compressed)
    solver.load_state_dict(state)
    return solver
