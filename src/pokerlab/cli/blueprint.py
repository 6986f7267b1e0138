"""``pokerlab blueprint``: the no-limit hold'em blueprint's commands (issue 24).

``pokerlab blueprint summary [CONFIG]`` prints the abstract game's size before anything is
allocated (action sequences, information sets and stored entries per street, the memory of
regrets and averages) and refuses, with the estimate, a game whose rows will not fit this
machine's free memory. ``pokerlab blueprint abstraction [CONFIG]`` builds (or reads from the
cache) the card abstraction of the configuration's deck and buckets
(:mod:`pokerlab.games.nolimit.abstraction`) with a progress bar on a terminal, and prints the
build time, peak memory, bucket sizes per street and the cache file. CONFIG is a built-in
configuration (``hunl-100`` by default, ``acpc-hunl``, ``6max-100``, ``fcpa``) or a ``.toml``
file; options override its keys. ``--json`` prints one object instead of the tables.

Other command modules add their commands to :data:`blueprint_app` (``@blueprint_app.command``)
and are imported by :mod:`pokerlab.cli.main`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from pokerlab.cli.app import UsageErrorGroup
from pokerlab.cli.render import print_json
from pokerlab.errors import PokerlabError

__all__ = ["blueprint_app", "game_from_options", "parse_counts"]


blueprint_app = typer.Typer(
    cls=UsageErrorGroup,
    name="blueprint",
    help=(
        "The no-limit hold'em blueprint: size summary, card abstraction, training, matches, "
        "LBR, play, show, ACPC matches."
    ),
    no_args_is_help=True,
    add_completion=False,
)

CONFIG_HELP = "built-in configuration (hunl-100, acpc-hunl, 6max-100, fcpa) or a .toml file"

# The game options of the commands that take CONFIG (each overrides its key; None: CONFIG's),
# defined once: ``players: PlayersOption = None`` in a command's signature.
PlayersOption = Annotated[int | None, typer.Option("--players", min=2, max=6, help="2 to 6")]
StackOption = Annotated[int | None, typer.Option("--stack", min=1, help="every seat's chips")]
BlindsOption = Annotated[
    str | None, typer.Option("--blinds", help="small and big blind, e.g. 50,100")
]
AnteOption = Annotated[int | None, typer.Option("--ante", min=0, help="every seat's ante, chips")]
DeckOption = Annotated[str | None, typer.Option("--deck", help="full, small, tiny or micro")]
RoundsOption = Annotated[int | None, typer.Option("--rounds", help="betting rounds, 2 to 4")]


def parse_counts(text: str, option: str, length: int | None = None, minimum: int = 0) -> list[int]:
    """Whole numbers of at most 12 digits separated by commas (``"169,200,200,200"``), each at
    least ``minimum``; errors name ``option`` and the bad token."""
    parts = [p.strip() for p in str(text).split(",")]
    for p in parts:
        if not re.fullmatch(r"[0-9]{1,12}", p):
            raise PokerlabError(f"{option}: {p[:40]!r} is not a whole number")
        if int(p) < minimum:
            raise PokerlabError(f"{option}: {p!r} is below {minimum}")
    if length is not None and len(parts) != length:
        raise PokerlabError(f"{option} needs {length} counts separated by commas, got {text!r}")
    return [int(p) for p in parts]


def game_from_options(
    config: str | None,
    *,
    players: int | None = None,
    stack: int | None = None,
    blinds: str | None = None,
    ante: int | None = None,
    deck: str | None = None,
    rounds: int | None = None,
    buckets: str | None = None,
    averages: str | None = None,
) -> Any:
    """The :class:`~pokerlab.games.nolimit.NoLimitHoldemGame` of CONFIG and the options."""
    from pokerlab.games.nolimit import NoLimitHoldemGame

    if config is not None and str(config).lower().endswith(".toml"):
        if not Path(config).is_file():
            raise PokerlabError(f"configuration file {config!r} not found")
    return NoLimitHoldemGame(
        config,
        players=players,
        stack=stack,
        blinds=None if blinds is None else parse_counts(blinds, "--blinds", 2),
        ante=ante,
        deck=deck,
        rounds=rounds,
        buckets=None if buckets is None else parse_counts(buckets, "--buckets", 4, minimum=1),
        averages=averages,
    )


@blueprint_app.command("summary")
def summary(
    config: str | None = typer.Argument(None, metavar="[CONFIG]", help=CONFIG_HELP),
    players: PlayersOption = None,
    stack: StackOption = None,
    blinds: BlindsOption = None,
    ante: AnteOption = None,
    deck: DeckOption = None,
    rounds: RoundsOption = None,
    buckets: str | None = typer.Option(None, "--buckets", help="card buckets per street a,b,c,d"),
    averages: str | None = typer.Option(
        None, "--averages", help="streets keeping average strategies: all, preflop or none"
    ),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Size of the abstract no-limit game before allocation; refuses one that will not fit."""
    from pokerlab.games.nolimit.size import check_fits

    game = game_from_options(
        config,
        players=players,
        stack=stack,
        blinds=blinds,
        ante=ante,
        deck=deck,
        rounds=rounds,
        buckets=buckets,
        averages=averages,
    )
    info = game.summary()
    text = info.pop("text")
    if as_json:
        print_json({"config": config or "hunl-100", "game": game.params, **info})
    else:
        rules = game.rules
        print(
            f"nolimit-holdem {config or 'hunl-100'}: {rules.players} players, stacks "
            f"{', '.join(f'{s:,}' for s in rules.stacks)}, blinds {rules.small_blind}/"
            f"{rules.big_blind}, ante {rules.ante}, {4 * rules.ranks} cards, "
            f"{rules.rounds} rounds"
        )
        print(text)
    check_fits(info["bytes"])


