"""Playing hands against a solved strategy: push/fold, small games (Kuhn, Leduc), postflop
(:mod:`pokerlab.viewer.play_postflop`) and no-limit blueprints, with or without search
(:mod:`pokerlab.viewer.play_nolimit`); the sessions a server holds are in
:mod:`pokerlab.viewer.sessions`.

A :class:`PlaySession` deals a hand, lets the bot act (it samples its action from the solved
strategy) until it is the user's turn, and takes the user's actions one at a time. At the end of
a hand it reports the result in the game's units, adds it to the running total and shows the
bot's cards when the hand went to showdown. Sessions are seeded (``numpy.random.Generator``
through :mod:`pokerlab._rng`), so a seed replays the same hands for the same actions.

Results, from the user's seat:

* push/fold: big blinds won or lost; a called all-in deals a real board and compares hands;
* history games: the game's terminal utility (chips);
* postflop: chips collected from the pot minus chips put in during the hand, less half the
  starting pot: the history form's terminal utility (``PostflopHistory.terminal_utility``). On
  a raked spot the winner collects the pot less the rake (``rake_rate`` of the matched pot,
  at most ``rake_cap``; a fold is raked too, as the solver does), so the two seats' results add
  up to minus the rake and their averages agree with the solver's EVs;
* no-limit hold'em: net chips by the rules' payoffs (also shown in big blinds).
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import numpy as np

from pokerlab.cards.deck import format_card
from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import PokerlabError
from pokerlab.viewer.models import Model, PushFoldModel, TableModel, finite

__all__ = [
    "PlaySession",
    "PushFoldPlay",
    "HistoryPlay",
]

SEAT_NAMES = {"pushfold": ("SB", "BB"), "postflop": ("OOP", "IP")}


def _rng(seed: int | None) -> np.random.Generator:
    from pokerlab._rng import generator

    return generator(seed)


class PlaySession:
    """One player's series of hands against the bot."""

    game_name = "game"

    def __init__(self, model: Model, seat: int, seed: int | None = None) -> None:
        if seat not in (0, 1):
            raise PokerlabError(f"seat must be 0 or 1, got {seat!r}")
        self.id = uuid.uuid4().hex
        self.model = model
        self.seat = seat
        self.bot = 1 - seat
        self.rng = _rng(seed)
        self.total = 0.0
        self.hands = 0
        self.lock = threading.Lock()
        self.history: list[dict[str, Any]] = []
        self.result: float | None = None
        self._new_hand()

    def _new_hand(self) -> None:
        """Clear the last hand's record (actions, result, showdown, message)."""
        self.history = []
        self.done = False
        self.result = None
        self.showdown = False
        self.message = ""

    # the interface of every game ----------------------------------------------------------------
    def deal(self) -> None:
        """Start a new hand (the bot acts first when it is its turn)."""
        raise NotImplementedError

    def legal(self) -> list[str]:
        """The user's actions now (empty when it is not the user's turn)."""
        raise NotImplementedError

    def act(self, action: str) -> None:
        """Play the user's ``action``, then the bot's until the user's turn or the end."""
        raise NotImplementedError

    def view(self) -> dict[str, Any]:
        """Game-specific part of the state (cards, board, pot)."""
        raise NotImplementedError

    # shared ---------------------------------------------------------------------------------------
    def _finish(self, result: float, showdown: bool, message: str) -> None:
        self.done = True
        self.result = float(result)
        self.showdown = showdown
        self.total += float(result)
        self.hands += 1
        self.message = message

    def _check_action(self, action: str) -> None:
        if self.done:
            raise PokerlabError("the hand is over: deal the next one")
        legal = self.legal()
        if action not in legal:
            raise PokerlabError(f"{action!r} is not an action now; choose one of {legal}")

    def _seat_names(self) -> tuple[str, str]:
        return SEAT_NAMES.get(self.game_name, ("player 0", "player 1"))

    def state(self) -> dict[str, Any]:
        """The whole state for the page."""
        names = self._seat_names()
        out = {
            "id": self.id,
            "game": self.game_name,
            "file": self.model.rel,
            "seat": self.seat,
            "seat_name": names[self.seat],
            "bot_seat_name": names[self.bot],
            "history": list(self.history),
            "legal": [] if self.done else self.legal(),
            "done": self.done,
            "result": finite(self.result, 6),
            "showdown": self.showdown,
            "total": finite(self.total, 6),
            "hands": self.hands,
            "message": self.message,
        }
        out.update(self.view())
        return out

    def _log(self, player: int, action: str) -> None:
        who = "you" if player == self.seat else "bot"
        self.history.append({"player": player, "who": who, "action": action})


