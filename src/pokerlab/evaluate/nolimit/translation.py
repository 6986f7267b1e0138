"""Playing a blueprint in the real no-limit game: lines off its tree read onto it by randomised
pseudo-harmonic action translation, and its abstract answers played back as real actions
(issue 24; the mapping of Ganzfried and Sandholm 2013, :mod:`pokerlab.abstraction.actions`).

The blueprint knows only its tree's sizes. :func:`read_line` walks the real line of a hand
(``(seat, kind, amount)`` actions) down the tree, keeping the abstract betting state beside the
real one:

- an action the tree has at an equal state is followed as it is;
- a fold, check or call reads as the tree's fold (or check), check or call;
- a bet or raise reads as one of the tree's raises at that node: an all-in as the all-in where
  the tree has one, any other size ``x`` (chips added beyond the call, as a fraction of the pot
  after the call) as its neighbours among the tree's sizes with the pseudo-harmonic
  probabilities (below the smallest: the smallest; above the largest: the largest); with no
  raise at the node it reads as the call.

The draw of each translated action is a function of the agent's seed, its hole cards and the
line up to that action (a hash, :func:`_uniform`): within a hand every later decision reads the
bet the same way, a seeded agent repeats, the reading differs from hand to hand, and the agent
stays a pure function of what it is shown (which local best response's Bayes updates need).

:func:`play_back` turns the tree's distribution at the reached node into real actions: fold,
check and call as such, the all-in as the real all-in, any other raise as the same fraction of
the real pot after the call (rounded to chips, clamped to the legal raises), a raise where the
real game allows none as the call. When the two lines part ways (a translated all-in ends the
tree's hand while the real one goes on, or the seat on move or the street differ) the line is
*lost* and the agent checks or calls until the hand ends, as slumbot2019 and most translation
schemes fall back (BLUEPRINT.md 1.5); :class:`ReadLine` says so, so callers can count it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pokerlab.abstraction.actions import translation_probs
from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
from pokerlab.games.nolimit.rules import (
    ALLIN,
    CALL,
    CHECK,
    FOLD,
    BettingState,
    NoLimitRules,
)
from pokerlab.tree._primitives import DEAL, DECISION
from pokerlab.tree.betting.tree import BettingTree

__all__ = [
    "ReadLine",
    "off_tree_gap",
    "read_line",
    "read_lines",
    "read_split",
    "play_back",
    "pot_after_call",
]

Move = tuple[int, int, int]


@dataclass(frozen=True)
class ReadLine:
    """Where a real line stands on the blueprint's tree: ``node`` (a decision, or -1 when the
    line is lost), ``abstract`` (the tree's betting state there), ``translated`` (the number of
    actions read at a tree state unlike the real one: the off-tree bet and every action after
    it in the hand)."""

    node: int
    abstract: BettingState | None
    translated: int

    @property
    def lost(self) -> bool:
        """Whether the real line has left the tree for good (the agent then checks or calls)."""
        return self.node < 0


def pot_after_call(rules: NoLimitRules, state: BettingState) -> int:
    """Chips in the pot once the seat on move has called (the call capped by its stack)."""
    p = state.to_act
    top = max(state.bets)
    allin = state.bets[p] + state.behind(rules, p)
    return state.pot() + min(top, allin) - state.bets[p]


def _fraction(rules: NoLimitRules, state: BettingState, amount: int) -> float:
    """A raise to ``amount`` at ``state`` as chips beyond the call over the pot after it."""
    return (amount - max(state.bets)) / max(pot_after_call(rules, state), 1)


def _uniform(seed: int, hole: Sequence[int], line: Sequence[Move]) -> float:
    """A uniform number in [0, 1) from the agent's seed, its cards (in either order; none: a
    reader without cards, read as the card 63 twice) and the line so far: :func:`_uniforms`
    for one hand."""
    cards = tuple(hole) if len(hole) == 2 else (63, 63)
    return float(_uniforms(seed, np.asarray([cards], dtype=np.int64), line)[0])


def _uniforms(seed: int, holes: np.ndarray, line: Sequence[Move]) -> np.ndarray:
    """A uniform number in [0, 1) for each hand of ``holes`` (int ``(R, 2)``, cards in either
    order) from the agent's seed and the line so far (float64 ``(R,)``): the seed and line
    hashed once (blake2b), each hand's pair of cards mixed in by SplitMix64's finaliser (Steele,
    Lea and Flood, OOPSLA 2014). A hash rather than a generator, so the agent stays a pure
    function of its view; written out because numpy's generators take one seed per stream and
    a reading of a line draws for a thousand hands at once."""
    text = f"{seed}|{line!r}".encode()
    key = np.uint64(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little"))
    h = np.asarray(holes, dtype=np.int64).reshape(-1, 2)
    pair = (np.minimum(h[:, 0], h[:, 1]) * 64 + np.maximum(h[:, 0], h[:, 1])).astype(np.uint64)
    z = (pair ^ key) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) / 2.0**53


def _parted(
    tree: BettingTree, node: int, abstract: BettingState, real: BettingState, seat: int
) -> bool:
    """Whether the tree's line at ``node`` (state ``abstract``) has parted from the real one at
    ``real`` before ``seat`` acts: no decision of ``seat`` there, or another street."""
    return (
        node < 0
        or tree.kind[node] != DECISION
        or int(tree.player[node]) != seat
        or abstract.street != real.street
        or abstract.to_act != seat
    )


def read_split(
    rules: NoLimitRules,
    acts: list[tuple[int, int]],
    abstract: BettingState,
    real: BettingState,
    kind: int,
    amount: int,
) -> list[tuple[int, float]]:
    """How the real action reads at ``real`` among ``acts`` (the tree's actions at
    ``abstract``): ``(index, probability)`` pairs, one pair unless a bet or raise falls between
    two of the tree's sizes (the pseudo-harmonic split; module docstring)."""
    if abstract == real and (kind, amount) in acts:
        return [(acts.index((kind, amount)), 1.0)]
    passive = next(j for j, (k, _) in enumerate(acts) if k in (CHECK, CALL))
    if kind == FOLD:
        return [(next((j for j, (k, _) in enumerate(acts) if k == FOLD), passive), 1.0)]
    if kind in (CHECK, CALL):
        return [(passive, 1.0)]
    raises = [j for j, (k, _) in enumerate(acts) if k not in (FOLD, CHECK, CALL)]
    if not raises:
        return [(passive, 1.0)]
    if kind == ALLIN and acts[raises[-1]][0] == ALLIN:
        return [(raises[-1], 1.0)]
    sizes = [_fraction(rules, abstract, acts[j][1]) for j in raises]
    options = translation_probs(sizes, max(_fraction(rules, real, amount), 0.0))
    return [(raises[i], float(p)) for i, p in options]


