"""``warm_search()`` compiles (or loads from numba's cache) every kernel the exact table's
searches call, so that ``benchmarks/search.py`` times solving and not numba: after it, searches of
every kind on other spots (a flop among them: more rounds than the warm-up's turn) add no compiled
signature to any kernel; ``SearchAgent.warmup()`` does the same for an agent at the table. Each
runs in a fresh interpreter, where nothing was loaded before."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


AGENT_SCRIPT = """
import json, sys
import pokerlab
from numba.core.registry import CPUDispatcher
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.matches import duplicate_match
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
from pokerlab.solvers.search.agent import SearchAgent

streets = {"preflop": "100%", "flop": "50%", "turn": "50%", "river": "50%", "raise_cap": 1}
game = pokerlab.load_game("nolimit-holdem", ranks=3, rounds=4, stack=5000, actions=streets)
abstraction = lossless_abstraction(3)
solver = BlueprintSolver(game, abstraction, seed=1)
solver.step(5000)
blueprint = BlueprintAgent(solver.average_strategy(), abstraction)
duplicate_match(game.rules, blueprint, blueprint, 4, seed=1)  # the blueprint's own kernels
agent = SearchAgent(blueprint, "river", iterations=20, gadget=sys.argv[1], threads=2)


def signatures():
    return {
        f"{name}.{key}": len(value.signatures)
        for name, module in list(sys.modules.items()) if name.startswith("pokerlab")
        for key, value in vars(module).items() if isinstance(value, CPUDispatcher)
    }


agent.warmup()
warm = signatures()
duplicate_match(game.rules, agent, blueprint, 12, seed=3)
after = signatures()
print(json.dumps({
    "solves": len(agent.records),
    "new": {k: v - warm.get(k, 0) for k, v in after.items() if v != warm.get(k, 0)},
}))
"""


@pytest.mark.parametrize("gadget", ["unsafe", "reach-maxmargin"])
def test_a_search_agent_after_its_warmup_compiles_nothing(gadget: str) -> None:
    """``SearchAgent.warmup()``: the agent's searches in a match (river, 2 threads; the unsafe
    solve and the safe gadget's projection, gifts and loop) then add no compiled signature, so
    the first decision at the table is timed like the others (benchmarks/search_play.py)."""
    run = subprocess.run(
        [sys.executable, "-c", AGENT_SCRIPT, gadget],
        capture_output=True, text=True, timeout=900, check=True,
    )  # fmt: skip
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["solves"] > 0
    assert got["new"] == {}
