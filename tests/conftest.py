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
