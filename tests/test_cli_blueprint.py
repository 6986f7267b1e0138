"""``pokerlab blueprint summary`` and ``pokerlab blueprint abstraction``: output and errors."""

from __future__ import annotations

import json

import pytest

from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.strength import class_weights
from pokerlab.cli.main import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_summary_text_and_json(capsys) -> None:
    code, out, err = run(capsys, "blueprint", "summary")
    assert code == 0, err
    assert "nolimit-holdem hunl-100: 2 players, stacks 10,000, 10,000, blinds 50/100" in out
    # the documented size of hunl-100 (docs/nolimit-holdem.md): 500 sequences, 65,777 entries
    assert "total" in out and "500" in out and "65,777" in out
    code, out, err = run(capsys, "blueprint", "summary", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["total_action_sequences"] == 500 and info["total_infoset_actions"] == 65_777
    assert info["action_sequences"] == {"preflop": 12, "flop": 40, "turn": 120, "river": 328}
    assert info["bytes"] == 526_216


def test_summary_options_and_toml(capsys, tmp_path) -> None:
    code, out, err = run(
        capsys, "blueprint", "summary", "--json", "--stack", "300", "--buckets", "169,9,9,9"
    )
    assert code == 0, err
    small = json.loads(out)
    assert small["game"]["stacks"] == [300, 300] and small["buckets"]["flop"] == 9
    assert small["total_action_sequences"] < 500
    path = tmp_path / "g.toml"
    path.write_text('base = "hunl-100"\nstack = 300\nbuckets = [169, 9, 9, 9]\n')
    code, out, err = run(capsys, "blueprint", "summary", str(path), "--json")
    assert code == 0, err
    from_file = json.loads(out)
    assert from_file["total_infoset_actions"] == small["total_infoset_actions"]


def test_summary_refuses_a_game_that_will_not_fit(capsys) -> None:
    code, out, err = run(capsys, "blueprint", "summary", "--buckets", "169,99999999999,1,1")
    assert code == 2
    assert "flop" in out  # the summary is printed before the refusal
    assert err.startswith("error: the abstract game needs") and "available" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, token",
    [
        (["summary", "nope"], "'nope'"),
        (["summary", "--deck", "huge"], "'huge'"),
        (["summary", "--blinds", "50,x"], "'x'"),
        (["summary", "--blinds", "50"], "'50'"),
        (["summary", "missing.toml"], "'missing.toml'"),
        (["summary", "--averages", "some"], "'some'"),
        (["abstraction", "--deck", "micro", "--method", "kmeans"], "'kmeans'"),
        (["abstraction", "--deck", "micro", "--buckets", "169,0,4,4"], "'0'"),
        (["abstraction", "--deck", "micro", "--buckets", "169,4,4"], "'169,4,4'"),
        (["abstraction", "--deck", "micro", "--buckets", "169,a,4,4"], "'a'"),
        (["abstraction", "fcpa", "--deck", "nano"], "'nano'"),
    ],
)
def test_bad_input_one_line(capsys, args: list[str], token: str) -> None:
    code, out, err = run(capsys, "blueprint", *args)
    assert code == 2
    assert err.startswith("error: ") and token in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_abstraction_builds_then_reads_the_cache(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    args = ["blueprint", "abstraction", "--deck", "micro", "--buckets", "169,10,10,10"]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert "12 cards, method emd, buckets 169/10/10/10" in out
    assert out.count("built in ") == 1 and "peak memory" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    assert rows["preflop"][1:3] == ["9", "9"] and "(lossless)" in " ".join(rows["preflop"])
    assert rows["flop"][1:3] == ["417", "10"] and rows["turn"][1:3] == ["705", "10"]
    cache_line = [line for line in out.splitlines() if line.startswith("cache: ")][0]
    path = cache_line[len("cache: ") :]
    assert path.startswith(str(tmp_path)) and path.endswith(".npz")
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["from_cache"] and info["cache"] == path
    assert [s["classes"] for s in info["streets"]] == [round_indexer(r, 3).size for r in range(4)]
    assert [s["buckets"] for s in info["streets"]][:3] == [9, 10, 10]
    for r, street in enumerate(info["streets"]):
        total = int(class_weights(r, 3).sum())  # hands of the street: C(12,2) C(10,board)
        assert 1 <= street["min_hands"] <= total / street["buckets"] <= street["max_hands"]
    code, out, err = run(capsys, *args)
    assert code == 0 and "read from the cache in" in out


def test_abstraction_ehs_without_cache(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    code, out, err = run(
        capsys,
        "blueprint",
        "abstraction",
        "--deck",
        "micro",
        "--method",
        "ehs",
        "--no-cache",
        "--buckets",
        "4,4,4,4",
        "--json",
    )
    assert code == 0, err
    info = json.loads(out)
    assert info["method"] == "ehs" and info["cache"] is None and not info["from_cache"]
    assert [s["buckets"] for s in info["streets"]] == [4, 4, 4, 4]
    assert not list(tmp_path.glob("abstraction/buckets-*"))


def test_group_without_a_command(capsys) -> None:
    code, out, err = run(capsys, "blueprint")
    assert code == 2 and out == ""
    assert err.startswith("error: give a command (summary, abstraction")
    assert "Usage: pokerlab blueprint" in err
