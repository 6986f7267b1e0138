"""Local best response (LBR) against a heads-up limit hold'em agent, in mbb/g with a 95% interval.

Local best response (V. Lisy and M. Bowling, "Equilibrium Approximation Quality of Current
No-Limit Poker Bots", AAAI-17 Workshop on Computer Poker and Imperfect Information Games, 2017;
arXiv:1612.07547) is an exploiting player that needs no game tree: it plays real hands against
the agent and at each of its decisions looks only one action ahead, assuming that after that
action the hand is checked (or called) down to the showdown. It is a real strategy, so its
expected winnings are a lower bound on the agent's exploitability (what an exact best response
wins), and it is cheap enough for the full 52-card game where no exact best response fits.

What LBR keeps, per hand. The agent's **range**: a weight ``w_h`` for each hole-card pair ``h``
the agent may hold, 1 at the start for every pair that meets neither LBR's cards nor (as they
are dealt) the board, 0 otherwise. When the agent takes action ``a`` at a decision ``n``, each
weight is multiplied by the agent's probability of ``a`` there with ``h`` (Bayes' rule; the
agent's table is read with ``h``'s private state on this board: its bucket, or bucket
sequence). LBR knows the agent's strategy, not its cards.

What LBR computes at each of its decisions, with ``P`` the pot (both players' chips so far),
``A`` the amount LBR must put in to call (0 when it may check) and ``B`` the bet size of the
round (the raise beyond the call: 1 big blind preflop and on the flop, 2 on the turn and river):

- ``WP``: LBR's probability of winning plus half its probability of tying at a showdown against
  the range, the rest of the board dealt at random: ``WP = sum_h w_h E[win + tie/2 | h] /
  sum_h w_h``, the expectation over the board completions that meet neither hand. Preflop it is
  exact from a hand-against-hand equity table (the full deck: the shipped table of
  :mod:`pokerlab.cards.preflop`; smaller decks: enumerated once over every board). After the
  flop it is exact enumeration of every completion when (completions x live range hands) is at
  most ``exact_limit`` (every decision on the 16- and 24-card decks, the full deck's turn and
  river), else a Monte Carlo estimate over ``rollouts`` completions drawn from the unseen cards
  (the full deck's flop: 1,081 completions x about 1,081 hands = 1.2 M evaluations per decision
  exactly, 256 x 1,081 sampled). Sampling makes LBR's choices a little noisier; any choice
  rule is still a strategy, so the lower bound stays valid.
- ``fp``: the probability that the agent folds to LBR's raise, ``sum_h w_h f_h / sum_h w_h``
  with ``f_h = sigma(h, n', fold)`` at the agent's decision ``n'`` after the raise (0 where it
  cannot fold).
- the utilities relative to folding now (folding forfeits what LBR has put in, utility 0):

  - ``u(call) = WP * P - (1 - WP) * A`` (win: LBR gets back the whole pot, its own chips
    included; lose: it loses the call; a tie is counted as half of each);
  - ``u(raise) = fp * P + (1 - fp) * (WP' * (P + B) - (1 - WP') * (A + B))`` (the agent folds
    and LBR takes the pot, or the agent calls and the pot grows by ``B`` from each side; a
    re-raise is not foreseen), where ``WP'`` is LBR's equity against the hands that do not
    fold, the range weighted by ``w_h (1 - f_h)``: LBR's own model taken hand by hand (each
    hand folds with its probability, the others are checked down), as the open
    implementations of the paper's Algorithm 1 roll it out (E. Steinberger's PokerRL,
    ``eval/lbr``, among them). The kernel sums ``sum_h w_h (f_h P + (1 - f_h) (eq_h (P + A +
    2B) - (A + B))) / sum_h w_h``, the same number. ``WP`` against the whole range instead
    counts the equity LBR has against the hands that fold, and raises into the hands that call
    (``tests/test_limit_lbr.py`` plays such an agent, a river bluffer);

  LBR raises when ``u(raise) > u(call)``, else calls (checks), and folds instead when it may fold
  and neither utility is positive (the paper's rule: fold when no action has positive value).

Playing. Each deal is played twice with the cards staying with the seats (duplicate, as in
:mod:`pokerlab.evaluate.limit_matches`): LBR in seat 0 against the agent in seat 1, then the
agent in seat 0 with seat 0's cards and LBR in seat 1 with seat 1's cards, so much of the luck
of the cards cancels in the pair's sum (the same deals and agent draws as ``duplicate_match``
with the same seed). The result is LBR's mean per game in milli big blinds with a 95%
interval from the normal approximation over the pair sums (``1.96 * sd / sqrt(pairs)``).
Seeds follow :mod:`pokerlab._rng`: ``generator(seed)`` draws the deals and the agent's
uniforms; the rollouts of deal ``i`` draw from its own xoshiro state (row ``i`` of
``seed_states(child_seeds(seed, 1)[0], pairs)``), so deals run in parallel with the same
result on any number of threads.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numba
import numpy as np

from pokerlab._rng import SeedLike, child_seeds, generator, seed_int, seed_states
from pokerlab.cards.evaluator import eval_tables, evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.evaluate import _limit_lbr_kernels as K
from pokerlab.evaluate.duplicate import DuplicateEstimate, duplicate_estimate
from pokerlab.evaluate.limit_matches import MAX_DECISIONS, LimitAgent, deal_cards
from pokerlab.evaluate.limit_strategy import deck_hands
from pokerlab.games.limit_holdem import LimitHoldemGame

__all__ = [
    "LBRResult",
    "local_best_response",
    "deck_hands",
    "preflop_equities",
    "hand_states",
    "EXACT_LIMIT",
    "ROLLOUTS",
]

#: Largest (board completions x live range hands) that LBR's WP enumerates exactly.
EXACT_LIMIT = 250_000
#: Board completions drawn for WP beyond :data:`EXACT_LIMIT` (the full deck's flop).
ROLLOUTS = 256

_SHOWN = (0, 3, 4, 5)


@lru_cache(maxsize=4)
def preflop_equities(ranks: int) -> np.ndarray:
    """Preflop equity (win + tie / 2, all five board cards to come) of hand ``i`` against hand
    ``j`` of :func:`deck_hands` on a deck of ``ranks`` ranks, ``(H, H)`` float64, 0 where they
    share a card. The full deck reads the exact shipped table (:mod:`pokerlab.cards.preflop`);
    smaller decks are enumerated over every board (about a second on 24 cards)."""
    deck = np.arange(52 - 4 * ranks, 52, dtype=np.int64)
    hands = np.array(list(itertools.combinations(deck.tolist(), 2)), dtype=np.int64)
    if ranks == 13:
        from pokerlab.cards.deck import COMBO_INDEX
        from pokerlab.cards.preflop import equity_matrix

        ids = np.asarray(COMBO_INDEX)[hands[:, 0], hands[:, 1]].astype(np.int64)
        table = np.nan_to_num(np.asarray(equity_matrix())[np.ix_(ids, ids)], nan=0.0)
    else:
        table = np.zeros((len(hands), len(hands)))
        K.preflop_equity_table(hands, deck, *_eval_args(), table)
    table.setflags(write=False)
    return table


def _eval_args() -> K.EvalArrays:
    t = eval_tables()
    return K.EvalArrays(t.card_key, t.card_bit, t.flush, t.disp, t.values)


def hand_states(agent: LimitAgent, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """The agent's private state in each round for every hand on every board: int64 ``(D, H,
    4)`` from ``hands`` (H, 2) and ``boards`` (D, 5); -1 where the hand meets the round's board
    (the first 0, 3, 4, 5 cards). A hand that meets only later board cards still gets its state
    in the earlier rounds: it is computed on a board whose later cards are replaced by cards
    that meet neither (the agent's round-``r`` state reads only the first cards)."""
    d_count, h_count = boards.shape[0], hands.shape[0]
    out = np.full((d_count, h_count, 4), -1, dtype=np.int64)
    if d_count == 0:
        return out
    meets = (hands[None, :, None, 0] == boards[:, None, :]) | (
        hands[None, :, None, 1] == boards[:, None, :]
    )  # (D, H, 5)
    rows_h = np.broadcast_to(hands[None], (d_count, h_count, 2))
    rows_b = np.broadcast_to(boards[:, None, :], (d_count, h_count, 5))
    free = ~meets.any(axis=2)
    if free.any():
        got = np.asarray(agent.states(rows_h[free], rows_b[free]))
        out[free] = got
    # spare cards per deal: seven cards of the deck beyond the board (a hand holds at most two)
    lowest = int(min(hands.min(), boards.min()))
    deck = np.arange(lowest, 52, dtype=np.int64)
    off_board = ~(deck[None, :, None] == boards[:, None, :]).any(axis=2)
    spare7 = np.stack([deck[row][:7] for row in off_board])  # (D, 7)
    for r in range(3):
        k = _SHOWN[r]
        need = meets[:, :, k:].any(axis=2) & ~meets[:, :, :k].any(axis=2)
        if not need.any():
            continue
        di, hi = np.nonzero(need)
        spare = spare7[di]
        ok = ~((spare == hands[hi, 0:1]) | (spare == hands[hi, 1:2]))
        order = np.argsort(~ok, axis=1, kind="stable")[:, : 5 - k]
        fake = boards[di].copy()
        fake[:, k:] = np.take_along_axis(spare, order, axis=1)
        got = np.asarray(agent.states(hands[hi], fake))
        out[di, hi, r] = got[:, r]
    return out


@dataclass
class LBRResult(DuplicateEstimate):
    """LBR's result against an agent: mean in mbb per game and the 95% interval half-width."""

    agent: str
    pairs: int
    mbb_per_game: float
    ci95_mbb: float
    seed: int
    seconds: float
    actions: dict[str, int]  # LBR's folds, calls (checks), raises (bets)
    sampled_rounds: int  # (game, round)s whose equities were Monte Carlo estimates
    exact_limit: int
    rollouts: int
    pair_values: np.ndarray = field(repr=False)  # LBR's sum over each pair's two games (bb)
    seat_means: tuple[float, float] = (0.0, 0.0)  # LBR's mean per game in each seat (mbb)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able fields (no per-pair values)."""
        return {
            "agent": self.agent,
            **self.estimate_dict(),
            "seat_mbb": list(self.seat_means),
            "seed": self.seed,
            "seconds": self.seconds,
            "actions": dict(self.actions),
            "sampled_rounds": self.sampled_rounds,
            "exact_limit": self.exact_limit,
            "rollouts": self.rollouts,
        }


def local_best_response(
    game: LimitHoldemGame,
    agent: LimitAgent,
    pairs: int,
    seed: SeedLike = 0,
    *,
    exact_limit: int = EXACT_LIMIT,
    rollouts: int = ROLLOUTS,
    block: int | None = None,
    threads: int | None = None,
) -> LBRResult:
    """Play ``pairs`` duplicate pairs (``2 * pairs`` games) of LBR against ``agent`` and return
    LBR's mean winnings in mbb per game with a 95% normal-approximation interval over the pairs
    (see the module docstring for the rule). ``exact_limit``: the most evaluations (board
    completions x live range hands) WP enumerates exactly; beyond it ``rollouts`` sampled
    completions (0: always exact). ``block``: deals per kernel call (memory: ``block x H x 4``
    states). ``threads``: numba threads playing the deals of a block in parallel (default: all
    of numba's, i.e. every core); each deal draws its sampled boards from its own generator, so
    the result is the same for any number of threads."""
    if int(pairs) < 2:
        raise PokerlabError(f"local_best_response: pairs must be at least 2, got {pairs!r}")
    if game.rules.rounds != 4:
        raise PokerlabError("local_best_response: needs the four-round game")
    if int(exact_limit) < 0 or int(rollouts) < 0:
        raise PokerlabError(
            f"local_best_response: exact_limit and rollouts must be >= 0, got "
            f"{exact_limit!r}, {rollouts!r}"
        )
    t0 = time.perf_counter()
    pairs = int(pairs)
    seed_value = seed_int(seed)
    rng = generator(seed_value)
    cards = deal_cards(game, pairs, rng)
    uniforms = rng.random((pairs, MAX_DECISIONS))
    rng_states = seed_states(child_seeds(seed_value, 1)[0], pairs)
    hands = deck_hands(game)
    h_count = len(hands)
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(hands)}
    seat_hand = np.array(
        [[index[(int(c[0]), int(c[1]))], index[(int(c[2]), int(c[3]))]] for c in cards],
        dtype=np.int64,
    )
    hand_mask = (np.uint64(1) << hands[:, 0].astype(np.uint64)) | (
        np.uint64(1) << hands[:, 1].astype(np.uint64)
    )
    strength = np.empty((pairs, 2), dtype=np.int64)
    for seat in (0, 1):
        seven = np.concatenate([cards[:, 2 * seat : 2 * seat + 2], cards[:, 4:9]], axis=1)
        strength[:, seat] = evaluate_batch(seven.astype(np.uint8))
    preflop = preflop_equities(game.rules.ranks)
    tree = game.betting_tree
    probs = np.asarray(agent.probs, dtype=np.float64)
    offset = np.asarray(agent.offset, dtype=np.int64)
    num_states = np.asarray(agent.num_states, dtype=np.int64)
    agent_tree = K.AgentTree(
        tree.kind, tree.player, tree.round, tree.child_start, tree.children,
        tree.action.astype(np.int64), tree.contrib, tree.payoff_id, tree.payoff_table, offset,
        num_states, probs,
    )  # fmt: skip
    deck = np.asarray(game.rules.cards, dtype=np.int64)
    ev = _eval_args()
    out = np.empty(2 * pairs, dtype=np.float64)
    counts = np.zeros((pairs, 4), dtype=np.int64)
    step = int(block) if block else max(1, 400_000 // h_count)
    prev = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if threads is None else int(threads))
    try:
        for lo in range(0, pairs, step):
            hi = min(pairs, lo + step)
            states = hand_states(agent, hands, cards[lo:hi, 4:9])
            K.play_lbr(
                agent_tree, K.RangeHands(hands, hand_mask, deck, preflop),
                K.DealBlock(cards[lo:hi], states, seat_hand[lo:hi], strength[lo:hi],
                            uniforms[lo:hi]),
                ev, float(exact_limit), np.int64(rollouts), rng_states[lo:hi],
                out[2 * lo : 2 * hi], counts[lo:hi],
            )  # fmt: skip
    finally:
        numba.set_num_threads(prev)
    counts = counts.sum(axis=0)
    pair_values = out[0::2] + out[1::2]
    mean, ci = duplicate_estimate(pair_values)
    seats = (1000.0 * float(out[0::2].mean()), 1000.0 * float(out[1::2].mean()))
    return LBRResult(
        agent=agent.name,
        pairs=pairs,
        mbb_per_game=mean,
        ci95_mbb=ci,
        seed=seed_value,
        seconds=time.perf_counter() - t0,
        actions={"fold": int(counts[0]), "call": int(counts[1]), "raise": int(counts[2])},
        sampled_rounds=int(counts[3]),
        exact_limit=int(exact_limit),
        rollouts=int(rollouts),
        pair_values=pair_values,
        seat_means=seats,
    )