def _read_action(
    rules: NoLimitRules,
    acts: list[tuple[int, int]],
    abstract: BettingState,
    real: BettingState,
    kind: int,
    amount: int,
    u: float,
) -> tuple[int, bool]:
    """The index into ``acts`` that the real action reads as, drawn from :func:`read_split`
    by the uniform ``u``, and whether it was translated."""
    split = read_split(rules, acts, abstract, real, kind, amount)
    if abstract == real and (kind, amount) in acts:
        return split[0][0], False
    pick = split[0][0] if len(split) == 1 or u < split[0][1] else split[1][0]
    return pick, True


def read_line(
    tree: BettingTree,
    rules: NoLimitRules,
    abstraction: ActionAbstraction,
    history: Sequence[Move],
    hole: Sequence[int] = (),
    seed: int = 0,
) -> ReadLine:
    """Walk the real ``history`` (``(seat, kind, amount)`` actions, canonical) down ``tree``
    (the blueprint's betting tree of ``rules`` and ``abstraction``), translating off-tree
    actions (module docstring); ``hole`` and ``seed`` pick the translation's draws."""
    real = abstract = rules.initial_state()
    node = 0
    translated = 0
    for i, (seat, kind, amount) in enumerate(history):
        if _parted(tree, node, abstract, real, seat):
            return ReadLine(-1, None, translated)
        acts = abstract_actions(rules, abstraction, abstract)
        u = _uniform(seed, hole, history[: i + 1])
        j, moved = _read_action(rules, acts, abstract, real, kind, amount, u)
        translated += moved
        node = int(tree.children[tree.child_start[node] + j])
        if tree.kind[node] == DEAL:
            node = int(tree.children[tree.child_start[node]])
        abstract = abstract.apply(rules, *acts[j])
        real = real.apply(rules, kind, amount)
    if (
        tree.kind[node] != DECISION
        or abstract.street != real.street
        or abstract.to_act != real.to_act
    ):
        return ReadLine(-1, None, translated)
    return ReadLine(node, abstract, translated)


