"""``--stack`` of ``pokerlab pushfold``, ``match`` and ``evolve`` refuses what the game refuses (a
stack of 0.5 bb or less: the option once took 0.5, which the game then refused) with the option's
own one-line message."""

from __future__ import annotations

import pytest

from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.games.pushfold import PushFoldGame


@pytest.mark.parametrize(
    "command", [["pushfold"], ["match", "nash", "nash", "-n", "10"], ["evolve"]]
)
@pytest.mark.parametrize("stack", ["0.5", "0.25", "-3"])
def test_a_stack_of_half_a_blind_or_less_is_refused_by_the_option(
    command: list[str], stack: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(PokerlabError, match="stack must be a number > 0.5 big blinds"):
        PushFoldGame(float(stack))  # the game's rule, which the option states
    assert main([*command, "--stack", stack, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"error: Invalid value for '--stack' / '-s': Input should be greater than 0.5 big "
        f"blinds, got {float(stack):g}. Try 'pokerlab {command[0]} --help'.\n"
    )


def test_a_stack_just_above_half_a_blind_solves(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pushfold", "--stack", "0.51", "--json"]) == 0
    assert '"stack_bb": 0.51' in capsys.readouterr().out
