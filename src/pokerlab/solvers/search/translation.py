"""A blueprint solved on a coarser bet menu, played in the real spot by randomised
pseudo-harmonic action translation (Ganzfried and Sandholm, IJCAI 2013): the baseline that search
with the opponent's actual size in the subgame is measured against (BLUEPRINT.md 3.5 C8; Brown
and Sandholm, NIPS 2017, table 4: translation 1,465 mbb/g against 119-150 for nested search).

The blueprint spot and the real spot share board, ranges, pot and stacks; the real one has more
sizes. :func:`translated_profile` walks both vector trees from the root together. A real action
the blueprint's node has (same kind and chips) maps onto it; a bet or raise it lacks (only an
opponent of a blueprint agent makes one: the agents never do) reads as its neighbours among the
node's bets or raises, sizes as fractions of the pot after the call, with the pseudo-harmonic
probabilities (:func:`pokerlab.abstraction.actions.translation_probs`). A real node so stands
for a mixture of blueprint nodes (or of a *lost* line, where the blueprint's hand ended or moved
on while the real one goes on: the agent checks or calls from there); a player's strategy there
is the mixture's, each entry weighted by its translation probability times the player's own reach
along the translated line since the translation (Kuhn's theorem: the agent draws its reading
once and then follows it, a mixed strategy, which this behaviour strategy plays the same). Real
actions the blueprint lacks get probability 0 at the blueprint player's own nodes; a bet or raise
where the blueprint's node has none reads as the call there (as
:mod:`pokerlab.evaluate.nolimit.translation` reads it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.abstraction.actions import translation_probs
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import ALLIN, BET, CALL, CHECK, RAISE
from pokerlab.tree.vector.tree import CHANCE, DECISION

__all__ = ["translated_profile"]


def _fraction(node: Any, i: int, start_pot: float) -> float:
    """Chips action ``i`` of an action-tree node adds beyond the call, as a fraction of the pot
    after the call (``start_pot``: the spot's pot before anyone put chips in)."""
    actor = node.player
    added = node.children[i].commit[actor] - node.commit[actor]
    call = max(node.commit[1 - actor] - node.commit[actor], 0)
    pot = start_pot + node.commit[0] + node.commit[1] + call
    return (added - call) / pot


def translated_profile(real: Any, coarse: Any, blueprint: np.ndarray) -> np.ndarray:
    """The real spot ``real``'s profile (probabilities, its tree's layout) played by a blueprint
    ``blueprint`` of the spot ``coarse`` (same board, ranges, pot and stacks; a subset of the
    sizes) with pseudo-harmonic translation of the sizes it lacks."""
    rs, cs = real.expanded, coarse.expanded
    rt, ct = rs.tree, cs.tree
    if list(real.config.board) != list(coarse.config.board) or not np.array_equal(
        rt.hands.cards, ct.hands.cards
    ):
        raise PokerlabError("the blueprint's spot has another board or other ranges")
    if real.config.pot != coarse.config.pot or real.config.stack != coarse.config.stack:
        raise PokerlabError("the blueprint's spot has another pot or stack")
    start_pot = float(real.config.pot)
    ra, ca = rt.arrays, ct.arrays
    out = np.array(real.public_tree().uniform(), dtype=np.float64)
    h = rt.hands.cards.shape[1]
    ones = np.ones(h)

    # each stack entry: real node, [(coarse node, weight, own reach of player 0, of player 1)]
    stack: list[tuple[int, list[tuple[int, float, np.ndarray, np.ndarray]]]] = [
        (0, [(0, 1.0, ones, ones)])
    ]
    while stack:
        r, mix = stack.pop()
        kind = ra.kind[r]
        kids_r = ra.children[ra.child_start[r] : ra.child_start[r + 1]]
        if kind == CHANCE:
            for e in range(int(ra.child_start[r]), int(ra.child_start[r + 1])):
                card = int(ra.edge_card[e])
                nxt = []
                for c, w, p0, p1 in mix:
                    if c < 0 or ca.kind[c] != CHANCE:
                        nxt.append((-1, w, p0, p1))
                        continue
                    edges = range(int(ca.child_start[c]), int(ca.child_start[c + 1]))
                    match = [int(ca.children[f]) for f in edges if int(ca.edge_card[f]) == card]
                    if not match:
                        raise PokerlabError(f"the blueprint's tree deals no card {card} here")
                    nxt.append((match[0], w, p0, p1))
                stack.append((int(ra.children[e]), nxt))
            continue
        if kind != DECISION:
            continue
        actor = int(ra.player[r])
        nh = int(rt.hands.num[actor])
        rnode = rs.action_node[r]
        n_real = len(rnode.actions)
        probs = np.zeros((n_real, nh))
        total = np.zeros(nh)
        children: list[list[tuple[int, float, np.ndarray, np.ndarray]]] = [[] for _ in kids_r]
        passive = [i for i, (k, _) in enumerate(rnode.actions) if k in (CALL, CHECK)]
        for c, w, p0, p1 in mix:
            own = (p0 if actor == 0 else p1)[:nh]
            if c < 0 or ca.kind[c] != DECISION or int(ca.player[c]) != actor:
                # the line is lost (the blueprint's hand ended or moved on where the real one
                # goes on): the agent checks or calls from here, as translating agents do
                total += w * own
                probs[passive[0]] += w * own
                for i in range(n_real):
                    reach = np.zeros(h)
                    if i == passive[0]:
                        reach[:nh] = own
                    p0n, p1n = (reach, p1) if actor == 0 else (p0, reach)
                    children[i].append((-1, w, p0n, p1n))
                continue
            cnode = cs.action_node[c]
            off = int(ca.offset[c])
            n_c = len(cnode.actions)
            sigma = blueprint[off : off + n_c * nh].reshape(n_c, nh)
            total += w * own
            kids_c = ca.children[ca.child_start[c] : ca.child_start[c + 1]]
            sizes = [
                (j, _fraction(cnode, j, start_pot))
                for j, (k, _) in enumerate(cnode.actions)
                if k in (BET, RAISE, ALLIN)
            ]
            for i, act in enumerate(rnode.actions):
                same = [j for j, other in enumerate(cnode.actions) if other == act]
                if same:
                    j = same[0]
                    probs[i] += w * own * sigma[j]
                    reach = np.ones(h)
                    reach[:nh] = own * sigma[j]
                    p0n, p1n = (reach, p1) if actor == 0 else (p0, reach)
                    children[i].append((int(kids_c[j]), w, p0n, p1n))
                elif act[0] in (BET, RAISE, ALLIN) and sizes:
                    # an off-tree size: the opponent of the blueprint's player made it
                    x = _fraction(rnode, i, start_pot)
                    menu = [f for _, f in sizes]
                    order = np.argsort(menu)
                    sorted_menu = [menu[k] for k in order]
                    for k, q in translation_probs(sorted_menu, x):
                        j = sizes[int(order[k])][0]
                        children[i].append((int(kids_c[j]), w * q, p0, p1))
                else:
                    # no bet or raise at the blueprint's node: the bet reads as the call there
                    # (a real fold, check or call always has its counterpart)
                    calls = [j for j, (k, _) in enumerate(cnode.actions) if k in (CALL, CHECK)]
                    if act[0] not in (BET, RAISE, ALLIN) or not calls:
                        raise PokerlabError(
                            f"real action {rnode.labels()[i]!r} has no counterpart in the blueprint"
                        )
                    children[i].append((int(kids_c[calls[0]]), w, p0, p1))
        safe = np.where(total > 0, total, 1.0)
        block = np.where(total > 0, probs / safe, 1.0 / n_real)
        off_r = int(ra.offset[r])
        out[off_r : off_r + n_real * nh] = block.reshape(-1)
        for i, kid in enumerate(kids_r):
            if children[i]:
                stack.append((int(kid), children[i]))
    return out
