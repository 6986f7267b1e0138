"""Solving one subgame for one searching player, with a safe or an unsafe gadget (issue 25).

The searcher ``p`` replaces its blueprint strategy below a public state; the question is what
the opponent ``o`` is assumed to do on arrival. Brown and Sandholm ("Safe and nested subgame
solving for imperfect-information games", NIPS 2017, sec. 3-4) compare:

- ``unsafe``: both players' ranges by Bayes' rule under the blueprint, the subgame solved as it
  is. No guarantee: the opponent may arrive with other hands than the blueprint says.
- ``resolve`` (the CFR-D gadget of Burch, Johanson and Bowling, AAAI 2014): for each of its
  hands the opponent chooses between entering the subgame and taking its counterfactual
  best-response value against the blueprint (CBV) instead; chance deals its hands in proportion
  to the reach of everyone but itself. At equilibrium no hand of the opponent gains more in the
  subgame than it did against the blueprint, so the re-solved strategy is no more exploitable
  than the blueprint, up to the subgame's own solve error.
- ``maxmargin`` (Moravcik et al., AAAI 2016): the opponent picks the hand to enter, its payoffs
  shifted by that hand's CBV, so the searcher maximises the smallest margin CBV - value over
  the opponent's hands (values per unit of the others' reach).

The subgame runs on the tree's own CFR pass (:meth:`Passes.pass_at
<pokerlab.tree.vector.passes.Passes.pass_at>`) with the tree's discounting schedule; the
gadget's own decision (enter or not; which hand) learns by regret matching+ (Tammelin 2014),
one regret pair per hand or one regret per hand. Only the subtree's blocks of the work arrays
are written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.solvers.loop import run_loop
from pokerlab.solvers.search.continuations import no_limit
from pokerlab.solvers.search.subgames import (
    SubgameRanges,
    faced_reach,
    subtree_blocks,
    subtree_end,
)
from pokerlab.tree._primitives import discount_factors
from pokerlab.tree.executors import chunks, share_out
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector._search_kernels import (
    GADGET_CODES,
    Leaves,
    SubgameRows,
    gadget_iterations,
    gadget_learn,
    gadget_live,
    gadget_row,
    leaf_items,
    leaf_round,
    sum_item_values,
    update_picks,
)
from pokerlab.tree.vector.passes import Passes

__all__ = ["GADGETS", "SubgameSolution", "solve_subgame"]

#: the gadgets: the kernel's three, and maxmargin with the alternative payoffs raised by the
#: opponent's gifts (:func:`~pokerlab.solvers.search.subgames.reach_gifts`)
GADGETS = (*GADGET_CODES, "reach-maxmargin")


@dataclass
class SubgameSolution:
    """A solved subgame for the searcher ``player``, and what each player's best response can
    gain there over its CBV against the blueprint by reaching it with every hand (``gain[q]``:
    the sum over q's hands of range weight x max(0, best-response value - CBV), the passes'
    units before the deal's normaliser; 0 for the searcher unless the gadget is unsafe, which
    changes both players' strategies)."""

    node: int
    player: int
    iterations: int
    gain: tuple[float, float]


def solve_subgame(
    passes: Passes,
    ranges: SubgameRanges,
    player: int,
    gadget: str,
    iterations: int,
    params: np.ndarray,
    work: tuple[np.ndarray, np.ndarray],
    assembled: np.ndarray,
    leaves: Leaves | None = None,
    gift: np.ndarray | None = None,
    seconds: float | None = None,
    lock: np.ndarray | None = None,
    rotation: list[tuple[Passes, Leaves]] | None = None,
) -> SubgameSolution:
    """Solve the subgame at ``ranges.node`` for searcher ``player`` with ``gadget`` (one of
    :data:`GADGETS`) for ``iterations`` CFR iterations of the schedule ``params`` (a
    non-predictive schedule array, :func:`pokerlab.solvers.postflop.postflop_schedule`), to the
    end of the game or to the depth limit ``leaves``
    (:func:`~pokerlab.solvers.search.continuations.depth_limit`).

    ``work`` (regrets, strategy sums; float32, the tree's layout) is scratch: the subtree's
    blocks are reset and hold the solve. ``assembled`` (float32 probabilities, the tree's layout,
    the blueprint where nothing was searched yet) receives the searcher's average strategy on the
    searched blocks (both players' for the unsafe gadget); the gains are measured against it.

    ``gift`` (``reach-maxmargin``, :func:`~pokerlab.solvers.search.subgames.reach_gifts`): per
    opponent hand and unit of the others' reach, what its CBV may rise by; the gains are then
    measured beyond CBV plus gift.

    ``seconds``: a wall-time budget instead; the solve stops at the first iteration that ends
    past it, ``iterations`` then only a ceiling (at least one iteration runs). The iterations
    run in calls of growing length, numbered on and with the gadget's regrets carried, so the
    numbers equal one call of as many iterations.

    ``lock`` (float32, the tree's layout, -1 where free; :meth:`PostflopSolver.lock
    <pokerlab.solvers.postflop.PostflopSolver.lock>`'s array): rows that play fixed
    probabilities in every pass (the search agent's frozen decisions).

    ``rotation`` (with ``leaves``): other trees of the same layout, each with its depth limit
    (sharing ``leaves``' picks): iteration i runs on tree i mod (1 + len(rotation)), the first
    being ``passes``' own, the work arrays shared. Spots with sampled deals of other draws
    (:func:`~pokerlab.games.postflop.expand.expand_spot`'s ``deal_seed``) so see every draw in
    turn, as Pluribus resampled chance on each iteration of its subgame solves."""
    if gadget not in GADGETS:
        raise PokerlabError(f"unknown gadget {gadget!r}; choose one of {', '.join(GADGETS)}")
    if iterations < 1:
        raise PokerlabError(f"a search needs at least one iteration, got {iterations}")
    tree = passes.tree
    node = ranges.node
    regrets, sums = work
    _, blocks = subtree_blocks(tree, node)
    for _, lo, hi in blocks:
        regrets[lo:hi] = 0.0
        sums[lo:hi] = 0.0
    p, o = player, 1 - player
    possible = ranges.possible[o].astype(np.float64)
    # the searcher's reach (chance folded in) each opponent hand can face: maxmargin's normaliser
    others = faced_reach(tree, o, ranges.reach_c[p])
    cbv = ranges.cbv[o].copy()
    if gadget == "reach-maxmargin":
        if gift is None:
            raise PokerlabError("reach-maxmargin needs the opponent's gifts (reach_gifts)")
        cbv += gift * others
    rows = SubgameRows(
        ranges.reach[p], ranges.reach_c[p], ranges.reach_c[o], ranges.reach[o], cbv, possible,
        others, np.zeros((2, possible.shape[0])),
    )  # fmt: skip
    locks = passes.no_lock if lock is None else lock
    store = K.Storage(regrets, sums, passes.no_prediction, passes.no_scale, passes.no_scale, locks)
    code = GADGET_CODES[gadget.removeprefix("reach-")]
    limit = no_limit(passes) if leaves is None else leaves

    # from the root of a tree with split points, to the end of the game, on several threads:
    # the passes' own split (the dealt cards' subtrees as parallel work items)
    threaded = passes.threads > 1 and node == 0 and leaves is None and tree.num_items > 0
    # a depth limit on several threads: the leaves' subtrees shared out
    leaf_threads = passes.threads > 1 and leaves is not None and leaves.item_leaf.shape[0] > 1
    trees = [(passes, limit), *(rotation or [])]
    if rotation and leaves is None:
        raise PokerlabError("a rotation of trees needs a depth limit")
    for other, _ in trees[1:]:
        if other.tree.size != tree.size or other.tree.num_nodes != tree.num_nodes:
            raise PokerlabError("the trees of a rotation must share their layout")
    pieces = [_leaf_pieces(q, lv) if leaf_threads else [] for q, lv in trees]
    if seconds is not None and not seconds > 0:
        raise PokerlabError(f"a search's time budget must be > 0 seconds, got {seconds!r}")
    ran = [0]  # iterations run
    start = time.perf_counter()

    def run(which: int, first: int, count: int) -> None:  # on tree ``which`` of the rotation
        q, lv = trees[which]
        tq = q.tree
        if threaded:
            _threaded_iterations(passes, p, code, first, count, params, work, rows, lock)
        elif leaf_threads:
            _leaf_threaded_iterations(
                q, int(node), p, code, first, count, params, store, rows, lv, pieces[which]
            )  # fmt: skip
        else:
            gadget_iterations(
                tq.arrays, tq.hands, tq.sweep, int(node), p, code, first, count, params, store,
                rows, q.scratch_one32, q.out32, lv,
            )  # fmt: skip

    def step(count: int) -> None:  # iterations numbered on, the gadget's regrets in rows
        if len(trees) == 1:
            run(0, ran[0] + 1, count)
        else:
            for it in range(ran[0] + 1, ran[0] + 1 + count):
                run((it - 1) % len(trees), it, 1)
        ran[0] += count

    def next_chunk(default: int) -> int:
        # one call without a budget; with one, a quarter of the time left at the pace so far
        spent = time.perf_counter() - start
        if seconds is None:
            return default
        if ran[0] == 0 or spent <= 0:
            return max(1, ran[0])
        return max(1, int(0.25 * (seconds - spent) * ran[0] / spent))

    # the engine's stopping loop (iterations, or the time budget between calls)
    run_loop(
        step, lambda: (ran[0], time.perf_counter() - start, 0), check_every=int(iterations),
        iterations=int(iterations), seconds=seconds, next_chunk=next_chunk,
    )  # fmt: skip
    _, searched = subtree_blocks(tree, node, round_only=leaves is not None)
    for owner, lo, hi in searched:
        if owner == p or gadget == "unsafe":
            width = hi - lo
            block = sums[lo:hi].astype(np.float64).reshape(-1, int(tree.hands.num[owner]))
            total = block.sum(axis=0)
            probs = np.where(
                total > 0, block / np.where(total > 0, total, 1.0), 1.0 / block.shape[0]
            )
            assembled[lo:hi] = probs.reshape(width)
    # the unsafe solve changes both players' strategies: both best responses can gain
    gain = [0.0, 0.0]
    for q in (o, p) if gadget == "unsafe" else (o,):
        br = passes.pass_at(
            node, q, K.MODE_BR, _zeros(passes), assembled, ranges.reach_c[1 - q], ranges.reach[q]
        )
        excess = np.maximum(br - (cbv if q == o else ranges.cbv[q]), 0.0) * ranges.possible[q]
        gain[q] = float(np.sum(tree.hands.weight[q] * excess))
    return SubgameSolution(node, p, ran[0], (gain[0], gain[1]))


def _threaded_iterations(
    passes: Passes, p: int, code: int, first: int, count: int, params: np.ndarray,
    work: tuple[np.ndarray, np.ndarray], rows: SubgameRows, lock: np.ndarray | None,
) -> None:  # fmt: skip
    """:func:`gadget_iterations` from the tree's root with each pass on the passes' threads
    (:meth:`Passes.pass_ <pokerlab.tree.vector.passes.Passes.pass_>`): the same steps, the
    gadget's own in the same compiled helpers; a Python loop (about 0.1 ms an iteration of
    dispatch, small beside a pass that splits)."""
    regrets, sums = work
    floor, row, enter, live, n_live = _gadget_state(params, rows)
    for it in range(first, first + count):
        fa, fb, fg = discount_factors(params, it)
        gadget_row(code, rows, live, n_live, enter, row)
        passes.pass_(
            p, K.MODE_CFR, regrets, sums, fa, fb, fg, floor, lock, root=(row, rows.reach_p)
        )
        own = rows.reach_o if code == 0 else row
        out, _ = passes.pass_(
            1 - p, K.MODE_CFR, regrets, sums, fa, fb, fg, floor, lock, root=(rows.reach_pc, own)
        )
        gadget_learn(code, rows, live, enter, row, out)


def _gadget_state(
    params: np.ndarray, rows: SubgameRows
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, float]:
    """What a Python loop of :func:`gadget_iterations` keeps between iterations, as it does:
    CFR+'s floor, the opponent's root row, resolve's entering probabilities, maxmargin's live
    hands and their count."""
    h = rows.cbv.shape[0]
    row, enter, live = np.zeros(h), np.ones(h), np.zeros(h)
    return bool(params[3] != 0.0), row, enter, live, float(gadget_live(rows, live))


def _leaf_pieces(passes: Passes, leaves: Leaves) -> list[np.ndarray]:
    """The work items of a depth limit in runs of about equal cost (nodes below them), four
    runs per thread (the workers take the next run as they finish)."""
    tree = passes.tree
    cost = [subtree_end(tree, int(c)) - int(c) for c in leaves.arrays.item_node]
    return chunks(np.asarray(cost, dtype=np.float64), 4 * passes.threads)


def _leaf_threaded_iterations(
    passes: Passes, node: int, p: int, code: int, first: int, count: int, params: np.ndarray,
    store: K.Storage, rows: SubgameRows, leaves: Leaves, pieces: list[np.ndarray],
) -> None:  # fmt: skip
    """:func:`gadget_iterations` to a depth limit with the leaves' subtrees valued on the
    passes' threads (:func:`leaf_items` per run of ``pieces``, each worker on its own
    scratch, the opponent's values of its picks one row per item, summed per leaf in item
    order afterwards): the same numbers as the one-thread call. The round's part above the
    leaves, small beside them, runs here."""
    tree = passes.tree
    t, hands, sw = tree.arrays, tree.hands, tree.sweep
    floor, row, enter, live, n_live = _gadget_state(params, rows)
    sc0, out = passes.scratch_w32[0], passes.out32
    hw = leaves.row.shape[0]
    bufs = [(np.zeros(hw, np.float32), np.zeros(hw, np.float32)) for _ in range(passes.threads)]
    per_item = np.zeros((leaves.item_leaf.shape[0], *leaves.values.shape[1:]))
    for it in range(first, first + count):
        fa, fb, fg = discount_factors(params, it)
        disc = K.Discounts(fa, fb, fg, floor, 1.0, 1.0, True)
        gadget_row(code, rows, live, n_live, enter, row)
        own = rows.reach_o if code == 0 else row
        for trav, ro, rp in ((p, row, rows.reach_p), (1 - p, rows.reach_pc, own)):
            top = (t, hands, sw, node, trav, store, disc, ro, rp, sc0, out, leaves)
            leaf_round(*top, K.SPLIT_COLLECT)

            def run(w: int, ids: np.ndarray, trav: int = trav, disc: K.Discounts = disc) -> int:
                scratch = passes.scratch_w32[w]
                lo, hi = int(ids[0]), int(ids[-1]) + 1
                return int(
                    leaf_items(
                        t, hands, sw, trav, p, disc, scratch, leaves, *bufs[w], lo, hi, per_item,
                        True,
                    )
                )  # fmt: skip

            share_out(passes.pool, pieces, run)
            if trav != p:
                sum_item_values(leaves, per_item)
            leaf_round(*top, K.SPLIT_USE)
        update_picks(leaves)
        gadget_learn(code, rows, live, enter, row, out)


def _zeros(passes: Passes) -> np.ndarray:
    """An all-zero float32 array of the tree's size (regrets a best-response pass ignores)."""
    z = passes.__dict__.get("_search_zeros")
    if z is None:
        z = np.zeros(passes.tree.size, dtype=np.float32)
        passes.__dict__["_search_zeros"] = z
    return z
