"""Judging no-limit hold'em agents (issue 24, "Judging it"): the agent interface and baselines
(:mod:`.agents`, :mod:`.pushfold_agent`), a trained blueprint as an agent (:mod:`.blueprint`),
duplicate matches for 2 to 6 players (:mod:`.matches`), heads-up local best response
(:mod:`.lbr`) and, on small decks, the exact best response (:mod:`.exact`); on the command line
``pokerlab blueprint match`` and ``pokerlab blueprint lbr``. docs/nolimit-holdem.md has the oracle
values."""

from pokerlab.evaluate.nolimit.agents import (
    Action,
    AlwaysCall,
    AlwaysFold,
    HandStrengthRule,
    NoLimitAgent,
    PotRaise,
    PublicView,
    normalize_action,
    pot_raise_to,
)
from pokerlab.evaluate.nolimit.exact import (
    ExactBestResponse,
    estimate_exact_best_response,
    exact_best_response,
)
from pokerlab.evaluate.nolimit.lbr import NoLimitLBRResult, lbr_difference, local_best_response
from pokerlab.evaluate.nolimit.matches import (
    HandRecord,
    NoLimitMatchResult,
    deal_cards,
    duplicate_match,
    play_hand,
)
from pokerlab.evaluate.nolimit.pushfold_agent import PushFoldAgent

__all__ = [
    "Action",
    "AlwaysCall",
    "AlwaysFold",
    "ExactBestResponse",
    "HandRecord",
    "HandStrengthRule",
    "NoLimitAgent",
    "NoLimitLBRResult",
    "NoLimitMatchResult",
    "PotRaise",
    "PushFoldAgent",
    "PublicView",
    "deal_cards",
    "duplicate_match",
    "estimate_exact_best_response",
    "exact_best_response",
    "lbr_difference",
    "local_best_response",
    "normalize_action",
    "play_hand",
    "pot_raise_to",
]
