"""Malformed command lines and the first-hour fixes of issue 12 (items 1, 6, 7, 10).

Every case runs through the real entry point, :func:`pokerlab.cli.main.main` (a few also as a
separate process), with the typer version that ``pip install`` resolves.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pokerlab
from pokerlab.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
LONG = "x" * 300

POSTFLOP = ["--board", "Td9d6hQc2s", "--oop-range", "AA", "--ip-range", "KK", "--pot", "100"]

# (arguments, a piece of the one-line message)
MALFORMED: list[tuple[list[str], str]] = [
    # unknown command or option, stray arguments
    (["bogus"], "No such command 'bogus'"),
    (["--bogus"], "No such option: --bogus"),
    (["solve", "leduc", "--bogus"], "No such option: --bogus"),
    (["show", "x.npz", "--bogus"], "No such option"),
    (["compare", "leduc", "--bogus"], "No such option"),
    (["pushfold", "--bogus"], "No such option"),
    (["match", "70/60", "40/30", "--bogus"], "No such option"),
    (["equity", "AsKs", "QQ", "--bogus"], "No such option"),
    (["range", "QQ+", "--bogus"], "No such option"),
    (["evolve", "--bogus"], "No such option"),
    (["pushfold", "extra"], "unexpected extra argument"),
    (["range", "QQ+", "extra"], "unexpected extra argument"),
    (["evolve", "extra"], "unexpected extra argument"),
    # missing argument or option value
    (["solve"], "Missing argument 'game'"),
    (["show"], "Missing argument 'file'"),
    (["compare"], "Missing argument 'game'"),
    (["match"], "Missing argument 'a'"),
    (["match", "70/60"], "Missing argument 'b'"),
    (["equity"], "Missing argument 'first'"),
    (["equity", "AsKs"], "Missing argument 'second'"),
    (["range"], "Missing argument 'text'"),
    (["show", "x.npz", "--contains"], "requires an argument"),
    (["pushfold", "--png"], "requires an argument"),
    (["solve", "leduc", "-n"], "requires an argument"),
    # not a number
    (["solve", "leduc", "--iterations", "abc"], "--iterations"),
    (["solve", "leduc", "--iterations", "1e30"], "--iterations"),
    (["solve", "leduc", "--seconds", "abc"], "--seconds"),
    (["compare", "leduc", "--seed", "abc"], "--seed"),
    (["compare", "leduc", "--budget-nodes", "1.5"], "--budget-nodes"),
    (["pushfold", "--stack", "abc"], "--stack"),
    (["pushfold", "--ante", "abc"], "--ante"),
    (["pushfold", "--target", "abc"], "--target"),
    (["match", "70/60", "40/30", "-n", "abc"], "--hands"),
    (["match", "70/60", "40/30", "--seed", "1.5"], "--seed"),
    (["equity", "AsKs", "QQ", "-n", "lots"], "--samples"),
    (["show", "x.npz", "--max-rows", "abc"], "--max-rows"),
    (["evolve", "-p", "abc"], "--population"),
    (["evolve", "--p-cross", "high"], "--p-cross"),
    # out of range
    (["solve", "kuhn", "-n", "-5"], "iterations"),
    (["pushfold", "--stack", "1e308"], "1000"),
    (["pushfold", "--stack", "0.2"], "0.5"),
    (["pushfold", "--ante", "-1"], "--ante"),
    (["pushfold", "--ante", "1e308"], "--ante"),
    (["pushfold", "--target", "0"], "--target"),
    (["pushfold", "--sweep", "1:1e9:0.001"], "999,999,999,001 stacks"),
    (["pushfold", "--sweep", "1:2000:100"], "largest stack"),
    (["pushfold", "--sweep", "5:1:1"], "bad --sweep"),
    (["match", "70/60", "40/30", "-n", "0"], "--hands"),
    (["match", "70/60", "40/30", "-n", "-5"], "--hands"),
    (["match", "70/60", "40/30", "--matches", "0"], "--matches"),
    (["match", "70/60", "40/30", "--stack", "1e308"], "--stack"),
    (["match", "70/60", "40/30", "--seed", "-1"], "--seed"),
    (["match", "70/60", "40/30", "-n", "10000000", "-m", "100"], "at most 100,000,000 in all"),
    (["equity", "AsKs", "QQ", "-n", "0"], "--samples"),
    (["equity", "AsKs", "QQ", "--seed", "-3"], "--seed"),
    (["show", "x.npz", "--max-rows", "-1"], "--max-rows"),
    (["evolve", "-p", "1"], "--population"),
    (["evolve", "--generations", "0"], "--generations"),
    (["evolve", "--patience", "-1"], "--patience"),
    (["evolve", "--p-cross", "2"], "--p-cross"),
    (["evolve", "--p-mut", "-0.5"], "--p-mut"),
    (["evolve", "--hands", "0"], "--hands"),
    (["evolve", "--workers", "-1"], "--workers"),
    (["evolve", "--stack", "1e308"], "--stack"),
    (["evolve", "--seed", "-1"], "--seed"),
    # bad choice or bad token
    (["solve", "nosuchgame"], "unknown game 'nosuchgame'"),
    (["solve", "leduc", "-a", "bogus"], "unknown algorithm 'bogus'"),
    (["compare", "leduc", "--algorithms", "bogus"], "bogus"),
    (["evolve", "--players", "foo"], "foo"),
    (["evolve", "--mode", "foo"], "foo"),
    (["evolve", "--fitness", "foo"], "foo"),
    (["evolve", "--mode", "adaptive", "--opponent", "junk"], "junk"),
    (["pushfold", "--best-response", "xyz"], "xyz"),
    (["pushfold", "--best-response", "1/1"], "ambiguous"),
    (["pushfold", "--best-response", "150/60"], "150"),
    (["match", "70/60", "bogus"], "bogus"),
    (["equity", "ZZ", "QQ"], "'ZZ'"),
    (["equity", "AsKs", "QQ", "--board", "XX"], "'XX'"),
    (["equity", "AsKs", "QQ", "--exact", "-n", "100"], "exclude each other"),
    (["range", "ZZ"], "'ZZ'"),
    # issue 29: postflop, train, duplicate, lbr, play, serve (huge, non-finite, Unicode numbers)
    (["postflop", "river", "--bogus"], "No such option"),
    (["postflop", *POSTFLOP, "--stack", "abc"], "--stack"),
    (["postflop", *POSTFLOP, "--stack", "-5"], "stack must be >= 0"),
    (["postflop", *POSTFLOP, "--stack", "1e39"], "stack 1e+39 chips is above the largest"),
    (["postflop", *POSTFLOP, "--stack", "100", "--bets", "\u0663\u0663%"], "'\u0663\u0663%'"),
    (["postflop", *POSTFLOP, "--stack", "100", "--bets", "9" * 5000 + "e"], "at most 100 streets"),
    (["postflop", *POSTFLOP, "--stack", "100", "--bets", "1" + "0" * 320 + "%"], "too large"),
    (["postflop", *POSTFLOP, "--stack", "100", "--target", "\u0660.5"], "bad --target"),
    (["postflop", *POSTFLOP, "--stack", "100", "--rake-rate", "nan"], "rake_rate"),
    (["postflop", *POSTFLOP, "--stack", "100", "--checkpoint-every", "5"], "--checkpoint"),
    (["postflop", *POSTFLOP, "--stack", "100", "--resume", "/nonexistent.npz"], "no such file"),
    (["postflop", *POSTFLOP, "--stack", "100", "--out", "/tmp"], "is a directory"),
    (["postflop", "/nonexistent/spot.toml"], "spot.toml"),
    (["postflop", "show", "/nonexistent.npz"], "no such file"),
    (["train", "limit-holdem", "--buckets", "2,2,2,\u0663"], "not a whole number"),
    (["train", "limit-holdem", "--buckets", "2,2,2,4611686018427387904"], "above the largest"),
    (["train", "limit-holdem", "--buckets", "2,2,2," + "9" * 5000], "above the largest"),
    (["train", "limit-holdem", "--seconds", "1e999"], "finite"),
    (["train", "limit-holdem", "--iterations", "0"], "--iterations"),
    (["train", "limit-holdem", "--log", "/tmp"], "--log '/tmp' is a directory"),
    (["train", "limit-holdem", "--checkpoint", "/tmp"], "--checkpoint '/tmp' is a directory"),
    (["train", "limit-holdem", "--resume", "/nonexistent.npz"], "no such file"),
    (["train", "limit-holdem", "--sampling", "es", "--discount-every", "9" * 30], "2**53"),
    (["duplicate", "limit-holdem", "--pairs", "9" * 30], "--pairs"),
    (["duplicate", "limit-holdem", "--pairs", "1"], "--pairs"),
    (["duplicate", "limit-holdem", "--raise-above", "nan"], "raise_above=nan"),
    (["duplicate", "limit-holdem", "--opponents", "foo"], "'foo'"),
    (["duplicate", "kuhn"], "'kuhn'"),
    (["lbr", "limit-holdem", "--bot", "call", "--pairs", "9" * 30], "--pairs"),
    (["lbr", "limit-holdem", "--bot", "call", "--rollouts", "9" * 30], "--rollouts"),
    (["lbr", "limit-holdem", "--bot", "foo"], "'foo'"),
    (["lbr", "limit-holdem"], "exactly one of --checkpoint"),
    (["play", "limit-holdem", "--bot", "foo"], "'foo'"),
    (["play", "limit-holdem", "--hands", "0", "--bot", "call"], "--hands"),
    (["play", "limit-holdem", "--checkpoint", "/nonexistent.npz"], "no such file"),
    (["serve", "/nonexistent-folder"], "is not a folder"),
    (["serve", "--port", "9" * 30], "--port"),
    (["serve", "--port", "-1"], "--port"),
    (["compare", "kuhn", "--points", "9" * 30], "--points"),
    (["compare", "kuhn", "--budget-nodes", "9" * 30], "--budget-nodes"),
    # issue 26: report
    (["report", "small", "--bogus"], "No such option: --bogus"),
    (["report", "small"], "Missing option '--out'"),
    (["report", "small", "--flops", "bogus", "--out", "/tmp/pokerlab-r1"], "'bogus'"),
    (["report", "small", "--target", "x%", "--out", "/tmp/pokerlab-r2"], "bad --target"),
    (["report", "/nonexistent.toml", "--out", "/tmp/pokerlab-r3"], "no such file"),
    (["report", "small", "--workers", "2", "--out", "/tmp/pokerlab-r4"], "--workers needs --ray"),
    (["report", "small", "--turns", "ZZZ", "--out", "/tmp/pokerlab-r5"], "'ZZ'"),
    (["report", "small", "--out", "/etc/passwd"], "is a file, not a folder"),
    # files
    (["show", "/nonexistent/file.npz"], "no such file"),
    (["show", LONG + ".npz"], "too long"),
    (["pushfold", "--best-response", LONG + ".npz"], "too long"),
    (["pushfold", "--best-response", "/nonexistent/s.json"], "no such file"),
]


def run(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_table_covers_every_command() -> None:
    assert len(MALFORMED) >= 50
    commands = {args[0] for args, _ in MALFORMED if not args[0].startswith("-")}
    assert commands >= {
        "solve",
        "show",
        "compare",
        "pushfold",
        "match",
        "equity",
        "range",
        "evolve",
        "postflop",
        "train",
        "duplicate",
        "lbr",
        "play",
        "serve",
        "report",
    }


@pytest.mark.parametrize("args,needle", MALFORMED, ids=[" ".join(a)[:60] for a, _ in MALFORMED])
def test_malformed_command_line_is_one_line_and_exit_2(capsys, args, needle) -> None:
    code, out, err = run(capsys, args)
    assert code == 2, err
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1, err  # one line: not wrapped, whatever its length
    assert lines[0].startswith("error: ")
    assert needle in lines[0]
    assert out == ""  # nothing drawn on stdout (no progress bar) before the refusal


def test_no_arguments_prints_the_usage_block_and_exits_2(capsys) -> None:
    code, out, err = run(capsys, [])
    assert code == 2
    assert out == ""
    assert err.startswith("error: no command given")
    assert "Usage: pokerlab" in err and "solve" in err and "evolve" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [[], ["solve", "leduc", "--bogus"], ["pushfold", "--stack", "abc"]],
    ids=["no arguments", "unknown option", "bad number"],
)
def test_console_script_usage_errors_exit_2_without_traceback(args) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pokerlab.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.startswith("error: ")


def test_help_shows_no_bool_type_for_flags(capsys) -> None:
    for args in (["--help"], ["pushfold", "--help"], ["solve", "--help"], ["show", "--help"]):
        code, out, _ = run(capsys, args)
        assert code == 0
        assert "--help" in out
        assert "<bool>" not in out, args


def test_solve_help_states_the_default_stopping_rule(capsys) -> None:
    code, out, _ = run(capsys, ["solve", "--help"])
    assert code == 0
    assert "1e-3" in out and "MCCFR 1e-2" in " ".join(out.split())


# --- item 7: push/fold specs ---------------------------------------------------------------


def test_range_spec_error_position_counts_from_the_start_of_the_spec() -> None:
    from pokerlab.analysis.pushfold import strategy_from_spec
    from pokerlab.games.pushfold import PushFoldGame

    game = PushFoldGame(10.0)
    for spec, token in (("22+, A2s+ / 55+, QXo", "QXo"), ("22+, A2Xs+ / 55+", "A2Xs+")):
        with pytest.raises(pokerlab.ParseError) as info:
            strategy_from_spec(spec, game)
        assert info.value.token == token
        assert info.value.position == spec.index(token)
        assert f"at position {spec.index(token)}" in str(info.value)


def test_percentage_specs_read_both_numbers_on_one_scale() -> None:
    from pokerlab.analysis.pushfold import strategy_from_spec
    from pokerlab.games.pushfold import PushFoldGame

    game = PushFoldGame(10.0)

    def probs(spec: str) -> np.ndarray:
        return strategy_from_spec(spec, game).probs

    np.testing.assert_array_equal(probs("1/60"), probs("1%/60%"))  # was 100% / 60%
    np.testing.assert_array_equal(probs("2/60"), probs("2%/60%"))
    np.testing.assert_array_equal(probs("0.7/0.6"), probs("70/60"))
    np.testing.assert_array_equal(probs("1.0/0.6"), probs("100%/60%"))
    assert not np.array_equal(probs("1/60"), probs("100%/60%"))
    for ambiguous in ("1/1", "1/0", "0/1"):
        with pytest.raises(pokerlab.PokerlabError, match="ambiguous"):
            strategy_from_spec(ambiguous, game)


def test_directory_is_reported_as_a_directory(capsys, tmp_path) -> None:
    for args in (["show", str(tmp_path)], ["pushfold", "--best-response", str(tmp_path)]):
        code, _, err = run(capsys, args)
        assert code == 2
        assert "is a directory" in err and "no such file" not in err


def test_junk_npz_is_refused_in_one_line_without_numpy_advice(capsys, tmp_path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not an archive at all\n" * 10)
    for args in (["show", str(junk)], ["pushfold", "--best-response", str(junk)]):
        code, _, err = run(capsys, args)
        assert code == 2
        assert len(err.splitlines()) == 1
        assert "allow_pickle" not in err and "Traceback" not in err


def test_long_error_lines_are_not_wrapped(capsys) -> None:
    token = "Q" * 150
    code, _, err = run(capsys, ["range", f"AA, KK, {token}"])
    assert code == 2
    assert len(err.splitlines()) == 1 and token in err


# --- item 6: limits and targets --------------------------------------------------------------


def test_missed_pushfold_target_warns_and_exits_3(capsys, monkeypatch) -> None:
    import pokerlab.solvers.pushfold as solvers_pushfold

    solve = solvers_pushfold.solve_pushfold

    def capped(*args, **kwargs):  # noqa: ANN002,ANN003,ANN202
        kwargs["max_iterations"] = 20
        return solve(*args, **kwargs)

    monkeypatch.setattr(solvers_pushfold, "solve_pushfold", capped)
    code, out, err = run(capsys, ["pushfold", "--stack", "8", "--target", "1e-9", "--json"])
    assert code == 3
    assert '"exploitability_bb"' in out  # the result is still printed
    assert err.startswith("warning: target exploitability 1e-09") and "not reached" in err


def test_evolve_stopped_by_the_generation_cap_warns_and_exits_3(capsys) -> None:
    code, out, err = run(
        capsys,
        ["evolve", "--population", "4", "--generations", "2", "--patience", "50", "--json"],
    )
    assert code == 3
    assert '"generations": 2' in out
    assert "warning: the generation cap (2)" in err


def test_match_until_broke_prints_no_nan_or_infinity(capsys) -> None:
    code, out, err = run(
        capsys, ["match", "70/60", "10/5", "--until-broke", "--stack", "1", "-m", "3"]
    )
    assert code == 0, err
    assert "nan" not in out.lower() and "inf" not in out.lower()
    assert "n/a" in out


# --- item 10: show, docs, benchmarks ---------------------------------------------------------


@pytest.fixture(scope="module")
def leduc_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("show") / "leduc.npz"
    assert main(["solve", "leduc", "-a", "cfr", "-n", "5", "--out", str(path), "--json"]) == 0
    return path


def test_show_prefix_exact_and_substring_matching(capsys, leduc_file) -> None:
    capsys.readouterr()
    code, out, _ = run(capsys, ["show", str(leduc_file), "--prefix", "Ks:", "--json"])
    assert code == 0
    prefix_keys = set(json.loads(out)["strategy"])
    code, out, _ = run(capsys, ["show", str(leduc_file), "--contains", "Ks:", "--json"])
    contains_keys = set(json.loads(out)["strategy"])
    assert prefix_keys and all(k.startswith("Ks:") for k in prefix_keys)
    assert prefix_keys < contains_keys  # substring also matches a king on the board
    assert any(not k.startswith("Ks:") for k in contains_keys)
    code, out, _ = run(capsys, ["show", str(leduc_file), "--key", "Ks:", "--json"])
    assert code == 0 and list(json.loads(out)["strategy"]) == ["Ks:"]


def test_show_says_when_nothing_matches(capsys, leduc_file) -> None:
    code, out, err = run(capsys, ["show", str(leduc_file), "--prefix", "Zz"])
    assert code == 1
    assert out == ""
    assert "no information set" in err and "starting with 'Zz'" in err


def test_show_help_names_the_matching_rules(capsys) -> None:
    code, out, _ = run(capsys, ["show", "--help"])
    text = " ".join(out.split())
    assert code == 0
    assert "Exact match" in text and "Prefix match" in text and "Substring match" in text


def test_adding_a_game_names_only_attributes_that_exist() -> None:
    text = (ROOT / "docs" / "adding-a-game.md").read_text()

    names = set(re.findall(r"\bpokerlab((?:\.[A-Za-z_]\w*)+)", text))
    assert names
    for dotted in names:
        parts = dotted.strip(".").split(".")
        obj: object = pokerlab
        for k, part in enumerate(parts):
            if not hasattr(obj, part):
                obj = importlib.import_module("pokerlab." + ".".join(parts[: k + 1]))
            else:
                obj = getattr(obj, part)


def test_benchmark_results_go_to_an_untracked_folder_unless_saved(monkeypatch, tmp_path) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    common = importlib.import_module("_common")
    tracked = tmp_path / "results"
    monkeypatch.setattr(common, "RESULTS", tracked)
    monkeypatch.setattr(common, "LOCAL_RESULTS", tracked / "local")
    path = common.write_results("demo", {"value": 1})
    assert path == tracked / "local" / "demo.json"
    assert not (tracked / "demo.json").exists()
    assert (tracked / "local" / ".gitignore").read_text().splitlines()[-1] == "*"
    saved = common.write_results("demo", {"value": 2}, save=True)
    assert saved == tracked / "demo.json" and '"value": 2' in saved.read_text()


def test_every_command_help_is_plain_wrapped_text(capsys) -> None:
    """Each command's help (as ``--help`` renders it): no docstring markup (double backticks,
    Sphinx roles) and no line break inside a paragraph, which the help box would show as a
    line ending in mid-box; checked on every command and subcommand."""
    import typer

    from pokerlab.cli.app import hide_flag_types
    from pokerlab.cli.main import app

    stack = [(["pokerlab"], hide_flag_types(typer.main.get_command(app)))]
    seen = 0
    while stack:
        path, cmd = stack.pop()
        text = cmd.help or ""
        for bad in ("``", ":func:", ":mod:", ":class:", ":meth:", "~pokerlab"):
            assert bad not in text, (path, bad)
        for paragraph in text.split("\n\n"):
            assert "\n" not in paragraph.strip(), (path, paragraph)
        seen += 1
        stack.extend(([*path, n], c) for n, c in getattr(cmd, "commands", {}).items())
    assert seen > 25
    code, out, _ = run(capsys, ["blueprint", "lbr", "--help"])
    assert code == 0 and "``" not in out and "search:CHECKPOINT" in out
