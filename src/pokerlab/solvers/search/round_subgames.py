"""The subgame of the search agent's current round as a postflop spot (issue 25): where the
round starts, both ranges there by Bayes' rule, the round's bet sizes with those played inserted,
and the spot (:class:`~pokerlab.games.postflop.game.PostflopGame`); each kept for the round.

:class:`RoundSubgames` is a mixin of :class:`~pokerlab.solvers.search.agent.SearchAgent` (the
module docstring there says what the subgame holds): its methods read the agent's rules,
blueprint, menu, gadget, ``ranges`` setting, the seat searching (``_seat``), the subgame cache's
size and, for ranges after searched rounds, the agent's own :meth:`_probability`; the memos
(``_ranges``, ``_texts``, ``_lines``, ``_games``) live on the agent.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from pokerlab.cards.deck import format_card
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView, deck_combos
from pokerlab.games.nolimit.rules import ALLIN, BET, RAISE, BettingState
from pokerlab.solvers.search.lines import range_text, tree_child
from pokerlab.solvers.search.menu import SPOT_STREETS, spot_oop

__all__ = ["RANGE_FLOOR", "RoundSubgames"]

#: a subgame's range weights are at least this fraction of the seat's largest weight
RANGE_FLOOR = 1e-6


class RoundSubgames:
    """The subgame construction of :class:`~pokerlab.solvers.search.agent.SearchAgent` (module
    docstring)."""

    rules: Any
    blueprint: Any
    menu: Any
    gadget: str
    depth: str
    ranges: str
    _seat: int
    _cache: Any
    _ranges: dict[tuple[Any, ...], np.ndarray]
    _texts: dict[tuple[Any, ...], list[str]]
    _lines: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[str, str, int]]]
    _games: dict[tuple[Any, ...], Any]

    def searches(self, view: PublicView) -> bool:  # pragma: no cover - the agent's
        raise NotImplementedError

    def _limited(self, street: int) -> bool:  # pragma: no cover - the agent's
        raise NotImplementedError

    def _probability(
        self, view: PublicView, hands: np.ndarray, action: Any
    ) -> np.ndarray:  # pragma: no cover - the agent's
        raise NotImplementedError

    def _round_start(
        self, view: PublicView
    ) -> tuple[tuple[tuple[int, int, int], ...], list[tuple[int, int, int, BettingState]]]:
        """The actions before the current round, and the round's actions each with the state
        it was taken at."""
        rules = self.rules
        state = rules.initial_state()
        start = 0
        states = []
        for i, (_, kind, amount) in enumerate(view.history):
            if state.street < view.state.street:
                start = i + 1
            states.append(state)
            state = state.apply(rules, kind, amount)
        prefix = view.history[:start]
        moves = [(*view.history[i], states[i]) for i in range(start, len(view.history))]
        return prefix, moves

    def _bayes(
        self, prefix: tuple[tuple[int, int, int], ...], board: tuple[int, ...]
    ) -> np.ndarray:
        """Each seat's weights over the deck's hole-card pairs after ``prefix`` under the
        strategies played (:attr:`ranges`), float64 ``(2, H)`` (0 for pairs meeting
        ``board``)."""
        key = (prefix, board, self._seat if self.gadget != "unsafe" else -1)
        got = self._ranges.get(key)
        if got is not None:
            return got
        rules = self.rules
        hands = deck_combos(rules)
        weights = np.ones((2, len(hands)))
        blocked = np.isin(hands, np.asarray(board, dtype=np.int64)).any(axis=1)
        weights[:, blocked] = 0.0
        state = rules.initial_state()
        history: list[tuple[int, int, int]] = []
        for seat, kind, amount in prefix:
            shown = tuple(board[: rules.board_size(state.street)])
            seen = PublicView(rules, state, shown, tuple(history))
            live = weights[seat] > 0
            # the strategy played there: the round's search where the agent searched, else the
            # blueprint (Pluribus' nested search reads the ranges from the previous search)
            if self.ranges == "search" and self.searches(seen):
                probs = self._probability(seen, hands[live], (kind, amount))
            else:  # off-tree sizes as likely as the sizes they read as
                probs = self.blueprint.belief_probability(seen, hands[live], (kind, amount))
            weights[seat, live] *= probs
            history.append((seat, kind, amount))
            state = state.apply(rules, kind, amount)
        if len(self._ranges) > 4 * self._cache.size:
            self._ranges.clear()
        self._ranges[key] = weights
        return weights

    def _subgame(
        self, view: PublicView, prefix: tuple[tuple[int, int, int], ...],
        moves: list[tuple[int, int, int, BettingState]],
    ) -> tuple[tuple[tuple[int, ...], tuple[Any, ...]], Any]:  # fmt: skip
        """The subgame of the round's line ``moves``: the round's bet and raise sizes (street
        totals, chips) that the menu lacked at the node where they were played, the subgame's
        sizes (:meth:`_sizes`: equal sizes, equal subgames), and its postflop game (None when
        the line was seen before). The actual line is walked down the menu's action tree, each
        missing size inserted and the tree rebuilt."""
        key = (prefix, view.board, tuple(m[:3] for m in moves))
        known = self._lines.get(key)
        if known is not None:
            return known, None
        texts = self._range_texts(view, prefix)
        inserted: list[int] = []
        while True:
            sizes = self._sizes(moves, tuple(inserted))
            game = self._game(view, prefix, sizes, texts)
            node, missing = game.betting_tree, None  # the memory check comes with the solve
            for _, kind, amount, _ in moves:
                i = tree_child(node, kind, amount)
                if i is None:
                    missing = int(amount)
                    break
                node = node.children[i]
            if missing is None:
                if len(self._lines) > 16 * self._cache.size:
                    self._lines.clear()
                known = self._lines[key] = (tuple(sorted(inserted)), sizes)
                return known, game
            if missing in inserted:  # pragma: no cover - the builder dropped a given size
                raise PokerlabError(f"{self.name}: the size {missing} cannot be put in the tree")
            inserted.append(missing)

    def _range_texts(self, view: PublicView, prefix: tuple[tuple[int, int, int], ...]) -> list[str]:
        """Both ranges at the round's start as range text, OOP's first: Bayes' rule (module
        docstring), every hand the board leaves floored at :data:`RANGE_FLOOR` of its seat's
        largest weight (a seat with no weight left: every such hand alike)."""
        key = (prefix, view.board, self._seat if self.gadget != "unsafe" else -1)
        if key in self._texts:
            return self._texts[key]
        rules = self.rules
        weights = self._bayes(prefix, view.board).copy()
        hands = deck_combos(rules)
        free = ~np.isin(hands, view.board).any(axis=1)
        for seat in (0, 1):
            top = weights[seat].max()
            floor = RANGE_FLOOR * top if top > 0 else 1.0
            weights[seat, free] = np.maximum(weights[seat, free], floor)
        oop = spot_oop(rules)
        if len(self._texts) > 4 * self._cache.size:
            self._texts.clear()
        texts = self._texts[key] = [range_text(hands, weights[s]) for s in (oop, 1 - oop)]
        return texts

    def _sizes(
        self, moves: list[tuple[int, int, int, BettingState]], inserted: tuple[int, ...],
        menu: tuple[str, str, int] | None = None,
    ) -> tuple[str, str, int]:  # fmt: skip
        """The subgame's first-bet and raise sizes (bet-size syntax) and raise limit: the
        menu's, each inserted size as chips over the bet faced when it was played, a raise only
        at its depth (``Nc@M``, M the bets and raises made before it, the blinds counting as
        one: the tree grows by that size's subtrees alone), and the line's raises allowed."""
        m = menu or (self.menu.bets, self.menu.raises, self.menu.raise_limit)
        bets, raises = [m[0]] if m[0] else [], [m[1]] if m[1] else []
        made = int(bool(moves) and moves[0][3].street == 0)  # the blinds: the first bet
        for _, kind, amount, before in moves:
            if amount in inserted and kind in (BET, RAISE, ALLIN):
                faced = max(before.bets)
                if faced == 0:
                    bets.append(f"{amount}c")
                else:
                    raises.append(f"{amount - faced}c@{made}")
            made += kind in (BET, RAISE, ALLIN)
        raised = sum(1 for _, k, _, b in moves if k in (BET, RAISE, ALLIN) and max(b.bets) > 0)
        return ", ".join(bets), ", ".join(raises), max(m[2], raised)

    def _game(
        self, view: PublicView, prefix: tuple[tuple[int, int, int], ...],
        sizes: tuple[str, str, int], texts: list[str] | None = None,
        later: tuple[tuple[str, str], ...] | None = None,
    ) -> Any:  # fmt: skip
        """The subgame as a :class:`~pokerlab.games.postflop.game.PostflopGame` with the bet
        ``sizes`` of :meth:`_sizes` in the round (``texts``: the ranges, else
        :meth:`_range_texts`) and ``later``'s first-bet and raise sizes on the streets after
        it, in order (None: the round's, or with :attr:`depth` ``"round"`` the blueprint's below
        a preflop, flop or turn subgame's leaves; the raise limit is the round's on every
        street); kept per round start, board, sizes and (safe gadgets) seat: the ranges and
        sizes make it."""
        from pokerlab.games.postflop.game import PostflopGame
        from pokerlab.games.postflop.spot import spot_from_params

        limited = self._limited(view.state.street)
        if later is None and limited:
            # a depth-limited subgame: the blueprint's own sizes below the leaves (table_depth)
            from pokerlab.solvers.search.safe import blueprint_later

            abstraction = self.blueprint.strategy.game.abstraction
            later = blueprint_later(abstraction, view.state.street)
        sample = None
        if limited:  # the deals below the leaves
            from pokerlab.solvers.search.table_depth import leaf_sample

            sample = leaf_sample(self.deal_sample, view.state.street)
        seat = self._seat if self.gadget != "unsafe" else -1
        key = (prefix, view.board, sizes, later, seat, sample)
        if key in self._games:
            return self._games[key]
        state = view.state
        rules = self.rules
        texts = texts or self._range_texts(view, prefix)
        behind = min(rules.stacks[s] - (state.contrib[s] - state.bets[s]) for s in (0, 1))
        streets = SPOT_STREETS[state.street :]
        tables = [(sizes[0], sizes[1]), *(later or [(sizes[0], sizes[1])] * (len(streets) - 1))]
        if len(tables) != len(streets):
            raise PokerlabError(f"{len(streets) - 1} later streets, {len(tables) - 1} sizes given")
        spot = spot_from_params(
            board="".join(format_card(c) for c in view.board),
            blinds=(rules.small_blind, rules.big_blind) if state.street == 0 else None,
            ranges=(texts[0], texts[1]),
            pot=int(state.pot() - sum(state.bets)),
            stack=int(behind),
            bets={s: {"bet": b, "raise": r} for s, (b, r) in zip(streets, tables, strict=True)},
            add_allin_threshold=0.0,
            force_allin_threshold=0.0,
            merging_threshold=0.0,
            raise_limit=sizes[2],
            ranks=rules.ranks,
        )
        if len(self._games) > 8:  # each may hold a whole tree: a few rounds are enough
            self._games.clear()
        if sample is None:
            game = PostflopGame(spot)
        else:  # the draw is a function of the public state: matches repeat
            seed = int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest())
            game = PostflopGame(spot, deal_sample=sample, deal_seed=seed)
        self._games[key] = game
        return game
