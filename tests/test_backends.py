"""Tree backends (tree/backend.py): the built-in trees satisfy the seam, and a new kind plugs in
without editing the solvers or evaluators."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import pokerlab
from pokerlab.evaluate.exploitability import (
    best_response_strategy,
    best_response_values,
    expected_values,
    exploitability,
)
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.strategy import Strategy
from pokerlab.tree.backend import CFRState, InfosetIndexLike, TreeBackend
from pokerlab.tree.compiled import CompiledGame, compile_game

SRC = Path(pokerlab.__file__).parent


@pytest.mark.parametrize("game_name", ["kuhn", "leduc"])
@pytest.mark.parametrize("representation", ["public", "history"])
def test_builtin_trees_satisfy_the_protocols(game_name: str, representation: str) -> None:
    compiled = compile_game(pokerlab.load_game(game_name), representation)
    tree = compiled.tree
    assert isinstance(tree, TreeBackend)
    assert tree.kind == representation == compiled.kind
    assert isinstance(tree.index, InfosetIndexLike)
    state = tree.cfr_state(schedule_by_name("dcfr").as_array(), True, True)
    assert isinstance(state, CFRState)
    assert state.regrets().shape == state.strategy_sum().shape == (tree.size,)
    assert set(state.arrays()) == {"regrets", "strategy_sum"}
    # The player ranges tile the flat arrays.
    assert tree.player_ranges[0][0] == 0 and tree.player_ranges[-1][1] == tree.size


@pytest.mark.parametrize("representation", ["public", "history"])
def test_state_arrays_are_live_views(representation: str) -> None:
    compiled = compile_game(pokerlab.load_game("kuhn"), representation)
    solver = CFRSolver(compiled, schedule_by_name("cfr"))
    solver.step(3)
    arrays = solver.state.arrays()
    assert arrays["regrets"] is solver.regrets
    assert arrays["strategy_sum"] is solver.strategy_sum()
    assert np.any(solver.regrets != 0.0)


@pytest.mark.parametrize("representation", ["public", "history"])
def test_best_response_probs_is_a_best_response(representation: str) -> None:
    """The returned profile is pure for the responder, keeps the other player's part, and
    following it exactly earns the best-response value."""
    compiled = compile_game(pokerlab.load_game("leduc"), representation)
    solver = pokerlab.make_solver(compiled, "cfr")
    solver.step(20)
    probs = solver.average_strategy().probs
    tree = compiled.tree
    for player in (0, 1):
        br, value = tree.best_response_probs(probs, player)
        lo, hi = tree.player_ranges[player]
        other = np.ones(tree.size, dtype=bool)
        other[lo:hi] = False
        np.testing.assert_array_equal(br[other], probs[other])
        mine = br[lo:hi]
        assert set(np.unique(mine)) <= {0.0, 1.0}
        assert value == pytest.approx(tree.value(br, player, False), abs=1e-12)
        assert value >= tree.value(probs, player, False) - 1e-12
    # Public and history trees agree on Leduc's values (same keys, different layouts).
    other_rep = "history" if representation == "public" else "public"
    twin = compile_game(pokerlab.load_game("leduc"), other_rep)
    table = solver.average_strategy().to_dict()
    twin_strategy = Strategy.from_dict(twin, table)
    np.testing.assert_allclose(
        best_response_values(twin, twin_strategy),
        best_response_values(compiled, solver.average_strategy()),
        atol=1e-10,
    )


class _CountingBackend:
    """A third backend kind: the history tree behind a wrapper that counts the calls."""

    kind = "counting"

    def __init__(self, inner: TreeBackend) -> None:
        self.inner = inner
        self.num_players = inner.num_players
        self.size = inner.size
        self.player_ranges = inner.player_ranges
        self.calls: dict[str, int] = {}

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    @property
    def index(self) -> InfosetIndexLike:
        return self.inner.index

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        self._count("normalise")
        return self.inner.normalise(sums)

    def uniform(self) -> np.ndarray:
        self._count("uniform")
        return self.inner.uniform()

    def cfr_state(self, params: np.ndarray, alternating: bool, prune: bool) -> CFRState:
        self._count("cfr_state")
        return self.inner.cfr_state(params, alternating, prune)

    def value(self, probs: np.ndarray, player: int, best: bool) -> float:
        self._count("value")
        return self.inner.value(probs, player, best)

    def best_response_probs(self, probs: np.ndarray, player: int) -> tuple[np.ndarray, float]:
        self._count("best_response_probs")
        return self.inner.best_response_probs(probs, player)


def test_a_new_backend_kind_plugs_in_without_editing_solvers() -> None:
    game = pokerlab.load_game("kuhn")
    inner = compile_game(game, "history").tree
    backend = _CountingBackend(inner)
    assert isinstance(backend, TreeBackend)
    compiled = CompiledGame(game=game, tree=backend)
    solver = pokerlab.make_solver(compiled, "dcfr")
    solver.solve(iterations=300)
    strategy = solver.average_strategy()
    assert compiled.kind == "counting"
    assert backend.calls["cfr_state"] == 1
    expl = exploitability(compiled, strategy)
    assert 0.0 <= expl < 5e-3
    # The same numbers as the history tree itself gives.
    reference = pokerlab.make_solver(compile_game(game, "history"), "dcfr")
    reference.step(300)
    np.testing.assert_array_equal(strategy.probs, reference.average_strategy().probs)
    np.testing.assert_allclose(expected_values(compiled, strategy), [-1 / 18, 1 / 18], atol=5e-3)
    br, value = best_response_strategy(compiled, strategy, 1)
    assert backend.calls["best_response_probs"] == 1
    assert value == pytest.approx(best_response_values(compiled, strategy)[1], abs=1e-12)
    assert br["K:b"] == {"p": 0.0, "b": 1.0}  # always call a bet with the king


def _names_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
    }


@pytest.mark.parametrize(
    "relative", ["solvers/cfr.py", "solvers/base.py", "evaluate/exploitability.py", "strategy.py"]
)
def test_solvers_and_evaluators_do_not_name_tree_types(relative: str) -> None:
    names = _names_in(SRC / relative)
    assert not names & {"PublicTree", "HistoryTree", "TreeArrays", "HistoryArrays"}


def _tree_modules() -> list[str]:
    import pkgutil

    import pokerlab.tree

    return sorted(m.name for m in pkgutil.iter_modules(pokerlab.tree.__path__, "pokerlab.tree."))


def test_tree_never_imports_games() -> None:
    """tree/ is game-neutral: no module of pokerlab.tree imports pokerlab.games, at top level,
    under TYPE_CHECKING or inside a function (checked on the source, after importing it)."""
    import importlib

    modules = _tree_modules()
    assert {"pokerlab.tree.backend", "pokerlab.tree.builder", "pokerlab.tree.compiled"} <= set(
        modules
    )
    for name in modules:
        module = importlib.import_module(name)
        assert module.__file__ is not None
        tree = ast.parse(Path(module.__file__).read_text())
        imported: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{name}: relative import"
                base = node.module or ""
                imported += [base] + [f"{base}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.startswith("pokerlab.games"), f"{name}: {node.value!r}"
        bad = [m for m in imported if m == "pokerlab.games" or m.startswith("pokerlab.games.")]
        assert not bad, f"{name} imports {bad}"  # ``from pokerlab import games`` included


def test_games_base_reexports_the_history_interface() -> None:
    from pokerlab.games import base
    from pokerlab.tree import history_interface

    assert base.History is history_interface.History
    assert base.HistoryGame is history_interface.HistoryGame
    assert base.CHANCE == history_interface.CHANCE == -1
    assert issubclass(type(pokerlab.load_game("kuhn")), history_interface.HistoryGame)


class _LazyKeys:
    """A sequence of keys computed on demand (as a postflop index would)."""

    def __init__(self, keys: list[str]) -> None:
        self._keys = keys
        self.materialised = 0

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, k: int) -> str:
        self.materialised += 1
        return self._keys[k]

    def __iter__(self) -> Iterator[str]:
        for k in range(len(self)):
            yield self[k]


class _LazyIndex:
    """An index without a dictionary: ``find`` parses the key (here: a linear scan stands in for
    parsing), ``keys`` is lazy."""

    def __init__(self, inner: InfosetIndexLike) -> None:
        self.inner = inner
        self.keys = _LazyKeys(list(inner.keys))
        self.labels = inner.labels
        self.num_actions = inner.num_actions
        self.player = inner.player
        self.finds = 0

    def __len__(self) -> int:
        return len(self.inner)

    def find(self, key: str) -> int:
        self.finds += 1
        return self.inner.find(key)

    def positions(self, k: int) -> np.ndarray:
        return self.inner.positions(k)


class _LazyIndexBackend(_CountingBackend):
    kind = "lazy"

    def __init__(self, inner: TreeBackend) -> None:
        super().__init__(inner)
        self._index = _LazyIndex(inner.index)

    @property
    def index(self) -> InfosetIndexLike:
        return self._index


def test_strategy_works_through_a_lazy_index() -> None:
    game = pokerlab.load_game("kuhn")
    backend = _LazyIndexBackend(compile_game(game, "public").tree)
    assert isinstance(backend.index, InfosetIndexLike)
    compiled = CompiledGame(game=game, tree=backend)
    strategy = Strategy.from_dict(compiled, {"K:pb": {"p": 1.0, "b": 3.0}})
    assert backend.index.finds == 1 and backend.index.keys.materialised == 0
    assert strategy["K:pb"] == {"p": 0.25, "b": 0.75}
    assert strategy["J:"] == {"p": 0.5, "b": 0.5}
    assert len(strategy) == 12
    table = strategy.to_dict()
    assert len(table) == 12 and table["K:pb"]["b"] == 0.75
    assert all(sum(row.values()) == pytest.approx(1.0) for row in table.values())
    solver = pokerlab.make_solver(compiled, "cfr+")
    solver.step(200)
    assert exploitability(compiled, solver.average_strategy()) < 5e-3
