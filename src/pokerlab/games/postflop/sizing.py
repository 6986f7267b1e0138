"""How large a postflop spot is before it is built: the betting tree counted over its shared
graph of betting states (refused past a budget, with a memory bound), and the memory a solving
process will need against what this machine has."""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab._system import memory_available_or_physical
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import ActionNode, board_size
from pokerlab.games.postflop.spot import SpotConfig
from pokerlab.games.postflop.spot_fields import ALL_STREETS

__all__ = [
    "MAX_BETTING_STATES",
    "StateBudget",
    "available_memory_bytes",
    "count_betting_tree",
    "gib",
    "process_bytes_estimate",
]

#: What a solving process holds besides the tree: Python, numpy, numba and the compiled kernels
#: (272 MiB; the turn's ``-n 20 --out`` peak is 263 MiB).
PROCESS_BASE_BYTES = 2**28 + 2**24


#: Peak resident memory of a solving process per byte of the solver-array bound, on top of
#: :data:`PROCESS_BASE_BYTES` (the dealt tree's own arrays, scratch, the values pass and a save
#: with ``--out``). Calibrated on ``pokerlab postflop SPOT -n 2 --threads 2 --out FILE`` (peak RSS,
#: issue 30): flop 1.85 GB for a 1.69 GB bound (1.18 GB for 0.84 GB with ``--compressed``), turn
#: 0.24 GB for 9.3 MB, river 0.22 GB for 0.12 MB; the estimate is 1.08 to 1.24 times the peak.
PROCESS_ARRAY_FACTOR = 1.2


def process_bytes_estimate(array_bytes: int) -> int:
    """The peak memory of a process solving a spot whose solver arrays need up to
    ``array_bytes`` (the bound of :meth:`PostflopGame.tree_summary`, halved for 16-bit
    storage), in bytes: :data:`PROCESS_BASE_BYTES` + :data:`PROCESS_ARRAY_FACTOR` x arrays."""
    return int(PROCESS_BASE_BYTES + PROCESS_ARRAY_FACTOR * array_bytes)


def available_memory_bytes() -> int | None:
    """Memory a new allocation can get on this machine now, in bytes: ``MemAvailable`` of
    ``/proc/meminfo`` (Linux), else the physical memory (``os.sysconf``); None when unknown."""
    return memory_available_or_physical()


def gib(n: float) -> str:
    """Bytes as a short readable size (``"50.3 GiB"``, ``"8.8 MiB"``)."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


#: Most distinct betting states the count may make (:func:`count_betting_tree`): about a
#: second of work; past it the tree is refused as too large to count, let alone build.
MAX_BETTING_STATES = 10_000


class StateBudget:
    """Watches the shared count (``build_action_tree(..., budget=self, share=True)``) and
    refuses (:class:`~pokerlab.errors.PokerlabError`) past :data:`MAX_BETTING_STATES` states,
    with the states by street and a lower bound of the memory: each state is at least one node
    of the tree, needing 8 bytes per action and hand (float32 regrets and sums) times the deals
    above it."""

    def __init__(self, config: SpotConfig) -> None:
        # streets as ALL_STREETS' indices: 0 preflop, 1 flop, 2 turn, 3 river
        self.first = ALL_STREETS.index(config.street)
        self.deals = [1, 1, 1, 1]  # boards below a node of each street (no isomorphism)
        for street in range(self.first + 1, 4):
            self.deals[street] = self.deals[street - 1]
            for card in range(board_size(street - 2), board_size(street - 1)):
                self.deals[street] *= 4 * config.ranks - card
        self.hands = max(int(np.count_nonzero(w)) for w in config.weights())
        self.nodes = [0, 0, 0, 0]
        self.bytes = 0

    def __call__(self, node: ActionNode) -> None:
        self.nodes[node.street + 1] += 1
        self.bytes += 8 * len(node.actions) * self.hands * self.deals[node.street + 1]
        if sum(self.nodes) <= MAX_BETTING_STATES:
            return
        by_street = ", ".join(
            f"{ALL_STREETS[k]} {self.nodes[k]:,}" for k in range(self.first, 4) if self.nodes[k]
        )
        available = available_memory_bytes()
        room = "" if available is None else f" ({gib(available)} available)"
        raise PokerlabError(
            f"the tree is too large: more than {MAX_BETTING_STATES:,} distinct betting states "
            f"({by_street} counted before stopping), each the start of many lines; its solver "
            f"arrays need more than {gib(self.bytes)} for those alone{room}; use fewer bet "
            "sizes, a lower raise limit or a later street"
        )


def count_betting_tree(
    root: ActionNode,
    board_cards: int,
    deck_size: int = 52,
    deal_sample: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """Nodes of the betting tree rooted at ``root`` by kind and street (``{kind: [flop, turn,
    river]}``, as :func:`.action_walk.count_action_nodes`) and the dealt tree's upper bound (as
    :func:`count_expanded`: ``decision``, ``chance``, ``terminal``, ``action_slots``), in Python
    integers, on a deck of ``deck_size`` cards (the board's among them). ``root`` may be the
    shared graph of ``build_action_tree(..., share=True)``: every node is visited once and its
    counts reused, so the cost is the graph's size, not the tree's. ``deal_sample``: the cards
    each later deal draws (:func:`~pokerlab.games.postflop.expand.expand_spot`'s), at most."""
    first = min(root.street, 0)  # a tree from before the flop counts four streets
    width = 3 - first
    memo: dict[int, tuple[list[int], list[int]]] = {}

    def visit(n: ActionNode) -> tuple[list[int], list[int]]:
        got = memo.get(id(n))
        if got is not None:
            return got
        kinds = [0] * (4 * width)  # decision, chance, fold, showdown x the streets
        dealt = [0, 0, 0, 0]  # decision, chance, terminal, action slots
        row = ("decision", "chance", "fold", "showdown").index(n.kind)
        kinds[row * width + n.street - first] += 1
        dealt[{"decision": 0, "chance": 1}.get(n.kind, 2)] += 1
        if n.kind == "decision":
            dealt[3] += len(n.children)
        # below a chance node every card left can come (no isomorphism: an upper bound)
        mult = 1
        if n.kind == "chance":
            showing = board_size(n.street) + n.deal  # the cards out when it deals
            mult = deck_size - showing
            later = showing - board_cards
            if deal_sample is not None and later < len(deal_sample):
                mult = min(mult, int(deal_sample[later]))
        for c in n.children:
            ck, cd = visit(c)
            for i in range(4 * width):
                kinds[i] += ck[i]
            for i in range(4):
                dealt[i] += mult * cd[i]
        memo[id(n)] = (kinds, dealt)
        return kinds, dealt

    kinds, dealt = visit(root)
    names = ("decision", "chance", "fold", "showdown")
    return {
        "action_tree": {k: kinds[width * i : width * (i + 1)] for i, k in enumerate(names)},
        "dealt": dict(zip(("decision", "chance", "terminal", "action_slots"), dealt, strict=True)),
    }
