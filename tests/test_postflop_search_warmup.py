"""``pokerlab postflop search`` compiles its kernels before it times anything, so each gadget's
seconds are solving alone (a first run once gave unsafe 86 s against 1.7 s warm); on a
terminal it says so on stderr (the notice of ``pokerlab postflop``) and gives a line per row as
it finishes; stdout and --json are unchanged."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import pokerlab.cli.postflop_search as search_cli
from pokerlab.cli.main import main

ARGS = ["postflop", "search", "river", "--gadget", "unsafe,maxmargin"]
QUICK = ["--blueprint-iterations", "5", "--iterations", "3", "--json"]


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_warm_up_comes_before_anything_timed(monkeypatch) -> None:
    import pokerlab.solvers.search as search
    import pokerlab.solvers.search.blueprints as blueprints

    events: list[str] = []
    warm, blueprint, everywhere = (
        search_cli.warm_kernels,
        blueprints.bucketed_blueprint,
        search.search_everywhere,
    )

    def record(name, fn):
        def wrapped(*args, **kwargs):
            events.append(name if name != "search" else f"search {args[2]}")
            return fn(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(search_cli, "warm_kernels", record("warm", warm))
    monkeypatch.setattr(blueprints, "bucketed_blueprint", record("blueprint", blueprint))
    monkeypatch.setattr(search, "search_everywhere", record("search", everywhere))
    assert main([*ARGS, *QUICK]) == 0
    assert events == ["warm", "blueprint", "search unsafe", "search maxmargin"]


def test_a_terminal_gets_the_notice_and_a_line_per_row_on_stderr(capsys, monkeypatch) -> None:
    monkeypatch.setattr(search_cli, "search_kernels_cold", lambda: True)
    monkeypatch.setattr(search_cli, "stderr_is_terminal", lambda: True)
    code, out, err = run(capsys, [*ARGS, *QUICK])
    assert code == 0
    got = json.loads(out)  # stdout is the JSON object alone
    assert [r["configuration"] for r in got["rows"]] == [
        "blueprint",
        "river search, unsafe",
        "river search, maxmargin",
    ]
    lines = err.splitlines()
    assert lines[0] == "compiling (once, about a minute)"
    assert re.fullmatch(r"blueprint: \d+\.\d s", lines[1])
    assert re.fullmatch(r"river search, unsafe: 1 subgame, \d+\.\d s", lines[2])
    assert re.fullmatch(r"river search, maxmargin: 1 subgame, \d+\.\d s", lines[3])
    assert len(lines) == 4
    monkeypatch.setattr(search_cli, "search_kernels_cold", lambda: False)
    code, out, err = run(capsys, [*ARGS, *QUICK])
    assert code == 0 and not err.startswith("compiling")  # a warm cache: no notice
    assert len(err.splitlines()) == 3


def test_piped_stderr_stays_silent(capsys, monkeypatch) -> None:
    monkeypatch.setattr(search_cli, "search_kernels_cold", lambda: True)
    monkeypatch.setattr(search_cli, "stderr_is_terminal", lambda: False)
    code, out, err = run(capsys, [*ARGS, *QUICK])
    assert code == 0 and err == ""
    assert len(json.loads(out)["rows"]) == 3


SCRIPT = """
import json, sys
from numba.core.registry import CPUDispatcher
import pokerlab.cli.postflop_search as search_cli
from pokerlab.cli.main import main


def signatures():
    return {
        f"{name}.{key}": len(value.signatures)
        for name, module in list(sys.modules.items()) if name.startswith("pokerlab")
        for key, value in vars(module).items() if isinstance(value, CPUDispatcher)
    }


warm = []
warm_kernels = search_cli.warm_kernels
search_cli.warm_kernels = lambda game, say: (warm_kernels(game, say), warm.append(signatures()))
quick = ["--blueprint-iterations", "5", "--iterations", "3", "--json"]
new = {}
for args in (
    ["--gadget", "unsafe,resolve,maxmargin,reach-maxmargin"],
    ["--buckets", "0", "--street", "turn", "--depth", "round", "--continuations", "self"],
):
    assert main(["postflop", "search", "turn", *quick, *args]) == 0
    after = signatures()
    new.update({k: v - warm[-1].get(k, 0) for k, v in after.items() if v != warm[-1].get(k, 0)})
print(json.dumps(new), file=sys.stderr)
"""


def test_nothing_timed_compiles() -> None:
    """In a fresh interpreter: after the warm-up, the blueprint (bucketed and lossless) and the
    searches (every gadget; depth-limited with self-generated continuations) add no compiled
    signature to any kernel, so no row's seconds include compiling."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900, check=True
    )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == {}
