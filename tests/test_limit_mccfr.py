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
    with pytest.raises(PokerlabError, match="'limit-pcs'"):
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
    # a public-chance-sampling run does not resume an external-sampling checkpoint
    code, _, err = _cli(capsys, *base[:6], "-n", "5", "--resume", str(half), "--no-exploitability")
    assert code == 2 and "'limit-es'" in err


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
