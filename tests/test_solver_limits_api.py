"""Library limits that once looped forever or wrote over work: iteration counts must be whole
numbers (``solve(iterations=2.5)`` never returned; ``step(1.5)`` made the counter a float), a
target in a game of more than two players needs a cap beside it (nothing else would end the
run) and is measured there, and a fresh solver's ``TrainingRun`` does not write over an
existing checkpoint."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.io.files import load_checkpoint
from pokerlab.solvers.run import TrainingRun, resume_solver


@pytest.mark.parametrize("algorithm", ["cfr", "es-mccfr"])
@pytest.mark.parametrize("bad", [2.5, "3", True, 1.0])
def test_iteration_counts_are_whole_numbers(algorithm: str, bad: object) -> None:
    solver = pokerlab.make_solver(pokerlab.load_game("kuhn"), algorithm)
    with pytest.raises(PokerlabError, match=r"iterations must be a whole number, got "):
        solver.step(bad)  # type: ignore[arg-type]
    with pytest.raises(PokerlabError, match=r"iterations must be a whole number, got "):
        solver.solve(iterations=bad)  # type: ignore[arg-type]
    assert solver.iterations == 0
    solver.step(np.int64(3))
    assert solver.iterations == 3 and type(solver.iterations) is int


def test_a_postflop_solver_counts_whole_iterations() -> None:
    from pokerlab.solvers.postflop import PostflopSolver

    solver = PostflopSolver(pokerlab.load_game("postflop", spot="river"), "dcfr")
    with pytest.raises(PokerlabError, match="iterations must be a whole number, got 1.5"):
        solver.step(1.5)  # type: ignore[arg-type]
    with pytest.raises(PokerlabError, match="iterations must be a whole number"):
        solver.solve(iterations=2.5)  # type: ignore[arg-type]
    assert solver.iterations == 0


@pytest.mark.parametrize("algorithm", ["cfr", "es-mccfr"])
def test_three_players_target_needs_a_cap_and_is_measured(algorithm: str) -> None:
    game = pokerlab.load_game("kuhn", players=3)
    solver = pokerlab.make_solver(game, algorithm)
    with pytest.raises(PokerlabError, match="more than two players CFR need not reach"):
        solver.solve(target_exploitability=1e-3)
    assert solver.iterations == 0
    if algorithm == "cfr":
        end = solver.solve(target_exploitability=1e-3, iterations=5000)
        assert 0 < end.exploitability <= 1e-3 and solver.iterations < 5000
        assert end.exploitability == pytest.approx(
            pokerlab.exploitability(game, solver.average_strategy()), rel=1e-12
        )


def test_a_fresh_run_does_not_write_over_a_checkpoint(tmp_path: Path) -> None:
    game = pokerlab.load_game("leduc")
    ckpt = tmp_path / "big.ckpt.npz"
    TrainingRun(pokerlab.make_solver(game, "dcfr"), iterations=50, checkpoint=ckpt).run()
    before = ckpt.read_bytes()
    fresh = pokerlab.make_solver(game, "cfr")
    with pytest.raises(PokerlabError, match="already exists and this solver is fresh"):
        TrainingRun(fresh, iterations=10, checkpoint=ckpt).run()
    assert ckpt.read_bytes() == before and fresh.iterations == 0
    resumed = resume_solver(ckpt)  # continuing it writes it back
    TrainingRun(resumed, iterations=60, checkpoint=ckpt).run()
    assert load_checkpoint(ckpt)["iterations"] == 60


def test_thread_counts_beyond_the_machine_are_refused_and_leave_the_solver_working() -> None:
    from pokerlab.solvers.postflop import PostflopSolver
    from pokerlab.tree.executors import max_threads

    game = pokerlab.load_game("postflop", spot="turn")
    too_many = max_threads() + 1
    with pytest.raises(PokerlabError, match=f"threads: {too_many} is more than this machine"):
        PostflopSolver(game, "dcfr", threads=too_many)
    solver = PostflopSolver(game, "dcfr", threads=2)
    with pytest.raises(PokerlabError, match="is more than this machine can use"):
        solver.set_threads(too_many)
    solver.step(2)  # the two-thread pool still runs the turn's work items
    assert solver.threads == 2 and solver.iterations == 2
