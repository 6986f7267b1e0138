"""Real-time search (issue 25): subgames of a blueprint re-solved at the start of a betting
round, with unsafe or safe gadgets, assembled and judged by exact best responses.

- :mod:`~pokerlab.solvers.search.subgames`: where subgames start, the ranges and CBVs there;
- :mod:`~pokerlab.solvers.search.gadgets`: one subgame solved for one seat with a gadget;
- :mod:`~pokerlab.solvers.search.everywhere`: every subgame of a street, assembled.
"""

from pokerlab.solvers.search.everywhere import (
    SearchReport,
    profile_exploitability,
    search_everywhere,
    warm_search,
)
from pokerlab.solvers.search.gadgets import GADGETS, SubgameSolution, solve_subgame

__all__ = [
    "GADGETS",
    "SearchReport",
    "SubgameSolution",
    "profile_exploitability",
    "search_everywhere",
    "solve_subgame",
    "warm_search",
]
