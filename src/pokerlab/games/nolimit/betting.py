"""The public betting tree of no-limit hold'em as the engine's
:class:`~pokerlab.tree.betting.tree.BettingTree` (issue 24): what the blueprint's Monte Carlo
pass walks.

One node per action sequence of the abstract game (the rules of
:mod:`pokerlab.games.nolimit.rules`, the sizes of :func:`~.actions.abstract_actions`), in
preorder: a decision per betting state with a seat on move (so the decisions per street are
:meth:`NoLimitHoldemGame.summary`'s action sequences), a ``FOLD_END`` when all players but one
have folded (a fold that leaves two or more players in is an ordinary edge to the next
decision), a ``SHOWDOWN_END`` after the last round's betting or when at most one player can
still act (the board runs out), and a ``DEAL`` between two rounds of betting. Each node keeps
the chips every seat has put in (``contrib``, chips, antes included) and who is still in;
labels and histories are the history interface's (``r250c/cr500``), so a strategy on the tree
and one on :class:`~pokerlab.games.nolimit.game.NoLimitHistory` name the same lines.
"""

from __future__ import annotations

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
from pokerlab.games.nolimit.rules import CALL, CHECK, FOLD, BettingState, NoLimitRules
from pokerlab.tree._primitives import DEAL, DECISION, FOLD_END, SHOWDOWN_END
from pokerlab.tree.betting.tree import BettingTree

__all__ = ["MAX_TREE_NODES", "build_betting_tree", "action_id", "token"]

#: Most nodes :func:`build_betting_tree` makes before refusing (about 1 KiB of Python objects
#: per node while building).
MAX_TREE_NODES = 20_000_000


def action_id(kind: int) -> int:
    """The tree's action id of a rules action kind: 0 fold, 1 check or call, 2 bet or raise."""
    return 0 if kind == FOLD else 1 if kind in (CHECK, CALL) else 2


def token(kind: int, amount: int) -> str:
    """The history interface's token: ``f``, ``c`` or ``r<amount>`` (raise to, street total)."""
    return "f" if kind == FOLD else "c" if kind in (CHECK, CALL) else f"r{amount}"


def build_betting_tree(
    rules: NoLimitRules, abstraction: ActionAbstraction, max_nodes: int = MAX_TREE_NODES
) -> BettingTree:
    """The betting tree of ``rules`` with the action ``abstraction`` (module docstring),
    refused past ``max_nodes`` nodes (Python recursion, one level per action of a line)."""
    kind: list[int] = []
    rnd: list[int] = []
    player: list[int] = []
    action: list[int] = []
    labels: list[str] = []
    history: list[str] = []
    contrib: list[tuple[int, ...]] = []
    folded: list[tuple[bool, ...]] = []
    children: list[list[int]] = []

    def add(k: int, r: int, p: int, a: int, label: str, h: str, state: BettingState) -> int:
        if len(kind) >= max_nodes:
            raise PokerlabError(
                f"the no-limit betting tree has more than {max_nodes:,} nodes: use fewer sizes "
                "or lower raise caps"
            )
        kind.append(k)
        rnd.append(r)
        player.append(p)
        action.append(a)
        labels.append(label)
        history.append(h)
        contrib.append(state.contrib)
        folded.append(state.folded)
        children.append([])
        return len(kind) - 1

    # equal betting states have equal subtrees: each state's actions are worked out once
    expansions: dict[BettingState, list[tuple[int, str, BettingState]]] = {}

    def expand(state: BettingState) -> list[tuple[int, str, BettingState]]:
        got = expansions.get(state)
        if got is None:
            got = expansions[state] = [
                (k, token(k, amount), state.apply(rules, k, amount))
                for k, amount in abstract_actions(rules, abstraction, state)
            ]
        return got

    def decision(state: BettingState, a: int, label: str, h: str) -> int:
        n = add(DECISION, state.street, state.to_act, a, label, h, state)
        for k, tok, nxt in expand(state):
            line = h + tok
            if nxt.status == "fold":
                kid = add(FOLD_END, state.street, state.to_act, action_id(k), tok, line, nxt)
            elif nxt.status == "showdown":
                kid = add(SHOWDOWN_END, state.street, -1, action_id(k), tok, line, nxt)
            elif nxt.street > state.street:
                kid = add(DEAL, state.street, -1, action_id(k), tok, line, nxt)
                children[kid].append(decision(nxt, -1, "", line + "/"))
            else:
                kid = decision(nxt, action_id(k), tok, line)
            children[n].append(kid)
        return n

    decision(rules.initial_state(), -1, "", "")
    num = len(kind)
    payoff_id = np.full(num, -1, dtype=np.int32)
    table: dict[tuple[int, float], int] = {}
    if rules.players == 2:
        # heads-up terminals share payoffs as limit hold'em's do: what the folder loses, or
        # the common stake of a showdown (unequal stakes: the side pot's rule, no entry)
        for n in range(num):
            c = contrib[n]
            if kind[n] == FOLD_END:
                key = (FOLD_END, float(c[player[n]]))
            elif kind[n] == SHOWDOWN_END and c[0] == c[1]:
                key = (SHOWDOWN_END, float(c[0]))
            else:
                continue
            payoff_id[n] = table.setdefault(key, len(table))
    child_start = np.zeros(num + 1, dtype=np.int32)
    for i, kids in enumerate(children):
        child_start[i + 1] = child_start[i] + len(kids)
    return BettingTree(
        kind=np.array(kind, dtype=np.int8),
        round=np.array(rnd, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        child_start=child_start,
        children=np.array([k for kids in children for k in kids], dtype=np.int32),
        action=np.array(action, dtype=np.int8),
        contrib=np.array(contrib, dtype=np.float64),
        payoff_id=payoff_id,
        payoff_table=np.array([a for _, a in table], dtype=np.float64),
        payoff_kind=np.array([k for k, _ in table], dtype=np.int8),
        history=history,
        active=~np.array(folded, dtype=bool),
        labels=labels,
        rounds=rules.rounds,
    )
