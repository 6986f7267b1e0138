"""pokerlab: game-theoretic poker strategies.

The minute-long tour::

    import pokerlab
    game = pokerlab.load_game("leduc")
    solver = pokerlab.make_solver(game, "dcfr")
    solver.solve(target_exploitability=1e-4)
    pokerlab.exploitability(game, solver.average_strategy())
"""

# first: numba's cache stamps of pokerlab's kernels cover every kernel file (_kernel_cache)
from pokerlab import _kernel_cache  # noqa: F401  isort: skip
from pokerlab.errors import ParseError, PokerlabError
from pokerlab.evaluate import (
    best_response_values,
    expected_values,
    exploitability,
    exploitability_report,
    nash_conv,
)
from pokerlab.games import History, HistoryGame, load_game, register_game
from pokerlab.io.files import load_checkpoint, save_checkpoint
from pokerlab.saving import load_strategy, save_strategy
from pokerlab.solvers import CFRSolver, ReferenceCFR, make_solver
from pokerlab.strategy import Strategy, uniform_strategy
from pokerlab.tree.compiled import compile_game
from pokerlab.warmup import warmup

__version__ = "0.1.0"

__all__ = [
    "CFRSolver",
    "History",
    "HistoryGame",
    "ParseError",
    "PokerlabError",
    "ReferenceCFR",
    "Strategy",
    "best_response_values",
    "compile_game",
    "expected_values",
    "exploitability",
    "exploitability_report",
    "load_checkpoint",
    "load_game",
    "load_strategy",
    "make_solver",
    "nash_conv",
    "register_game",
    "save_checkpoint",
    "save_strategy",
    "uniform_strategy",
    "warmup",
]
