"""How large the abstract no-limit game is before anything is allocated.

The betting tree is counted over betting states, not nodes: two lines that reach the same
(street, contributions, street bets, folds, who acted at which level, seat on move, minimum raise,
raises made) have the same subtree, so each distinct state is expanded once and its counts reused
(:func:`count_tree`). The cost is the number of distinct states, refused past
:data:`MAX_COUNT_STATES`. :func:`enumerate_lines` walks every line one by one, for checking the
count on small trees.

Stored entries (Pluribus' layout, Brown and Sandholm 2019, supplement): one row per (decision
node, bucket of the acting player's cards on that street), one entry per action of the node:
``infoset_actions[street] = buckets[street] * sum of the actions of the street's decision nodes``.
Memory: 4 bytes of regret per entry (float32 or int32: the blueprint's ``regrets`` option), plus
4 bytes of average strategy on the streets that keep one (``averages``: ``"all"``, ``"preflop"``
as Pluribus did, or ``"none"``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pokerlab._system import memory_available_or_physical
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
from pokerlab.games.nolimit.rules import STREETS, BettingState, NoLimitRules

__all__ = [
    "MAX_COUNT_STATES",
    "PLURIBUS_BUCKETS",
    "TreeSize",
    "count_tree",
    "enumerate_lines",
    "memory_bytes",
    "check_fits",
    "format_bytes",
]

#: Most distinct betting states :func:`count_tree` expands before refusing (a few seconds).
MAX_COUNT_STATES = 2_000_000

#: Buckets per street of Pluribus' blueprint: lossless preflop (169 classes), 200 after.
PLURIBUS_BUCKETS = (169, 200, 200, 200)

AVERAGES = ("all", "preflop", "none")


@dataclass(frozen=True)
class TreeSize:
    """Counts of the abstract betting tree, per street (preflop, flop, turn, river).

    ``decisions``: decision nodes (= action sequences ending at a decision); ``actions``: their
    actions summed; ``folds`` and ``showdowns``: terminal nodes by the street they end on (a
    showdown after an all-in counts on the street of the last action); ``states``: distinct
    betting states expanded.
    """

    decisions: tuple[int, ...]
    actions: tuple[int, ...]
    folds: tuple[int, ...]
    showdowns: tuple[int, ...]
    states: int

    @property
    def sequences(self) -> int:
        """Every decision node of the tree."""
        return sum(self.decisions)

    def infoset_actions(self, buckets: Sequence[int]) -> tuple[int, ...]:
        """Stored entries per street for ``buckets`` card buckets per street."""
        return tuple(b * a for b, a in zip(buckets, self.actions, strict=True))


def _add(a: list[int], b: Sequence[int]) -> None:
    for i, v in enumerate(b):
        a[i] += v


def count_tree(
    rules: NoLimitRules, abstraction: ActionAbstraction, max_states: int = MAX_COUNT_STATES
) -> TreeSize:
    """Count the abstract betting tree with one expansion per distinct betting state.

    Raises :class:`~pokerlab.errors.PokerlabError` past ``max_states`` distinct states.
    """
    memo: dict[BettingState, tuple[int, ...]] = {}
    last = rules.rounds - 1

    def visit(state: BettingState, street: int) -> tuple[int, ...]:
        """16 counts: decisions, actions, folds, showdowns x 4 streets."""
        if state.status != "act":
            out = [0] * 16
            out[(8 if state.status == "fold" else 12) + min(street, last)] = 1
            return tuple(out)
        got = memo.get(state)
        if got is not None:
            return got
        if len(memo) >= max_states:
            raise PokerlabError(
                f"the betting tree is too large to count: more than {max_states:,} distinct "
                f"betting states (use fewer sizes or lower raise caps)"
            )
        acts = abstract_actions(rules, abstraction, state)
        total = [0] * 16
        total[state.street] = 1
        total[4 + state.street] = len(acts)
        for kind, amount in acts:
            _add(total, visit(state.apply(rules, kind, amount), state.street))
        memo[state] = tuple(total)
        return memo[state]

    counts = visit(rules.initial_state(), 0)
    return TreeSize(
        decisions=counts[0:4],
        actions=counts[4:8],
        folds=counts[8:12],
        showdowns=counts[12:16],
        states=len(memo),
    )


def enumerate_lines(
    rules: NoLimitRules, abstraction: ActionAbstraction, limit: int = 1_000_000
) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every action sequence from the root that ends at a decision node, one by one (no
    sharing: for checking :func:`count_tree` on small trees). Stops with an error past ``limit``
    lines."""
    stack: list[tuple[BettingState, tuple[tuple[int, int], ...]]] = [(rules.initial_state(), ())]
    seen = 0
    while stack:
        state, line = stack.pop()
        if state.status != "act":
            continue
        seen += 1
        if seen > limit:
            raise PokerlabError(f"more than {limit:,} lines: too many to enumerate")
        yield line
        for action in abstract_actions(rules, abstraction, state):
            stack.append((state.apply(rules, *action), (*line, action)))


