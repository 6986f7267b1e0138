"""The history-tree backend: one node per history, one information set per private view (any game
written through :mod:`pokerlab.tree.history_interface`, any number of players); :mod:`.tree` holds
the tree, :mod:`._kernels` its full-width passes, :mod:`._mccfr_kernels` its sampled passes."""
