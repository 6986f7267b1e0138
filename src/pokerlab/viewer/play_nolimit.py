"""Playing heads-up no-limit hold'em against a blueprint checkpoint in the viewer (issue 25,
"Playing"), with or without real-time search.

The bot is the checkpoint's :class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent` (lines
off its tree read by pseudo-harmonic action translation) or, with ``search``, that agent refined
by :class:`~pokerlab.solvers.search.agent.SearchAgent` on the chosen streets. The hand is the
rules' :class:`~pokerlab.games.nolimit.rules.BettingState`: the user may fold, check, call, go
all-in or raise to any legal amount; the text is read by the terminal's
:func:`~pokerlab.evaluate.nolimit.moves.parse_move` (chips such as ``350``, also ``2.5bb``, ``75%``,
``3x``), so an illegal amount is refused naming it and the legal range. The bot's draws follow
:func:`~pokerlab.evaluate.nolimit.matches.sample_action` over its checked policy, its actions are
described as the terminal describes them, and where it searched the log says how long
("searched 100 iterations in 0.23 s": the subgames' own wall time, :class:`SearchRecord`).

Deals and the bot's draws come from two child seeds of the session's seed
(:func:`pokerlab._rng.child_seeds`, as ``pokerlab blueprint play`` does), so a seed deals the same
cards whatever the user plays, and the same actions replay the same hands. A hand is settled by
:func:`pokerlab.games.nolimit.rules.payoffs` (side pots and split pots exact): the result is the
user's net chips, also shown in big blinds.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pokerlab.cards.deck import format_card
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import KIND_NAMES, Action, PublicView
from pokerlab.evaluate.nolimit.moves import format_chips
from pokerlab.games.nolimit.rules import STREETS
from pokerlab.viewer.models import BlueprintModel
from pokerlab.viewer.play import PlaySession

__all__ = ["MAX_SEARCH_ITERATIONS", "NoLimitPlay"]

#: Most DCFR iterations per subgame a play session may ask its bot to search.
MAX_SEARCH_ITERATIONS = 2000
#: The search agent's settings a play session may set by name (``search_options``)
SEARCH_OPTIONS = (
    "depth",
    "continuations",
    "bias",
    "self_rounds",
    "self_tolerance",
    "deal_sample",
    "deal_draws",
    "preflop_far",
    "menu_bets",
    "menu_raises",
)


def _cards(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [format_card(int(c)) for c in cards]


class NoLimitPlay(PlaySession):
    """Hands of heads-up no-limit hold'em against a blueprint checkpoint (module docstring).

    ``seat``: the user's seat, 0 (the button, small blind) or 1 (big blind); ``seed``: the deals
    and the bot's draws (None: fresh entropy; the seed used is in the state); ``search``: the bot
    searches in play on ``search_streets`` (``"river"``, ``"turn,river"``, ...) with
    ``search_iterations`` DCFR iterations per subgame (1 to :data:`MAX_SEARCH_ITERATIONS`) and
    ``search_gadget`` (unsafe, resolve, maxmargin or reach-maxmargin, the river alone;
    :mod:`pokerlab.solvers.search.safe`);
    ``search_seconds``: a time budget per subgame instead (seconds for every searched street, or
    street name to seconds; :class:`~pokerlab.solvers.search.agent.SearchAgent`'s ``seconds``);
    ``search_options``: more of the agent's settings by name (:data:`SEARCH_OPTIONS`: depth
    limits, continuations, sampled deals, ``preflop_far``).
    """

    game_name = "nolimit-holdem"

    def __init__(
        self,
        model: BlueprintModel,
        seat: int,
        seed: int | None = None,
        search: bool = False,
        search_streets: str = "river",
        search_iterations: int = 100,
        search_gadget: str = "unsafe",
        search_seconds: float | dict[str, float] | None = None,
        search_options: dict[str, Any] | None = None,
    ) -> None:
        from pokerlab._rng import child_seeds, generator, seed_int
        from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent

        rules = model.rules
        if rules.players != 2:
            raise PokerlabError(
                f"{model.rel}: play is heads-up only, and this blueprint was trained for "
                f"{rules.players} players"
            )
        super().__init__(model, seat, seed)
        self.bm = model
        self.rules = rules
        self.seed = seed_int(seed)
        deal_seed, bot_seed = child_seeds(self.seed, 2)
        self.deal_rng, self.bot_rng = generator(deal_seed), generator(bot_seed)
        name = Path(model.rel).name
        agent: Any = BlueprintAgent(model.strategy, model.abstraction, name=name)
        self.search: dict[str, Any] | None = None
        if search:
            agent = self._searching(
                agent, name, search_streets, search_iterations, search_gadget, search_seconds,
                search_options,
            )  # fmt: skip
        self.agent = agent
        self.deal()

    def _searching(
        self, blueprint: Any, name: str, streets: str, iterations: int, gadget: str = "unsafe",
        seconds: float | dict[str, float] | None = None, options: dict[str, Any] | None = None,
    ) -> Any:  # fmt: skip
        """``blueprint`` with search (errors name the request's field)."""
        from pokerlab.solvers.search.agent import SearchAgent

        options = dict(options or {})
        for key in options:
            if key not in SEARCH_OPTIONS:
                raise PokerlabError(
                    f"search_options: unknown {key!r}; known: {', '.join(SEARCH_OPTIONS)}"
                )
        settings = {k: v for k, v in options.items() if not k.startswith("menu_")}
        if "menu_bets" in options or "menu_raises" in options:
            from pokerlab.solvers.search.menu import SearchMenu

            default = SearchMenu()
            try:
                settings["menu"] = SearchMenu(
                    options.get("menu_bets", default.bets),
                    options.get("menu_raises", default.raises),
                )
            except (PokerlabError, TypeError) as exc:
                raise PokerlabError(f"search_options: {exc}") from None

        if not isinstance(streets, str) or not streets.strip():
            raise PokerlabError(f"search_streets: give streets such as 'river', got {streets!r}")
        if (
            isinstance(iterations, bool)
            or not isinstance(iterations, int)
            or not 1 <= iterations <= MAX_SEARCH_ITERATIONS
        ):
            raise PokerlabError(
                f"search_iterations must be an integer in 1..{MAX_SEARCH_ITERATIONS}, got "
                f"{iterations!r}"
            )
        try:
            agent = SearchAgent(
                blueprint, streets, iterations=iterations, seconds=seconds,
                name=f"search:{name}", gadget=gadget, **settings,
            )  # fmt: skip
        except (PokerlabError, TypeError) as exc:
            text = str(exc)
            field = (
                "search_options"
                if any(key in text for key in options)
                else "search_seconds"
                if text.startswith("seconds")
                else "search_gadget"
                if "gadget" in text
                else "search_streets"
                if "street" in text
                else "search"
            )
            raise PokerlabError(f"{field}: {exc}") from None
        if not agent.streets:
            raise PokerlabError(f"search_streets: no street named in {streets!r}")
        self.search = {
            "streets": [STREETS[s] for s in agent.streets],
            "iterations": agent.iterations,
            "gadget": agent.gadget,
            "seconds": {STREETS[s]: b for s, b in agent.seconds.items()} or None,
            "options": options or None,
        }
        return agent

    # the hand ---------------------------------------------------------------------------------
    def deal(self) -> None:
        from pokerlab.evaluate.nolimit.matches import deal_cards

        rules = self.rules
        self.row = [int(c) for c in deal_cards(rules, 1, self.deal_rng)[0].tolist()]
        self.board = self.row[4 : 4 + rules.board_size(rules.rounds - 1)]
        self.bstate = rules.initial_state()
        self.actions: list[tuple[int, int, int]] = []
        self._street = 0
        self._translated = False
        self._new_hand()
        self._advance()

    def _hole(self, seat: int) -> tuple[int, int]:
        return self.row[2 * seat], self.row[2 * seat + 1]

    def _view(self) -> PublicView:
        shown = tuple(self.board[: self.rules.board_size(self.bstate.street)])
        return PublicView(self.rules, self.bstate, shown, tuple(self.actions))

    def _deal_log(self, street: int) -> None:
        """The dealer's line for the cards ``street`` adds to the board."""
        rules = self.rules
        new = self.board[rules.board_size(street - 1) : rules.board_size(street)]
        self.history.append(
            {"player": -1, "who": "dealer", "action": f"{STREETS[street]} {' '.join(_cards(new))}"}
        )

    def _play(self, action: Action, entry: dict[str, Any]) -> None:
        """Log ``entry`` for ``action`` of the seat on move, apply it, log the cards dealt."""
        seat = self.bstate.to_act
        kind, amount = action
        entry.update(
            {
                "player": seat,
                "street": STREETS[self.bstate.street],
                "kind": KIND_NAMES[kind],
                "amount": int(amount),
            }
        )
        self.history.append(entry)
        self.actions.append((seat, int(kind), int(amount)))
        self.bstate = self.bstate.apply(self.rules, kind, amount)
        state = self.bstate
        last = self.rules.rounds - 1 if state.status == "showdown" else state.street
        if state.status != "fold":
            while self._street < last:
                self._street += 1
                self._deal_log(self._street)

    def _bot_move(self) -> None:
        from pokerlab.evaluate.nolimit.agents import check_policy
        from pokerlab.evaluate.nolimit.matches import sample_action
        from pokerlab.evaluate.nolimit.moves import describe_action

        view, hole = self._view(), self._hole(self.bot)
        agent = self.agent
        records = getattr(agent, "records", None)
        before = len(records) if records is not None else 0
        start = time.perf_counter()
        policy = check_policy(view, agent.policy(view, hole), f"bot {agent.name!r}")
        seconds = time.perf_counter() - start
        action = sample_action(policy, float(self.bot_rng.random()))
        entry: dict[str, Any] = {"who": "bot", "action": describe_action(view, action)}
        entry["seconds"] = seconds
        solved = records[before:] if records is not None else []
        if solved:
            iterations = sum(r.iterations for r in solved)
            spent = sum(r.seconds for r in solved)
            entry["search"] = {
                "subgames": len(solved),
                "iterations": iterations,
                "seconds": spent,
                "text": f"searched {iterations:,} iterations in {spent:.2f} s",
            }
        # where the bot searched, the user's actual sizes are in its subgame: no translation
        reader = getattr(getattr(agent, "blueprint", agent), "read", None)
        searching = getattr(agent, "searches", None)
        if searching is not None and searching(view):
            reader = None
        if reader is not None and not self._translated and reader(view, hole).translated:
            self._translated = True
            entry["note"] = "off the bot's tree: it reads this line by action translation"
        self._play(action, entry)

    def _advance(self) -> None:
        while not self.bstate.is_terminal():
            if self.bstate.to_act == self.seat:
                return
            self._bot_move()
        self._settle()

    def _settle(self) -> None:
        from pokerlab.cards.evaluator import category_name
        from pokerlab.evaluate.nolimit.matches import showdown_values
        from pokerlab.games.nolimit.rules import payoffs

        state, me, bot = self.bstate, self.seat, self.bot
        values = None
        if state.status == "showdown":
            values = [int(v) for v in showdown_values(self.rules, [self.row])[0].tolist()]
        won = float(payoffs(self.rules, state, values)[me])
        if values is None:
            who = "you fold" if state.folded[me] else "the bot folds"
            message = f"{who}: {'you win' if won > 0 else 'the bot wins'} the pot of "
            message += f"{format_chips(state.pot())}"
        else:
            mine, its = category_name(values[me]), category_name(values[bot])
            yours, bots = " ".join(_cards(self._hole(me))), " ".join(_cards(self._hole(bot)))
            message = (
                f"showdown on {' '.join(_cards(self.board))}: you {yours} ({mine}), bot {bots} "
                f"({its})"
            )
            if won == 0:
                message += ": split pot"
        self._finish(won, values is not None, message)

    # the interface ----------------------------------------------------------------------------
    def legal(self) -> list[str]:
        """The buttons' words now: ``fold`` (facing a bet), ``check`` or ``call``, ``all-in``
        (when a raise is possible); any raise-to amount in :meth:`view`'s ``raise`` range is
        legal too."""
        if self.done or self.bstate.is_terminal() or self.bstate.to_act != self.seat:
            return []
        state = self.bstate
        words = ["fold", "call"] if state.to_call() > 0 else ["check"]
        if state.raise_bounds(self.rules) is not None:
            words.append("all-in")
        return words

    def act(self, action: str) -> None:
        """Play the user's ``action`` (:func:`~pokerlab.evaluate.nolimit.moves.parse_move`'s words:
        ``fold``, ``check``, ``call``, ``all-in``, ``raise 350``, ``350``, ``2.5bb``, ``75%``),
        then the bot's until the user's turn or the end."""
        from pokerlab.evaluate.nolimit.moves import describe_action, parse_move

        if self.done:
            raise PokerlabError("the hand is over: deal the next one")
        view = self._view()
        move = parse_move(action, view)
        self._play(move, {"who": "you", "action": describe_action(view, move, you=True)})
        self._advance()

    def _seat_names(self) -> tuple[str, str]:
        return self.rules.position(0), self.rules.position(1)

    def view(self) -> dict[str, Any]:
        from pokerlab.evaluate.nolimit.moves import legal_text

        rules, state, me, bot = self.rules, self.bstate, self.seat, self.bot
        bb = float(rules.big_blind)
        mine = not self.done and not state.is_terminal() and state.to_act == me
        bounds = state.raise_bounds(rules) if mine else None
        if self.done and self.showdown:
            board = self.board
        else:
            board = self.board[: rules.board_size(state.street)]
        return {
            "your_cards": _cards(self._hole(me)),
            "bot_cards": _cards(self._hole(bot)) if self.done and self.showdown else None,
            "board": _cards(board),
            "street": STREETS[state.street],
            "pot": state.pot(),
            "stacks": [rules.stacks[me], rules.stacks[bot]],
            "behind": [state.behind(rules, me), state.behind(rules, bot)],
            "street_bets": [state.bets[me], state.bets[bot]],
            "to_call": state.to_call() if mine else 0,
            "raise": (
                None
                if bounds is None
                else {
                    "min": bounds[0],
                    "max": bounds[1],
                    "word": "raise to" if max(state.bets) > 0 else "bet",
                }
            ),
            "legal_text": legal_text(self._view()) if mine else "",
            "blinds": [rules.small_blind, rules.big_blind],
            "big_blind": rules.big_blind,
            "result_bb": None if self.result is None else self.result / bb,
            "total_bb": self.total / bb,
            "unit": "chips",
            "bot": self.agent.name,
            "search": self.search,
            "seed": self.seed,
        }
