"""No-limit hold'em for 2 to 6 players (issue 24, "The game"): the rules with side pots
(:mod:`.rules`), the action abstraction (:mod:`.actions`), the abstract tree's size before
allocation (:mod:`.size`), configurations (:mod:`.config`) and the game (:mod:`.game`)."""

from pokerlab.games.nolimit.actions import ActionAbstraction, BigBlinds, abstract_actions
from pokerlab.games.nolimit.config import BUILTIN, read_config
from pokerlab.games.nolimit.game import NoLimitHistory, NoLimitHoldemGame
from pokerlab.games.nolimit.rules import BettingState, NoLimitRules, payoffs
from pokerlab.games.nolimit.size import TreeSize, count_tree, enumerate_lines

__all__ = [
    "ActionAbstraction",
    "BUILTIN",
    "BettingState",
    "BigBlinds",
    "NoLimitHistory",
    "NoLimitHoldemGame",
    "NoLimitRules",
    "TreeSize",
    "abstract_actions",
    "count_tree",
    "enumerate_lines",
    "payoffs",
    "read_config",
]
