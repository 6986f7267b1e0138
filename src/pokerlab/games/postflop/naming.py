"""Names of a postflop spot's vector-tree nodes: lines of actions and dealt cards.

A line names a node by its actions from the root, comma separated, with dealt cards by name:
``"check, bet 66, call"`` or ``"check, check, Qs, bet 33"``. A dealt card that the tree folded
onto an isomorphic one (a suit swap, see :mod:`pokerlab.games.postflop.expand`) leads to the
source card's node, read through that swap.

:class:`SpotNaming` is what the game tells the game-neutral vector-tree backend
(:class:`~pokerlab.tree.vector.backend.VectorBackend`) about names: hand names per player, each
decision node's line and action labels, and the node (and suit swap) a line leads to. Keys read
like the history form's (:meth:`PostflopHistory.info_set_key
<pokerlab.games.postflop.game.PostflopHistory.info_set_key>`): ``"AhKh|Td9d6hQc:check,bet 50"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, format_card, format_cards, parse_card
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import parse_action_label
from pokerlab.games.postflop.expand import ExpandedSpot
from pokerlab.games.postflop.hand_lists import _swap_card
from pokerlab.tree.vector.tree import CHANCE, DECISION, SUIT_PAIRS

__all__ = ["SpotNaming", "split_line"]


def split_line(line: str | Sequence[str]) -> list[str]:
    """The tokens of a line (a comma-separated string or a sequence), blanks dropped."""
    tokens = [x.strip() for x in (line.split(",") if isinstance(line, str) else line)]
    return [x for x in tokens if x]


class SpotNaming:
    """Node and hand names of one expanded spot (see the module docstring)."""

    def __init__(self, spot: ExpandedSpot) -> None:
        self.spot = spot

    def hand_names(self, player: int) -> list[str]:
        """Names of ``player``'s hand list, in list order (``"AhKh"``: the combo's two cards)."""
        return [format_cards(COMBO_CARDS[c].tolist()) for c in self.spot.combos[player]]

    def action_labels(self, node: int) -> tuple[str, ...]:
        """Labels of a decision node's actions, in child order (``"check"``, ``"bet 66"``)."""
        return tuple(self.spot.action_node[node].labels())

    def line(self, node: int) -> tuple[str, ...]:
        """The tokens from the root to ``node`` (action labels and dealt cards)."""
        a = self.spot.tree.arrays
        tokens: list[str] = []
        child = node
        parent = int(self.spot.parent[child])
        while parent >= 0:
            lo, hi = int(a.child_start[parent]), int(a.child_start[parent + 1])
            slot = lo + int(np.flatnonzero(a.children[lo:hi] == child)[0])
            if a.kind[parent] == CHANCE:
                tokens.append(format_card(int(a.edge_card[slot])))
            else:
                tokens.append(self.spot.action_node[parent].labels()[slot - lo])
            child, parent = parent, int(self.spot.parent[parent])
        return tuple(reversed(tokens))

    def board(self, node: int) -> tuple[int, ...]:
        """The board cards at ``node`` (the spot's board and the cards dealt above it)."""
        return tuple(int(c) for c in self.spot.node_board[node] if c >= 0)

    def node_key(self, node: int) -> str:
        """The part of an information-set key after the hand: ``"Td9d6hQc:check,bet 50"``."""
        return f"{format_cards(self.board(node))}:{','.join(self.line(node))}"

    def locate(self, line: str | Sequence[str]) -> tuple[int, tuple[str, ...], int]:
        """(arena node, the line's tokens, suit swap id or -1) for a line; an action or card
        that cannot come there is refused by name, and so is a line through two isomorphic
        cards (see :meth:`locate_swaps`)."""
        node, tokens, swaps = self.locate_swaps(line)
        if len(swaps) > 1:
            raise PokerlabError("lines through two isomorphic cards are not supported yet")
        return node, tokens, (swaps[0] if swaps else -1)

    def locate_swaps(
        self, line: str | Sequence[str]
    ) -> tuple[int, tuple[str, ...], tuple[int, ...]]:
        """(arena node, the line's tokens, the suit swaps taken in order): a hand of the named
        line is the stored hand obtained by applying the swaps in this order."""
        tokens = split_line(line)
        a = self.spot.tree.arrays
        node = 0
        swaps: list[int] = []
        for pos, tok in enumerate(tokens):
            kind = int(a.kind[node])
            if kind == DECISION:
                labels = self.spot.action_node[node].labels()
                try:
                    want_kind, want_amount = parse_action_label(tok)
                except PokerlabError:  # the actions of this node, not generic examples
                    raise PokerlabError(
                        f"unknown action {tok!r} at {', '.join(tokens[:pos]) or 'the root'}; "
                        f"the actions there: {', '.join(labels)}"
                    ) from None
                match = [
                    i
                    for i, lab in enumerate(labels)
                    if parse_action_label(lab)[0] == want_kind
                    and (want_amount is None or parse_action_label(lab)[1] == want_amount)
                ]
                if len(match) != 1:
                    raise PokerlabError(
                        f"action {tok!r} is not one of {', '.join(labels)} at "
                        f"{', '.join(tokens[:pos]) or 'the root'}"
                    )
                node = int(a.children[a.child_start[node] + match[0]])
            elif kind == CHANCE:
                try:
                    card = parse_card(tok)
                except PokerlabError:
                    raise PokerlabError(f"a card is dealt here; {tok!r} is not a card") from None
                for s in swaps:
                    card = _swap_card(card, *SUIT_PAIRS[s])
                lo, hi = int(a.child_start[node]), int(a.child_start[node + 1])
                cards = a.edge_card[lo:hi].tolist()
                if card in cards:
                    node = int(a.children[lo + cards.index(card)])
                    continue
                iso = range(int(a.iso_start[node]), int(a.iso_start[node + 1]))
                hit = [q for q in iso if int(a.iso_card[q]) == card]
                if not hit:
                    why = "it is on the board" if card in self.spot.deck else "not in the deck"
                    raise PokerlabError(f"card {tok!r} cannot come here ({why})")
                q = hit[0]
                swaps.append(int(a.iso_swap[q]))
                node = int(a.children[lo + int(a.iso_child[q])])
            else:
                raise PokerlabError(f"the line ends at a terminal node before {tok!r}")
        return node, tuple(tokens), tuple(swaps)
