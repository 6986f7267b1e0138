"""make_solver and restore_solver dispatch through one registry of solver families by backend
kind (issue 23): every family restores its own state, and a game without a family for make_solver
is refused with the way to solve it."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.solvers.factory import restore_solver
from pokerlab.solvers.families import SOLVER_FAMILIES, backend_kind, state_backend_kind

RIVER = dict(board="Td9d6hQc7s", ranges=("AA,KK,T9s", "AA-99,AK"), pot=100, stack=100)


def test_every_backend_kind_has_a_full_width_and_a_sampling_family() -> None:
    kinds = {kind for kind, _ in SOLVER_FAMILIES}
    assert kinds == {"compiled", "vector", "bucketed"}
    assert all((kind, sampling) in SOLVER_FAMILIES for kind in kinds for sampling in (0, 1))


@pytest.mark.parametrize(
    "game,algorithm,kind",
    [
        (("kuhn", {}), "cfr+", "compiled"),
        (("leduc", {}), "es-mccfr", "compiled"),
        (("postflop", RIVER), "dcfr", "vector"),
        (("postflop", RIVER), "es-mccfr", "vector"),
    ],
)
def test_a_state_restores_to_the_same_solver(game, algorithm, kind) -> None:
    g = pokerlab.load_game(game[0], **game[1])
    assert backend_kind(g) == kind
    solver = pokerlab.make_solver(g, algorithm)
    solver.step(7)
    state = solver.state_dict()
    assert state_backend_kind(state) == kind
    again = restore_solver(state)
    assert type(again) is type(solver) and again.iterations == 7
    solver.step(3)
    again.step(3)  # the restored run goes on exactly as the original
    for name, arr in solver.state_dict()["arrays"].items():
        np.testing.assert_array_equal(again.state_dict()["arrays"][name], arr)


def test_limit_holdem_is_refused_by_make_solver_with_the_way_to_train_it() -> None:
    game = pokerlab.load_game("limit-holdem", variant="micro")
    assert backend_kind(game) == "bucketed"
    with pytest.raises(PokerlabError, match="pokerlab train limit-holdem"):
        pokerlab.make_solver(game, "cfr+")