def _progress_bar(show: bool) -> tuple[Progress, Any]:
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not show,
    )
    tasks: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done)

    return bar, progress


@blueprint_app.command("abstraction")
def abstraction(
    config: str | None = typer.Argument(None, metavar="[CONFIG]", help=CONFIG_HELP),
    deck: DeckOption = None,
    buckets: str | None = typer.Option(
        None, "--buckets", help="buckets per street a,b,c,d (default: the configuration's)"
    ),
    method: str = typer.Option("emd", "--method", help="emd (k-means of EMD), ehs or ehs2"),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the k-means"),
    kmeans_sample: int | None = typer.Option(
        None,
        "--kmeans-sample",
        min=1,
        help="rounds with more classes are clustered on this many weighted draws, then refined "
        "on every class (default 200000)",
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="neither read nor write the cache"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Build (or read from the cache) the card abstraction of a no-limit configuration."""
    from pokerlab.abstraction.buckets import METHODS
    from pokerlab.games.nolimit.size import format_bytes

    if method.lower() not in METHODS:
        raise PokerlabError(f"--method: unknown method {method!r}; known: emd, ehs, ehs2")
    game = game_from_options(config, deck=deck, buckets=buckets)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    show = not as_json and sys.stderr.isatty()
    from pokerlab.abstraction.buckets import abstraction_path
    from pokerlab.abstraction.store import cache_dir
    from pokerlab.games.nolimit.abstraction import KMEANS_SAMPLE

    cached = (
        not no_cache
        and abstraction_path(
            cache_dir(),
            game.rules.ranks,
            game.buckets,
            method.lower(),
            seed=seed,
            kmeans_sample=KMEANS_SAMPLE if kmeans_sample is None else kmeans_sample,
        ).is_file()
    )
    if game.rules.ranks == 13 and not as_json and not cached:
        err.print(
            "the full deck's tables take about 16 min and 7 GiB to build when not cached "
            "(docs/nolimit-holdem.md); progress is kept: Ctrl-C and run again to resume"
        )
    bar, progress = _progress_bar(show)
    with bar:
        build = game.card_abstraction(
            method.lower(),
            seed=seed,
            cache=not no_cache,
            progress=progress,
            kmeans_sample=kmeans_sample,
        )
    info = build.as_dict()
    if as_json:
        print_json({"config": config or "hunl-100", **info})
        return
    a = build.abstraction
    how = "read from the cache" if build.from_cache else "built"
    print(
        f"card abstraction of nolimit-holdem {config or 'hunl-100'}: {4 * a.ranks} cards, "
        f"method {a.method}, buckets {'/'.join(str(b) for b in a.buckets)}"
    )
    print(
        f"{how} in {build.seconds:.1f} s (CPU {build.cpu_seconds:.1f} s); peak memory "
        f"{format_bytes(build.peak_bytes)}"
    )
    head = ("street", "classes", "buckets", "smallest", "largest", "k-means objective")
    print("{:<8} {:>12} {:>8} {:>12} {:>12} {:>18}".format(*head))
    for row in info["streets"]:
        objective = "" if row["objective"] is None else f"{row['objective']:.4g}"
        lossless = " (lossless)" if row["buckets"] == row["classes"] else ""
        print(
            f"{row['street']:<8} {row['classes']:>12,} {row['buckets']:>8,} "
            f"{row['min_hands']:>12,} {row['max_hands']:>12,} {objective:>18}{lossless}"
        )
    print("(smallest, largest: hands in a bucket)")
    print(f"cache: {build.path}" if build.path is not None else "cache: not used (--no-cache)")
