"""The no-limit postflop game: a spot (board, ranges, pot, stack, sizes) as a solvable game.

``load_game("postflop", board=..., ranges=(oop, ip), pot=..., stack=..., bets=...)`` or
``load_game("postflop", spot="turn.toml")`` returns a :class:`PostflopGame`. Its fast path is the
vector tree (:mod:`pokerlab.tree.vector.tree`) that
:class:`~pokerlab.solvers.postflop.PostflopSolver` runs on. The game also speaks the generic
history interface (one chance node deals both hands, weighted by the ranges with card removal;
later chance nodes deal the turn and river from the spot's deck), so that
tiny spots can be checked against the readable reference solver and the history-tree evaluator:
an implementation independent of the vector kernels.

Payoffs: the vector tree counts each player's chips won from the pot minus chips put in during the
spot (the two sum to the starting pot, less rake); the history interface subtracts half the
starting pot so that the game is zero-sum without rake.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, format_card, format_cards
from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.games.postflop.actions import (
    ActionNode,
    ActionTreeOptions,
    build_action_tree,
)
from pokerlab.games.postflop.expand import ExpandedSpot, expand_spot
from pokerlab.games.postflop.naming import SpotNaming
from pokerlab.games.postflop.sizing import (
    StateBudget,
    available_memory_bytes,
    count_betting_tree,
    gib,
    process_bytes_estimate,
)
from pokerlab.games.postflop.spot import SpotConfig, spot_from_params
from pokerlab.games.postflop.spot_fields import ALL_STREETS
from pokerlab.tree.vector.backend import VectorBackend

__all__ = [
    "PostflopGame",
    "MAX_HISTORY_DEALS",
    "available_memory_bytes",
    "process_bytes_estimate",
]

#: The history interface is for checking tiny spots only: refuse more hand pairs than this.
MAX_HISTORY_DEALS = 5_000


#: Most decision nodes of a betting tree (before cards are dealt; every line counted): more
#: is refused before the tree is built (the Python builder makes about 15,000 a second).
MAX_ACTION_DECISIONS = 200_000


class PostflopGame(HistoryGame):
    """A no-limit hold'em postflop spot. Build with :func:`pokerlab.load_game` or from a
    :class:`~pokerlab.games.postflop.spot.SpotConfig`."""

    name = "postflop"
    num_players = 2

    def __init__(
        self, config: SpotConfig | None = None, *, isomorphism: bool = True,
        deal_sample: tuple[int, ...] | None = None, deal_seed: int = 0, **params: Any,
    ) -> None:  # fmt: skip
        super().__init__()
        self.config = config if config is not None else spot_from_params(**params)
        #: public chance sampling of the later deals (:func:`expand_spot`): a search's leaves
        self.deal_sample = None if deal_sample is None else tuple(int(m) for m in deal_sample)
        self.deal_seed = int(deal_seed)
        self.isomorphism = bool(isomorphism) and self.deal_sample is None
        self.params = self.config.to_dict()
        if not self.isomorphism:
            self.params["isomorphism"] = False  # another tree layout: saved files must say so
        if self.deal_sample is not None:  # another game: its saved files must say so
            self.params["deal_sample"] = list(self.deal_sample)
            self.params["deal_seed"] = self.deal_seed
        self.zero_sum = self.config.rake_rate == 0.0
        if any(float(x) != int(x) for x in (self.config.pot, self.config.stack)):
            raise PokerlabError(
                f"pot and stack are whole chips, got pot={self.config.pot}, "
                f"stack={self.config.stack}"
            )

    # --- the action tree and the dealt tree ---------------------------------------------------
    @cached_property
    def action_tree(self) -> ActionNode:
        """The betting tree before cards are dealt (:attr:`betting_tree`), for a spot whose
        dealt tree will be built: one whose solver arrays would need more than twice the memory
        available (more than the 16-bit mode could fit) is refused with the estimate first."""
        available = available_memory_bytes()
        if available is not None:
            self.check_memory(available, compressed=True)  # not even the 16-bit mode fits
        return self.betting_tree

    @cached_property
    def betting_tree(self) -> ActionNode:
        """The betting tree before cards are dealt, without :attr:`action_tree`'s memory check:
        for reading lines of a spot whose dealt tree may never be built here (the search agent
        walks a hand's line before it decides to solve, and frees memory first when it does).
        Counted first (:meth:`tree_summary`): a tree of more than :data:`MAX_ACTION_DECISIONS`
        decision nodes is refused before it is built."""
        decisions = sum(self.tree_summary()["action_tree"]["decision"])
        if decisions > MAX_ACTION_DECISIONS:
            raise PokerlabError(
                f"the tree is too large: {decisions:,} decision nodes before cards are dealt "
                f"(at most {MAX_ACTION_DECISIONS:,}); use fewer bet sizes, a lower raise limit "
                "or a later street"
            )
        return build_action_tree(self._tree_options())

    def _tree_options(self) -> ActionTreeOptions:
        """The builder's options from the spot (whole chips; streets as -1, 0, 1, 2)."""
        c = self.config
        sizes = {(ALL_STREETS.index(s) - 1, p): v for (s, p), v in c.sizes.items()}
        opts = ActionTreeOptions(
            pot=int(c.pot),
            stack=int(c.stack),
            first_street=ALL_STREETS.index(c.street) - 1,
            blinds=None if c.blinds is None else (c.blinds[1], c.blinds[0]),  # (OOP, IP)
            sizes=sizes,
            add_allin_threshold=c.tree.add_allin_threshold,
            force_allin_threshold=c.tree.force_allin_threshold,
            merging_threshold=c.tree.merging_threshold,
            raise_limit=c.tree.raise_limit,
        )
        return opts

    def tree_summary(self) -> dict[str, Any]:
        """Action-tree nodes by street and an upper bound on the dealt tree and its memory
        (float32 regrets and strategy sums), computed before anything large is built: from the
        shared graph of the betting states (:func:`count_betting_tree`), refused past
        :data:`MAX_BETTING_STATES` states."""
        cached = self.__dict__.get("_counted")
        if cached is None:
            c = self.config
            shared = build_action_tree(self._tree_options(), StateBudget(c), share=True)
            cached = self.__dict__["_counted"] = count_betting_tree(
                shared, len(c.board), len(c.deck), self.deal_sample
            )
        counts = {k: list(v) for k, v in cached["action_tree"].items()}
        dealt = cached["dealt"]
        w = self.config.weights()
        hands = max(int(np.count_nonzero(x)) for x in w)
        numbers = dealt["action_slots"] * hands
        return {
            "action_tree": counts,
            "dealt_upper_bound": {k: dealt[k] for k in ("decision", "chance", "terminal")},
            "memory_upper_bound_bytes": int(2 * 4 * numbers),
        }

    def check_memory(
        self, available_bytes: int | None = None, compressed: bool = False
    ) -> dict[str, Any]:
        """Refuse, before anything large is allocated, a spot whose solver arrays would not fit
        in memory; return :meth:`tree_summary`.

        ``available_bytes`` defaults to :func:`available_memory_bytes` (nothing is refused when
        that is unknown). Raises :class:`~pokerlab.errors.PokerlabError` with the estimate (the
        upper bound of :meth:`tree_summary`; half of it in the 16-bit mode, ``compressed``)
        and the memory available.
        """
        summary = self.tree_summary()
        available = available_memory_bytes() if available_bytes is None else available_bytes
        need = summary["memory_upper_bound_bytes"] // (2 if compressed else 1)
        if available is not None and need > available:
            dealt = summary["dealt_upper_bound"]
            raise PokerlabError(
                f"the tree is too large for this machine's memory: its solver arrays need up to "
                f"{gib(need)} ({need:,} bytes; {dealt['decision']:,} decision nodes, "
                f"{'16-bit' if compressed else 'float32'} "
                f"regrets and strategy sums) and {gib(available)} is available; use fewer bet "
                "sizes, smaller ranges or a later street"
            )
        return summary

    @cached_property
    def expanded(self) -> ExpandedSpot:
        """The dealt vector tree (built on first use)."""
        c = self.config
        return expand_spot(
            self.action_tree,
            list(c.board),
            c.weights(),
            float(c.pot),
            rake_rate=c.rake_rate,
            rake_cap=c.rake_cap,
            isomorphism=self.isomorphism,
            deck=None if c.ranks == 13 else c.deck,
            deal_sample=self.deal_sample,
            deal_seed=self.deal_seed,
        )

    def with_action_tree(self, root: ActionNode) -> PostflopGame:
        """This spot with its betting tree replaced by ``root``: the same actions on the lines
        a reader walks, the others cut short (a reader of part of the tree builds only that
        part; :mod:`~pokerlab.solvers.search.table_gifts`). For reading, not for solving or
        saving: the spot's parameters still describe the whole tree."""
        game = PostflopGame(
            self.config, isomorphism=self.isomorphism, deal_sample=self.deal_sample,
            deal_seed=self.deal_seed,
        )  # fmt: skip
        game.__dict__["action_tree"] = game.__dict__["betting_tree"] = root
        return game

    def public_tree(self) -> VectorBackend:
        """The spot's vector tree as the engine's tree backend (kind ``"postflop"``): what
        :func:`pokerlab.compile_game` returns for this game, so strategies by key,
        exploitability and :class:`~pokerlab.solvers.cfr.CFRSolver` run on it. Utilities are
        the history form's (each player's result less half the starting pot)."""
        backend = self.__dict__.get("_backend")
        if backend is None:
            self.check_memory()
            backend = VectorBackend(
                self.expanded.tree,
                SpotNaming(self.expanded),
                value_shift=-float(self.config.pot) / 2.0,
            )
            self.__dict__["_backend"] = backend
        return backend

    # --- history interface (tiny spots) ---------------------------------------------------------
    @cached_property
    def _deals(self) -> list[tuple[tuple[int, int], float]]:
        w0, w1 = self.config.weights()
        deals = []
        for a in np.flatnonzero(w0 > 0):
            ca = set(COMBO_CARDS[a].tolist())
            for b in np.flatnonzero(w1 > 0):
                if ca & set(COMBO_CARDS[b].tolist()):
                    continue
                deals.append(((int(a), int(b)), float(w0[a] * w1[b])))
        total = sum(p for _, p in deals)
        return [(d, p / total) for d, p in deals]

    def initial_history(self) -> PostflopHistory:
        if len(self._deals) > MAX_HISTORY_DEALS:
            raise PokerlabError(
                f"the history form of a postflop spot is for tiny spots ({len(self._deals)} hand "
                f"pairs > {MAX_HISTORY_DEALS}); solve real spots with make_solver(game, ...), "
                "which uses the vector tree"
            )
        return PostflopHistory(self, None, self.action_tree, tuple(self.config.board), ())


class PostflopHistory(History):
    """One history of a postflop spot in the generic interface (used for checks on tiny spots)."""

    def __init__(
        self,
        game: PostflopGame,
        deal: tuple[int, int] | None,
        node: ActionNode,
        board: tuple[int, ...],
        line: tuple[str, ...],
    ) -> None:
        self.game = game
        self.deal = deal
        self.node = node
        self.board = board
        self.line = line

    def is_terminal(self) -> bool:
        return self.deal is not None and self.node.kind in ("fold", "showdown")

    def current_player(self) -> int:
        if self.deal is None or self.node.kind == "chance":
            return CHANCE
        return self.node.player

    def legal_actions(self) -> Sequence[int]:
        return range(len(self.node.children))

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        if self.deal is None:
            deals = self.game._deals
            return [(i, p) for i, (_, p) in enumerate(deals)]
        held = set(self.board) | set(COMBO_CARDS[self.deal[0]].tolist())
        held |= set(COMBO_CARDS[self.deal[1]].tolist())
        cards = [c for c in self.game.config.deck if c not in held]
        return [(c, 1.0 / len(cards)) for c in cards]

    def child(self, action: int) -> PostflopHistory:
        if self.deal is None:
            deal = self.game._deals[action][0]
            return PostflopHistory(self.game, deal, self.node, self.board, self.line)
        if self.node.kind == "chance":
            return PostflopHistory(
                self.game,
                self.deal,
                self.node.children[0],
                (*self.board, action),
                (*self.line, format_card(action)),
            )
        label = self.node.labels()[action]
        return PostflopHistory(
            self.game, self.deal, self.node.children[action], self.board, (*self.line, label)
        )

    def terminal_utility(self, player: int) -> float:
        c = self.game.config
        n = self.node
        pot = float(c.pot)
        if n.kind == "fold":
            commit = n.commit[n.player]
            total = pot + 2 * commit
            rake = (
                c.rake_rate * total if c.rake_cap is None else min(c.rake_rate * total, c.rake_cap)
            )
            net = -commit if player == n.player else total - rake - commit
            return net - pot / 2
        commit = n.commit[0]
        total = pot + 2 * commit
        rake = c.rake_rate * total if c.rake_cap is None else min(c.rake_rate * total, c.rake_cap)
        mine = evaluate([*COMBO_CARDS[self.deal[player]].tolist(), *self.board])
        theirs = evaluate([*COMBO_CARDS[self.deal[1 - player]].tolist(), *self.board])
        if mine > theirs:
            net = total - rake - commit
        elif mine < theirs:
            net = -commit
        else:
            net = (total - rake) / 2 - commit
        return net - pot / 2

    def info_set_key(self) -> str:
        p = self.current_player()
        hand = format_cards(COMBO_CARDS[self.deal[p]].tolist())
        return f"{hand}|{format_cards(self.board)}:{','.join(self.line)}"

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return format_card(action) if self.deal is not None else str(action)
        return self.node.labels()[action]