class PushFoldPlay(PlaySession):
    """Heads-up push/fold: SB shoves or folds, BB calls or folds, a called all-in is dealt out."""

    game_name = "pushfold"

    def __init__(self, model: PushFoldModel, seat: int, seed: int | None = None, row: int = 0):
        super().__init__(model, seat, seed)
        self.pf = model
        self.row = row
        self.stack = model.stacks[row]
        self.deal()

    def deal(self) -> None:
        deck = self.rng.permutation(52)
        self.cards = (
            sorted(deck[:2].tolist(), reverse=True),
            sorted(deck[2:4].tolist(), reverse=True),
        )
        self.board = deck[4:9].tolist()
        self.actions = ""
        self._new_hand()
        self._bot_moves()

    def _combo(self, player: int) -> int:
        from pokerlab.cards.deck import COMBO_INDEX

        a, b = self.cards[player]
        return int(COMBO_INDEX[a, b])

    def legal(self) -> list[str]:
        if self.done or self._to_act() != self.seat:
            return []
        return ["fold", "shove"] if self.actions == "" else ["fold", "call"]

    def _to_act(self) -> int:
        return 0 if self.actions == "" else 1

    def act(self, action: str) -> None:
        self._check_action(action)
        self._apply(action)
        self._bot_moves()

    def _apply(self, action: str) -> None:
        from pokerlab.games.pushfold import posts

        player = self._to_act()
        self._log(player, action)
        self.actions += action[0]
        sb_post, bb_post = posts(self.stack, self.pf.ante)
        sign = 1.0 if self.seat == 0 else -1.0
        if self.actions == "f":
            self._finish(-sb_post * sign, False, "SB folds")
        elif self.actions == "sf":
            self._finish(bb_post * sign, False, "BB folds")
        elif self.actions == "sc":
            v0 = evaluate([*self.cards[0], *self.board])
            v1 = evaluate([*self.cards[1], *self.board])
            sb = self.stack if v0 > v1 else -self.stack if v0 < v1 else 0.0
            what = "SB wins" if v0 > v1 else "BB wins" if v0 < v1 else "split pot"
            self._finish(sb * sign, True, f"all-in called: {what}")

    def _bot_moves(self) -> None:
        while not self.done and self._to_act() == self.bot:
            prob = (self.pf.sb if self.bot == 0 else self.pf.bb)[self.row][self._combo(self.bot)]
            push = self.rng.random() < prob
            self._apply(("shove" if self.bot == 0 else "call") if push else "fold")

    def view(self) -> dict[str, Any]:
        show_bot = self.done and self.showdown
        return {
            "stack_bb": self.stack,
            "your_cards": [format_card(c) for c in self.cards[self.seat]],
            "bot_cards": [format_card(c) for c in self.cards[self.bot]] if show_bot else None,
            "board": [format_card(c) for c in self.board] if self.showdown else [],
            "unit": "bb",
        }


def _split_key(key: str) -> tuple[str, str]:
    """(private part, public cards) of an information-set key such as ``"Qh|Js:rc/"``."""
    head = key.split(":", 1)[0]
    parts = head.split("|")
    return parts[0], " ".join(parts[1:])


class HistoryPlay(PlaySession):
    """Any two-player game of the history interface (Kuhn, Leduc): the bot samples from the
    strategy at its information set."""

    def __init__(self, model: TableModel, seat: int, seed: int | None = None) -> None:
        super().__init__(model, seat, seed)
        if model.game.num_players != 2:
            raise PokerlabError("play needs a two-player game")
        self.tm = model
        self.game_name = model.game.name
        self.deal()

    def deal(self) -> None:
        self.h = self.tm.game.initial_history()
        self.keys: list[str | None] = [None, None]
        self._new_hand()
        self._advance()

    def _advance(self) -> None:
        while not self.h.is_terminal():
            if self.h.is_chance():
                outcome = self.h.sample_chance(self.rng)
                if any(e["who"] != "dealer" for e in self.history):  # a public card, not a deal
                    label = self.h.action_label(outcome)
                    self.history.append({"player": -1, "who": "dealer", "action": label})
                self.h = self.h.child(outcome)
                continue
            p = self.h.current_player()
            self.keys[p] = self.h.info_set_key()
            if p == self.seat:
                return
            key = self.h.info_set_key()
            probs = self.tm.strategy[key]
            labels = list(probs)
            weights = np.array([max(probs[a], 0.0) for a in labels])
            weights = weights / weights.sum() if weights.sum() > 0 else None
            label = labels[int(self.rng.choice(len(labels), p=weights))]
            self._play_label(label)
        u = float(self.h.terminal_utility(self.seat))
        bot_key = self.keys[self.bot] or ""
        folded = bool(self.history) and self.history[-1]["action"] in ("f", "fold")
        self._finish(u, not folded, "fold" if folded else "showdown")
        if self.showdown and bot_key:
            self.message = f"showdown: bot holds {_split_key(bot_key)[0]}"

    def _labels(self) -> dict[str, int]:
        return {self.h.action_label(a): a for a in self.h.legal_actions()}

    def _play_label(self, label: str) -> None:
        actions = self._labels()
        self._log(self.h.current_player(), label)
        self.h = self.h.child(actions[label])

    def legal(self) -> list[str]:
        if self.done or self.h.is_terminal() or self.h.current_player() != self.seat:
            return []
        return list(self._labels())

    def act(self, action: str) -> None:
        self._check_action(action)
        self._play_label(action)
        self._advance()

    def view(self) -> dict[str, Any]:
        mine = self.keys[self.seat] or ""
        bot = self.keys[self.bot] or ""
        private, public = _split_key(mine) if mine else ("?", "")
        if self.done and bot:
            bot_public = _split_key(bot)[1]
            public = bot_public if len(bot_public) > len(public) else public
        return {
            "your_cards": [private],
            "bot_cards": [_split_key(bot)[0]] if (self.done and self.showdown and bot) else None,
            "board": public.split() if public else [],
            "info_set": mine,
            "unit": "chips",
        }
