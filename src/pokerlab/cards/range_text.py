"""Range text that carries its weights (:class:`RangeText`): what code writing exact weights as
text hands :func:`~pokerlab.cards.ranges.parse_range`, which then returns them unread."""

from __future__ import annotations

import numpy as np

from pokerlab.cards.deck import N_COMBOS

__all__ = ["RangeText"]


class RangeText(str):
    """Range text that carries the weights it reads as (``weights``: float64 ``(1326,)``, by
    combo id): :func:`parse_range` returns a copy of them without reading the text. For code
    that writes exact weights as text to make a spot (the search agent's ranges, where each
    weight is written with ``repr`` and reads back as the same float) and would otherwise
    parse its own output again; the text stays what a spot file saves."""

    weights: np.ndarray

    def __new__(cls, text: str, weights: np.ndarray) -> RangeText:
        obj = super().__new__(cls, text)
        held = np.array(weights, dtype=np.float64)
        if held.shape != (N_COMBOS,):
            raise ValueError(f"RangeText needs {N_COMBOS} weights, got shape {held.shape}")
        held.setflags(write=False)
        obj.weights = held
        return obj

    def __reduce__(self) -> tuple[type, tuple[str, np.ndarray]]:
        return (RangeText, (str(self), self.weights))
