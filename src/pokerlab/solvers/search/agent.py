"""The search agent: a no-limit blueprint refined by real-time search during play (issue 25,
Brown and Sandholm, "Superhuman AI for multiplayer poker", Science 2019, and its supplement;
BLUEPRINT.md 1.4-1.8).

At a heads-up decision on a street where search is on, :class:`SearchAgent` builds the subgame
that starts with the current round as a postflop spot (:mod:`pokerlab.games.postflop`) and
solves it on the engine's vector tree (:class:`~pokerlab.solvers.postflop.PostflopSolver`):

- **root**: the board showing, the pot and the effective stack when the round began;
- **ranges**: both seats' hands weighted by Bayes' rule over the actual actions before the
  round under the strategy played there: in a round the agent searched, that round's subgame
  solution (both seats: the previous search, as Pluribus' nested search), elsewhere the
  blueprint, an off-tree size as likely as the tree's sizes it reads as (:meth:`BlueprintAgent.
  belief_probability <pokerlab.evaluate.nolimit.blueprint.BlueprintAgent.belief_probability>`);
  both ranges floored at :data:`RANGE_FLOOR` of their largest weight so that every hand has a
  strategy (and a subgame does not depend on which seat asks);
- **cards**: lossless in every round of the subgame (the spot deals the rules' deck, small
  decks too);
- **actions**: the search menu (:class:`SearchMenu`, per street: first bets and raises) plus
  every size actually played in the round so far that the menu lacks (Pluribus adds the
  opponent's off-tree size to the subgame); no merging of close sizes and no forced all-ins, so
  the actual line is always in the tree; the raise cap grows to the line's raises;
- **depth**: to the end of the game (the river spot has no chance node; a turn spot deals the
  river exactly), or with ``depth="round"`` (or naming streets) a preflop, flop or turn subgame
  to the end of its round, the opponent picking among continuations of the blueprint there
  (:mod:`.table_depth`);
- **gadget**: unsafe (both ranges as Bayes' rule says, the subgame solved as it is; the
  default), or resolve / maxmargin / reach-maxmargin (river only: gifts from the turn) for the
  seat on move against the opponent's CBVs under the blueprint (:mod:`.safe`, :mod:`.table_gifts`).

The solution is kept per subgame (the round's first public state and the bet sizes and raise
limit of its tree), so a second decision in the same round reads the same solve unless the
opponent's new size forces a new one (nested re-solving). That new solve freezes the agent's own
earlier actions in the round for the hand it holds (``freeze=True``, as Pluribus;
:mod:`pokerlab.solvers.search.freeze`), so it is one solve per hand held; the ranges and
:meth:`SearchAgent.action_probability` (a range at once, as LBR and the exact best response
ask) read the subgame solved without the freeze. The budget is a number of CFR iterations per
subgame (deterministic) or wall seconds. Outside the search streets and at tables of more than
two players the blueprint plays. A preflop subgame starts at the hand's root: to the end of the
game it is the whole hand (small decks); depth-limited, its leaves are the flops, drawn on the
full deck (``deal_sample`` with a flop count); with ``preflop_far`` it is searched only once the
opponent's size is that far from the blueprint's (Pluribus' rule).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_INDEX, format_card
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import Action, NoLimitAgent, PublicView, normalize_action
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.solvers.search.cache import (
    Refusals,
    SearchRecord,
    Solved,
    SubgameCache,
    SubgameTooLarge,
    held_bytes,
)
from pokerlab.solvers.search.freeze import freeze_hand, frozen_decisions
from pokerlab.solvers.search.lines import line_node, node_strategy, real_action
from pokerlab.solvers.search.menu import (
    SEARCH_STREETS,
    SPOT_STREETS,
    SearchMenu,
    far_off_tree,
    spot_oop,
    street_budgets,
)
from pokerlab.solvers.search.round_subgames import RANGE_FLOOR, RoundSubgames
from pokerlab.solvers.search.safe import safe_solve
from pokerlab.solvers.search.table_depth import check_depth_settings, table_bytes, table_depth_solve
from pokerlab.solvers.search.table_gifts import river_gifts

__all__ = ["RANGE_FLOOR", "SEARCH_STREETS", "SearchAgent", "SearchMenu", "SearchRecord"]


class SearchAgent(NoLimitAgent, RoundSubgames):
    """The blueprint agent ``blueprint`` with real-time search on ``streets`` (module
    docstring).

    Parameters
    ----------
    blueprint:
        The :class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent` to refine.
    streets:
        Where to search: names of :data:`SEARCH_STREETS` (default the river only).
    menu:
        The search's bet sizes (:class:`SearchMenu`).
    iterations:
        DCFR iterations per subgame (the deterministic budget), default 100.
    seconds:
        A wall-time budget per subgame instead (then the solve stops at the first iteration
        past it; results depend on the machine): one for every street, or per street name
        (``{"turn": 1.7}``: the turn by time, the other streets by ``iterations``).
    threads:
        Threads of the subgame's solve (the turn's river subtrees).
    cache, cache_bytes:
        Subgames kept (least recently used dropped), and the most bytes they may hold (default:
        whatever leaves room in memory for the next; :mod:`~pokerlab.solvers.search.cache`).
    ranges:
        ``"search"`` (default): the ranges at a round's start follow the strategies played
        before it, the searches' in the rounds the agent searched (both seats: the solved
        subgame's) and the blueprint's elsewhere; ``"blueprint"``: the blueprint's throughout.
    freeze:
        Re-solving a round where it has acted, lock the agent's earlier actions there to the
        actions taken for the hand it holds (default; :mod:`~pokerlab.solvers.search.freeze`);
        ``False``: the new solve leaves them free.
    gadget:
        ``"unsafe"`` (default), ``"resolve"``, ``"maxmargin"`` (:mod:`.safe`) or
        ``"reach-maxmargin"`` (the river alone; :mod:`.table_gifts`).
    depth, continuations, bias, self_rounds, self_tolerance:
        Where a subgame ends (``"end"``, ``"round"`` for the preflop, flop and turn, or the
        streets named, ``"preflop,flop"``) and what the opponent picks among there
        (:mod:`.table_depth`).
    deal_sample:
        With a depth limit: ``(turn, river)`` or ``(flop, turn, river)``, the cards each deal
        below the leaves draws (the flop's count at each of its three deals; at least 3 each;
        public chance sampling, drawn once per subgame from its public state, each hand's
        chance mass renormalised: :mod:`.table_depth`); None deals every card.
    deal_draws:
        With ``deal_sample``: that many sampled spots of other draws take a solve's iterations
        in turn (K draws seen at one draw's cost per iteration; 1, or 4 continuations).
    preflop_far:
        With ``"preflop"`` in ``streets``: search a preflop decision only once the opponent has
        bet or raised more than this many big blinds away from every blueprint size at its node
        (:func:`~pokerlab.evaluate.nolimit.translation.off_tree_gap`; Pluribus: $100, one big
        blind), the blueprint playing the other preflop decisions; None (default): search every
        preflop decision.
    """

    def __init__(
        self,
        blueprint: BlueprintAgent,
        streets: tuple[str, ...] | list[str] | str = ("river",),
        menu: SearchMenu | None = None,
        iterations: int = 100,
        seconds: float | dict[str, float] | None = None,
        threads: int = 1,
        cache: int = 64,
        cache_bytes: int | None = None,
        name: str | None = None,
        ranges: str = "search",
        freeze: bool = True,
        gadget: str = "unsafe",
        depth: str = "end",
        continuations: int | str = 1,
        bias: float = 5.0,
        self_rounds: int = 3,
        self_tolerance: float | None = None,
        deal_sample: tuple[int, ...] | None = None,
        deal_draws: int = 1,
        preflop_far: float | None = None,
    ) -> None:
        if not isinstance(blueprint, BlueprintAgent):
            raise PokerlabError(f"SearchAgent refines a BlueprintAgent, got {blueprint!r}")
        if isinstance(streets, str):
            streets = [s.strip() for s in streets.split(",") if s.strip()]
        for s in streets:
            if s not in SEARCH_STREETS:
                raise PokerlabError(
                    f"unknown search street {s!r}; choose among {', '.join(SEARCH_STREETS)}"
                )
        game = blueprint.strategy.game  # type: ignore[attr-defined]
        self.rules = game.rules
        self.streets = tuple(sorted({SEARCH_STREETS[s] for s in streets}))
        if self.rules.rounds != 4 and self.streets:
            raise PokerlabError(
                f"search needs the four rounds of hold'em; this game has {self.rules.rounds}"
            )
        #: the streets whose subgames stop at the end of their round (:attr:`depth`); the cards
        #: drawn below a depth-limited subgame's leaves (None: every card; :mod:`.table_depth`)
        self._depth_streets, self.deal_sample, self.preflop_far = check_depth_settings(
            self.rules, self.streets, gadget, depth, continuations, bias, self_rounds,
            self_tolerance, deal_sample, deal_draws, preflop_far,
        )  # fmt: skip
        #: sampled spots of other draws solved in turn per subgame (:mod:`.table_depth`)
        self.deal_draws = int(deal_draws)
        if ranges not in ("search", "blueprint"):
            raise PokerlabError(f"ranges: unknown {ranges!r}; choose search or blueprint")
        #: where the ranges of earlier rounds come from: the searches played there, or always
        #: the blueprint
        self.ranges = ranges
        if not isinstance(freeze, bool):
            raise PokerlabError(f"freeze must be True or False, got {freeze!r}")
        #: whether a re-solve locks the agent's earlier actions in the round for its hand
        self.freeze = freeze
        self.gadget = gadget
        #: where a subgame ends (:mod:`.table_depth`): ``"end"`` of the game or
        #: of the ``"round"``, the opponent then picking among ``continuations`` (1, 4 biased
        #: by ``bias``, or ``"self"``: up to ``self_rounds`` best responses, ``self_tolerance``)
        self.depth = depth
        self.continuations = continuations
        self.bias = float(bias)
        self.self_rounds = int(self_rounds)
        self.self_tolerance = self_tolerance
        self._gifts: dict[tuple[Any, ...], Any] = {}  # reach-maxmargin's, per turn line
        self._seat = 0  # the seat searching: the one on move at the public call
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise PokerlabError(f"iterations must be a positive integer, got {iterations!r}")
        self.blueprint = blueprint
        self.menu = menu or SearchMenu()
        self.iterations = int(iterations)
        #: the time budget per street number (streets absent: ``iterations``)
        self.seconds = street_budgets(seconds, self.streets)
        self.threads = int(threads)
        self.name = name or f"search({','.join(SPOT_STREETS[s] for s in self.streets)})"
        self._cache = SubgameCache(cache, cache_bytes)
        self._ranges: dict[tuple[Any, ...], np.ndarray] = {}
        self._lines: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[str, str, int]]] = {}
        self._games: dict[tuple[Any, ...], Any] = {}
        self._texts: dict[tuple[Any, ...], list[str]] = {}
        #: one record per subgame solved, in order
        self.records: list[SearchRecord] = []
        #: (line, street) where a subgame did not fit in memory: the blueprint played the rest
        #: of that round
        self.refusals = Refusals()
        #: per decision at the table (:meth:`policy`): street, wall seconds end to end (ranges,
        #: subgame, solve), whether it solved a new subgame
        self.decisions: list[tuple[int, float, bool]] = []
        self._warm = False

    def warmup(self) -> float:
        """Compile or load every kernel the agent's searches call (the solver's passes on its
        thread count; with a safe gadget the gadgets' loops and best responses,
        :func:`~pokerlab.solvers.search.everywhere.warm_search`) on tiny spots, so that the
        first decision at the table is timed like the others; returns the seconds it took."""
        from pokerlab.solvers.postflop import postflop_schedule
        from pokerlab.solvers.postflop_solve import warm_kernels
        from pokerlab.solvers.search.everywhere import warm_search

        start = time.perf_counter()
        warm_kernels(self.threads, False, postflop_schedule("dcfr-ps"))
        if self.gadget != "unsafe" or self._depth_streets:  # and the blueprint's projection
            from pokerlab.evaluate.nolimit._projection_kernels import warm_projection

            warm_search(self.threads)
            warm_projection()
        self._warm = True
        return time.perf_counter() - start

    # --- the agent interface (the round's subgame: RoundSubgames) ---------------------------
    def searches(self, view: PublicView) -> bool:
        """Whether the agent searches at ``view`` (else the blueprint plays): heads-up, on a
        search street; facing an all-in too (the round's subgame has that line; leaving it to
        the blueprint, as the agent once did, answered the search's ranges with the
        blueprint's calls: T4 at 3 bb, flop to river search, 88.2 mbb/g against 28.9)."""
        if self.rules.players != 2 or view.state.street not in self.streets:
            return False
        if self.refusals.covers(view):
            return False
        if view.state.street == 0 and self.preflop_far is not None:
            return far_off_tree(self.blueprint, view, self.preflop_far)
        return True

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        if not self.searches(view):
            return self.blueprint.policy(view, hole)
        t0, solves, self._seat = time.perf_counter(), len(self.records), view.state.to_act
        try:
            probs, acts = self._decision(view, np.asarray([hole], dtype=np.int64), hole)
        except SubgameTooLarge as exc:
            self.refusals.add(view, exc)
            return self.blueprint.policy(view, hole)
        self.decisions.append(
            (view.state.street, time.perf_counter() - t0, len(self.records) > solves)
        )
        out: dict[Action, float] = {}
        for action, p in zip(acts, probs[0], strict=True):
            out[action] = out.get(action, 0.0) + float(p)
        return out

    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        if not self.searches(view):
            return self.blueprint.action_probability(view, hands, action)
        self._seat = view.state.to_act
        return self._probability(view, hands, action)

    def _probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        """:meth:`action_probability` for the seat searching now (:attr:`_seat`)."""
        if not self.searches(view):
            return self.blueprint.action_probability(view, hands, action)
        key = normalize_action(view, action, self.name)
        hands = np.asarray(hands, dtype=np.int64)
        try:
            probs, acts = self._decision(view, hands)
        except SubgameTooLarge as exc:
            self.refusals.add(view, exc)
            return self.blueprint.action_probability(view, hands, action)
        cols = [i for i, a in enumerate(acts) if a == key]
        return probs[:, cols].sum(axis=1) if cols else np.zeros(len(hands))

    def _decision(
        self, view: PublicView, hands: np.ndarray, hole: tuple[int, int] | None = None
    ) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """The searched strategy at ``view`` for each row of ``hands``: probabilities ``(H, A)``
        over the real actions of the same order (canonical; two may coincide after clamping).
        ``hole``: the hand the agent holds (its earlier decisions of the round that another
        subgame made are frozen for it, :attr:`freeze`); None: the solve without the freeze."""
        prefix, moves = self._round_start(view)
        (inserted, sizes), game = self._subgame(view, prefix, moves)
        frozen: tuple[int, ...] = ()
        if self.freeze and hole is not None:
            frozen = frozen_decisions(
                view.state.to_act, moves, lambda i: self._subgame(view, prefix, moves[:i])[0][1]
            )
        key: tuple[Any, ...] = (prefix, view.board, sizes, self._seat, self.gadget)
        if self._plain(view.state.street):
            key = key[:3]
        if frozen:  # one solve per hand held and actions frozen
            key += (tuple(sorted(hole or ())), tuple((i, *moves[i][1:3]) for i in frozen))
        solved = self._cache.get(key)
        if solved is None:
            if game is None:
                game = self._game(view, prefix, sizes)
            need = table_bytes(self, game, view.state.street)
            if self._cache.make_room(need):  # built games hold trees too
                self._games.clear()
            if not self._plain(view.state.street):  # an estimate of what is resident
                street = SPOT_STREETS[view.state.street]
                self._cache.check_fits(need, f"{self.name}: the depth-limited {street} subgame")
            solved = self._solve(view, game, inserted, (prefix, moves), frozen, hole)
            solved.nbytes = held_bytes(solved.solver)
            self._cache.put(key, solved)
        node = line_node(solved.spot, solved.solver.game.action_tree, moves)
        if node not in solved.strategies:
            solved.strategies[node] = node_strategy(solved.solver, solved.spot, node)
        probs_by_combo, present, spot_acts = solved.strategies[node]
        rows = present[COMBO_INDEX[hands[:, 0], hands[:, 1]]]
        if (rows < 0).any():
            bad = hands[int(np.flatnonzero(rows < 0)[0])]
            raise PokerlabError(
                f"{self.name}: seat {view.state.to_act} cannot hold "
                f"{format_card(int(bad[0]))}{format_card(int(bad[1]))} here"
            )
        acts = [real_action(self.rules, view.state, kind, a) for kind, a in spot_acts]
        return probs_by_combo[rows], acts

    def _limited(self, street: int) -> bool:
        """Whether a subgame starting on ``street`` stops at the end of its round."""
        return street in self._depth_streets

    def _plain(self, street: int) -> bool:
        """Whether a subgame starting on ``street`` is solved as it is, to the end of the game,
        the same for both seats: unsafe search, and a preflop search to the end (the whole
        hand: no history to be safe against)."""
        return not self._limited(street) and (street == 0 or self.gadget == "unsafe")

    def _solve(
        self, view: PublicView, game: Any, inserted: tuple[int, ...], line: tuple[Any, Any],
        frozen: tuple[int, ...], hole: tuple[int, int] | None,
    ) -> Solved:  # fmt: skip
        """Solve the subgame ``game`` within the budget, the round's decisions ``frozen``
        (indices into the round's moves; ``line``: the actions before the round and the
        round's moves) locked for ``hole`` to the actions taken."""
        from pokerlab.solvers.postflop import PostflopSolver

        prefix, moves = line
        t0 = time.perf_counter()
        solver = PostflopSolver(game, "dcfr", threads=self.threads, warmup=not self._warm)
        self._warm = True  # the kernels are compiled: later subgames skip the warm-up passes
        locked = freeze_hand(solver, moves, frozen, hole) if frozen and hole else []
        budget = self.seconds.get(view.state.street)
        deadline = None if budget is None else t0 + budget
        if not self._plain(view.state.street):  # the budget counts the CBVs or continuations
            if self.gadget != "unsafe":
                safe_solve(self, solver, view, prefix, moves, deadline, river_gifts)
            else:
                table_depth_solve(self, solver, view, prefix, moves, deadline)
        elif budget is None:
            solver.step(self.iterations)
        else:
            solver.solve(seconds=budget)
        self.records.append(
            SearchRecord(
                street=view.state.street,
                board=view.board,
                iterations=solver.iterations,
                seconds=time.perf_counter() - t0,
                inserted=inserted,
                nodes=int(solver.tree.arrays.kind.shape[0]),
                frozen=tuple(locked),
            )
        )
        return Solved(solver, solver.spot, spot_oop(self.rules))
