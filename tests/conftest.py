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
