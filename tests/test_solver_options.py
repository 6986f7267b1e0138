"""make_solver refuses unknown and inapplicable options by name and applies the ones it takes."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.mccfr import MCCFRSolver
from pokerlab.tree.compiled import compile_game

FULL_WIDTH = ["cfr", "cfr+", "linear", "dcfr", "pcfr+", "dcfr+", "pdcfr+", "hs-pcfr+", "hs-dcfr"]
SAMPLING = ["cs-mccfr", "es-mccfr", "os-mccfr"]

#: One valid value per option (alone, with no other option given).
VALUES: dict[str, object] = {
    "representation": "history",
    "alternating": False,
    "prune": False,
    "linear_until": 10,
    "alpha": 1.2,
    "beta": 0.5,
    "gamma": 2.0,
    "seed": 3,
    "schedule": "linear",
    "epsilon": 0.3,
    "regret_pruning": True,
    "prune_threshold": -5.0,
    "prune_probability": 0.5,
    "min_regret": -100.0,
    "discount_every": 10,
    "linear_seconds": 1.0,
    "horizon": 50,
}

#: The options each algorithm takes when given alone (written out, not derived from the code).
TAKES: dict[str, set[str]] = {
    "cfr": {"representation", "alternating", "prune", "linear_until"},
    "cfr+": {"representation", "alternating", "prune", "linear_until"},
    "linear": {"representation", "alternating", "prune", "linear_until"},
    "dcfr": {"representation", "alternating", "prune", "linear_until", "alpha", "beta", "gamma"},
    "pcfr+": {"representation", "alternating", "prune", "linear_until", "gamma"},
    "dcfr+": {"representation", "alternating", "prune", "linear_until", "alpha", "gamma"},
    "pdcfr+": {"representation", "alternating", "prune", "linear_until", "alpha", "gamma"},
    "hs-pcfr+": {"representation", "alternating", "prune", "linear_until", "horizon"},
    "hs-dcfr": {"representation", "alternating", "prune", "linear_until", "horizon"},
    "cs-mccfr": {
        "representation",
        "linear_until",
        "seed",
        "schedule",
        "regret_pruning",
        "min_regret",
        "linear_seconds",
    },
    "es-mccfr": {
        "representation",
        "linear_until",
        "seed",
        "schedule",
        "regret_pruning",
        "min_regret",
        "linear_seconds",
    },
    "os-mccfr": {
        "representation",
        "linear_until",
        "seed",
        "schedule",
        "epsilon",
        "min_regret",
        "linear_seconds",
    },
}


@pytest.mark.parametrize("algorithm", FULL_WIDTH + SAMPLING)
@pytest.mark.parametrize("option", sorted(VALUES))
def test_each_option_alone_is_taken_or_refused_by_name(kuhn, algorithm, option) -> None:
    if option in TAKES[algorithm]:
        solver = pokerlab.make_solver(kuhn, algorithm, **{option: VALUES[option]})
        assert isinstance(solver, MCCFRSolver if algorithm in SAMPLING else CFRSolver)
    else:
        with pytest.raises(PokerlabError, match=rf"\b{option}\b"):
            pokerlab.make_solver(kuhn, algorithm, **{option: VALUES[option]})


def test_the_issue_example_names_every_ignored_option(kuhn) -> None:
    with pytest.raises(PokerlabError) as info:
        pokerlab.make_solver(kuhn, "cfr", schedule="dcfr", seed=5, epsilon=0.1)
    message = str(info.value)
    for option in ("schedule", "seed", "epsilon"):
        assert option in message
    assert "'cfr'" in message


def test_unknown_options_are_a_pokerlab_error_not_a_type_error(kuhn) -> None:
    with pytest.raises(PokerlabError, match="unknown option.*bogus, iterationz"):
        pokerlab.make_solver(kuhn, "dcfr", iterationz=5, bogus=True)


@pytest.mark.parametrize("algorithm", SAMPLING)
def test_simultaneous_updates_are_refused_for_sampling(kuhn, algorithm) -> None:
    with pytest.raises(PokerlabError, match="alternating"):
        pokerlab.make_solver(kuhn, algorithm, alternating=False)
    # alternating=True is what sampling solvers do anyway: accepted
    assert isinstance(pokerlab.make_solver(kuhn, algorithm, alternating=True), MCCFRSolver)


def test_prune_is_zero_reach_pruning_and_regret_pruning_is_separate(kuhn, leduc) -> None:
    with pytest.raises(PokerlabError, match="regret_pruning=True"):
        pokerlab.make_solver(leduc, "es-mccfr", prune=True)
    with pytest.raises(PokerlabError, match="prune"):
        pokerlab.make_solver(leduc, "cfr+", regret_pruning=True)
    assert pokerlab.make_solver(leduc, "cfr+").prune is True
    assert pokerlab.make_solver(leduc, "cfr+", prune=False).prune is False
    mc = pokerlab.make_solver(leduc, "es-mccfr", regret_pruning=True, prune_threshold=-7.0)
    assert mc.prune is True and mc.prune_threshold == -7.0
    assert pokerlab.make_solver(leduc, "es-mccfr").prune is False
    with pytest.raises(PokerlabError, match="nothing to prune"):
        pokerlab.make_solver(kuhn, "os-mccfr", regret_pruning=True)


def test_dependent_options_need_their_switch(kuhn) -> None:
    with pytest.raises(PokerlabError, match="prune_probability"):
        pokerlab.make_solver(kuhn, "es-mccfr", prune_probability=0.5)
    ok = pokerlab.make_solver(kuhn, "es-mccfr", regret_pruning=True, prune_probability=0.5)
    assert ok.prune_probability == 0.5
    with pytest.raises(PokerlabError, match="discount_every"):
        pokerlab.make_solver(kuhn, "es-mccfr", discount_every=10)
    ok = pokerlab.make_solver(kuhn, "es-mccfr", discount_every=10, schedule="linear")
    assert ok.discount_every == 10 and ok.schedule.name == "linear"
    with pytest.raises(PokerlabError, match="alpha"):
        pokerlab.make_solver(kuhn, "es-mccfr", alpha=2.0, schedule="linear")
    dcfr = pokerlab.make_solver(kuhn, "es-mccfr", alpha=2.0, schedule="dcfr")
    assert dcfr.schedule.alpha == 2.0 and dcfr.schedule.gamma == 2.0
    with pytest.raises(PokerlabError, match="gamma"):
        pokerlab.make_solver(kuhn, "cfr+", gamma=3.0)


def test_taken_options_take_effect(kuhn) -> None:
    full = pokerlab.make_solver(kuhn, "dcfr", alpha=1.0, beta=1.0, gamma=1.0, alternating=False)
    assert (full.schedule.alpha, full.schedule.beta, full.schedule.gamma) == (1.0, 1.0, 1.0)
    assert full.alternating is False
    os_ = pokerlab.make_solver(kuhn, "os-mccfr", epsilon=0.3, seed=11, min_regret=-50.0)
    assert (os_.epsilon, os_.seed, os_.min_regret) == (0.3, 11, -50.0)
    defaults = pokerlab.make_solver(kuhn, "os-mccfr")
    assert (defaults.seed, defaults.epsilon, defaults.discount_every) == (0, 0.6, 100)
    assert defaults.prune_probability == 0.95 and defaults.schedule.name == "cfr"
    linear = pokerlab.make_solver(kuhn, "es-mccfr", linear_until=50)
    assert linear.schedule.name == "linear" and linear.schedule.linear_until == 50


def test_representation_is_checked(kuhn) -> None:
    with pytest.raises(PokerlabError, match="history tree only"):
        pokerlab.make_solver(kuhn, "es-mccfr", representation="public")
    compiled = compile_game(kuhn, "public")
    assert pokerlab.make_solver(compiled, "cfr").compiled is compiled
    with pytest.raises(PokerlabError, match="representation 'history'"):
        pokerlab.make_solver(compiled, "cfr", representation="history")


def test_bad_values_and_seeds_are_refused(kuhn) -> None:
    with pytest.raises(PokerlabError, match="seed must be >= 0"):
        pokerlab.make_solver(kuhn, "es-mccfr", seed=-1)
    with pytest.raises(PokerlabError, match="seed"):
        pokerlab.make_solver(kuhn, "es-mccfr", seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(PokerlabError, match="epsilon"):
        pokerlab.make_solver(kuhn, "os-mccfr", epsilon=0.0)
    with pytest.raises(PokerlabError, match="discount_every"):
        pokerlab.make_solver(kuhn, "es-mccfr", schedule="linear", discount_every=0)


def test_a_generator_seed_is_one_drawn_integer(kuhn) -> None:
    drawn = int(np.random.default_rng(9).integers(0, 2**63, dtype=np.int64))
    solver = pokerlab.make_solver(kuhn, "es-mccfr", seed=np.random.default_rng(9))
    twin = pokerlab.make_solver(kuhn, "es-mccfr", seed=drawn)
    assert solver.seed == drawn
    solver.step(200)
    twin.step(200)
    np.testing.assert_array_equal(solver.regrets, twin.regrets)
