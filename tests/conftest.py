"""Shared fixtures: kernels compile once per test session."""

from __future__ import annotations

import pytest

import pokerlab


@pytest.fixture(scope="session", autouse=True)
def _warm_kernels() -> None:
    pokerlab.warmup()


@pytest.fixture(scope="session")
def kuhn() -> pokerlab.HistoryGame:
    return pokerlab.load_game("kuhn")


@pytest.fixture(scope="session")
def leduc() -> pokerlab.HistoryGame:
    return pokerlab.load_game("leduc")


@pytest.fixture
def tiny_limit_checkpoint(tmp_path, monkeypatch, capsys):
    """A 30-iteration training checkpoint of tiny limit hold'em (4 buckets per round), written
    by the CLI (``pokerlab train limit-holdem``); the abstraction cache goes to ``tmp_path``."""
    from pokerlab.cli.main import main

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    path = tmp_path / "tiny.ckpt.npz"
    args = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "4,4,4,4"]
    code = main([*args, "--iterations", "30", "--no-exploitability", "--checkpoint", str(path)])
    capsys.readouterr()
    assert code == 0 and path.is_file()
    return path


#: The 8-card two-round fcpa no-limit game, stacks 300 (blinds 50/100): the blueprint tests'
#: tiny game.
TINY_BLUEPRINT = 'base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n'


@pytest.fixture(scope="session")
def tiny_blueprint(tmp_path_factory):
    """A blueprint of :data:`TINY_BLUEPRINT` (lossless buckets, 3,000 iterations) written by
    ``pokerlab blueprint train``, alone in its folder (``served/bp.npz``, the viewer serves the
    folder): preflop the small blind's tree has fold, call and one raise, to 300 (the pot raise
    and the all-in coincide). Trained once per session; tests only read it."""
    from pokerlab.cli.main import main

    folder = tmp_path_factory.mktemp("tiny-blueprint")
    config = folder / "tiny.toml"
    config.write_text(TINY_BLUEPRINT)
    ckpt = folder / "served" / "bp.npz"
    ckpt.parent.mkdir()
    args = ["blueprint", "train", str(config), "--bucketing", "lossless", "-n", "3000"]
    assert main([*args, "--checkpoint", str(ckpt), "--json"]) == 0
    return ckpt
