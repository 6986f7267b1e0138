"""Older limit hold'em checkpoint layouts, built from today's states for the loading tests."""

from __future__ import annotations

from typing import Any

#: The run's identity, flat at the top level of a ``limit-pcs`` state.
_FLAT = ("schedule", "recall", "ranks", "buckets", "bucketing", "boards_per_iteration", "chance")


def limit_pcs_state(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` (a public-chance-sampling solver's, in the engine's schema) as the flat
    ``format: "limit-pcs"`` state checkpoints had before: the identity, the lazy scales and the
    generator state at the top level, no config or extra."""
    old = {key: value for key, value in state.items() if key not in ("config", "extra")}
    old.update({key: state["config"][key] for key in _FLAT})
    old.update(format="limit-pcs", scales=state["extra"]["scales"], rng=state["extra"]["rng"])
    return old
