"""Monte Carlo CFR on no-limit postflop spots: chance and external sampling on the vector tree.

:class:`PostflopMCCFR` runs the sampling variants of Lanctot, Waugh, Zinkevich & Bowling (2009),
"Monte Carlo Sampling for Regret Minimization in Extensive Games", on a postflop spot's vector
tree (:mod:`pokerlab.tree.vector.tree`), in the float32 regret and strategy-sum arrays of
:class:`~pokerlab.solvers.postflop.PostflopSolver` (one ``actions x hands(actor)`` block per
decision node). Every traversal samples a deal: one hand per player from the weighted ranges with
card removal, and the turn and river cards still to come (kernels:
:mod:`pokerlab.tree.vector._mccfr_kernels`).

``cs-mccfr`` (chance sampling) walks both players' whole action trees on the sampled deal;
``es-mccfr`` (external sampling) samples the opponent's actions from its current strategy.

An iteration is one traversal per player, OOP then IP, each on its own deal. Exploitability is
exact: the vector tree's full-width passes (:class:`~pokerlab.tree.vector.passes.Passes`) on
the strategy sums, the evaluator of :class:`PostflopSolver` too.

Discounting in blocks, its time budget and regret-based pruning are the shared Monte Carlo front's
(:mod:`pokerlab.solvers.sampling`); here pruning never acts on the river (the last betting round)
nor on actions that end the hand. The xoshiro256** state is part of
:meth:`PostflopMCCFR.state_dict`: a resumed run equals an uninterrupted one bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pokerlab._rng import SeedLike, kernel_seed, seed_state
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.base import Callback, Progress

# SampleTables stays importable from here: numba's on-disk cache of the sampling kernels names
# the type by this module (a cache written before the move must still load)
from pokerlab.solvers.postflop_sampling import (  # noqa: F401
    SampleTables,
    default_prune_threshold,
    sample_tables,
)
from pokerlab.solvers.postflop_solve import check_finite, finite_exploitability, solve_spot
from pokerlab.solvers.sampling import Blocks, SampledCFR
from pokerlab.solvers.schedule import DiscountSchedule, discount_factors
from pokerlab.tree.vector import _kernels as VK
from pokerlab.tree.vector import _mccfr_kernels as MK
from pokerlab.tree.vector.passes import Passes

__all__ = [
    "PostflopMCCFR",
    "POSTFLOP_MCCFR_ALGORITHMS",
    "VectorSampledPass",
]

#: Sampling variants on postflop spots and their kernel codes.
POSTFLOP_MCCFR_ALGORITHMS = {"cs-mccfr": MK.CHANCE_SAMPLING, "es-mccfr": MK.EXTERNAL_SAMPLING}
#: 2: the solver arrays are player-major (see pokerlab.solvers.postflop.STATE_FORMAT)
STATE_FORMAT = 2


class VectorSampledPass:
    """A postflop spot's sampled pass (a :class:`~pokerlab.solvers.sampling.SampledPass`): the
    float32 regrets and strategy sums of the vector tree's layout, the xoshiro256** state, the
    sampling tables and the kernels' scratch; :func:`MK.run` walks them. The block discounts are
    computed here, one row of factors per block the call enters."""

    def __init__(self, tree: Any, tables: SampleTables, variant: str, seed: int) -> None:
        self.tree = tree
        self.tables = tables
        self.code = POSTFLOP_MCCFR_ALGORITHMS[variant]
        size = tree.size
        self.regrets = np.zeros(size, dtype=np.float32)
        self.strat_sum = np.zeros(size, dtype=np.float32)
        self.rng = seed_state(seed)
        n = tree.num_nodes
        edges = int(tree.arrays.children.shape[0])
        self.scratch = MK.VectorSampledScratch(
            np.full(4, -1, dtype=np.int64),  # deal
            np.zeros(n, dtype=np.int64),  # stack
            np.zeros(n, dtype=np.int64),  # visit
            np.zeros((n, 4), dtype=np.int64),  # world
            np.zeros(n),  # reach
            np.zeros(n),  # values
            np.zeros(n, dtype=np.int8),  # explored
            np.zeros(n, dtype=np.int64),  # pick
            np.zeros(max(edges, 1)),  # sigma per edge
        )

    def run(self, blocks: Blocks, first: int, iterations: int, only_player: int) -> int:
        """Iterations ``first`` .. ``first + iterations - 1``, discounting at block starts
        inside the kernel with the factors computed here (one call per step)."""
        every = blocks.every if blocks.discounts else 0
        first_block = 1
        factors = np.ones((1, 3))
        if every and iterations:
            first_block = (first - 1) // every + 1
            last_block = (first + iterations - 2) // every + 1
            params = blocks.schedule.as_array()
            factors = np.array(
                [discount_factors(params, j) for j in range(first_block, last_block + 1)],
                dtype=np.float64,
            ).reshape(-1, 3)
        return int(
            MK.run(
                self.tree.arrays,
                self.tree.hands,
                self.tables,
                self.code,
                self.regrets,
                self.strat_sum,
                first,
                iterations,
                MK.BlockDiscounts(every, factors, first_block),
                self.rng,
                self.scratch,
                blocks.pruning,
                bool(blocks.schedule.regret_floor),
                only_player,
            )
        )

    def arrays(self) -> dict[str, np.ndarray]:
        return {"regrets": self.regrets, "strategy_sum": self.strat_sum, "rng": self.rng}


class PostflopMCCFR(SampledCFR):
    """Monte Carlo CFR (chance or external sampling) on a postflop spot's vector tree: the
    Monte Carlo front (:class:`~pokerlab.solvers.sampling.SampledCFR`) with the vector tree's
    sampled pass (:class:`VectorSampledPass`), exact exploitability and a solved spot to read.

    Parameters
    ----------
    game:
        The spot (:func:`pokerlab.load_game` ``("postflop", ...)``).
    variant:
        ``"cs-mccfr"`` or ``"es-mccfr"``.
    schedule:
        Discounting (default: none, plain CFR); ``schedule.linear_until`` counts iterations.
    seed:
        An integer >= 0 or a ``numpy.random.Generator`` (:mod:`pokerlab._rng`).
    prune, prune_threshold, prune_probability, min_regret:
        Regret-based pruning (see the module docstring); threshold and floor in chips (defaults:
        -25 x the largest payoff, and the floor at Pluribus' 310/300 of the threshold when
        pruning).
    discount_every:
        Apply the schedule's discount every this many iterations (blocks).
    linear_seconds:
        Discount only during this much solving time, then plain CFR.
    threads:
        Threads of the exploitability passes (the sampling itself is serial).
    """

    state_format = STATE_FORMAT
    _game_noun = "spot"

    def __init__(
        self,
        game: PostflopGame,
        variant: str = "es-mccfr",
        schedule: DiscountSchedule | None = None,
        seed: SeedLike = 0,
        prune: bool = False,
        prune_threshold: float | None = None,
        prune_probability: float = 0.95,
        min_regret: float | None = None,
        discount_every: int = 100,
        linear_seconds: float | None = None,
        threads: int = 1,
    ) -> None:
        if not isinstance(game, PostflopGame):
            raise PokerlabError("PostflopMCCFR needs a postflop game")
        if variant not in POSTFLOP_MCCFR_ALGORITHMS:
            raise PokerlabError(
                f"unknown sampling variant {variant!r} for postflop spots; choose one of "
                f"{', '.join(POSTFLOP_MCCFR_ALGORITHMS)}"
            )
        if not isinstance(threads, int) or threads < 1:
            raise PokerlabError(f"threads must be a positive integer, got {threads!r}")
        if prune_threshold is not None and not math.isfinite(prune_threshold):
            raise PokerlabError(f"prune_threshold must be a finite number, got {prune_threshold}")
        self.game = game
        self.algorithm = variant
        self.variant = variant
        self.seed = kernel_seed(seed)
        self.spot = game.expanded
        self.tree = self.spot.tree
        self._set_sampling_options(
            schedule,
            prune,
            default_prune_threshold(self.spot) if prune_threshold is None else prune_threshold,
            prune_probability,
            min_regret,
            discount_every,
            linear_seconds,
        )

        self.tables = sample_tables(self.spot)
        self.passes = Passes(self.tree, threads)
        self.num_players = 2
        self.sampled = VectorSampledPass(self.tree, self.tables, variant, self.seed)
        self.regrets = self.sampled.regrets
        self.strat_sum = self.sampled.strat_sum
        self.rng = self.sampled.rng
        self.iterations = 0
        self.nodes_touched = 0
        self.seconds = 0.0
        #: wall seconds spent in the exploitability checks of :meth:`solve` (not in ``seconds``)
        self.check_seconds = 0.0
        self._kernel(1, 0)  # compile (or load from numba's cache) outside any timed region
        MK.discount(self.regrets, self.strat_sum, 1.0, 1.0, 1.0)

    def expected_update(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """The exact expectation, over every deal, of one chance-sampling traversal's update of
        the regrets and strategy sums for ``player`` from the current state: ``(dR, dS)``.

        Enumerates every compatible hand pair and every run of later cards (tiny spots only).
        Its regret part equals the full-width CFR update of the same state times w(h) / norm per
        hand of the traverser (the range weight over the deal's normaliser), and below a dealt
        card, times the number of cards of its suit-isomorphism class (Lanctot et al. 2009: the
        sampled counterfactual regrets are unbiased).
        """
        if player not in (0, 1):
            raise PokerlabError(f"player must be 0 or 1, got {player}")
        d_r = np.zeros_like(self.regrets)
        d_s = np.zeros_like(self.strat_sum)
        MK.expected_update(
            self.tree.arrays,
            self.tree.hands,
            self.tables,
            player,
            self.regrets,
            self.strat_sum,
            d_r,
            d_s,
            self.rng.copy(),
            self.sampled.scratch,
        )
        return d_r, d_s

    def sample_deals(self, count: int) -> np.ndarray:
        """``count`` deals drawn as the traversals draw them, from a copy of the generator
        (the solver's state does not move): (count, 4) = hand of OOP, hand of IP (indices of the
        hand lists), the later cards (-1 where none)."""
        t = self.tables
        hd = self.tree.hands
        return MK.sample_deals(
            self.rng.copy(), t.cdf, hd.num, hd.cards, t.board_mask, t.levels, int(count)
        )

    def default_check_every(self) -> int:
        return 10_000

    # --- measures --------------------------------------------------------------------------------
    def values(self) -> dict[str, tuple[float, float]]:
        """Expected values of the average strategy and each player's best-response value against
        it (chips), by the vector tree's exact passes (as :meth:`PostflopSolver.values`)."""
        ev, br = [], []
        for p in (0, 1):
            out, _ = self.passes.pass_(p, VK.MODE_EV, self.regrets, self.strat_sum)
            ev.append(self.passes.root_value(p, out))
            out, _ = self.passes.pass_(p, VK.MODE_BR, self.regrets, self.strat_sum)
            br.append(self.passes.root_value(p, out))
        return {"ev": (ev[0], ev[1]), "best_response": (br[0], br[1])}

    def exploitability(self) -> float:
        """Mean over the players of what a best response gains against the average strategy
        (chips). The arrays are checked first: a NaN or infinity stops with
        :class:`~pokerlab.errors.NonFiniteError` naming the node."""
        self.check_finite()
        v = self.values()
        return finite_exploitability(self, (sum(v["best_response"]) - sum(v["ev"])) / 2.0)

    def check_finite(self) -> None:
        """Raise :class:`~pokerlab.errors.NonFiniteError` naming the node where the regrets or
        strategy sums hold a NaN or an infinity."""
        check_finite(self, {"regrets": self.regrets, "strategy_sum": self.strat_sum})

    def exploitability_pct(self) -> float:
        """Exploitability in percent of the starting pot."""
        return 100.0 * self.exploitability() / float(self.game.config.pot)

    def solve(
        self,
        iterations: int | None = None,
        target_exploitability: float | None = None,
        seconds: float | None = None,
        callback: Callback | None = None,
        check_every: int | None = None,
        target_pct: float | None = None,
    ) -> Progress:
        """Iterate until a limit: ``iterations`` more, exploitability at most
        ``target_exploitability`` chips (or ``target_pct`` percent of the pot), checked every
        ``check_every`` iterations (default 10,000), ``seconds`` of solving, or the callback
        returning True."""
        every = self.default_check_every() if check_every is None else check_every
        return solve_spot(
            self, iterations, target_exploitability, seconds, callback, every, target_pct
        )

    # --- results ---------------------------------------------------------------------------------
    def average_strategy(self) -> Any:
        """The solved spot for reading (:class:`~pokerlab.analysis.postflop.SolvedSpot`)."""
        from pokerlab.analysis.postflop import SolvedSpot

        return SolvedSpot(self.game, self.strat_sum, self.regrets, self.passes)

    def current_strategy(self) -> Any:
        """Regret matching on the cumulative regrets, as a readable solved spot."""
        from pokerlab.analysis.postflop import SolvedSpot

        positive = np.maximum(self.regrets, np.float32(0.0))
        return SolvedSpot(self.game, positive, self.regrets, self.passes)

    # --- the state: the front's schema (format 2) with these settings ----------------------------
    def _backend_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "isomorphism": self.game.isomorphism}

    def _state_game(self) -> tuple[str, dict[str, Any], str]:
        return self.game.name, dict(self.game.params), "vector"

    @classmethod
    def from_config(cls, game: PostflopGame, variant: str, config: dict[str, Any]) -> PostflopMCCFR:
        """A fresh solver with the settings of :meth:`state_dict`'s ``config``."""
        options = dict(config)
        iso = options.pop("isomorphism", True)
        if bool(iso) != game.isomorphism:
            game = PostflopGame(game.config, isomorphism=bool(iso))
        options["schedule"] = DiscountSchedule(**options["schedule"])
        return cls(game, variant, **options)
