"""Solvers: full-width CFR family (one discount-schedule mechanism) and the reference CFR."""

from pokerlab.solvers.base import Progress, Solver
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.factory import ALGORITHMS, make_solver
from pokerlab.solvers.reference import ReferenceCFR
from pokerlab.solvers.schedule import SCHEDULES, DiscountSchedule, schedule_by_name

__all__ = [
    "ALGORITHMS",
    "CFRSolver",
    "DiscountSchedule",
    "Progress",
    "ReferenceCFR",
    "SCHEDULES",
    "Solver",
    "make_solver",
    "schedule_by_name",
]
