"""The betting-tree backend (kind ``"bucketed"``): limit poker's public betting tree with card
abstraction behind the engine's seam (:mod:`pokerlab.tree.backend`).

:class:`BettingBackend` is a :class:`~pokerlab.tree.betting.layout.BettingLayout` (the flat
``actions x states`` layout and its index, which ``Strategy`` and the strategy files read) with
the cards the passes deal (the deck, its ranks and the abstraction's bucket labels) and the
chance options of a run (:class:`ChanceOptions`: sampled boards, a batch of boards per
iteration, every canonical board, in chunks, the head/worker split). Its
:meth:`~BettingBackend.cfr_state` returns the run of public chance sampling,
:class:`~pokerlab.tree.betting.pcs.PCSState`, which :class:`~pokerlab.solvers.cfr.CFRSolver`
advances like any backend's state: the limit solver is CFR configured with this backend.

The exact evaluations of the protocol (``value``, ``best_response_probs``) need the abstract
game's bucket tables or the real game's cards, which live in ``evaluate/`` (the abstract and
real best responses take a strategy and the abstraction); here they are refused by name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree.betting.layout import BettingIndex, BettingLayout
from pokerlab.tree.betting.pcs import PCSState

__all__ = ["BettingBackend", "ChanceOptions"]


@dataclass(frozen=True)
class ChanceOptions:
    """How a public-chance-sampling run deals the public cards and splits its passes.

    ``chance``: ``"sampled"`` (boards drawn by a generator seeded with ``seed``,
    ``boards_per_iteration`` of them per iteration) or ``"full"`` (every suit-canonical board,
    walked in chunks of ``board_chunk`` boards, None: all at once); ``workers``: threads (or
    actors) that take the subtrees after ``split_round``'s betting; ``lazy_discounts``: keep
    uniform discounts as scales (:class:`~pokerlab.tree._discounts.LazyScale`); ``max_bytes``:
    refuse a run whose storage and scratch would need more."""

    chance: str = "sampled"
    boards_per_iteration: int = 1
    board_chunk: int | None = None
    workers: int = 1
    split_round: int = 0
    seed: int | None = 0
    lazy_discounts: bool = True
    max_bytes: int = 8 << 30


class BettingBackend:
    """The ``"bucketed"`` tree backend: ``layout`` (tree, buckets, states, recall) with the
    ``deck`` (card codes), its ``ranks``, the abstraction's bucket ``labels`` per round (indexed
    by each round's hand-isomorphism index) and the run's :class:`ChanceOptions`.

    ``state_factory(backend, params)`` makes the run's state
    (:class:`~pokerlab.tree.betting.pcs.PCSState` by default; the Ray head passes its own,
    :mod:`pokerlab.distributed.limit_ray`)."""

    kind = BettingLayout.kind
    num_players = 2

    def __init__(
        self,
        layout: BettingLayout,
        deck: np.ndarray,
        ranks: int,
        labels: Sequence[np.ndarray],
        options: ChanceOptions,
        state_factory: Callable[[BettingBackend, np.ndarray], Any] | None = None,
    ) -> None:
        self.layout = layout
        self.tree = layout.tree
        self.deck = np.asarray(deck)
        self.ranks = int(ranks)
        self.labels = labels
        self.options = options
        self.state_factory = state_factory

    # --- the layout's part of the protocol ------------------------------------------------------
    @property
    def size(self) -> int:
        return self.layout.size

    @property
    def player_ranges(self) -> list[tuple[int, int]]:
        """The layout interleaves the players' nodes (preorder): one slice for both."""
        return [(0, self.layout.size), (0, self.layout.size)]

    @property
    def index(self) -> BettingIndex:
        return self.layout.index

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        return self.layout.normalise(sums)

    def uniform(self) -> np.ndarray:
        return self.layout.uniform()

    # --- the run --------------------------------------------------------------------------------
    def cfr_state(self, params: np.ndarray, alternating: bool = True, prune: bool = True) -> Any:
        """A fresh public-chance-sampling run with the schedule ``params``
        (:meth:`~pokerlab.solvers.schedule.DiscountSchedule.as_array`). Updates alternate (one
        pass per player per iteration, the second reading the first's regrets); ``prune`` has
        nothing to act on (a pass carries whole vectors of hands)."""
        if not alternating:
            raise PokerlabError("the betting-tree backend updates alternately (one pass a player)")
        if self.state_factory is not None:
            return self.state_factory(self, params)
        return PCSState(self, params)

    def value(self, probs: np.ndarray, player: int, best: bool) -> float:
        """Refused: the abstract game's values need its bucket tables
        (:func:`pokerlab.evaluate.limit_abstract.abstract_exploitability_mbb`)."""
        raise PokerlabError(
            "a bucketed tree's values are the abstract game's: "
            "pokerlab.evaluate.limit_abstract.abstract_exploitability_mbb(strategy)"
        )

    def best_response_probs(self, probs: np.ndarray, player: int) -> tuple[np.ndarray, float]:
        """Refused, as :meth:`value`."""
        return self.value(probs, player, True), 0.0  # type: ignore[return-value]
