"""The seam between tree representations and the code that solves and evaluates on them.

A **tree backend** is one way of storing a game for the kernels: the public tree (vectors over
private states, :mod:`pokerlab.tree.public.tree`), the history tree (one node per history,
:mod:`pokerlab.tree.history.tree`), the postflop vector tree
(:mod:`pokerlab.tree.vector.backend`), the bucketed betting tree
(:mod:`pokerlab.tree.betting.backend`), and later a remote subtree. A backend
owns its arrays, its scratch memory and its passes; solvers
(:class:`~pokerlab.solvers.cfr.CFRSolver`) and evaluators
(:mod:`pokerlab.evaluate.exploitability`) only call the methods below and never look at the
backend's type, so a new kind plugs in without editing them.

The contract, in the words of the solver-array layout every backend defines:

* A **flat array** of length :attr:`TreeBackend.size` holds one number per (information set,
  action): regrets, strategy sums and behaviour probabilities all share this layout.
  ``player_ranges[p] = (start, stop)`` is the slice owned by player ``p`` (discounting works on
  these slices).
* The **index** (:class:`InfosetIndexLike`) names the information sets: information set ``k``
  has key ``keys[k]``, ``num_actions[k]`` actions labelled ``labels[k]``, acting player
  ``player[k]``, and its numbers at ``positions(k)`` in the flat arrays. An index may be lazy
  (a postflop tree has millions of information sets): ``keys`` may be a lazy sequence and
  ``find`` may parse the key instead of looking it up in a dictionary.
* :meth:`TreeBackend.cfr_state` returns a :class:`CFRState`: the regrets, strategy sums and the
  traversal scratch of one full-width CFR run, all owned by the backend, advanced by
  :meth:`CFRState.run`. ``params`` is :meth:`pokerlab.solvers.schedule.DiscountSchedule.as_array`.
* :meth:`TreeBackend.value` and :meth:`TreeBackend.best_response_probs` are the exact
  evaluations (expected value of a profile, value of a best response and the best response
  itself), computed by passes independent of any solver's internals.

Both protocols are structural (:class:`typing.Protocol`): a backend does not inherit from them.
They are ``runtime_checkable`` so tests can assert that a backend satisfies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["InfosetIndexLike", "CFRState", "SubtreeSeam", "TreeBackend"]


@runtime_checkable
class InfosetIndexLike(Protocol):
    """Names and flat-array positions of a backend's information sets.

    Columns (``keys``, ``labels``, ``num_actions``, ``player``) are indexable by information-set
    number ``k`` in ``range(len(index))``; they may be NumPy arrays, lists or lazy sequences.
    """

    @property
    def keys(self) -> Sequence[str]:
        """Readable key of every information set, in layout order (``"K:pb"``, ``"Qs|Kh:rc/r"``)."""
        ...

    @property
    def labels(self) -> Sequence[tuple[str, ...]]:
        """Action labels of every information set."""
        ...

    @property
    def num_actions(self) -> Any:
        """Number of actions of every information set (indexable by ``k``; ints)."""
        ...

    @property
    def player(self) -> Any:
        """Acting player of every information set (indexable by ``k``; ints)."""
        ...

    def __len__(self) -> int:
        """Number of information sets."""
        ...

    def find(self, key: str) -> int:
        """Number ``k`` of the information set with readable ``key``; KeyError naming it if none."""
        ...

    def positions(self, k: int) -> np.ndarray:
        """Flat-array positions (int64) of the actions of information set ``k``, in label order."""
        ...


@runtime_checkable
class CFRState(Protocol):
    """A full-width CFR run's arrays and scratch on one backend (owned by the backend).

    Created by :meth:`TreeBackend.cfr_state`. The arrays returned by :meth:`regrets`,
    :meth:`strategy_sum` and :meth:`arrays` are the live storage (views, not copies): writing
    into them (a checkpoint being loaded) changes the run.
    """

    def run(self, first_iteration: int, iterations: int) -> int:
        """Run ``iterations`` CFR iterations numbered from ``first_iteration`` (1-based; the
        discount schedule reads the number). ``iterations = 0`` only compiles or loads the
        kernels. Returns the number of nodes touched."""
        ...

    def strategy_sum(self) -> np.ndarray:
        """The cumulative (discounted) strategy sums, flat, in the backend's layout."""
        ...

    def regrets(self) -> np.ndarray:
        """The cumulative (discounted) regrets, flat, in the backend's layout."""
        ...

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array that makes up the run's state, by name (for checkpoints; live views)."""
        ...


@runtime_checkable
class SubtreeSeam(Protocol):
    """The subtree seam of a backend whose passes split at subtree roots (the vector tree's
    split chance nodes, the betting tree's rounds): a pass walks the part above the roots to
    collect the reach rows entering each subtree, gets the subtrees' value rows from
    :meth:`subtree_values`, and walks the top part again reading them.

    :attr:`pool` (a :class:`~pokerlab.tree.executors.WorkerPool`) runs the subtrees, each
    worker its share: threads of this process by default; a state whose subtrees live
    elsewhere (on Ray actors: the limit solver's, :mod:`pokerlab.distributed.limit_ray`, and
    the postflop solver's, :mod:`pokerlab.distributed.postflop_ray`) overrides
    :meth:`subtree_values` instead. Results do not depend on the executor or the worker count.
    """

    pool: Any

    def subtree_values(self, traverser: int, *args: Any, **kwargs: Any) -> Any:
        """For ``traverser``: from each subtree's reach rows its value row (updating the
        subtree's storage in a CFR pass). The other arguments are the backend's pass context
        (:meth:`pokerlab.tree.vector.passes.Passes.subtree_values`,
        :meth:`pokerlab.tree.betting.pcs.PCSState.subtree_values`)."""
        ...


@runtime_checkable
class TreeBackend(Protocol):
    """A stored game tree with its solver-array layout, index, scratch memory and passes.

    Attributes
    ----------
    kind:
        Name of the representation: ``"public"``, ``"history"``, ``"postflop"``,
        ``"bucketed"``...
    num_players:
        Number of players.
    size:
        Length of the flat solver arrays (numbers per regret table).
    player_ranges:
        ``[(start, stop), ...]``: the slice of the flat arrays owned by each player.
    """

    kind: str
    num_players: int
    size: int
    player_ranges: list[tuple[int, int]]

    @property
    def index(self) -> InfosetIndexLike:
        """The information-set index (built once, possibly lazily)."""
        ...

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Per-information-set normalisation of non-negative flat ``sums`` (float64 out; uniform
        where an information set's sums are all 0)."""
        ...

    def uniform(self) -> np.ndarray:
        """Flat float64 array of the uniform strategy (1 / actions at every information set)."""
        ...

    def cfr_state(self, params: np.ndarray, alternating: bool, prune: bool) -> CFRState:
        """A fresh full-width CFR run (zero regrets and sums) with discount ``params``
        (:meth:`~pokerlab.solvers.schedule.DiscountSchedule.as_array`), alternating or
        simultaneous updates, with or without zero-reach pruning."""
        ...

    def value(self, probs: np.ndarray, player: int, best: bool) -> float:
        """Exact expected payoff of ``player`` (game units) when everyone follows the flat
        profile ``probs`` (``best=False``), or when ``player`` best-responds to the others'
        part of it (``best=True``)."""
        ...

    def best_response_probs(self, probs: np.ndarray, player: int) -> tuple[np.ndarray, float]:
        """A pure best response of ``player`` to the others' part of ``probs``: the flat profile
        equal to ``probs`` for the other players, and the best response's value. Ties go to the
        first action."""
        ...
