"""External-sampling MCCFR on abstracted limit hold'em (issue 10): convergence against the exact
abstract exploitability, unbiased sampled values, exact resume, refused options."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_abstract import (
    abstract_exploitability_mbb,
    abstract_value,
    joint_bucket_tables,
)
from pokerlab.solvers.limit_holdem import LimitPCSSolver
from pokerlab.solvers.limit_mccfr import LimitESSolver


@pytest.fixture(scope="module")
def setup():
    """16 cards, one raise per round (361 nodes), 4 E[HS] buckets per round: exact evaluation
    in milliseconds."""
    game = load_game("limit-holdem", variant="tiny", raise_caps=[1, 1, 1, 1])
    abstraction = build_abstraction(4, (4, 4, 4, 4), "ehs", cache=False)
    return game, abstraction, joint_bucket_tables(abstraction)


def test_es_cuts_exploitability_and_matches_pcs(setup) -> None:
    """Perfect recall: 300,000 iterations (about a second) cut the exact abstract exploitability
    of the uniform strategy (1612 mbb/g) more than 20-fold (to about 37), and land within 1.5x of
    what public chance sampling reaches in 1,000 iterations (about 100 mbb/g, about a second)."""
    game, abstraction, tables = setup
    es = LimitESSolver(game, abstraction, recall="perfect", seed=1)
    start = abstract_exploitability_mbb(es, tables)
    es.step(300_000)
    end = abstract_exploitability_mbb(es, tables)
    pcs = LimitPCSSolver(game, abstraction, recall="perfect", seed=1)
    pcs.step(1_000)
    reference = abstract_exploitability_mbb(pcs, tables)
    assert start > 1500.0
    assert end < start / 20.0
    assert end < 1.5 * reference
    assert es.nodes_touched > 0 and es.iterations == 300_000


def test_sampled_values_are_unbiased(setup) -> None:
    """The mean of sampled root values under a trained (non-uniform) current strategy equals the
    exact abstract-game value of that strategy (joint bucket tables) within 4 standard errors,
    for both seats; the values of the two seats are opposite."""
    game, abstraction, tables = setup
    es = LimitESSolver(game, abstraction, recall="perfect", seed=2)
    es.step(20_000)
    probs = es.current_strategy().probs
    assert not np.allclose(probs, es.average_strategy().probs)  # a real strategy, not uniform
    exact = [
        abstract_value(es.tree, tables, probs, es.offset, es.num_states, "perfect", p, best=False)
        for p in (0, 1)
    ]
    assert exact[0] == pytest.approx(-exact[1], abs=1e-12) and abs(exact[0]) > 0.02
    before = es.regrets.copy()
    for p in (0, 1):
        mean, se = es.sampled_values(p, 200_000, seed=7 + p)
        assert 0 < se < 0.02
        assert abs(mean - exact[p]) < 4 * se
    np.testing.assert_array_equal(es.regrets, before)  # evaluation updates nothing


@pytest.mark.parametrize("algorithm,pruning", [("linear", True), ("cfr+", False)])
def test_exact_resume(setup, tmp_path, algorithm: str, pruning: bool) -> None:
    """A run stopped inside a discount block and resumed from its checkpoint (through the file
    format) equals the uninterrupted run bit for bit, with pruning where the schedule allows."""
    from pokerlab.io.files import load_checkpoint, save_checkpoint

    game, abstraction, _ = setup
    kwargs = {"algorithm": algorithm, "discount_every": 7, "regret_pruning": pruning}
    straight = LimitESSolver(game, abstraction, seed=3, **kwargs)
    straight.step(100)
    half = LimitESSolver(game, abstraction, seed=3, **kwargs)
    half.step(45)
    save_checkpoint(tmp_path / "es.npz", half.state_dict(), seed=3)
    resumed = LimitESSolver(game, abstraction, seed=99, **kwargs)
    resumed.load_state_dict(load_checkpoint(tmp_path / "es.npz"))
    resumed.step(30)
    resumed.step(25)
    assert resumed.iterations == 100
    np.testing.assert_array_equal(resumed.regrets, straight.regrets)
    np.testing.assert_array_equal(resumed.sums, straight.sums)
    np.testing.assert_array_equal(resumed.rng, straight.rng)
    other = LimitESSolver(game, abstraction, seed=4, **kwargs)
    other.step(100)
    assert not np.array_equal(other.regrets, straight.regrets)  # the seed matters
    if pruning:
        assert straight.regrets.min() < 0  # Linear CFR keeps negative regrets


def test_checkpoint_of_another_run_is_refused(setup) -> None:
    game, abstraction, _ = setup
    es = LimitESSolver(game, abstraction, seed=0)
    es.step(10)
    other = LimitESSolver(game, abstraction, discount_every=50)
    with pytest.raises(PokerlabError, match="discount_every"):
        other.load_state_dict(es.state_dict())
    pcs = LimitPCSSolver(game, abstraction, algorithm="linear")
    with pytest.raises(PokerlabError, match="made by 'linear', not 'es-mccfr'"):
        es.load_state_dict(pcs.state_dict())


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        ({"algorithm": "pcfr+"}, "'pcfr+' is predictive"),
        ({"algorithm": "pdcfr+"}, "'pdcfr+' is predictive"),
        ({"algorithm": "hs-dcfr"}, "'hs-dcfr'"),
        ({"algorithm": "cfr++"}, "'cfr++'"),
        ({"recall": "total"}, "'total'"),
        ({"discount_every": 0}, "discount_every"),
        ({"algorithm": "cfr+", "regret_pruning": True}, "'cfr+'"),
        ({"prune_probability": 1.5}, "prune_probability"),
        ({"seed": -1}, "-1"),
    ],
)
def test_bad_options_are_refused_by_name(setup, kwargs: dict, needle: str) -> None:
    game, abstraction, _ = setup
    with pytest.raises(PokerlabError, match=needle.replace("+", r"\+")):
        LimitESSolver(game, abstraction, **kwargs)


def test_state_is_the_engine_schema_and_restores(setup) -> None:
    """The state has the engine's keys (format 1, algorithm es-mccfr, the schedule and options
    in ``config``), and :func:`restore_solver` gives a run that goes on as the original."""
    from pokerlab.solvers.base import STATE_FORMAT
    from pokerlab.solvers.factory import restore_solver
    from pokerlab.solvers.schedule import DiscountSchedule

    game, abstraction, _ = setup
    es = LimitESSolver(game, abstraction, algorithm="dcfr", seed=8, discount_every=5)
    es.step(23)
    state = es.state_dict()
    assert state["format"] == STATE_FORMAT and state["algorithm"] == "es-mccfr"
    assert (state["game"], state["game_params"]) == ("limit-holdem", game.params)
    assert state["representation"] == "bucketed" and sorted(state["arrays"]) == [
        "regrets",
        "rng",
        "sums",
    ]
    config = state["config"]
    assert DiscountSchedule(**config["schedule"]) == es.schedule and config["discount_every"] == 5
    assert config["buckets"] == [4, 4, 4, 4] and config["recall"] == "imperfect"
    again = restore_solver(state, game, cache=False)
    assert type(again) is LimitESSolver and again.iterations == 23
    es.step(11)
    again.step(11)
    for name, arr in es.state_dict()["arrays"].items():
        np.testing.assert_array_equal(again.state_dict()["arrays"][name], arr)
    other = {**state, "config": {**config, "prune_probability": 0.5}}
    with pytest.raises(PokerlabError, match="prune_probability 0.5 in the state, 0.95 here"):
        again.load_state_dict(other)


def test_a_limit_es_checkpoint_of_the_format_before_still_loads(tmp_path) -> None:
    """``tests/data/limit_es_format_limit-es.ckpt.npz`` was written by the solver before the
    engine's state schema (format ``limit-es``, main at 2c57f65): tiny deck, 3 buckets per
    round, imperfect recall, seed 11, ``discount_every=7``, pruning, 45 iterations
    (``save_checkpoint(path, solver.state_dict(), variant="tiny", seed=0, sampling="es")``).
    It loads by both routes, and 30 more iterations equal 75 straight ones bit for bit; its run
    saved again writes the schema; a field that differs is refused by name."""
    from pathlib import Path

    from pokerlab.io.files import load_checkpoint
    from pokerlab.solvers.factory import load_limit_checkpoint

    path = Path(__file__).parent / "data" / "limit_es_format_limit-es.ckpt.npz"
    old = load_checkpoint(path)
    assert old["format"] == "limit-es" and old["iterations"] == 45
    game = load_game("limit-holdem", variant="tiny")
    abstraction = build_abstraction(4, (3, 3, 3, 3), "ehs", cache=False)
    options = {"recall": "imperfect", "discount_every": 7, "regret_pruning": True}
    straight = LimitESSolver(game, abstraction, seed=11, **options)
    straight.step(75)
    direct = LimitESSolver(game, abstraction, seed=0, **options)
    direct.load_state_dict(old)
    _, restored = load_limit_checkpoint(path, cache=False)
    for solver in (direct, restored):
        assert isinstance(solver, LimitESSolver) and solver.iterations == 45
        solver.step(30)
        for name, arr in straight.state_dict()["arrays"].items():
            np.testing.assert_array_equal(solver.state_dict()["arrays"][name], arr)
        assert solver.state_dict()["format"] == 1
    with pytest.raises(PokerlabError, match="another run: discount_every 7, this run 8"):
        LimitESSolver(game, abstraction, **{**options, "discount_every": 8}).load_state_dict(old)
    with pytest.raises(PokerlabError, match="another run: recall"):
        LimitESSolver(game, abstraction, recall="perfect").load_state_dict(old)


def test_viewer_lists_and_opens_both_checkpoint_formats(tmp_path) -> None:
    """The file viewer lists an external-sampling checkpoint of the engine's schema as a limit
    checkpoint (schedule, buckets, recall, sampling) as it lists a ``limit-es`` one, and opens
    both on their strategy sums."""
    from pathlib import Path

    from pokerlab.io.files import save_checkpoint
    from pokerlab.viewer.files import FileEntry, _summarize_npz
    from pokerlab.viewer.models.limit import LimitModel

    game = load_game("limit-holdem", variant="tiny")
    abstraction = build_abstraction(4, (3, 3, 3, 3), "ehs", cache=False)
    es = LimitESSolver(game, abstraction, seed=2)
    es.step(50)
    new = tmp_path / "es.ckpt.npz"
    save_checkpoint(new, es.state_dict(), game="limit-holdem", variant="tiny", seed=0)
    old = Path(__file__).parent / "data" / "limit_es_format_limit-es.ckpt.npz"
    for path, iterations in ((new, 50), (old, 45)):
        entry = FileEntry(path=str(path), kind="", size=0, mtime=0.0)
        _summarize_npz(path, entry)
        assert (entry.kind, entry.format, entry.algorithm) == ("limit", "checkpoint", "linear")
        assert entry.iterations == iterations and entry.details["buckets"] == [3, 3, 3, 3]
        assert entry.details["sampling"] == "es" and entry.details["recall"] == "imperfect"
        model = LimitModel(path, path.name)
        assert model.buckets == [3, 3, 3, 3] and model._table.shape == (es.size,)
    np.testing.assert_array_equal(LimitModel(new, "es")._table, es.sums)


def test_agent_and_checkpoint_loader_work_unchanged(setup, tmp_path) -> None:
    """The trained strategy plays as an agent (beats always-call), and a checkpoint of an
    external-sampling run loads back through the duplicate-match loader as the same solver."""
    from pokerlab.evaluate.limit_matches import always_call, duplicate_match, strategy_agent
    from pokerlab.io.files import save_checkpoint
    from pokerlab.solvers.factory import load_limit_checkpoint

    _, abstraction, _ = setup
    game = load_game("limit-holdem", variant="tiny")  # the loader reads the variant's caps
    es = LimitESSolver(game, abstraction, recall="imperfect", seed=5)
    es.step(20_000)
    result = duplicate_match(game, strategy_agent(es), always_call(game), pairs=20_000, seed=0)
    assert result.mbb_per_game - result.ci95_mbb > 0
    path = tmp_path / "es.ckpt.npz"
    save_checkpoint(path, es.state_dict(), variant="tiny", seed=0)
    _, loaded = load_limit_checkpoint(path, cache=False)
    assert isinstance(loaded, LimitESSolver) and loaded.iterations == 20_000
    np.testing.assert_array_equal(loaded.average_strategy().probs, es.average_strategy().probs)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    from pokerlab.cli.main import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_sampling_es(capsys, tmp_path, monkeypatch) -> None:
    """``pokerlab train limit-holdem --sampling es``: JSON with sampling and the ES default
    schedule (linear), the exact abstract exploitability, a log, and 2,000 + 2,000 resumed
    iterations equal 4,000 straight ones."""
    import json

    from pokerlab.io.files import load_checkpoint

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    base = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "3,3,3,3"]
    base += ["--sampling", "es", "--seed", "4", "--json"]
    straight, half, log = tmp_path / "straight.npz", tmp_path / "half.npz", tmp_path / "run.jsonl"
    code, out, _ = _cli(capsys, *base, "-n", "4000", "--checkpoint", str(straight))
    assert code == 0
    result = json.loads(out)
    assert result["sampling"] == "es" and result["algorithm"] == "linear"
    assert result["iterations"] == 4000 and result["bytes_per_infoset_action"] == 8
    assert result["exploitability_abstract_mbb"] > 0  # exact, 81 river sequences
    more = ["--no-exploitability", "--checkpoint", str(half)]
    assert _cli(capsys, *base, "-n", "2000", *more, "--log", str(log))[0] == 0
    code, out, _ = _cli(capsys, *base, "-n", "4000", *more, "--resume", str(half))
    assert code == 0 and json.loads(out)["iterations"] == 4000
    a, b = load_checkpoint(straight), load_checkpoint(half)
    for name in ("regrets", "sums", "rng"):
        np.testing.assert_array_equal(a["arrays"][name], b["arrays"][name])
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[-1]["iteration"] == 2000 and lines[-1]["sampling"] == "es"
    assert load_checkpoint(half)["format"] == 1  # the engine's state schema
    # a public-chance-sampling run does not resume an external-sampling checkpoint (refused by
    # the first field that differs: the format, or the algorithm once both write the schema)
    code, _, err = _cli(capsys, *base[:6], "-n", "5", "--resume", str(half), "--no-exploitability")
    assert code == 2 and "Traceback" not in err
    assert "checkpoint of another run: format 'limit-es', this run 'limit-pcs'" in err


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--sampling", "mc"], "'mc'"),
        (["--sampling", "es", "--algorithm", "pcfr+"], "'pcfr+'"),
        (["--sampling", "es", "--workers", "2"], "--ray"),
        (["--prune"], "--prune"),
    ],
)
def test_cli_bad_sampling_input(capsys, args: list, needle: str) -> None:
    code, _, err = _cli(capsys, "train", "limit-holdem", "--no-cache", *args)
    assert code == 2 and needle in err and "Traceback" not in err
