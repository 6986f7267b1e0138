"""A postflop solver compiles (or loads from numba's cache) every kernel its solve calls when it is
made, on a tiny spot of its own (``PostflopSolver(warmup=True)``, the default): a solve to a
target then calls no kernel with argument types it has not seen, so no compilation or cache load
lands in the timed iterations. Each case runs in a fresh interpreter, where nothing was loaded
before."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = """
import json, sys
import pokerlab
from numba.core.registry import CPUDispatcher
from pokerlab.solvers.postflop import PostflopSolver

spot, threads, compressed = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "16"
game = pokerlab.load_game("postflop", spot=spot)
game.expanded


def signatures():
    return {
        f"{name}.{key}": len(value.signatures)
        for name, module in list(sys.modules.items()) if name.startswith("pokerlab")
        for key, value in vars(module).items() if isinstance(value, CPUDispatcher)
    }


solver = PostflopSolver(game, "dcfr-ps", threads=threads, compressed=compressed)
warm = signatures()
solver.solve(target_exploitability=0.5, check_every=10)
solver.check_exploitability()
after = signatures()
print(json.dumps({
    "warmed": sum(warm.values()),
    "new": {k: v - warm.get(k, 0) for k, v in after.items() if v != warm.get(k, 0)},
}))
"""


@pytest.mark.parametrize(
    ("spot", "threads", "mode"),
    [("river", 2, "32"), ("river", 1, "16"), ("turn", 2, "16"), ("turn", 1, "32")],
)
def test_a_solve_after_the_warmup_compiles_nothing(spot: str, threads: int, mode: str) -> None:
    """River (no deal: one whole-tree call on any thread count) and turn (split at the river's
    deal on two threads), float32 and 16-bit: the solve and its exploitability checks (float32,
    ``check_exploitability``) add no compiled signature to any kernel, and the warm-up did load
    some. (``exploitability()``, float64 and outside a solve, loads its kernel when first
    called.)"""
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, spot, str(threads), mode],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["warmed"] > 10
    assert got["new"] == {}
