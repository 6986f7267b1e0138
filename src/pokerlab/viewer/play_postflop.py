"""Playing hands against a solved postflop spot (see :mod:`pokerlab.viewer.play` for the
results' conventions, rake included)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, format_card, format_combo
from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import PokerlabError
from pokerlab.viewer.models import PostflopModel
from pokerlab.viewer.play import PlaySession

__all__ = ["PostflopPlay"]


class PostflopPlay(PlaySession):
    """A hand of a solved postflop spot: hands dealt from the two ranges (card removal), turn and
    river from the deck, the bot sampling from the average strategy of its combo."""

    game_name = "postflop"

    def __init__(self, model: PostflopModel, seat: int, seed: int | None = None) -> None:
        super().__init__(model, seat, seed)
        self.pm = model
        self.deal()

    def deal(self) -> None:
        w0, w1 = self.pm.config.weights()
        p0, p1 = w0 / w0.sum(), w1 / w1.sum()
        for _ in range(100_000):
            a = int(self.rng.choice(len(p0), p=p0))
            b = int(self.rng.choice(len(p1), p=p1))
            if not set(COMBO_CARDS[a].tolist()) & set(COMBO_CARDS[b].tolist()):
                break
        else:  # pragma: no cover - ranges that never fit together are refused when built
            raise PokerlabError("could not deal two hands that fit together")
        self.combos = (a, b)
        self.board = [int(c) for c in self.pm.config.board]
        self.line: list[str] = []
        self._new_hand()
        self._advance()

    def _node(self) -> Any:
        return self.pm.action_node(self.line)

    def _advance(self) -> None:
        while True:
            an = self._node()
            if an.kind == "chance":
                used = set(self.board) | set(COMBO_CARDS[self.combos[0]].tolist())
                used |= set(COMBO_CARDS[self.combos[1]].tolist())
                deck = [c for c in self.pm.config.deck if c not in used]
                card = int(deck[int(self.rng.integers(len(deck)))])
                self.board.append(card)
                self.line.append(format_card(card))
                self.history.append({"player": -1, "who": "dealer", "action": format_card(card)})
                continue
            if an.kind == "decision":
                if an.player == self.seat:
                    return
                labels, probs = self.pm.strategy_at(self.line, self.combos[self.bot])
                probs = np.clip(probs, 0.0, None)
                probs = probs / probs.sum() if probs.sum() > 0 else None
                label = labels[int(self.rng.choice(len(labels), p=probs))]
                self._log(an.player, label)
                self.line.append(label)
                continue
            self._terminal(an)
            return

    def _terminal(self, an: Any) -> None:
        c = self.pm.config
        pot0 = float(c.pot)
        pot = pot0 + an.commit[0] + an.commit[1]
        # the rake of the matched pot (the folder's commit, or the equal commits at showdown)
        matched = float(an.commit[an.player] if an.kind == "fold" else an.commit[0])
        rake = float(c.rake_rate) * (pot0 + 2.0 * matched)
        if c.rake_cap is not None:  # None: no cap (issue 28: a cap of 0 is refused with a rate)
            rake = min(rake, float(c.rake_cap))
        raked = f" less rake {rake:.4g}" if rake > 0 else ""
        if an.kind == "fold":
            winner = 1 - int(an.player)
            share = [0.0, 0.0]
            share[winner] = pot - rake
            showdown = False
            who = "you win" if winner == self.seat else "the bot wins"
            message = (
                f"{'the bot' if an.player == self.bot else 'you'} folded: {who} the pot of "
                f"{pot:g}{raked}"
            )
        else:
            v = [evaluate([*COMBO_CARDS[k].tolist(), *self.board]) for k in self.combos]
            if v[0] == v[1]:
                share = [(pot - rake) / 2, (pot - rake) / 2]
                message = f"showdown: split pot{raked}"
            else:
                winner = 0 if v[0] > v[1] else 1
                share = [0.0, 0.0]
                share[winner] = pot - rake
                who = "you win" if winner == self.seat else "the bot wins"
                message = f"showdown: {who} the pot of {pot:g}{raked}"
            showdown = True
        result = share[self.seat] - an.commit[self.seat] - pot0 / 2
        self._finish(result, showdown, message)

    def legal(self) -> list[str]:
        if self.done:
            return []
        an = self._node()
        if an.kind != "decision" or an.player != self.seat:
            return []
        return an.labels()

    def act(self, action: str) -> None:
        self._check_action(action)
        self._log(self.seat, action)
        self.line.append(action)
        self._advance()

    def view(self) -> dict[str, Any]:
        an = self._node()
        pot = float(self.pm.config.pot) + an.commit[0] + an.commit[1]
        show_bot = self.done and self.showdown
        return {
            "your_cards": [format_card(int(c)) for c in COMBO_CARDS[self.combos[self.seat]]],
            "bot_cards": (
                [format_card(int(c)) for c in COMBO_CARDS[self.combos[self.bot]]]
                if show_bot
                else None
            ),
            "your_combo": format_combo(self.combos[self.seat]),
            "board": [format_card(c) for c in self.board],
            "pot": pot,
            "commit": [float(an.commit[0]), float(an.commit[1])],
            "line": list(self.line),
            "unit": "chips",
            "rake": {
                "rate": float(self.pm.config.rake_rate),
                "cap": None if self.pm.config.rake_cap is None else float(self.pm.config.rake_cap),
            },
        }
