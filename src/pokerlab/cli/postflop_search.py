"""``pokerlab postflop search SPOT``: real-time search on a postflop spot, judged exactly
(issue 25; docs/search.md).

The spot is solved as a blueprint with its river bucketed (``--buckets`` hand-strength classes
per river node; ``--buckets 0``: losslessly), then every public state that starts ``--street``
is searched for both seats with each ``--gadget`` and the assembled strategy's exploitability
printed beside the blueprint's (percent of the pot; a best response walks the whole spot).
"""

from __future__ import annotations

import time
from typing import Any

import typer
from rich.table import Table

from pokerlab.cli.postflop import postflop_app
from pokerlab.cli.render import console, print_json
from pokerlab.errors import PokerlabError


@postflop_app.command("search")
def search(
    spot: str = typer.Argument(
        ..., help="A built-in spot (river, turn, flop) or a spot file (.toml, .json)."
    ),
    gadget: str = typer.Option(
        "maxmargin",
        help="Comma-separated gadgets: unsafe, resolve, maxmargin, reach-maxmargin.",
    ),
    street: str = typer.Option("river", help="Search at the start of this street."),
    depth: str = typer.Option("end", help="end (of the game) or round (depth-limited)."),
    continuations: str = typer.Option(
        "1", help="Continuations at a depth limit: 1, 4 or self (self-generative)."
    ),
    self_rounds: int = typer.Option(
        3, min=0, help="With --continuations self: the most best responses added per subgame."
    ),
    self_tolerance: float = typer.Option(
        None,
        help="With --continuations self: stop adding once a response gains less than this "
        "fraction of the pot (chips per arrival at the subgame); default: always --self-rounds.",
    ),
    buckets: int = typer.Option(5, min=0, help="River classes of the blueprint (0: lossless)."),
    blueprint_iterations: int = typer.Option(300, min=1, help="The blueprint's iterations."),
    iterations: int = typer.Option(200, min=1, help="Iterations of each subgame's solve."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Solve SPOT as a blueprint, search it at every public state of a street with each gadget,
    and print each strategy's exact exploitability (percent of the pot)."""
    from pokerlab.games.registry import load_game
    from pokerlab.solvers.search import GADGETS, profile_exploitability, search_everywhere
    from pokerlab.solvers.search.blueprints import bucketed_blueprint, lossless_blueprint
    from pokerlab.tree.vector.passes import Passes

    gadgets = [g.strip() for g in gadget.split(",") if g.strip()]
    for g in gadgets:
        if g not in GADGETS:
            raise PokerlabError(f"--gadget: unknown gadget {g!r}; choose from {', '.join(GADGETS)}")
    if continuations not in ("1", "4", "self"):
        raise PokerlabError(f"--continuations: 1, 4 or self, not {continuations!r}")
    if street not in ("flop", "turn", "river"):
        raise PokerlabError(f"--street: search starts at the flop, turn or river, not {street!r}")
    if depth not in ("end", "round"):
        raise PokerlabError(f"--depth: depth is 'end' or 'round', not {depth!r}")
    if self_tolerance is not None and continuations != "self":
        raise PokerlabError("--self-tolerance needs --continuations self")
    if self_tolerance is not None and not self_tolerance >= 0:
        raise PokerlabError(f"--self-tolerance: a fraction of the pot >= 0, not {self_tolerance}")
    k: int | str = continuations if continuations == "self" else int(continuations)
    game = load_game("postflop", spot=spot)
    pot = float(game.config.pot)
    passes = Passes(game.expanded.tree, 1)
    start = time.perf_counter()
    if buckets:
        profile, _ = bucketed_blueprint(game, buckets, blueprint_iterations)
    else:
        profile, _ = lossless_blueprint(game, blueprint_iterations)
    rows: list[dict[str, Any]] = [
        {
            "configuration": "blueprint",
            "exploitability_pct": 100 * profile_exploitability(passes, profile, pot) / pot,
            "bound_pct": 0.0,
            "subgames": 0,
            "seconds": time.perf_counter() - start,
        }
    ]
    for g in gadgets:
        report = search_everywhere(
            game, profile, g, street=street, iterations=iterations, depth=depth,
            continuations=k, self_rounds=self_rounds, self_tolerance=self_tolerance,
        )  # fmt: skip
        rows.append(
            {
                "configuration": f"{street} search, {g}",
                "exploitability_pct": 100
                * profile_exploitability(passes, report.profile, pot)
                / pot,
                "bound_pct": 100 * report.gain_bound / pot,
                "subgames": report.subgames,
                "seconds": report.seconds,
                "self_rounds": [r.get("self_rounds", 0) for r in report.per_subgame],
            }
        )
    if as_json:
        print_json({"spot": spot, "buckets": buckets, "depth": depth, "rows": rows})
        return
    table = Table(title=f"{spot}: exploitability, % of the pot", header_style="bold")
    for name in ("configuration", "expl % pot", "bound % pot", "subgames", "seconds"):
        table.add_column(name, justify="left" if name == "configuration" else "right")
    for r in rows:
        table.add_row(
            r["configuration"], f"{r['exploitability_pct']:.4f}", f"{r['bound_pct']:.4f}",
            str(r["subgames"]), f"{r['seconds']:.1f}",
        )  # fmt: skip
    console.print(table)
