"""``pokerlab postflop search SPOT``: real-time search on a postflop spot, judged exactly
(issue 25; docs/search.md).

The spot is solved as a blueprint with its river bucketed (``--buckets`` hand-strength classes
per river node; ``--buckets 0``: losslessly), then every public state that starts ``--street``
is searched for both seats with each ``--gadget`` and the assembled strategy's exploitability
printed beside the blueprint's (percent of the pot; a best response walks the whole spot).

Every kernel the blueprint and the searches call is compiled (or loaded from numba's cache)
before anything is timed, so each row's seconds are solving alone, comparable between gadgets;
on a terminal, stderr says so when the cache is cold and gives a line as each row finishes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import typer
from rich.table import Table

from pokerlab.cli.postflop import postflop_app
from pokerlab.cli.render import console, print_json
from pokerlab.cli.render_postflop import print_line_stderr, stderr_is_terminal
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
    say = print_line_stderr if stderr_is_terminal() else lambda message: None
    warm_kernels(game, say)
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
    say(f"blueprint: {rows[0]['seconds']:.1f} s")
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
        count = f"{report.subgames} subgame{'' if report.subgames == 1 else 's'}"
        say(f"{rows[-1]['configuration']}: {count}, {report.seconds:.1f} s")
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


def search_kernels_cold() -> bool:
    """Whether numba's on-disk cache lacks the kernels of the blueprint's and the searches'
    passes (:func:`pokerlab.warmup.kernels_cold`): the warm-up then compiles, about a minute."""
    from pokerlab.tree import _primitives
    from pokerlab.tree.vector import _kernels, _search_kernels
    from pokerlab.warmup import kernels_cold

    return kernels_cold([_kernels, _primitives, _search_kernels])


def warm_kernels(game: Any, say: Callable[[str], None]) -> None:
    """Compile or load every kernel the blueprint's solve (one thread, dcfr), its normalisation
    and :func:`~pokerlab.solvers.search.everywhere.search_everywhere` call, on tiny spots (the
    kernels specialise on types, not sizes; the normalisation on ``game``'s tree, one linear
    pass), so that no row's seconds include compiling; first ``say`` the compile notice of
    ``pokerlab postflop`` when the cache is cold."""
    import numpy as np

    from pokerlab.solvers.postflop import postflop_schedule
    from pokerlab.solvers.postflop_solve import warm_kernels as warm_passes
    from pokerlab.solvers.search import warm_search
    from pokerlab.warmup import COMPILING_MESSAGE

    if search_kernels_cold():
        say(COMPILING_MESSAGE)
    warm_passes(1, False, postflop_schedule("dcfr"))
    warm_search()
    game.public_tree().normalise(np.zeros(game.expanded.tree.size))
