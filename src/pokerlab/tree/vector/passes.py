"""The passes over a vector tree's solver memory (:class:`Passes`): a CFR iteration, best
responses, expected values and the per-node record, on one thread or with the split points'
work items shared among workers (:mod:`pokerlab.tree.executors`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pokerlab.tree._primitives import discount_factors, first_non_finite_f32
from pokerlab.tree.executors import WorkerPool, chunks, thread_rows, worker_pool
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector import _walk_batches as B
from pokerlab.tree.vector._node_kernels import root_dot
from pokerlab.tree.vector.shared_calls import SharedCalls
from pokerlab.tree.vector.tree import VectorArrays, VectorTree
from pokerlab.tree.vector.work_items import ItemStorage, item_costs

#: Runs of work items per worker on more than one thread: drawn in compiled code
#: (:func:`~pokerlab.tree.vector._walk_batches.traverse_runs`), more cost little, share evenly.
RUNS_PER_WORKER = 16

__all__ = ["Passes", "item_costs"]


class Passes(ItemStorage, SharedCalls):
    """Scratch and entry points of the passes over one vector tree (reused across calls)."""

    #: The work items' storage is in this process's arrays (a Ray executor's is on its actors).
    items_local = True

    def __init__(self, tree: VectorTree, threads: int = 1) -> None:
        self.tree = tree
        self.set_threads(threads)
        h = int(tree.hands.cards.shape[1])
        self.out = np.zeros(h)
        self.out32 = np.zeros(h, dtype=np.float32)
        # what a serial pass (no split point crossed: SPLIT_NONE) hands the kernel for the
        # work items' storage, which it never reads
        self.no_items = K.Items(np.zeros((0, h + 1)), np.zeros((0, h)), np.zeros((0, h)))
        self.no_items32 = K.Items(*(np.zeros(x.shape, dtype=np.float32) for x in self.no_items))
        self.no_lock = np.zeros(0, dtype=np.float32)
        self.no_prediction = np.zeros(0, dtype=np.float32)
        self.no_scale = np.zeros(0, dtype=np.float32)

    def set_threads(self, threads: int, pool: WorkerPool | None = None) -> None:
        """Run the work items on ``threads`` workers (``pool``: another executor with that many
        workers; default: this process's threads)."""
        new = pool if pool is not None else worker_pool(max(1, int(threads)))  # may refuse
        old = getattr(self, "pool", None)
        if old is not None:
            old.close()
        self.pool = new
        self.threads = self.pool.workers
        #: The work items in runs of neighbours, drawn by the workers as they free up: one run
        #: on one thread, about :data:`RUNS_PER_WORKER` a worker on more
        #: (:func:`~pokerlab.tree.executors.chunks`); ``run_starts`` cuts ``item_ids`` so.
        self.chunks = chunks(
            item_costs(self.tree), 1 if self.threads == 1 else RUNS_PER_WORKER * self.threads
        )
        self.item_ids = np.arange(self.tree.num_items, dtype=np.int64)
        self.run_starts = np.cumsum([0] + [len(c) for c in self.chunks], dtype=np.int64)
        # counters on cache lines of their own: the runs', the shared calls' (SharedCalls)
        self.run_counter = thread_rows(1, (1,), np.int64)[0]
        self.sync = thread_rows(3, (1,), np.int64)
        scratch = self.tree.scratch(self.threads)
        scratch32 = self.tree.scratch(self.threads, np.float32)
        self.scratch_w = [tuple(a[w] for a in scratch) for w in range(self.threads)]
        self.scratch_w32 = [tuple(a[w] for a in scratch32) for w in range(self.threads)]
        self.scratch_one = self.scratch_w[0]
        self.scratch_one32 = self.scratch_w32[0]

    def whole_tree(self) -> bool:
        """Whether a pass walks the whole tree in one kernel call: a tree without split points,
        or one thread with the items' storage here (the split walk's steps only add work there:
        11-14% of a turn iteration, for the same numbers bit for bit)."""
        return self.tree.num_items == 0 or (self.threads == 1 and self.items_local)

    def pass_(
        self,
        trav: int,
        mode: int,
        regrets: np.ndarray,
        strat: np.ndarray,
        fa: float = 1.0,
        fb: float = 1.0,
        fg: float = 1.0,
        floor: bool = False,
        lock_probs: np.ndarray | None = None,
        prediction: np.ndarray | None = None,
        next_a: float = 1.0,
        next_b: float = 1.0,
        scales: tuple[np.ndarray, np.ndarray] | None = None,
        wide: bool = False,
        root: tuple[np.ndarray, np.ndarray] | None = None,
        weighted: bool = True,
        narrow: bool = False,
    ) -> tuple[np.ndarray, int]:
        """One pass for traverser ``trav``: its root value vector (unnormalised), nodes visited.

        ``MODE_CFR`` passes carry their vectors in float32, as postflop-solver does (half the
        scratch traffic, twice the vector width, its rounding), the others with ``narrow`` (the
        solve's checks); ``wide=True`` keeps a CFR pass in float64, as the others are (a policy's
        evaluation, :func:`~pokerlab.tree.vector.backend.policy_best_response`).

        ``prediction`` (float32, like the regrets; ``MODE_CFR`` of a predictive schedule): regret
        matching reads it, and the regret update writes the next one with the next iteration's
        discounts ``next_a`` / ``next_b`` (see :func:`~pokerlab.tree.vector._kernels.traverse`).
        ``scales`` (regret scales, strategy-sum scales; float32, one per node): the 16-bit mode,
        with int16 regrets and uint16 strategy sums. ``root``: the opponent's and the
        traverser's rows at the root (float64; default the ranges' weights), as a subgame's
        gadget sets them (:func:`~pokerlab.solvers.search.gadgets.solve_subgame`).
        ``weighted=False``: the traverser's strategy sums add its strategy unweighted by its own
        reach (see :class:`~pokerlab.tree.vector._bundles.Discounts`).

        Trees with split chance nodes run in three steps: the top part records the reaches
        entering every dealt card's subtree, the subtrees run as work items, the top part again.
        """
        t = self.tree
        lock = self.no_lock if lock_probs is None else lock_probs
        pred = self.no_prediction if prediction is None else prediction
        rscale, sscale = (self.no_scale, self.no_scale) if scales is None else scales
        store = K.Storage(regrets, strat, pred, rscale, sscale, lock)
        disc = K.Discounts(fa, fb, fg, floor, next_a, next_b, weighted)
        cfr = (mode == K.MODE_CFR and not wide) or narrow  # float32 vectors
        items = self.items32 if cfr else K.Items(self.items_ro, self.items_rp, self.items_val)
        out = self.out32 if cfr else self.out
        ro, rp = (t.hands.weight[1 - trav], t.hands.weight[trav]) if root is None else root
        rows = K.RootRows(ro, rp, out)
        scratch_one = self.scratch_one32 if cfr else self.scratch_one

        def root(split: int) -> int:
            return K.traverse(
                t.arrays, t.hands, t.sweep, 0, trav, mode, split, store, disc, rows,
                scratch_one, items, -1, items.val,
            )  # fmt: skip

        if self.whole_tree():
            return out, root(K.SPLIT_NONE)
        visited = root(K.SPLIT_COLLECT)
        visited += self.subtree_values(trav, mode, items, store, disc, cfr)
        root(K.SPLIT_USE)  # the top part again: its nodes were counted by the first walk
        return out, visited

    def pass_at(
        self,
        node: int,
        trav: int,
        mode: int,
        regrets: np.ndarray,
        strat: np.ndarray,
        ro: np.ndarray,
        rp: np.ndarray,
        fa: float = 1.0,
        fb: float = 1.0,
        fg: float = 1.0,
        floor: bool = False,
    ) -> np.ndarray:
        """One serial pass over the subtree below ``node`` from the given root rows: ``ro`` the
        opponent's reach there (chance probabilities folded in, as the passes keep it), ``rp``
        the traverser's (float64, one entry per hand of the padded lists). Returns a copy of the
        traverser's counterfactual values at ``node`` (float64). This is the seam a subgame
        solver (:mod:`pokerlab.solvers.search`) drives: only the subtree's blocks of ``regrets``
        and ``strat`` are read or written, ``MODE_CFR`` with the discounts given (float32
        scratch, as :meth:`pass_`), ``MODE_BR`` / ``MODE_EV`` reading ``strat`` as the average."""
        t, cfr = self.tree, mode == K.MODE_CFR
        items, out = (self.no_items32, self.out32) if cfr else (self.no_items, self.out)
        store = K.Storage(
            regrets, strat, self.no_prediction, self.no_scale, self.no_scale, self.no_lock
        )
        K.traverse(
            t.arrays, t.hands, t.sweep, int(node), trav, mode, K.SPLIT_NONE, store,
            K.Discounts(fa, fb, fg, floor, 1.0, 1.0, True),
            K.RootRows(
                np.ascontiguousarray(ro, dtype=np.float64),
                np.ascontiguousarray(rp, dtype=np.float64),
                out,
            ),
            self.scratch_one32 if cfr else self.scratch_one, items, -1, items.val,
        )  # fmt: skip
        return np.array(out, dtype=np.float64)

    def collect_reaches(
        self, arrays: VectorArrays, trav: int, strat: np.ndarray, items: K.Items
    ) -> None:
        """One expected-value pass from the root under the average ``strat`` that stops at the
        split chance nodes of ``arrays`` (this tree's arrays with other split points: a street's
        deals) and records the reaches entering each dealt card's subtree into ``items.ro``
        (the opponent's, the card's chance probability folded in) and ``items.rp`` (the
        traverser's), float64: every subgame of a street read in one pass."""
        t = self.tree
        K.traverse(
            arrays, t.hands, t.sweep, 0, trav, K.MODE_EV, K.SPLIT_COLLECT,
            K.Storage(
                strat, strat, self.no_prediction, self.no_scale, self.no_scale, self.no_lock
            ),
            K.Discounts(1.0, 1.0, 1.0, False, 1.0, 1.0, True),
            K.RootRows(t.hands.weight[1 - trav], t.hands.weight[trav], self.out),
            self.scratch_one, items, -1, items.val,
        )  # fmt: skip

    def subtree_values(
        self, trav: int, mode: int, items: K.Items, store: K.Storage, disc: K.Discounts, cfr: bool
    ) -> int:
        """The subtree seam: from the reach rows entering each work item (``items.ro``,
        ``items.rp``, collected by the top part's first walk) its value row (``items.val``),
        updating the items' storage in ``MODE_CFR``; the workers of :attr:`pool` draw the runs
        of items (:attr:`chunks`) from a shared counter, one kernel call a worker
        (:func:`~pokerlab.tree.vector._walk_batches.traverse_runs`; Ray actors that own the
        items instead: :class:`~pokerlab.distributed.postflop_ray.RayPasses`). Returns the nodes
        visited."""
        t = self.tree
        scratch = self.scratch_w32 if cfr else self.scratch_w
        ids, starts, counter = self.item_ids, self.run_starts, self.run_counter
        counter[0] = 0

        def run(w: int) -> int:
            return int(
                B.traverse_runs(
                    t.arrays, t.hands, t.sweep, trav, mode, store, disc, scratch[w], items, ids,
                    starts, counter,
                )
            )  # fmt: skip

        return sum(self.pool.map(run))

    def cfr_iterations(
        self,
        first: int,
        count: int,
        params: np.ndarray,
        predictive: bool,
        floor: bool,
        regrets: np.ndarray,
        strat: np.ndarray,
        lock_probs: np.ndarray | None = None,
        prediction: np.ndarray | None = None,
        scales: tuple[np.ndarray, np.ndarray] | None = None,
        weighted: bool = True,
    ) -> int | None:
        """Iterations ``first + 1 .. first + count`` of CFR (both players' passes, discounts
        from the schedule array ``params``, strategy sums ``weighted`` by the own reach or not)
        in one compiled call, or one a worker on this process's threads
        (:func:`~pokerlab.tree.vector._walk_batches.cfr_iterations_shared`); the nodes visited.
        None where neither applies (the items on Ray actors: the caller runs :meth:`pass_` per
        player)."""
        t = self.tree
        lock = self.no_lock if lock_probs is None else lock_probs
        pred = self.no_prediction if prediction is None else prediction
        rscale, sscale = (self.no_scale, self.no_scale) if scales is None else scales
        store = K.Storage(regrets, strat, pred, rscale, sscale, lock)
        if self.whole_tree():
            return int(
                K.cfr_iterations(
                    t.arrays, t.hands, t.sweep, int(first), int(count), params,
                    bool(predictive), bool(floor), bool(weighted), store, self.out32,
                    self.scratch_one32, self.items32,
                )
            )  # fmt: skip
        if not self.shared_calls():
            return None
        args = (first, count, params, predictive, floor, weighted, store, self.items32)
        return self.shared_cfr_iterations(*args)

    def run_cfr(
        self,
        first: int,
        count: int,
        params: np.ndarray,
        predictive: bool,
        floor: bool,
        regrets: np.ndarray,
        strat: np.ndarray,
        lock_probs: np.ndarray | None = None,
        prediction: np.ndarray | None = None,
        scales: tuple[np.ndarray, np.ndarray] | None = None,
        after_pass: Callable[[int], None] | None = None,
        weighted: bool = True,
    ) -> int:
        """CFR iterations ``first + 1 .. first + count`` with alternating updates (each: OOP's
        pass, then IP's), discounts from the schedule array ``params``, regrets floored at 0
        with ``floor`` (CFR+), a predictive schedule's ``prediction`` array, strategy sums
        ``weighted`` by the traverser's own reach or not (:meth:`pass_`); the nodes visited.
        Trees without split points, and every tree on one thread (:meth:`whole_tree`), run the
        whole loop in one compiled call, and trees split on this process's threads one call a
        worker (:meth:`cfr_iterations`); the others (Ray actors) one :meth:`pass_` per player;
        so does every tree when ``after_pass`` is given, called with the player after each of
        its passes (an abstraction that pools the arrays between passes,
        :mod:`pokerlab.solvers.search.blueprints`)."""
        if predictive and prediction is None:
            raise ValueError("a predictive schedule needs a prediction array")
        if after_pass is None:
            visited = self.cfr_iterations(
                first, count, params, predictive, floor, regrets, strat, lock_probs, prediction,
                scales, weighted,
            )  # fmt: skip
            if visited is not None:
                return visited
        visited = 0
        for t in range(first + 1, first + count + 1):
            fa, fb, fg = discount_factors(params, t)
            # a predictive schedule's prediction anticipates the next iteration's discounts
            next_a, next_b, _ = discount_factors(params, t + 1) if predictive else (1.0, 1.0, 1.0)
            for player in (0, 1):
                _, n = self.pass_(
                    player, K.MODE_CFR, regrets, strat, fa, fb, fg, floor, lock_probs,
                    prediction, next_a, next_b, scales, weighted=weighted,
                )  # fmt: skip
                visited += n
                if after_pass is not None:
                    after_pass(player)
        return visited

    def best_responses(
        self,
        strat: np.ndarray,
        regrets: np.ndarray,
        lock_probs: tuple[np.ndarray | None, ...],
        narrow: bool = False,
    ) -> tuple[float, float]:
        """Each player's best-response value (chips) against the average strategy ``strat``,
        the traverser ``p`` playing ``lock_probs[p]`` where it sets probabilities (see
        :func:`~pokerlab.tree.vector._kernels.traverse`). Trees without split points, and
        every tree on this process's threads, run both passes without locks in one compiled
        call (one a worker). ``narrow``: in float32, as the CFR passes and postflop-solver's
        checks (root sums float64; a river check 81 -> 64 us)."""
        t, unlocked = self.tree, all(x is None for x in lock_probs)
        store = K.Storage(
            regrets, strat, self.no_prediction, self.no_scale, self.no_scale, self.no_lock
        )
        wide = K.Items(self.items_ro, self.items_rp, self.items_val), self.out, self.scratch_one
        items, out, scratch = (self.items32, self.out32, self.scratch_one32) if narrow else wide
        if self.whole_tree() and unlocked:
            v = B.best_response_pair(t.arrays, t.hands, t.sweep, store, out, scratch, items, t.norm)
            return float(v[0]), float(v[1])
        if unlocked and self.shared_calls():
            return self.shared_best_responses(store, items, narrow)
        br = []  # each pass writes the same output vector: its root value is read first
        for p in (0, 1):
            values, _ = self.pass_(
                p, K.MODE_BR, regrets, strat, lock_probs=lock_probs[p], narrow=narrow
            )
            br.append(self.root_value(p, values))
        return br[0], br[1]

    def record(
        self,
        node: int,
        trav: int,
        regrets: np.ndarray,
        strat: np.ndarray,
        lock_probs: np.ndarray | None = None,
    ) -> np.ndarray:
        """Under the average strategy (locked probabilities where ``lock_probs`` sets them):
        (3, H) = the opponent's reach, the traverser's root weights and the traverser's
        counterfactual values at ``node`` (one serial pass)."""
        t, a, hd = self.tree, self.tree.arrays, self.tree.hands
        rec = np.zeros((3, hd.cards.shape[1]))
        K.traverse(
            a, hd, t.sweep, 0, trav, K.MODE_EV, K.SPLIT_NONE,
            K.Storage(
                regrets, strat, self.no_prediction, self.no_scale, self.no_scale,
                self.no_lock if lock_probs is None else lock_probs,
            ),
            K.Discounts(1.0, 1.0, 1.0, False, 1.0, 1.0, True),
            K.RootRows(hd.weight[1 - trav], hd.weight[trav], self.out), self.scratch_one,
            self.no_items, node, rec,
        )  # fmt: skip
        return rec

    def root_value(self, trav: int, values: np.ndarray) -> float:
        """Expected value of ``trav`` from its root counterfactual values (chips)."""
        hd = self.tree.hands
        return float(root_dot(hd.weight[trav], values, int(hd.num[trav])) / self.tree.norm)

    def warmup(self, params: np.ndarray, compressed: bool = False) -> None:
        """Compile (or load from numba's cache) every pass a solver of the storage type makes
        while it solves, outside any timed region, with a schedule array ``params``: float32,
        or with ``compressed`` the 16-bit types alone (a 16-bit solver's passes read nothing
        else; a float32 pass it makes later loads then). Run on this tree with scratch arrays
        of its size: a solver warms a tiny spot's passes
        (:func:`~pokerlab.solvers.postflop_solve.warm_kernels`)."""
        size = self.tree.size
        discount_factors(params, 1)
        first_non_finite_f32(np.zeros(1, dtype=np.float32))  # the solve's finiteness check
        scales: tuple[np.ndarray, np.ndarray] | None = None
        if compressed:
            r, s = np.zeros(size, dtype=np.int16), np.zeros(size, dtype=np.uint16)
            n = self.tree.arrays.kind.shape[0]
            scales = (np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32))
        else:
            r, s = np.zeros(size, dtype=np.float32), np.zeros(size, dtype=np.float32)
        self.pass_(0, K.MODE_CFR, r, s, scales=scales)
        for mode in (K.MODE_BR, K.MODE_EV):
            self.pass_(0, mode, r, s)
        self.record(0, 0, r, s)
        # the solve's checks (float32); exploitability() loads its float64 pair on first use
        self.best_responses(s, r, (None, None), narrow=True)
        self.cfr_iterations(0, 0, params, False, False, r, s, scales=scales)
