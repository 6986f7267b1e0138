"""The betting-tree backend of limit hold'em with card abstraction: a public betting tree whose
nodes hold rows over bucket states; :mod:`.tree` holds the tree, :mod:`._kernels`,
:mod:`._subtree_kernels`, :mod:`._mccfr_kernels` (its deals in :mod:`._deal_kernels`, showdown
values in :mod:`._pot_kernels`) and :mod:`._value_kernels` its numba passes."""
