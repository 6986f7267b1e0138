"""docs/nolimit-holdem.md gives ``tiny.toml`` (a fenced toml block) before its commands use it;
those commands run as written from a fresh folder, and the match's documented figure is what
it prints."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pokerlab.cli.main import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "nolimit-holdem.md"


def tiny_commands(text: str) -> list[tuple[list[str], str]]:
    """Each documented ``pokerlab`` command that uses tiny.toml or tiny.npz, as arguments, with
    its comment."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            command, _, comment = line.partition("#")
            if "tiny." in command:
                words = shlex.split(command)
                assert words[0] == "pokerlab"
                out.append((words[1:], comment.strip()))
    return out


def test_tiny_toml_is_given_before_its_first_use() -> None:
    text = DOC.read_text()
    given = text.index("```toml\n")
    assert "Save\nthese four lines as `tiny.toml`" in text[given - 300 : given]
    assert given < text.index("tiny.toml --")  # before the first command that reads it


def test_the_tiny_commands_run_as_documented(tmp_path, monkeypatch, capsys) -> None:
    text = DOC.read_text()
    config = re.findall(r"```toml\n(.*?)```", text, re.S)[0]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(config)
    commands = tiny_commands(text)
    assert [c[0][:2] for c in commands] == [
        ["blueprint", "train"],
        ["blueprint", "train"],
        ["blueprint", "match"],
        ["duplicate", "nolimit-holdem"],
    ]
    for args, comment in commands:
        assert main(args) == 0, (args, capsys.readouterr().err)
        out = capsys.readouterr().out
        if args[:2] == ["blueprint", "train"]:
            total = int(args[args.index("-n") + 1])
            assert f"{total:,} iterations (50,000 this run" in out
        if args[:2] == ["blueprint", "match"]:
            figure = re.fullmatch(r"(hero [+-]\d+\.\d \+- \d+\.\d) mbb/g", comment)
            assert figure is not None, comment
            assert f"{figure.group(1)} mbb/g (95%)" in out
    assert (tmp_path / "tiny.npz").is_file()


@pytest.mark.parametrize("key", ["base", "ranks", "rounds", "stack"])
def test_the_config_matches_the_game_measured_in_the_doc(key: str) -> None:
    text = DOC.read_text()
    config = re.findall(r"```toml\n(.*?)```", text, re.S)[0]
    value = re.search(rf"^{key} = (\S+)", config, re.M)
    assert value is not None
    assert f"`{key} = {value.group(1)}`" in text  # the 8-card game's line
