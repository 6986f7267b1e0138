"""The public-tree backend: nodes over public state, vectors over each private state (Kuhn, Leduc,
push/fold); :mod:`.tree` holds the tree and its backend, :mod:`._kernels` its numba passes."""
