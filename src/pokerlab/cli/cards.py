"""``pokerlab equity`` and ``pokerlab range``: all-in equity, and a range shown as the hand grid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import typer
from rich.table import Table

from pokerlab.cards.deck import class_name
from pokerlab.cards.equity import equity as compute_equity
from pokerlab.cards.ranges import combo_count, format_range, parse_range, range_grid
from pokerlab.cli.app import app
from pokerlab.cli.render import HandGrid, console, hand_grid, print_json
from pokerlab.errors import PokerlabError

#: Most Monte Carlo deals of ``equity --samples``.
MAX_SAMPLES = 1_000_000_000


@app.command()
def equity(
    first: str = typer.Argument(..., help='First hand or range, e.g. "AsKs" or "QQ+, AKs".'),
    second: str = typer.Argument(..., help='Second hand or range, e.g. "QQ" or "random".'),
    board: str = typer.Option("", "--board", "-b", help='Known board cards, e.g. "Td9d6h".'),
    exact: bool = typer.Option(False, "--exact", help="Enumerate every runout (no sampling)."),
    samples: int | None = typer.Option(
        None, "--samples", "-n", min=1, max=MAX_SAMPLES, help="Monte Carlo deals."
    ),
    seed: int | None = typer.Option(
        None, "--seed", min=0, help="Seed for Monte Carlo (an integer >= 0)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """All-in equity of FIRST against SECOND (exact when feasible, else Monte Carlo)."""
    if exact and samples is not None:
        raise PokerlabError("--exact and --samples exclude each other")
    result = compute_equity(
        first, second, board, exact=True if exact else None, samples=samples, seed=seed
    )
    if as_json:
        print_json({"first": first, "second": second, "board": board, **result.to_dict()})
        return
    table = Table(title=f"{first}  vs  {second}" + (f"  on {board}" if board else ""))
    for col in ("", "equity", "win", "tie", "lose"):
        table.add_column(col, justify="right")
    table.add_row(
        first,
        f"{result.equity:.4%}",
        f"{result.win:.4%}",
        f"{result.tie:.4%}",
        f"{result.lose:.4%}",
    )
    table.add_row(
        second,
        f"{1 - result.equity:.4%}",
        f"{result.lose:.4%}",
        f"{result.tie:.4%}",
        f"{result.win:.4%}",
    )
    console.print(table)
    how = (
        f"exact ({result.method}, {result.samples:,} showdowns)"
        if result.exact
        else f"Monte Carlo, {result.samples:,} deals, std error {result.std_error:.4%}"
    )
    console.print(f"{how}, {result.seconds * 1000:.1f} ms")


def _grid_table(grid: np.ndarray, title: str) -> HandGrid:
    """The range's 13x13 grid of class weights: names in, ``·`` out, a percentage if partial."""
    return hand_grid(
        grid.ravel(),
        title,
        threshold=0.0,
        legend="name = in the range, · = not, N% = partly (mean weight of the hand's combos)",
    )


def write_range_png(grid: np.ndarray, path: Path, title: str) -> None:
    """Draw the 13x13 grid of class weights as a PNG, written atomically (temp file, rename)."""
    from pokerlab.plots.common import plt, save_png

    fig, ax = plt.subplots(figsize=(7, 7))
    ax.imshow(grid, cmap="Greens", vmin=0.0, vmax=1.0)
    for row in range(13):
        for col in range(13):
            color = "white" if grid[row, col] > 0.6 else "black"
            name = class_name(13 * row + col)
            ax.text(col, row, name, ha="center", va="center", fontsize=8, color=color)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=9)
    save_png(fig, path, dpi=100)


@app.command("range")
def range_command(
    text: str = typer.Argument(..., help='Range, e.g. "QQ+, A2s+, KTo+, 76s, AhKh, AKs:0.5".'),
    png: Path | None = typer.Option(None, "--png", help="Also draw the grid to this PNG file."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of the grid."),
) -> None:
    """Show a range as the 13x13 hand grid (suited above the diagonal) with its combo count."""
    weights = parse_range(text)
    grid = range_grid(weights)
    count = combo_count(weights)
    canonical = format_range(weights)
    if png is not None:
        if png.parent and not png.parent.exists():
            raise PokerlabError(f"folder does not exist: {png.parent}")
        write_range_png(grid, png, f"{canonical}  ({count:g} combos)")
    if as_json:
        print_json(
            {
                "range": canonical,
                "combos": count,
                "fraction": count / 1326,
                "grid": grid.tolist(),
                "png": str(png) if png is not None else None,
            }
        )
        return
    console.print(_grid_table(grid, canonical or "(empty range)"))
    console.print(f"{count:g} combos ({count / 1326:.2%} of 1326)")
    if png is not None:
        console.print(f"wrote {png}")
