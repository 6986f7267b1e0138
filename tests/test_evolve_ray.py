"""Genetic search tournaments on Ray tasks (issue 10): the same numbers as in-process."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.evolve import EvolutionConfig, evolve
from pokerlab.solvers.pushfold import solve_pushfold

ray = pytest.importorskip("ray")

from pokerlab.distributed.ray_executor import RayExecutor  # noqa: E402

BASE = dict(
    players="simple",
    fitness="simulated",
    population=5,
    patience=2,
    max_generations=3,
    hands=400,
    matches=2,
    seed=4,
)


@pytest.fixture(scope="module")
def nash10():
    return solve_pushfold(10.0)


def test_ray_tournaments_equal_the_in_process_run(nash10) -> None:
    serial = evolve(EvolutionConfig(workers=1, **BASE), equilibrium=nash10)
    on_ray = evolve(EvolutionConfig(workers=2, ray=True, **BASE), equilibrium=nash10)
    assert not ray.is_initialized()  # the run started Ray and shut it down
    assert len(on_ray.history) == len(serial.history)
    for x, y in zip(serial.history, on_ray.history, strict=True):
        np.testing.assert_array_equal(x.performance, y.performance)
        np.testing.assert_array_equal(x.genes, y.genes)
    assert on_ray.judgement.exploitability_bb == serial.judgement.exploitability_bb


def test_the_executor_runs_calls_and_refuses_after_shutdown() -> None:
    executor = RayExecutor()
    try:
        assert executor.workers >= 1
        futures = [executor.submit(pow, 2, k) for k in range(5)]
        assert [f.result() for f in futures] == [1, 2, 4, 8, 16]
    finally:
        executor.shutdown()
    with pytest.raises(RuntimeError, match="after shutdown"):
        executor.submit(pow, 2, 3)


def test_bad_ray_options_are_refused_by_name(capsys) -> None:
    with pytest.raises(PokerlabError, match="exact fitness"):
        EvolutionConfig(players="simple", ray=True)
    with pytest.raises(PokerlabError, match="ray=True"):
        EvolutionConfig(players="simple", fitness="simulated", ray_address="127.0.0.1:1")
    code = main(["evolve", "--fitness", "simulated", "--address", "nohost", "--generations", "1"])
    assert code == 2
    assert "'nohost' is not host:port" in capsys.readouterr().err
    code = main(["evolve", "--ray", "--generations", "1"])
    assert code == 2
    assert "exact fitness" in capsys.readouterr().err