def off_tree_gap(
    tree: BettingTree,
    rules: NoLimitRules,
    abstraction: ActionAbstraction,
    history: Sequence[Move],
    seat: int | None = None,
) -> float:
    """How far the bets and raises of ``history`` (by ``seat`` only, unless None) lie from the
    tree's sizes: the largest, over those actions, of the distance in chips from the real size
    to the nearest of the tree's raises where the line stands (sizes compared as fractions of
    the pot after the call, :func:`read_split`'s measure, times the real pot after the call);
    0 when every such action is on the tree or is an all-in read as the tree's (a raise where
    the tree has none: all of its size). The line is walked as
    :func:`read_line` walks it, a split read as its more likely side; a lost line stops the
    walk. Pluribus searched the first round only when an opponent's bet was this far (more
    than $100) from every blueprint size (Brown and Sandholm, Science 2019, supplement)."""
    real = abstract = rules.initial_state()
    node = 0
    gap = 0.0
    for who, kind, amount in history:
        if _parted(tree, node, abstract, real, who):
            break
        acts = abstract_actions(rules, abstraction, abstract)
        split = read_split(rules, acts, abstract, real, kind, amount)
        on_tree = abstract == real and (kind, amount) in acts
        raises = [j for j, (k, _) in enumerate(acts) if k not in (FOLD, CHECK, CALL)]
        if (seat is None or who == seat) and not on_tree and kind not in (FOLD, CHECK, CALL):
            if not (raises and kind == ALLIN and acts[raises[-1]][0] == ALLIN):
                x = _fraction(rules, real, amount)  # no raise on the tree: all of it is off
                sizes = [_fraction(rules, abstract, acts[j][1]) for j in raises] or [0.0]
                gap = max(gap, min(abs(x - y) for y in sizes) * pot_after_call(rules, real))
        j = max(split, key=lambda part: part[1])[0]
        node = int(tree.children[tree.child_start[node] + j])
        if tree.kind[node] == DEAL:
            node = int(tree.children[tree.child_start[node]])
        abstract = abstract.apply(rules, *acts[j])
        real = real.apply(rules, kind, amount)
    return gap


def read_lines(
    tree: BettingTree,
    rules: NoLimitRules,
    abstraction: ActionAbstraction,
    history: Sequence[Move],
    hands: np.ndarray,
    seed: int = 0,
) -> list[tuple[ReadLine, np.ndarray]]:
    """:func:`read_line` for every row of ``hands`` (int ``(H, 2)``) at once: each distinct
    reading with the rows (int64 indices) that read the line so. The tree walk is made once per
    reading; only the draws of split actions are per hand."""
    real = rules.initial_state()
    groups: list[tuple[int, BettingState | None, int, np.ndarray]] = [
        (0, real, 0, np.arange(len(hands), dtype=np.int64))
    ]
    hands = np.asarray(hands, dtype=np.int64).reshape(-1, 2)
    for i, (seat, kind, amount) in enumerate(history):
        new: list[tuple[int, BettingState | None, int, np.ndarray]] = []
        for node, abstract, translated, rows in groups:
            if (
                node < 0
                or abstract is None
                or tree.kind[node] != DECISION
                or int(tree.player[node]) != seat
                or abstract.street != real.street
                or abstract.to_act != seat
            ):
                new.append((-1, None, translated, rows))
                continue
            acts = abstract_actions(rules, abstraction, abstract)
            split = read_split(rules, acts, abstract, real, kind, amount)
            moved = 0 if abstract == real and (kind, amount) in acts else 1
            parts = [(split[0][0], rows)]
            if moved and len(split) == 2:
                u = _uniforms(seed, hands[rows], history[: i + 1])
                low = u < split[0][1]
                parts = [(split[0][0], rows[low]), (split[1][0], rows[~low])]
            for j, sub in parts:
                if len(sub) == 0:
                    continue
                child = int(tree.children[tree.child_start[node] + j])
                if tree.kind[child] == DEAL:
                    child = int(tree.children[tree.child_start[child]])
                new.append((child, abstract.apply(rules, *acts[j]), translated + moved, sub))
        groups = new
        real = real.apply(rules, kind, amount)
    out = []
    for node, abstract, translated, rows in groups:
        if (
            node < 0
            or abstract is None
            or tree.kind[node] != DECISION
            or abstract.street != real.street
            or abstract.to_act != real.to_act
        ):
            out.append((ReadLine(-1, None, translated), rows))
        else:
            out.append((ReadLine(node, abstract, translated), rows))
    return out


def play_back(
    rules: NoLimitRules,
    acts: list[tuple[int, int]],
    probs: Sequence[float],
    abstract: BettingState,
    real: BettingState,
) -> dict[tuple[int, int], float]:
    """The tree's distribution ``probs`` over ``acts`` (its actions at ``abstract``) as a
    distribution over real actions at ``real`` (module docstring); equal real actions merge."""
    if abstract == real:
        return {(int(k), int(a)): float(p) for (k, a), p in zip(acts, probs, strict=True)}
    legal = real.legal_actions(rules)
    passive = legal[1] if real.to_call() > 0 else legal[0]
    fold = legal[0] if real.to_call() > 0 else passive
    bounds = real.raise_bounds(rules)
    out: dict[tuple[int, int], float] = {}
    for (k, a), p in zip(acts, probs, strict=True):
        if k == FOLD:
            action = fold
        elif k in (CHECK, CALL) or bounds is None:
            action = passive
        elif k == ALLIN:
            action = (ALLIN, bounds[1])
        else:
            y = _fraction(rules, abstract, a)
            to = max(real.bets) + int(round(y * pot_after_call(rules, real)))
            to = min(max(to, bounds[0]), bounds[1])
            action = (real.raise_kind(rules, to), to)
        out[action] = out.get(action, 0.0) + float(p)
    return out
