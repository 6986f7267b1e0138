"""Distributed training on Ray (optional dependency: ``pip install "pokerlab[ray]"``).

:mod:`pokerlab.distributed.limit_ray`: limit hold'em CFR with public chance sampling split after
a round's betting, the head owning the top of the tree and Ray actors the subtrees below it.
"""
