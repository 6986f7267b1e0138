"""``warm_search()`` compiles (or loads from numba's cache) every kernel the exact table's
searches call, so that ``benchmarks/search.py`` times solving and not numba: after it, searches of
every kind on other spots (a flop among them: more rounds than the warm-up's turn) add no compiled
signature to any kernel. Runs in a fresh interpreter, where nothing was loaded before."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import pokerlab
from numba.core.registry import CPUDispatcher
from pokerlab.solvers.search import GADGETS, search_everywhere, warm_search

spot = dict(ranges=("AA,KQs", "QQ,T9s"), pot=60, stack=200, bets="75%", raises="a")
turn = pokerlab.load_game("postflop", board="Ks7h2c5d", **spot)
flop = pokerlab.load_game("postflop", board="Ks7h2c", **spot)


def signatures():
    return {
        f"{name}.{key}": len(value.signatures)
        for name, module in list(sys.modules.items()) if name.startswith("pokerlab")
        for key, value in vars(module).items() if isinstance(value, CPUDispatcher)
    }


before = sum(signatures().values())
warm_search()
warm = signatures()
for gadget in GADGETS:
    search_everywhere(turn, turn.public_tree().uniform(), gadget, iterations=3)
search_everywhere(turn, turn.public_tree().uniform(), "unsafe", street="turn", iterations=3)
for k in (1, 4, "self"):
    search_everywhere(
        flop, flop.public_tree().uniform(), "maxmargin", street="flop", iterations=3,
        depth="round", continuations=k, self_rounds=1,
    )
after = signatures()
print(json.dumps({
    "warmed": sum(warm.values()) - before,
    "new": {k: v - warm.get(k, 0) for k, v in after.items() if v != warm.get(k, 0)},
}))
"""


def test_searches_after_warm_search_compile_nothing() -> None:
    """River searches with every gadget, a turn search to the end and flop searches to the end
    of the flop with 1, 4 and self-generated continuations: no new compiled signature after the
    warm-up, which did load kernels."""
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900, check=True
    )
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["warmed"] > 10
    assert got["new"] == {}
