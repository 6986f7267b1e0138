"""Aggregate reports: one postflop template solved on many flops (or on the turns of one
flop), one row per board with its weight, texture, EVs, equities, EQRs and strategy, and a
weighted overall row (``pokerlab report``; ``docs/reports.md``).

* :mod:`~pokerlab.reports.flops`: the 1,755 canonical flops, the subsets, flop files, turns;
* :mod:`~pokerlab.reports.texture`: a board's texture columns;
* :mod:`~pokerlab.reports.run`: the template and one board's row (:func:`solve_flop`);
* :mod:`~pokerlab.reports.rows`: the report files, the overall row;
* :mod:`~pokerlab.reports.ray_run`: the boards as Ray tasks.
"""

from pokerlab.reports.flops import Flop, all_flops, canonical, flop_set, subset, turn_cards
from pokerlab.reports.texture import texture

__all__ = ["Flop", "all_flops", "canonical", "flop_set", "subset", "turn_cards", "texture"]
