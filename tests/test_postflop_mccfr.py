"""Monte Carlo CFR on postflop spots (chance and external sampling on the vector tree): the
sampled deals follow the joint compatible-pair distribution, the expected sampled update equals
the full-width CFR update (isomorphism on and off), exploitability falls, seeds, exact resume,
options refused by name, and ``pokerlab compare SPOT``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import pokerlab
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.io.files import load_checkpoint, save_checkpoint
from pokerlab.solvers.factory import make_solver, restore_solver
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.postflop_mccfr import PostflopMCCFR
from pokerlab.solvers.run import TrainingRun
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.tree.vector import _kernels as VK
from pokerlab.tree.vector.tree import CHANCE, DECISION

# the tiny spots of tests/test_postflop_solver.py
RIVER = dict(
    board="Td9d6hQc7s", ranges=("AA,KK,T9s,76s", "QQ,AK,J8s"), pot=100, stack=300,
    bets="50%, a", raises="a",
)  # fmt: skip
TURN = dict(
    board="Td9d6hQc", ranges=("AhAs,KK,T9s", "QsQh,J8s,AK"), pot=100, stack=300,
    bets="50%, a", raises="a",
)  # fmt: skip
# clubs and spades are interchangeable on this board with these ranges: isomorphic rivers
ISO = dict(
    board="Td9d6dAh", ranges=("AA,KK,T9", "QQ,JJ,87"), pot=100, stack=200, bets="50%", raises="a"
)
# weighted ranges with blockers between them, for the deal distribution
WEIGHTED = dict(
    board="Td9d6hQc", ranges=("AA:0.5,KK,T9s:0.25,AK", "QQ:0.75,AK,J8s"), pot=100, stack=300,
    bets="50%", raises="a",
)  # fmt: skip


def _uniform_pct(game: PostflopGame) -> float:
    """Exploitability of the uniform strategy (an untrained solver's average), % of the pot."""
    return PostflopMCCFR(game, "es-mccfr").exploitability_pct()


# --- the deal ------------------------------------------------------------------------------------


def test_sampled_hand_pairs_follow_the_joint_compatible_distribution() -> None:
    game = PostflopGame(**WEIGHTED)
    solver = PostflopMCCFR(game, "es-mccfr", seed=11)
    hd = solver.tree.hands
    n0, n1 = int(hd.num[0]), int(hd.num[1])
    cards0, cards1 = hd.cards[0, :n0], hd.cards[1, :n1]
    clash = (cards0[:, None, :, None] == cards1[None, :, None, :]).any(axis=(2, 3))
    joint = np.outer(hd.weight[0, :n0], hd.weight[1, :n1]) * ~clash
    assert clash.any()  # blockers matter here
    assert joint.sum() == pytest.approx(solver.tree.norm)
    deals = solver.sample_deals(200_000)
    assert np.all(solver.rng == PostflopMCCFR(game, "es-mccfr", seed=11).rng)  # state untouched
    h0, h1, river = deals[:, 0], deals[:, 1], deals[:, 2]
    assert np.all(deals[:, 3] == -1)
    assert not clash[h0, h1].any()  # never a pair sharing a card
    counts = np.zeros((n0, n1))
    np.add.at(counts, (h0, h1), 1)
    ok = joint > 0
    expected = joint[ok] / joint.sum() * len(deals)
    assert stats.chisquare(counts[ok], expected).pvalue > 1e-3
    # drawing OOP's hand by its weight alone, then IP's among the compatible ones, would not
    # fit: OOP's hands that block more of IP's range are rarer in the joint distribution
    seen0 = counts.sum(axis=1)
    naive = hd.weight[0, :n0] / hd.weight[0, :n0].sum() * len(deals)
    assert stats.chisquare(seen0, naive).pvalue < 1e-6
    assert stats.chisquare(seen0, joint.sum(axis=1) / joint.sum() * len(deals)).pvalue > 1e-3
    # the river: uniform over the 44 cards that are neither on the board nor in either hand
    board = set(solver.spot.node_board[0][:4].tolist())
    assert not any(int(c) in board for c in river)
    held = np.concatenate([cards0[h0], cards1[h1]], axis=1)
    assert not (held == river[:, None]).any()
    expected_card = np.zeros(52)
    for a in range(n0):
        for b in range(n1):
            if ok[a, b]:
                free = [
                    c for c in range(52) if c not in board and c not in (*cards0[a], *cards1[b])
                ]
                assert len(free) == 44
                expected_card[free] += joint[a, b] / joint.sum() / 44
    seen = np.bincount(river, minlength=52)
    live = expected_card > 0
    assert stats.chisquare(seen[live], expected_card[live] * len(deals)).pvalue > 1e-3


# --- unbiasedness: the expected sampled update is the full-width update --------------------------


def _class_sizes(solver: PostflopMCCFR) -> np.ndarray:
    """Per node: how many dealt cards its subtree stands for (product over the chance nodes
    above it of 1 + the isomorphic cards folded onto its slot)."""
    a = solver.tree.arrays
    parent = solver.spot.parent
    mult = np.ones(solver.tree.num_nodes)
    for node in range(1, solver.tree.num_nodes):
        par = int(parent[node])
        mult[node] = mult[par]
        if a.kind[par] == CHANCE:
            kids = a.children[a.child_start[par] : a.child_start[par + 1]].tolist()
            folded = a.iso_child[a.iso_start[par] : a.iso_start[par + 1]]
            mult[node] *= 1 + int(np.sum(folded == kids.index(node)))
    return mult


def _full_width_expectation(solver: PostflopMCCFR, trav: int) -> np.ndarray:
    """The full-width CFR regret update of ``trav`` from the solver's state, times
    w(h) / norm per hand and the class size per node: what a sampled update should average."""
    tree = solver.tree
    a, hd = tree.arrays, tree.hands
    after = solver.regrets.copy()
    solver.passes.pass_(trav, VK.MODE_CFR, after, np.zeros_like(after), 1.0, 1.0, 1.0, False)
    full = after.astype(np.float64) - solver.regrets
    mult = _class_sizes(solver)
    out = np.zeros_like(full)
    nh = int(hd.num[trav])
    for n in np.flatnonzero((a.kind == DECISION) & (a.player == trav)):
        off = int(a.offset[n])
        na = int(a.child_start[n + 1] - a.child_start[n])
        board = solver.spot.node_board[n]
        # full width also updates hands that a dealt card blocks (unreachable: no deal has them)
        live = ~np.isin(hd.cards[trav, :nh], board[board >= 0]).any(axis=1)
        w = live * hd.weight[trav, :nh] / tree.norm * mult[n]
        out[off : off + na * nh] = (full[off : off + na * nh].reshape(na, nh) * w).ravel()
    return out


@pytest.mark.parametrize("params", [RIVER, TURN], ids=["river", "turn"])
def test_expected_chance_sampling_update_equals_full_width(params: dict) -> None:
    game = PostflopGame(**params)
    solver = PostflopMCCFR(game, "cs-mccfr")
    reference = PostflopSolver(game, "cfr")
    reference.step(3)  # a state with mixed strategies everywhere
    solver.regrets[:] = reference.regrets
    for trav in (0, 1):
        got, _ = solver.expected_update(trav)
        want = _full_width_expectation(solver, trav)
        scale = np.max(np.abs(want))
        assert scale > 1.0
        np.testing.assert_allclose(got, want, atol=2e-5 * scale)


def test_isomorphic_cards_give_the_same_expected_update() -> None:
    """With isomorphism, a folded river card is sampled into its source subtree (both hands and
    later cards suit-swapped): the expectation there is the class size times the source's
    update, and above the chance node equal to the tree without isomorphism."""
    expected: dict[bool, list[np.ndarray]] = {}
    for iso in (True, False):
        game = PostflopGame(isomorphism=iso, **ISO)
        solver = PostflopMCCFR(game, "cs-mccfr")
        if iso:
            assert solver.tree.arrays.iso_child.size > 0
            assert _class_sizes(solver).max() == 2.0
        # a symmetric state, as any run reaches; two iterations, not more: once a hand plays
        # one action only, its other regrets can sit within rounding of 0, and the two trees'
        # different summation orders then flip regret matching there
        reference = PostflopSolver(game, "cfr")
        reference.step(2)
        solver.regrets[:] = reference.regrets
        expected[iso] = []
        for trav in (0, 1):
            got, _ = solver.expected_update(trav)
            want = _full_width_expectation(solver, trav)
            np.testing.assert_allclose(got, want, atol=2e-5 * np.max(np.abs(want)))
            off, hands = int(solver.tree.arrays.offset[0]), int(solver.tree.hands.num[0])
            expected[iso].append(got[off : off + 2 * hands])  # the root (OOP: check, bet)
    np.testing.assert_allclose(expected[True][0], expected[False][0], atol=1e-5)
    assert np.abs(expected[True][0]).max() > 0.1


def test_external_sampling_update_is_unbiased() -> None:
    """The mean of many external-sampling updates from one state is the full-width expectation
    (within 5 standard errors in every entry)."""
    game = PostflopGame(**RIVER)
    solver = PostflopMCCFR(game, "es-mccfr", seed=4)
    reference = PostflopSolver(game, "cfr")
    reference.step(2)
    base = reference.regrets.copy()
    trav = 1
    solver.regrets[:] = base
    want = _full_width_expectation(solver, trav)
    m = 20_000
    total = np.zeros(base.size)
    square = np.zeros(base.size)
    for _ in range(m):
        solver.regrets[:] = base
        solver.sampled_update(trav)
        d = solver.regrets.astype(np.float64) - base
        total += d
        square += d * d
    mean = total / m
    se = np.sqrt(np.maximum(square / m - mean**2, 0.0) / m)
    mask = se > 0
    assert mask.sum() > 50
    z = np.abs(mean[mask] - want[mask]) / se[mask]
    assert z.max() < 5.5
    assert np.all(np.abs(mean[~mask] - want[~mask]) < 1e-6)


# --- convergence -----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["cs-mccfr", "es-mccfr"])
def test_exploitability_falls_on_the_tiny_river_spot(variant: str) -> None:
    game = PostflopGame(**RIVER)
    uniform = _uniform_pct(game)
    assert uniform == pytest.approx(66.6, abs=0.5)
    solver = make_solver(game, variant, seed=2)
    assert isinstance(solver, PostflopMCCFR)
    solver.step(5_000)
    early = solver.exploitability_pct()
    solver.step(15_000)
    late = solver.exploitability_pct()
    assert early < uniform / 8
    assert late < 2.5 < early
    assert solver.exploitability() == pytest.approx(late, rel=1e-9)  # pot 100: chips = %


@pytest.mark.parametrize("variant,bound", [("cs-mccfr", 12.0), ("es-mccfr", 20.0)])
def test_exploitability_falls_on_the_tiny_turn_spot(variant: str, bound: float) -> None:
    game = PostflopGame(**TURN)
    uniform = _uniform_pct(game)
    assert uniform == pytest.approx(69.7, abs=0.5)
    solver = make_solver(game, variant, seed=3, linear_until=1_000_000)
    solver.step(20_000)
    mid = solver.exploitability_pct()
    solver.step(60_000)
    late = solver.exploitability_pct()
    assert mid < uniform * 0.6
    assert late < bound and late < mid / 1.6
    view = solver.average_strategy().node("check, check, 2s")  # a river node reads
    np.testing.assert_allclose(view.strategy.sum(axis=1), 1.0, atol=1e-6)


def test_regret_pruning_touches_fewer_nodes_and_still_converges() -> None:
    game = PostflopGame(**TURN)
    plain = PostflopMCCFR(game, "es-mccfr", seed=5)
    pruned = PostflopMCCFR(game, "es-mccfr", seed=5, prune=True, prune_threshold=-300.0)
    assert pruned.min_regret == pytest.approx(-310.0)
    # never prune river actions (the last betting round) nor actions into terminals
    a = pruned.tree.arrays
    prunable = pruned.tables.prunable.astype(bool)
    river = (pruned.spot.node_board >= 0).sum(axis=1) == 5
    assert not (prunable & river).any() and not prunable[a.kind >= 2].any()
    assert prunable[(a.kind == DECISION) & ~river].any()
    for s in (plain, pruned):
        s.step(60_000)
    assert pruned.nodes_touched < 0.97 * plain.nodes_touched
    assert pruned.regrets.min() >= -310.0
    assert pruned.exploitability_pct() < 1.5 * plain.exploitability_pct()


# --- seeds, resume ---------------------------------------------------------------------------


def test_seeds_are_reproducible() -> None:
    game = PostflopGame(**TURN)
    a = make_solver(game, "es-mccfr", seed=7)
    b = make_solver(game, "es-mccfr", seed=np.random.default_rng(0))
    c = make_solver(game, "es-mccfr", seed=7)
    for s in (a, b, c):
        s.step(3_000)
    np.testing.assert_array_equal(a.regrets, c.regrets)
    np.testing.assert_array_equal(a.strat_sum, c.strat_sum)
    assert a.nodes_touched == c.nodes_touched
    assert not np.array_equal(a.regrets, b.regrets)
    assert b.seed == int(np.random.default_rng(0).integers(0, 2**63, dtype=np.int64))


@pytest.mark.parametrize(
    "variant,options",
    [
        ("es-mccfr", dict(linear_until=2_500, discount_every=300, regret_pruning=True)),
        ("cs-mccfr", dict(schedule="dcfr", discount_every=70)),
        ("cs-mccfr", dict(schedule="cfr+")),
    ],
)
def test_resume_is_exact(tmp_path, variant: str, options: dict) -> None:
    game = PostflopGame(**TURN)
    straight = make_solver(game, variant, seed=9, **options)
    straight.step(4_000)
    first = make_solver(game, variant, seed=9, **options)
    first.step(2_000)  # ends inside a discount block
    path = tmp_path / "mc.ckpt.npz"
    save_checkpoint(path, first.state_dict())
    resumed = restore_solver(load_checkpoint(path))
    assert isinstance(resumed, PostflopMCCFR) and resumed.iterations == 2_000
    resumed.step(2_000)
    np.testing.assert_array_equal(resumed.regrets, straight.regrets)
    np.testing.assert_array_equal(resumed.strat_sum, straight.strat_sum)
    np.testing.assert_array_equal(resumed.rng, straight.rng)
    assert resumed.nodes_touched == straight.nodes_touched
    if "linear_until" in options:  # discounting stopped, then plain: still the same run
        assert resumed.iterations > options["linear_until"]


def test_linear_seconds_are_frozen_into_the_checkpoint() -> None:
    game = PostflopGame(**RIVER)
    solver = make_solver(game, "es-mccfr", seed=1, linear_seconds=1e-6, discount_every=10)
    solver.step(500)
    reached = solver.linear_until_reached
    assert reached is not None and reached < 500
    state = solver.state_dict()
    back = restore_solver(state)
    assert back.linear_until_reached == reached
    solver.step(300)
    back.step(300)
    np.testing.assert_array_equal(solver.regrets, back.regrets)


def test_isomorphism_flag_survives_a_checkpoint() -> None:
    game = PostflopGame(isomorphism=False, **ISO)
    solver = PostflopMCCFR(game, "cs-mccfr", seed=1)
    solver.step(100)
    back = restore_solver(solver.state_dict())
    assert back.game.isomorphism is False and back.tree.size == solver.tree.size


# --- options refused by name -------------------------------------------------------------------


@pytest.mark.parametrize(
    "algorithm,options,match",
    [
        ("os-mccfr", {}, "chance and external sampling"),
        ("es-mccfr", {"epsilon": 0.5}, "epsilon"),
        ("es-mccfr", {"representation": "history"}, "representation"),
        ("es-mccfr", {"alternating": False}, "alternating"),
        ("es-mccfr", {"prune": True}, "prune"),
        ("cs-mccfr", {"discount_every": 10}, "discount_every"),
        ("cs-mccfr", {"prune_threshold": -5.0}, "prune_threshold"),
        ("cs-mccfr", {"alpha": 2.0}, "alpha"),
        ("es-mccfr", {"bogus": 1}, "bogus"),
        ("es-mccfr", {"seed": -1}, "seed"),
        ("es-mccfr", {"regret_pruning": True, "prune_probability": 1.5}, "prune_probability"),
        ("es-mccfr", {"schedule": "linear", "discount_every": 0}, "discount_every"),
        ("es-mccfr", {"linear_seconds": -1.0}, "linear_seconds"),
        ("es-mccfr", {"threads": 0}, "threads"),
        ("es-mccfr", {"schedule": "pcfr+"}, "full-width only"),
        ("es-mccfr", {"schedule": "dcfr", "horizon": 10}, "horizon"),
    ],
)
def test_bad_options_are_refused_by_name(algorithm: str, options: dict, match: str) -> None:
    game = PostflopGame(**RIVER)
    with pytest.raises(PokerlabError, match=match):
        make_solver(game, algorithm, **options)


def test_bad_constructor_arguments_and_states_are_refused() -> None:
    game = PostflopGame(**RIVER)
    with pytest.raises(PokerlabError, match="sampling variant"):
        PostflopMCCFR(game, "cfr")
    for name in ("pcfr+", "hs-dcfr"):
        with pytest.raises(PokerlabError, match="full-width only"):
            PostflopMCCFR(game, "es-mccfr", schedule=schedule_by_name(name))
    with pytest.raises(PokerlabError, match="postflop game"):
        PostflopMCCFR(pokerlab.load_game("leduc"), "es-mccfr")  # type: ignore[arg-type]
    solver = PostflopMCCFR(game, "es-mccfr", seed=1)
    with pytest.raises(PokerlabError, match="settings"):
        PostflopMCCFR(game, "es-mccfr", seed=2).load_state_dict(solver.state_dict())
    with pytest.raises(PokerlabError, match="made by"):
        PostflopMCCFR(game, "cs-mccfr", seed=1).load_state_dict(solver.state_dict())
    other = PostflopGame(**{**RIVER, "pot": 120})
    with pytest.raises(PokerlabError, match="different spot"):
        PostflopMCCFR(other, "es-mccfr", seed=1).load_state_dict(solver.state_dict())
    with pytest.raises(PokerlabError, match="player"):
        solver.sampled_update(2)
    with pytest.raises(PokerlabError, match="iterations"):
        solver.step(-1)


# --- training runs and compare -------------------------------------------------------------------


def test_training_run_and_solve_reach_a_target() -> None:
    game = PostflopGame(**RIVER)
    solver = make_solver(game, "cs-mccfr", seed=1, linear_until=100_000)
    result = TrainingRun(solver, target_exploitability=3.0, check_every=2_000).run()
    assert result.status == "completed" and result.exploitability <= 3.0
    assert result.iterations % 2_000 == 0 and result.nodes_touched == solver.nodes_touched
    other = make_solver(game, "es-mccfr", seed=1)
    progress = other.solve(target_pct=5.0, check_every=1_000)
    assert progress.exploitability <= 5.0 and progress.iterations % 1_000 == 0
    assert other.exploitability_pct() == pytest.approx(progress.exploitability)  # pot 100


def test_compare_cli_on_the_tiny_river_spot(capsys, tmp_path) -> None:
    spot = tmp_path / "tiny.toml"
    spot.write_text(
        'board = "Td9d6hQc7s"\npot = 100\nstack = 300\noop_range = "AA,KK,T9s,76s"\n'
        'ip_range = "QQ,AK,J8s"\n[river]\nbet = "50%, a"\nraise = "a"\n'
    )
    png = tmp_path / "cmp.png"
    code = main(
        ["compare", str(spot), "--algorithms", "dcfr-ps,cfr+,cs-mccfr,es-mccfr",
         "--seconds", "0.3", "--points", "5", "--seed", "3", "--png", str(png), "--json"]
    )  # fmt: skip
    out = capsys.readouterr()
    assert code == 0
    result = json.loads(out.out)
    assert png.stat().st_size > 10_000 and f"wrote {png}" in out.err
    assert result["pot"] == 100 and result["status"] == "completed"
    names = [c["algorithm"] for c in result["curves"]]
    assert names == ["dcfr-ps", "cfr+", "cs-mccfr/linear", "es-mccfr/linear"]
    for c in result["curves"]:
        assert len(c["iterations"]) >= 3
        assert c["seconds"][-1] < 1.0  # the budget, give or take one chunk
        assert np.all(np.diff(c["nodes_touched"]) > 0)
        pct = c["exploitability_pct"]
        assert pct == pytest.approx(c["exploitability"])  # pot 100: % of the pot = chips
        assert pct[-1] < 5.0  # uniform play: 66.6%
    assert result["curves"][0]["exploitability_pct"][-1] < 0.5


def test_compare_cli_spot_options_and_errors(capsys, tmp_path) -> None:
    code = main(["compare", "leduc", "--seconds", "1"])
    assert code == 2 and "--seconds" in capsys.readouterr().err
    code = main(["compare", "river", "--algorithms", "os-mccfr", "--seconds", "1"])
    assert code == 2 and "os-mccfr" in capsys.readouterr().err
    code = main(["compare", "river", "--budget-nodes", "5000", "--seconds", "1"])
    assert code == 2 and "one budget" in capsys.readouterr().err
    code = main(["compare", str(tmp_path / "missing.toml"), "--seconds", "1"])
    assert code == 2
    capsys.readouterr()


def test_spot_curves_with_a_node_budget() -> None:
    from pokerlab.solvers.spot_compare import spot_convergence_curves

    game = PostflopGame(**RIVER)
    curves = spot_convergence_curves(
        game, ["cfr+", "es-mccfr"], budget_nodes=200_000, points=4, mccfr_schedule="cfr"
    )
    assert [c.algorithm for c in curves] == ["cfr+", "es-mccfr/cfr"]
    for c in curves:
        assert 200_000 <= c.nodes_touched[-1] < 260_000
        assert not math.isnan(c.exploitability[-1])


def test_spot_curves_stop_at_a_safe_point_when_asked() -> None:
    from pokerlab.io.interrupts import StopFlag
    from pokerlab.solvers.spot_compare import spot_convergence_curves

    class StopLater(StopFlag):
        """Reads as requested from its fifth look on (a Ctrl-C during the first solver)."""

        def __init__(self) -> None:
            super().__init__()
            self.looks = 0

        @property
        def requested(self) -> bool:
            self.looks += 1
            return self.looks >= 5

    game = PostflopGame(**RIVER)
    curves = spot_convergence_curves(
        game, ["cfr+", "es-mccfr"], seconds=30.0, points=10, stop=StopLater()
    )
    assert [c.algorithm for c in curves] == ["cfr+"]
    assert curves[0].complete is False and curves[0].seconds[-1] < 5.0