def memory_bytes(infoset_actions: Sequence[int], averages: str = "all") -> int:
    """Bytes of the solver's rows: 4 per entry of regret (float32 or int32), 4 more (float32)
    where averages are kept."""
    if averages not in AVERAGES:
        raise PokerlabError(f"averages must be one of {', '.join(AVERAGES)}, got {averages!r}")
    kept = {"all": range(4), "preflop": range(1), "none": range(0)}[averages]
    return sum(4 * n for n in infoset_actions) + sum(4 * infoset_actions[s] for s in kept)


def format_bytes(n: float) -> str:
    """Bytes as a short size (``"50.3 GiB"``)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def check_fits(needed: int, available: int | None = None) -> None:
    """Refuse (:class:`~pokerlab.errors.PokerlabError`, with the estimate) rows of ``needed``
    bytes that exceed ``available`` (default: what this machine has free now)."""
    if available is None:
        available = memory_available_or_physical()
    if available is not None and needed > available:
        raise PokerlabError(
            f"the abstract game needs {format_bytes(needed)} ({needed:,} bytes) of regrets and "
            f"averages, more than the {format_bytes(available)} available; use fewer sizes, "
            "fewer buckets or averages='preflop'"
        )


def summary_dict(
    rules: NoLimitRules,
    abstraction: ActionAbstraction,
    buckets: Sequence[int] = PLURIBUS_BUCKETS,
    averages: str = "all",
) -> dict[str, Any]:
    """The numbers of :func:`count_tree` with the information sets (decision nodes times
    buckets), entries and bytes for ``buckets``."""
    if len(buckets) != 4 or any(isinstance(b, bool) or int(b) < 1 for b in buckets):
        raise PokerlabError(f"buckets are 4 positive counts (one per street), got {buckets!r}")
    size = count_tree(rules, abstraction)
    entries = size.infoset_actions([int(b) for b in buckets])
    streets = STREETS[: rules.rounds]
    return {
        "action_sequences": dict(zip(streets, size.decisions, strict=False)),
        "actions": dict(zip(streets, size.actions, strict=False)),
        "fold_terminals": dict(zip(streets, size.folds, strict=False)),
        "showdown_terminals": dict(zip(streets, size.showdowns, strict=False)),
        "total_action_sequences": size.sequences,
        "betting_states": size.states,
        "buckets": dict(zip(streets, [int(b) for b in buckets], strict=False)),
        "infosets": {
            s: int(b) * n for s, b, n in zip(streets, buckets, size.decisions, strict=False)
        },
        "infoset_actions": dict(zip(streets, entries, strict=False)),
        "total_infoset_actions": sum(entries),
        "averages": averages,
        "bytes": memory_bytes(entries, averages),
        "bytes_without_averages": memory_bytes(entries, "none"),
    }


def format_summary(info: dict[str, Any]) -> str:
    """A readable table of :func:`summary_dict`."""
    head = ("street", "sequences", "actions", "buckets", "infosets", "entries")
    lines = ["{:<8} {:>13} {:>13} {:>8} {:>15} {:>15}".format(*head)]
    for street, seqs in info["action_sequences"].items():
        lines.append(
            f"{street:<8} {seqs:>13,} {info['actions'][street]:>13,} "
            f"{info['buckets'][street]:>8,} {info['infosets'][street]:>15,} "
            f"{info['infoset_actions'][street]:>15,}"
        )
    lines.append(
        f"{'total':<8} {info['total_action_sequences']:>13,} {'':>13} {'':>8} "
        f"{sum(info['infosets'].values()):>15,} {info['total_infoset_actions']:>15,}"
    )
    lines.append(
        f"memory: {format_bytes(info['bytes'])} ({info['bytes']:,} bytes; 4 bytes of regret "
        f"per entry as float32 or int32, averages: {info['averages']}); without averages "
        f"{format_bytes(info['bytes_without_averages'])}"
    )
    lines.append(f"betting states expanded: {info['betting_states']:,}")
    return "\n".join(lines)
