"""Measuring strategies: exact expected value, best response, exploitability."""

from pokerlab.evaluate.exploitability import (
    BestResponse,
    best_response_strategy,
    best_response_values,
    expected_values,
    exploitability,
    exploitability_report,
    mbb_per_game,
    nash_conv,
)

__all__ = [
    "BestResponse",
    "best_response_strategy",
    "best_response_values",
    "expected_values",
    "exploitability",
    "exploitability_report",
    "mbb_per_game",
    "nash_conv",
]
