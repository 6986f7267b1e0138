"""Small postflop spots shared by the tests."""

from __future__ import annotations

#: A turn spot whose river cards are split points (parallel work items): 1-2 s to solve.
TINY_TURN = dict(
    board="Td9d6hQc",
    ranges=("AA,KK,QQ,T9s,AdKd", "JJ,TT,AK,KQ"),
    pot=100,
    stack=400,
    bets="50%, a",
    raises="a",
)
