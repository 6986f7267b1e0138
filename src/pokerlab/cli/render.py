"""Terminal rendering helpers shared by CLI commands (rich tables, JSON output)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from pokerlab.strategy import Strategy

__all__ = ["console", "hand_grid", "print_json", "strategy_table"]

console = Console()


def _clean(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def print_json(obj: dict[str, Any]) -> None:
    """Print one JSON object on stdout (NaN and infinities become null)."""
    sys.stdout.write(json.dumps(_clean(obj), indent=2) + "\n")
    sys.stdout.flush()


def strategy_table(
    strategy: Strategy, contains: str | None = None, max_rows: int = 0, title: str | None = None
) -> tuple[Table, int]:
    """A table of information sets and action probabilities; returns (table, rows left out)."""
    table = Table(title=title, show_lines=False, header_style="bold")
    table.add_column("information set", style="cyan")
    table.add_column("player", justify="right")
    table.add_column("actions")
    idx = strategy.compiled.index
    shown = 0
    left_out = 0
    for k, key in enumerate(idx.keys):
        if contains and contains not in key:
            continue
        if max_rows and shown >= max_rows:
            left_out += 1
            continue
        probs = strategy.probs[idx.positions(k)]
        cells = "  ".join(
            f"{label}={p:6.1%}" for label, p in zip(idx.labels[k], probs, strict=True)
        )
        table.add_row(key, str(int(idx.player[k])), cells)
        shown += 1
    return table, left_out


def hand_grid(per_class: Sequence[float], title: str, threshold: float = 1e-3) -> Table:
    """A 13x13 terminal grid of hands coloured by frequency; mixed hands are marked ``*``.

    Pairs are on the diagonal, suited hands above it, offsuit below (rows and columns A..2).
    """
    from pokerlab.cards.deck import N_CLASSES, class_grid_position, class_name

    cells = [["" for _ in range(13)] for _ in range(13)]
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        f = float(per_class[c])
        name = class_name(c)
        if f >= 1 - threshold:
            cells[r][k] = f"[bold black on green]{name:>4}[/]"
        elif f <= threshold:
            cells[r][k] = f"[dim]{name:>4}[/]"
        else:
            cells[r][k] = f"[black on yellow]{name}*[/]"
    table = Table(title=title, show_header=False, box=None, padding=(0, 0))
    for _ in range(13):
        table.add_column(justify="center", min_width=5)
    for row in cells:
        table.add_row(*row)
    return table
