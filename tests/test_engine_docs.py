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


def test_readme_first_command_solves_the_turn_spot(capsys) -> None:
    """The README's first command (after the install) runs and reaches its target."""
    import json
    import shlex

    from pokerlab.cli.main import main

    first = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0]
    command = [line for line in first.splitlines() if not line.startswith("#")][0]
    install, run = command.split(" && ")
    assert install.startswith("python3 -m pip install")
    argv = shlex.split(run)
    assert argv[:2] == ["pokerlab", "postflop"]
    assert main([*argv[1:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exploitability_pct"] <= 0.5
    assert out["ev"]["oop"] + out["ev"]["ip"] == pytest.approx(200.0, abs=1e-6)
