"""The Python examples in the README and docs run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("doc", ["README.md", "docs/adding-a-game.md"])
def test_python_examples_run(doc, tmp_path, monkeypatch) -> None:
    text = (ROOT / doc).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, f"{doc} has no python example"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, doc, "exec"), {})
