"""A tiny report template shared by the report tests: all-in or check, five hand classes a side
(a flop solves in about a second)."""

TEMPLATE = """\
pot = 100
stack = 50
oop_range = "AA,KK,QQ,AKs,AQs"
ip_range = "JJ,TT,99,AKo,KQs"

[flop]
bet = "a"
raise = "a"

[turn]
bet = "a"

[river]
bet = "a"
"""
