"""``pokerlab.save_strategy`` and ``pokerlab.load_strategy``: any solver's result to a file and
back. Engine strategies go through :mod:`pokerlab.io.files`; a postflop solve (the
:class:`~pokerlab.analysis.postflop.SolvedSpot` of ``PostflopSolver.average_strategy()``, or the
solver itself) is saved as a postflop solution
(:func:`pokerlab.solvers.postflop.save_spot_solution`) and reopened as its solved spot. This
module sits above the layers it dispatches to, so that ``io/`` imports no solver."""

from __future__ import annotations

import os
from typing import Any

from pokerlab.errors import FileFormatError
from pokerlab.games.base import HistoryGame
from pokerlab.io import files
from pokerlab.strategy import Strategy

__all__ = ["save_strategy", "load_strategy"]


def _postflop_solver(result: Any) -> Any:
    """The postflop solver behind ``result`` (a solved spot or the solver), or None for any other
    result; a solved spot without its solver is refused by name."""
    from pokerlab.analysis.postflop import SolvedSpot
    from pokerlab.solvers.postflop import PostflopSolver

    if isinstance(result, PostflopSolver):
        return result
    if isinstance(result, SolvedSpot):
        if not isinstance(result.solver, PostflopSolver):
            raise FileFormatError(
                "save_strategy: this solved spot was not made by PostflopSolver.average_strategy()"
                "; save its solver with pokerlab.solvers.postflop.save_spot_solution"
            )
        return result.solver
    return None


def save_strategy(path: str | os.PathLike[str], strategy: Strategy | Any, **metadata: Any) -> None:
    """Save ``strategy`` with its game identity and ``metadata`` (JSON values, returned by
    :func:`pokerlab.io.files.read_metadata`); a postflop solve as a postflop solution: the
    solver's arrays as they are now, readable by :func:`load_strategy`, ``pokerlab postflop
    show`` and the viewer."""
    solver = _postflop_solver(strategy)
    if solver is None:
        files.save_strategy(path, strategy, **metadata)
        return
    from pokerlab.solvers.postflop import save_spot_solution

    save_spot_solution(path, solver, **metadata)


def load_strategy(path: str | os.PathLike[str], game: HistoryGame | None = None) -> Strategy | Any:
    """Load a file of :func:`save_strategy` (``game`` only for unregistered games). A postflop
    solution comes back as its :class:`~pokerlab.analysis.postflop.SolvedSpot` (``.node(line)``,
    ``.solver`` to continue solving)."""
    if files.is_postflop_solution(files.read_metadata(path)):
        from pokerlab.solvers.postflop import load_spot_solution

        return load_spot_solution(path).average_strategy()
    return files.load_strategy(path, game)
