"""Solvers: full-width CFR family (one discount schedule), Monte Carlo CFR, reference CFR."""

from pokerlab.solvers.base import Progress, Solver
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.factory import ALGORITHMS, make_solver, restore_solver
from pokerlab.solvers.mccfr import MCCFRSolver
from pokerlab.solvers.reference import ReferenceCFR
from pokerlab.solvers.schedule import SCHEDULES, DiscountSchedule, schedule_by_name

__all__ = [
    "ALGORITHMS",
    "CFRSolver",
    "DiscountSchedule",
    "MCCFRSolver",
    "Progress",
    "ReferenceCFR",
    "SCHEDULES",
    "Solver",
    "make_solver",
    "restore_solver",
    "schedule_by_name",
]
