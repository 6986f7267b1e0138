"""Heads-up push/fold solved to a target exploitability: CFR on the 169-class reduction of
:class:`~pokerlab.games.pushfold.PushFoldGame`, expanded to the 1326 combos and measured there
exactly (docs/pushfold.md). The tables and pictures that read a solution are in
:mod:`pokerlab.analysis.pushfold`."""

from __future__ import annotations

import time

from pokerlab.analysis.pushfold import PushFoldSolution, pushfold_strategy, shove_call_arrays
from pokerlab.evaluate.exploitability import best_response_values, expected_values
from pokerlab.games.pushfold import PushFoldGame
from pokerlab.solvers.factory import make_solver

__all__ = ["solve_pushfold", "sweep_pushfold"]


def solve_pushfold(
    stack_bb: float | None = 10.0,
    ante_bb: float = 0.0,
    *,
    stacks: list[float] | None = None,
    stack_probs: list[float] | None = None,
    target_exploitability: float = 1e-6,
    algorithm: str = "dcfr",
    max_iterations: int = 200_000,
) -> PushFoldSolution:
    """Nash equilibrium of heads-up push/fold to ``target_exploitability`` (bb per hand).

    Solved on the exact class reduction, expanded to combos, and re-measured there: the returned
    exploitability is the combo game's (exact best responses over all 1326 hands).
    """
    game = PushFoldGame(stack_bb, ante_bb, stacks, stack_probs, hands="combos")
    reduced = game.with_hands("classes")
    solver = make_solver(reduced, algorithm)
    start = time.perf_counter()
    solver.solve(
        target_exploitability=target_exploitability, iterations=max_iterations, check_every=10
    )
    sb, bb = shove_call_arrays(solver.average_strategy())
    strategy = pushfold_strategy(game, sb, bb)
    br = best_response_values(game, strategy)
    seconds = time.perf_counter() - start
    value = float(expected_values(game, strategy)[0])
    return PushFoldSolution(
        game=game,
        strategy=strategy,
        exploitability_bb=float(br.sum() / 2.0),
        sb_game_value_bb=value,
        iterations=solver.iterations,
        seconds=seconds,
        sb_shove=sb,
        bb_call=bb,
    )


def sweep_pushfold(
    stacks: list[float], ante_bb: float = 0.0, target_exploitability: float = 1e-6
) -> list[PushFoldSolution]:
    """Equilibria at each stack (each solved independently to the target)."""
    return [solve_pushfold(s, ante_bb, target_exploitability=target_exploitability) for s in stacks]
