"""Configurations of the no-limit game: keyword arguments, TOML files and built-in ones.

A configuration is a table of these keys (all optional; chips are whole numbers)::

    players = 2                  # 2 to 6
    stack = 10000                # every seat's chips; or stacks = [...] one per seat
    blinds = [50, 100]           # small blind, big blind
    ante = 0
    deck = "full"                # or "small" (24 cards), "tiny" (16), "micro" (12); ranks = N
    rounds = 4                   # betting rounds played (2 to 4)
    buckets = [169, 200, 200, 200]   # card buckets per street, for the size summary
    averages = "all"             # streets keeping average strategies: all | preflop | none
    short_allin_reopens = false  # true: a short all-in reopens the betting (ACPC, OpenSpiel)
    [actions]                    # ActionAbstraction.from_dict
    preflop = ["2.5bb, a", "3x, a", "a"]
    flop = ["50%, 100%, a", "100%, a"]
    raise_cap = { flop = 3 }

``config = "hunl-100"`` (or a built-in's name as the TOML's ``base``) starts from a built-in one.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = ["BUILTIN", "DECKS", "KEYS", "read_config", "resolve_config"]

#: Decks by name: ranks kept (the top ones), as limit hold'em's variants.
DECKS = {"full": 13, "small": 6, "tiny": 4, "micro": 3}

KEYS = (
    "players",
    "stack",
    "stacks",
    "blinds",
    "ante",
    "deck",
    "ranks",
    "rounds",
    "actions",
    "buckets",
    "averages",
    "short_allin_reopens",
)

_PREFLOP_SIMPLE = ["2.5bb, a", "3x, a", "a"]

#: Built-in configurations (see docs/nolimit-holdem.md).
BUILTIN: dict[str, dict[str, Any]] = {
    # Heads-up 100 big blinds with few sizes: trains in minutes with 50-bucket cards.
    "hunl-100": {
        "players": 2,
        "stack": 10_000,
        "blinds": [50, 100],
        "buckets": [169, 50, 50, 50],
        "actions": {
            "preflop": _PREFLOP_SIMPLE,
            "flop": ["100%, a", "a"],
            "turn": ["100%, a", "a"],
            "river": ["100%, a", "a"],
            "raise_cap": {"flop": 2, "turn": 2, "river": 2},
        },
    },
    # ACPC heads-up no-limit rules (stacks 20,000, blinds 50/100), Pluribus-like sizes: finest
    # preflop; first bets {0.5, 1} pot and all-in, raises {1 pot, all-in} (Brown and Sandholm
    # 2019, supplement; BLUEPRINT.md 1.1 and 3.2), buckets 169 / 200 / 200 / 200 and averages
    # kept for the preflop only, as Pluribus did.
    "acpc-hunl": {
        "players": 2,
        "stack": 20_000,
        "blinds": [50, 100],
        "buckets": [169, 200, 200, 200],
        "averages": "preflop",
        "actions": {
            "preflop": ["2bb, 2.5bb, 3bb, 4bb, a", "2.5x, 3x, 4x, a", "2.5x, a", "a"],
            "flop": ["33%, 50%, 100%, a", "100%, a"],
            "turn": ["50%, 100%, a", "100%, a"],
            "river": ["50%, 100%, a", "100%, a"],
            "raise_cap": {"flop": 3, "turn": 3, "river": 3},
        },
    },
    # Six players with 100 big blinds each, few sizes (Pluribus' table, coarser).
    "6max-100": {
        "players": 6,
        "stack": 10_000,
        "blinds": [50, 100],
        "buckets": [169, 50, 50, 50],
        "averages": "preflop",
        "actions": {
            "preflop": ["2.5bb, a", "a"],
            "flop": ["50%, a", "a"],
            "turn": ["100%, a", "a"],
            "river": ["100%, a", "a"],
            "raise_cap": {"preflop": 2, "flop": 1, "turn": 1, "river": 1},
        },
    },
    # fold / call / pot / all-in at every decision: OpenSpiel's universal_poker "fcpa".
    "fcpa": {
        "players": 2,
        "stack": 20_000,
        "blinds": [50, 100],
        "actions": {
            "preflop": "100%, a",
            "flop": "100%, a",
            "turn": "100%, a",
            "river": "100%, a",
            "add_allin_threshold": 0.0,
            "force_allin_threshold": 0.0,
            "merging_threshold": 0.0,
        },
    },
}


def _check_keys(params: Mapping[str, Any], where: str) -> None:
    for key in params:
        if key not in KEYS:
            raise PokerlabError(
                f"nolimit-holdem: unknown {where} key {key!r}; known: {', '.join(KEYS)}"
            )


def read_config(path: str | Path) -> dict[str, Any]:
    """The table of a TOML file (keys of this module's docstring; ``base`` names a built-in
    configuration to start from)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PokerlabError(f"cannot read {str(p)!r}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PokerlabError(f"{str(p)!r} is not valid TOML: {exc}") from None
    base = data.pop("base", None)
    _check_keys(data, "configuration")
    if base is not None:
        return {**_builtin(base), **data}
    return data


def _builtin(name: Any) -> dict[str, Any]:
    if not isinstance(name, str) or name not in BUILTIN:
        raise PokerlabError(
            f"nolimit-holdem: unknown configuration {name!r}; built-in: {', '.join(BUILTIN)}"
        )
    return dict(BUILTIN[name])


def resolve_config(config: str | Path | None, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters from ``config`` (a built-in name, a ``.toml`` path or None: ``"hunl-100"``),
    then ``overrides`` (None values ignored)."""
    _check_keys(overrides, "parameter")
    if config is None:
        params = _builtin("hunl-100")
    elif str(config).lower().endswith(".toml"):
        params = read_config(config)
    else:
        params = _builtin(str(config))
    given = {k: v for k, v in overrides.items() if v is not None}
    if "stacks" in given:
        params.pop("stack", None)
    elif "stack" in given:
        params.pop("stacks", None)
    params.update(given)
    return params
