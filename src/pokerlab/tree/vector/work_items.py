"""What the passes of :class:`~pokerlab.tree.vector.passes.Passes` keep beside the solver
memory: the work items' storage (the reaches entering each dealt card's subtree below a split
point, and its values), made on first use, and the placeholders a serial pass hands the kernel
for arrays it never reads; and each work item's share of a pass (:func:`item_costs`)."""

from __future__ import annotations

import threading

import numpy as np

from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.tree import VectorTree

__all__ = ["ItemStorage", "item_costs"]

_MAKING = threading.Lock()


def item_costs(tree: VectorTree) -> np.ndarray:
    """Nodes in each work item's subtree (the tree is in preorder: a subtree ends after the
    last descendant reached by following last children), the item's share of a pass's work."""
    a = tree.arrays
    costs = np.zeros(tree.num_items)
    for i, node in enumerate(a.item_node):
        last = int(node)
        while a.child_start[last + 1] > a.child_start[last]:
            last = int(a.children[a.child_start[last + 1] - 1])
        costs[i] = last + 1 - int(node)
    return costs


class ItemStorage:
    """The lazily made arrays of :class:`~pokerlab.tree.vector.passes.Passes` (``tree``: its
    vector tree)."""

    tree: VectorTree

    # the work items' storage: the reaches entering each dealt card's subtree and its values
    # (float64 for the best-response and EV passes, float32 twins for the CFR passes), made on
    # first use: a search that only reads a tree with serial passes never needs it (a table
    # turn spot's zeroed rows took up to 20 ms of a river search)
    @property
    def items_ro(self) -> np.ndarray:
        return self._items()[0]

    @property
    def items_rp(self) -> np.ndarray:
        return self._items()[1]

    @property
    def items_val(self) -> np.ndarray:
        return self._items()[2]

    @property
    def items32(self) -> K.Items:
        return self._items()[3]

    def _items(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, K.Items]:
        got = self.__dict__.get("_items_store")
        if got is not None:
            return got
        with _MAKING:  # one store, should two threads ask first at once
            got = self.__dict__.get("_items_store")
            if got is not None:
                return got
            h = int(self.tree.hands.cards.shape[1])
            n = self.tree.num_items
            got = self.__dict__["_items_store"] = (
                np.zeros((n, h + 1)),
                np.zeros((n, h)),
                np.zeros((n, h)),
                K.Items(
                    np.zeros((n, h + 1), dtype=np.float32),
                    np.zeros((n, h), dtype=np.float32),
                    np.zeros((n, h), dtype=np.float32),
                ),
            )
        return got

    def prepare(self) -> None:
        """Make what the passes would make on first use: the tree's showdown tables and the
        work items' rows (a solver's constructor calls this, so a solve's first step costs
        what the others do)."""
        self.tree.sweep  # noqa: B018 (built on first access)
        self._items()

    @property
    def no_regrets(self) -> np.ndarray:
        """A regrets argument for the ``MODE_BR`` and ``MODE_EV`` passes, which never read it:
        float32 of the tree's size, uninitialised (no page of it is touched; zeros of a table
        turn spot's 2-5 M numbers took 3 ms a search when the allocator handed back freed
        memory to clear)."""
        got = self.__dict__.get("_no_regrets")
        if got is None:
            got = self.__dict__["_no_regrets"] = np.empty(self.tree.size, dtype=np.float32)
        return got
