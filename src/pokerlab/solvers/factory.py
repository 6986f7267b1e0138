"""``make_solver`` and ``restore_solver``: a solver by algorithm name, or from a saved state,
through one registry of solver families by backend kind (:data:`SOLVER_FAMILIES`)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.solvers.base import Solver
from pokerlab.solvers.families import (
    ALGORITHMS,
    FULL_WIDTH,
    SAMPLING,
    SOLVER_FAMILIES,
    backend_kind,
    state_backend_kind,
)
from pokerlab.solvers.mccfr import MCCFR_ALGORITHMS
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.tree.compiled import CompiledGame, TreeKind

__all__ = [
    "ALGORITHMS",
    "FULL_WIDTH",
    "SAMPLING",
    "load_limit_checkpoint",
    "make_solver",
    "restore_solver",
]

_ALIASES = {
    "cfrplus": "cfr+",
    "cfr_plus": "cfr+",
    "lcfr": "linear",
    "linear-cfr": "linear",
    "discounted": "dcfr",
    "pcfrplus": "pcfr+",
    "predictive": "pcfr+",
    "dcfrplus": "dcfr+",
    "pdcfrplus": "pdcfr+",
    "hs-pcfrplus": "hs-pcfr+",
    "vanilla": "cfr",
    "cs": "cs-mccfr",
    "es": "es-mccfr",
    "os": "os-mccfr",
    "mccfr": "es-mccfr",
}


def make_solver(
    game: HistoryGame | CompiledGame,
    algorithm: str = "dcfr",
    *,
    representation: TreeKind | None = None,
    alternating: bool | None = None,
    prune: bool | None = None,
    linear_until: int | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    seed: int | np.random.Generator | None = None,
    schedule: str | DiscountSchedule | None = None,
    epsilon: float | None = None,
    regret_pruning: bool | None = None,
    prune_threshold: float | None = None,
    prune_probability: float | None = None,
    min_regret: float | None = None,
    discount_every: int | None = None,
    linear_seconds: float | None = None,
    horizon: int | None = None,
    threads: int | None = None,
    **unknown: object,
) -> Solver:
    """A solver for ``game``; an option the algorithm would not use is refused, not ignored.

    Every option defaults to ``None`` ("not given"). An option name ``make_solver`` does not know,
    or one the chosen algorithm does not apply (``seed`` for full-width CFR, ``epsilon`` for
    external sampling, ``alternating=False`` for Monte Carlo CFR, ...), raises
    :class:`~pokerlab.errors.PokerlabError` naming every such option and why.

    Full width (:class:`~pokerlab.solvers.cfr.CFRSolver`): ``algorithm`` is one of ``cfr``,
    ``cfr+``, ``linear``, ``dcfr``, ``pcfr+`` (Predictive CFR+), ``dcfr+``, ``pdcfr+`` (Xu et
    al. 2024), ``hs-pcfr+``, ``hs-dcfr`` (hyperparameter schedules, Zhang, McAleer & Sandholm
    2024; see :mod:`pokerlab.solvers.schedule`); ``representation`` forces the ``"public"`` or
    ``"history"`` tree (default: public when the game has one); ``alternating=False`` for
    simultaneous updates; ``prune`` is zero-reach pruning (default on); ``linear_until=N``
    discounts only during the first N iterations (Pluribus' Linear-then-plain schedule);
    ``alpha``, ``beta``, ``gamma`` override the exponents of ``dcfr`` (all three), ``dcfr+`` and
    ``pdcfr+`` (alpha, gamma) and ``pcfr+`` (gamma); ``horizon`` is the length T of the
    ``hs-*`` schedules (default 1000 iterations).

    Monte Carlo CFR (:class:`~pokerlab.solvers.mccfr.MCCFRSolver`, always on the history tree):
    ``cs-mccfr``, ``es-mccfr``, ``os-mccfr``, with ``seed`` (an integer or a
    ``numpy.random.Generator``, turned into the generator state by
    :func:`pokerlab._rng.kernel_seed`; default 0), ``schedule`` (a schedule name or object;
    default plain CFR, or Linear CFR when ``linear_until`` or ``linear_seconds`` is given;
    ``alpha``/``beta``/``gamma`` only with ``schedule="dcfr"``), ``discount_every`` (default 100,
    only with a discounting schedule), ``epsilon`` (``os-mccfr`` only, default 0.6),
    ``regret_pruning=True`` (Pluribus' regret-based pruning, chance and external sampling) with
    ``prune_threshold`` and ``prune_probability`` (default 0.95), and ``min_regret``.

    Postflop spots (``load_game("postflop", ...)``): a full-width name (``dcfr-ps``, ``dcfr``,
    ``cfr+``, ``linear``, ``cfr``, ``pcfr+``, ``dcfr+``, ``pdcfr+``, ``hs-pcfr+``, ``hs-dcfr``;
    the ``hs-*`` horizon is the default 1000 iterations) gives a
    :class:`~pokerlab.solvers.postflop.PostflopSolver` on the spot's vector tree, after
    :meth:`PostflopGame.check_memory <pokerlab.games.postflop.game.PostflopGame.check_memory>`
    (a tree too large for this machine's memory is refused with the estimate); its options are
    ``threads`` (default 1) and ``compressed`` (the 16-bit storage mode, default False).
    ``cs-mccfr`` and ``es-mccfr`` give a :class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR`
    with the sampling options above (``threads``: of its exploitability passes).
    """
    if isinstance(game, str):
        raise PokerlabError(
            f"make_solver takes a game, not its name: make_solver(load_game({game!r}), ...)"
        )
    if not isinstance(algorithm, str):
        raise PokerlabError(f"algorithm must be a name such as 'dcfr', got {algorithm!r}")
    for flag, value in (
        ("alternating", alternating), ("prune", prune), ("regret_pruning", regret_pruning)
    ):  # fmt: skip
        if value is not None and not isinstance(value, bool | np.bool_):
            raise PokerlabError(f"{flag} must be True or False, got {value!r}")
    if min_regret is not None and not (isinstance(min_regret, numbers.Real) and min_regret < 0):
        raise PokerlabError(  # Pluribus floored regrets at -310,000,000 (Brown & Sandholm 2019)
            f"min_regret is a floor for regrets, a number below 0, got {min_regret!r}"
        )
    name = algorithm.lower().strip()
    name = _ALIASES.get(name, name)
    if name not in ALGORITHMS and getattr(game, "name", None) != "postflop":
        raise PokerlabError(
            f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    values = dict(
        representation=representation,
        alternating=alternating,
        prune=prune,
        linear_until=linear_until,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        seed=seed,
        schedule=schedule,
        epsilon=epsilon,
        regret_pruning=regret_pruning,
        prune_threshold=prune_threshold,
        prune_probability=prune_probability,
        min_regret=min_regret,
        discount_every=discount_every,
        linear_seconds=linear_seconds,
        horizon=horizon,
    )
    given = {k: v for k, v in values.items() if v is not None}
    family = SOLVER_FAMILIES[(backend_kind(game), name in MCCFR_ALGORITHMS)]
    return family.make(game, algorithm, name, threads, given, dict(unknown))


def restore_solver(state: dict, game: HistoryGame | None = None, *, cache: bool = True) -> Solver:
    """Rebuild a solver from :meth:`Solver.state_dict` output (for example a loaded checkpoint).

    ``game`` is needed only for games that are not in the registry. A limit hold'em training
    state (representation ``"bucketed"``; older files: format ``limit-pcs`` or ``limit-es``)
    gives its limit solver (public chance sampling:
    :func:`pokerlab.solvers.limit_checkpoint.restore_limit_solver`; external sampling in the
    engine's schema: :func:`pokerlab.solvers.limit_mccfr.restore_limit_es`), with its card
    abstraction rebuilt, or read from the abstraction cache when ``cache``.
    """
    sampling = state.get("algorithm") in MCCFR_ALGORITHMS
    return SOLVER_FAMILIES[(state_backend_kind(state), sampling)].restore(state, game, cache)


def load_limit_checkpoint(path: Any, *, cache: bool = True) -> tuple[Any, Any]:
    """The game and the solver of a checkpoint written by ``pokerlab train limit-holdem
    --checkpoint``, restored by :func:`restore_solver` (the abstraction rebuilt, or read from
    the cache, from the checkpoint's fields); any other file is refused, naming its format."""
    from pokerlab.io.files import load_checkpoint
    from pokerlab.solvers.limit_base import state_family

    state = load_checkpoint(path)
    if state_family(state) is None:
        raise PokerlabError(
            f"{path}: not a limit hold'em training checkpoint (format {state.get('format')!r})"
        )
    solver: Any = restore_solver(state, cache=cache)
    return solver.game, solver
