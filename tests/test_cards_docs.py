"""The examples in the cards modules' docstrings and in docs/cards.md run and are right."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs" / "cards.md"


@pytest.mark.parametrize(
    "module",
    [
        "pokerlab.cards.deck",
        "pokerlab.cards.ranges",
        "pokerlab.cards.evaluator",
        "pokerlab.cards.equity",
    ],
)
def test_module_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_docs_examples() -> None:
    result = doctest.testfile(str(DOCS), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 3
