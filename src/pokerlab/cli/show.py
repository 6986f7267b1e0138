"""``pokerlab show``: print a saved strategy, optionally only some of its information sets.

Three ways to pick information sets by key, one at a time: ``--key`` (the exact key),
``--prefix`` (keys that start with the text) and ``--contains`` (keys that contain it anywhere).
Leduc keys read ``PRIVATE:PUBLIC:HISTORY`` (``Ks:`` is a king in hand, ``Ks:Qh`` a king in hand
with a queen on the board), so ``--contains "Ks:"`` also matches every key with a king on the
board, while ``--prefix "Ks:"`` matches only a king in hand.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from pokerlab.cli.app import app, print_error
from pokerlab.cli.render import console, print_json
from pokerlab.errors import PokerlabError
from pokerlab.io.paths import check_input_file
from pokerlab.strategy import Strategy

#: Exit code of ``show`` when no information set matches the filter (as ``grep`` does).
EXIT_NO_MATCH = 1


def key_filter(
    key: str | None = None, prefix: str | None = None, contains: str | None = None
) -> tuple[Callable[[str], bool], str]:
    """A predicate on information-set keys and a phrase describing it.

    At most one of ``key`` (exact match), ``prefix`` (``str.startswith``) and ``contains``
    (substring) may be given; with none every key matches. Raises
    :class:`~pokerlab.errors.PokerlabError` when more than one is given.
    """
    given = [
        (name, value)
        for name, value in (("--key", key), ("--prefix", prefix), ("--contains", contains))
        if value is not None
    ]
    if len(given) > 1:
        raise PokerlabError(f"{given[0][0]} and {given[1][0]} exclude each other; give one")
    if key is not None:
        return (lambda k: k == key), f"equal to {key!r}"
    if prefix is not None:
        return (lambda k: k.startswith(prefix)), f"starting with {prefix!r}"
    if contains is not None:
        return (lambda k: contains in k), f"containing {contains!r}"
    return (lambda k: True), "at all"


def _table(
    strategy: Strategy, keep: Callable[[str], bool], max_rows: int, title: str
) -> tuple[Table, int, int]:
    """Rows of the kept information sets: (table, rows shown, rows left out by ``max_rows``)."""
    table = Table(title=title, show_lines=False, header_style="bold")
    table.add_column("information set", style="cyan")
    table.add_column("player", justify="right")
    table.add_column("actions")
    idx = strategy.compiled.index
    shown = left_out = 0
    for k, name in enumerate(idx.keys):
        if not keep(name):
            continue
        if max_rows and shown >= max_rows:
            left_out += 1
            continue
        probs = strategy.probs[idx.positions(k)]
        cells = "  ".join(
            f"{label}={p:6.1%}" for label, p in zip(idx.labels[k], probs, strict=True)
        )
        table.add_row(name, str(int(idx.player[k])), cells)
        shown += 1
    return table, shown, left_out


@app.command()
def show(
    file: Path = typer.Argument(..., help="A strategy file written by `pokerlab solve --out`."),
    key: str | None = typer.Option(
        None, "--key", help="Exact match: only the information set with this key."
    ),
    prefix: str | None = typer.Option(
        None, "--prefix", help='Prefix match: keys that start with this (e.g. "Ks:").'
    ),
    contains: str | None = typer.Option(
        None, "--contains", help="Substring match: keys that contain this anywhere."
    ),
    max_rows: int = typer.Option(0, min=0, help="Rows to print (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Print a saved strategy: information sets and action probabilities.

    --key, --prefix and --contains pick information sets by exact key, by key prefix or by
    substring (one of them). When none matches, a message says so and the exit code is 1.
    """
    from pokerlab.io.files import load_strategy, read_metadata

    check_input_file(file, "strategy file")
    keep, phrase = key_filter(key, prefix, contains)
    meta = read_metadata(file)
    if meta.get("format") != "pokerlab-strategy":
        raise PokerlabError(_not_a_strategy(file, meta))
    strategy = load_strategy(file)
    keys = strategy.compiled.index.keys
    if not any(keep(k) for k in keys):
        print_error(
            f"no information set of {str(file)!r} has a key {phrase} ({len(keys)} keys; "
            "--key matches the whole key, --prefix its start, --contains any part)",
            prefix="",
        )
        raise SystemExit(EXIT_NO_MATCH)
    if as_json:
        table = {k: v for k, v in strategy.items() if keep(k)}
        print_json({"metadata": meta, "strategy": table})
        return
    rows, _, left_out = _table(
        strategy, keep, max_rows, title=f"{meta['game']} {meta.get('algorithm', '')}"
    )
    console.print(rows)
    if left_out:
        console.print(f"... {left_out} more")
    extra = {k: meta[k] for k in ("iterations", "exploitability", "created") if k in meta}
    console.print(", ".join(f"{k}: {v}" for k, v in extra.items()))


def _not_a_strategy(file: Path, meta: dict[str, Any]) -> str:
    """Why ``pokerlab show`` does not print ``file`` (a file of pokerlab's that is not a
    strategy file), and the command that does."""
    from pokerlab.io.files import is_postflop_solution

    name = str(file)
    if is_postflop_solution(meta):
        return f"{name!r} is a postflop solution: show it with pokerlab postflop show {name}"
    bucketed = meta.get("representation") == "bucketed"
    if meta.get("game") == "nolimit-holdem" and bucketed:  # pokerlab blueprint train's
        return f"{name!r} is a no-limit blueprint: show it with pokerlab blueprint show {name}"
    state = str(meta.get("state_format") or "")
    if state.startswith("limit-") or bucketed:
        return (
            f"{name!r} is a limit hold'em checkpoint: open it in the viewer (pokerlab serve) or "
            f"play it (pokerlab play limit-holdem --checkpoint {name})"
        )
    return (
        f"{name!r} is a checkpoint, not a strategy file: open it in the viewer (pokerlab serve), "
        f"or resume it with --out to write one (pokerlab solve GAME --resume {name} --out FILE)"
    )
