"""The vector-tree backend of postflop spots: a public tree whose nodes hold vectors over each
player's own hand list; :mod:`.tree` and :mod:`.backend` hold the tree and the backend,
:mod:`._kernels`, :mod:`._mccfr_kernels` and :mod:`._lock_kernels` its numba passes."""
