"""The search agent on the command line (issue 25): ``search:CHECKPOINT`` as an agent of
``pokerlab blueprint match`` and ``lbr``, and ``--search`` for ``pokerlab blueprint play``.

The options say where and how hard the agent searches (:class:`~pokerlab.solvers.search.agent.
SearchAgent`): ``--search-streets`` (``river``, ``turn,river`` ...), ``--search-iterations`` (the
deterministic budget per subgame) or ``--search-seconds``, ``--search-bets`` and
``--search-raises`` (the menu, postflop bet-size syntax), ``--no-search-freeze`` (a re-solve
leaves the agent's own earlier actions in the round free; frozen for its hand by default),
``--search-gadget`` (unsafe, resolve, maxmargin or reach-maxmargin;
:mod:`pokerlab.solvers.search.safe`),
``--search-threads`` (threads of each subgame's solve, where one agent plays: ``play``, ACPC),
``--search-depth`` (``end`` of the game, or of the ``round`` for flop and turn subgames:
depth-limited, :mod:`pokerlab.solvers.search.table_depth`) with ``--search-continuations``
(1, 4 or self) and ``--search-deal-sample`` (``6,6``: the turn and river cards dealt below the
leaves, the full deck's flop within its budget) with ``--search-deal-draws`` (draws in turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import typer

from pokerlab.errors import PokerlabError

__all__ = [
    "SEARCH_PREFIX",
    "SearchSettings",
    "StreetsOption",
    "IterationsOption",
    "SecondsOption",
    "BetsOption",
    "RaisesOption",
    "FreezeOption",
    "GadgetOption",
    "ThreadsOption",
    "DepthOption",
    "ContinuationsOption",
    "DealSampleOption",
    "DealDrawsOption",
    "parse_seconds",
    "with_search",
]

#: an agent token ``search:PATH``: the blueprint at PATH with search
SEARCH_PREFIX = "search:"

StreetsOption = Annotated[
    str,
    typer.Option(
        "--search-streets",
        help="where to search: river, turn,river, flop,turn,river; preflop too on small decks",
    ),
]
IterationsOption = Annotated[
    int, typer.Option("--search-iterations", min=1, help="DCFR iterations per subgame")
]
SecondsOption = Annotated[
    str | None,
    typer.Option(
        "--search-seconds",
        help="seconds per subgame instead of iterations: 1.5, or per street: turn=1.7",
    ),
]
BetsOption = Annotated[str, typer.Option("--search-bets", help="the search's first-bet sizes")]
RaisesOption = Annotated[str, typer.Option("--search-raises", help="the search's raise sizes")]
FreezeOption = Annotated[
    bool,
    typer.Option(
        "--search-freeze/--no-search-freeze",
        help="a re-solve locks the agent's earlier actions in the round for its hand",
    ),
]

GadgetOption = Annotated[
    str,
    typer.Option(
        "--search-gadget",
        help="unsafe (both ranges by Bayes' rule), resolve, maxmargin or reach-maxmargin (safe: "
        "the opponent's values against the blueprint bound what it can win; reach-maxmargin "
        "adds what it gave up on the turn, river only)",
    ),
]

ThreadsOption = Annotated[
    int, typer.Option("--search-threads", min=1, help="threads of each subgame's solve")
]

DepthOption = Annotated[
    str,
    typer.Option(
        "--search-depth",
        help="end (of the game), round (preflop, flop and turn subgames stop at the round's "
        "end, the opponent picking among --search-continuations of the blueprint there), or "
        "the streets to stop so, e.g. preflop,flop",
    ),
]
ContinuationsOption = Annotated[
    str,
    typer.Option(
        "--search-continuations",
        help="with --search-depth round: 1 (the blueprint), 4 (and fold-, call-, raise-biased) "
        "or self (the blueprint, then best responses)",
    ),
]

DealSampleOption = Annotated[
    str | None,
    typer.Option(
        "--search-deal-sample",
        help="with --search-depth round: TURN,RIVER cards dealt below the leaves, or "
        "FLOP,TURN,RIVER (a preflop search's: FLOP cards at each of the flop's three deals), "
        "at least 3 each, e.g. 6,6 or 3,3,3; public chance sampling, drawn per subgame; default "
        "every card",
    ),
]

DealDrawsOption = Annotated[
    int,
    typer.Option(
        "--search-deal-draws",
        min=1,
        help="with --search-deal-sample: sampled spots of other draws that take a solve's "
        "iterations in turn (K draws at one draw's cost per iteration)",
    ),
]


PreflopFarOption = Annotated[
    float | None,
    typer.Option(
        "--search-preflop-far",
        min=0.0,
        help="with preflop in --search-streets: search a preflop decision only once the "
        "opponent's size lies more than this many big blinds from every blueprint size (as "
        "Pluribus: 1); default every preflop decision",
    ),
]


@dataclass(frozen=True)
class SearchSettings:
    """What the search options say (defaults as :class:`SearchAgent`'s)."""

    streets: str = "river"
    iterations: int = 100
    seconds: str | None = None
    bets: str = "50%, 100%, a"
    raises: str = "a"
    freeze: bool = True
    gadget: str = "unsafe"
    threads: int = 1
    depth: str = "end"
    continuations: str = "1"
    deal_sample: str | None = None
    deal_draws: int = 1
    preflop_far: float | None = None


def with_search(blueprint: Any, settings: SearchSettings, name: str | None = None) -> Any:
    """``blueprint`` (a :class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent`) wrapped
    in a :class:`~pokerlab.solvers.search.agent.SearchAgent` with ``settings``; errors name
    the option."""
    from pokerlab.solvers.search.agent import SearchAgent, SearchMenu

    try:
        menu = SearchMenu(settings.bets, settings.raises)
    except PokerlabError as exc:
        raise PokerlabError(f"--search-bets/--search-raises: {exc}") from None
    seconds = parse_seconds(settings.seconds)
    from pokerlab.solvers.search.safe import TABLE_GADGETS

    if settings.gadget not in TABLE_GADGETS:
        raise PokerlabError(
            f"--search-gadget: unknown {settings.gadget!r}; choose {', '.join(TABLE_GADGETS)}"
        )
    from pokerlab.solvers.search.table_depth import limited_streets

    try:
        limited = limited_streets(settings.depth)
    except PokerlabError as exc:
        raise PokerlabError(f"--search-depth: {exc}") from None
    if settings.continuations not in ("1", "4", "self"):
        raise PokerlabError(f"--search-continuations: 1, 4 or self, not {settings.continuations!r}")
    if limited and settings.gadget != "unsafe":
        raise PokerlabError(
            f"--search-depth round searches with the unsafe gadget, not {settings.gadget!r}"
        )
    k = settings.continuations
    if settings.deal_draws > 1 and (settings.deal_sample is None or k == "self"):
        raise PokerlabError(
            "--search-deal-draws: draws of sampled deals need --search-deal-sample and "
            "--search-continuations 1 or 4"
        )
    sample = None
    if settings.deal_sample is not None:
        from pokerlab.solvers.search.table_depth import check_deal_sample

        try:
            sample = check_deal_sample(settings.deal_sample.split(","), settings.depth)
        except PokerlabError as exc:
            raise PokerlabError(f"--search-deal-sample: {exc}") from None
    try:
        return SearchAgent(
            blueprint,
            settings.streets,
            menu=menu,
            iterations=settings.iterations,
            seconds=seconds,
            name=name,
            freeze=settings.freeze,
            gadget=settings.gadget,
            threads=settings.threads,
            depth=settings.depth,
            continuations=k if k == "self" else int(k),
            deal_sample=sample,
            deal_draws=settings.deal_draws,
            preflop_far=settings.preflop_far,
        )
    except PokerlabError as exc:
        raise PokerlabError(f"--search-streets: {exc}") from None


def parse_seconds(text: str | None) -> float | dict[str, float] | None:
    """``--search-seconds``: ``1.5`` (every street) or ``turn=1.7,river=0.05``; errors name the
    bad token."""
    if text is None:
        return None

    def number(token: str) -> float:
        try:
            value = float(token)
        except ValueError:
            raise PokerlabError(f"--search-seconds: {token!r} is not a number") from None
        if not value > 0:
            raise PokerlabError(f"--search-seconds must be > 0, got {token!r}")
        return value

    if "=" not in text:
        return number(text.strip())
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name.strip() not in ("preflop", "flop", "turn", "river"):
            raise PokerlabError(f"--search-seconds: unknown street {name.strip()!r} in {text!r}")
        out[name.strip()] = number(value.strip())
    return out
