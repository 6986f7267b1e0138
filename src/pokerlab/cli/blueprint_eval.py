"""``pokerlab blueprint match`` and ``pokerlab blueprint lbr``: judging no-limit agents from the
command line (issue 24, "Judging it").

An agent is a built-in name (``always-fold``, ``always-call``, ``pot-raise``, ``rule``: the
hand-strength rule bot of :mod:`pokerlab.evaluate.nolimit.agents`) or a blueprint checkpoint
written by ``pokerlab blueprint train``: its strategy is played with the card abstraction it was
trained with (rebuilt as the train command builds it: lossless, or the configuration's tables
from the cache with the checkpoint's seed) by
:class:`~pokerlab.evaluate.nolimit.blueprint.BlueprintAgent`.

``match HERO OPPONENT`` plays :func:`~pokerlab.evaluate.nolimit.matches.duplicate_match` and
prints the hero's mbb/g with the 95% interval; the game is a checkpoint's own (``game_params``)
or the configuration's (``--config`` and the game options, ``hunl-100`` by default); a
checkpoint whose game differs from the other checkpoint's or the configuration's is refused by
name. ``lbr AGENT`` plays :func:`~pokerlab.evaluate.nolimit.lbr.local_best_response` (Lisy and
Bowling 2017) against it; the API's refusals (not heads-up, not four rounds) are one error line.
``--json`` prints the result's ``as_dict()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from pokerlab.cli.blueprint import (
    CONFIG_HELP,
    AnteOption,
    BlindsOption,
    DeckOption,
    PlayersOption,
    RoundsOption,
    StackOption,
    blueprint_app,
    game_from_options,
)
from pokerlab.cli.blueprint_search import (
    SEARCH_PREFIX,
    BetsOption,
    ContinuationsOption,
    DealDrawsOption,
    DealSampleOption,
    DepthOption,
    FreezeOption,
    GadgetOption,
    IterationsOption,
    PreflopFarOption,
    RaisesOption,
    SearchSettings,
    SecondsOption,
    StreetsOption,
    with_search,
)
from pokerlab.cli.render import print_json
from pokerlab.errors import PokerlabError

__all__ = ["BUILTIN_AGENTS", "lbr", "load_agent", "match"]

BUILTIN_AGENTS = ("always-fold", "always-call", "pot-raise", "rule")

AgainstOption = Annotated[
    str | None,
    typer.Option(
        "--against",
        metavar="AGENT2",
        help="also LBR against AGENT2 on the same deals and draws, and the paired difference",
    ),
]
WorkersOption = Annotated[
    int, typer.Option("--workers", min=1, help="local processes (or Ray tasks) playing the deals")
]
RayOption = Annotated[bool, typer.Option("--ray", help="play the deals as --workers Ray tasks")]
AddressOption = Annotated[
    str | None, typer.Option("--address", help="Ray cluster host:port (implies --ray)")
]


def _builtin(name: str) -> Any:
    from pokerlab.evaluate.nolimit import AlwaysCall, AlwaysFold, HandStrengthRule, PotRaise

    return {
        "always-fold": AlwaysFold,
        "always-call": AlwaysCall,
        "pot-raise": PotRaise,
        "rule": HandStrengthRule,
    }[name]()


def _describe(rules: Any) -> str:
    """The table in words: players, stacks, blinds, ante, cards and rounds."""
    stacks = "/".join(str(s) for s in rules.stacks)
    return (
        f"{rules.players} players, stacks {stacks}, blinds {rules.small_blind}/{rules.big_blind}, "
        f"ante {rules.ante}, {4 * rules.ranks} cards, {rules.rounds} rounds"
    )


def load_agent(token: str, label: str, search: SearchSettings | None = None) -> tuple[Any, Any]:
    """The agent named by ``token`` and, for a checkpoint, its game (else None).

    ``token``: a name of :data:`BUILTIN_AGENTS`, the path of a checkpoint of ``pokerlab
    blueprint train``, or ``search:PATH``: that checkpoint's blueprint with real-time search
    (``search``'s settings, :mod:`pokerlab.cli.blueprint_search`); errors name ``label``
    (``HERO``, ``OPPONENT``, ``AGENT``) and the token.
    """
    if token.lower() in BUILTIN_AGENTS:
        return _builtin(token.lower()), None
    searching = token.startswith(SEARCH_PREFIX)
    path = Path(token.removeprefix(SEARCH_PREFIX))
    if not searching and not (
        path.suffix.lower() == ".npz" or path.exists() or "/" in token or "\\" in token
    ):
        raise PokerlabError(
            f"{label}: unknown agent {token!r}; known: {', '.join(BUILTIN_AGENTS)}, a "
            "checkpoint file of pokerlab blueprint train (.npz) or search:CHECKPOINT"
        )
    from pokerlab.solvers.blueprint_load import load_blueprint

    agent, game = load_blueprint(path, label)
    if searching:
        agent = with_search(agent, search or SearchSettings(), f"search:{path.name}")
    return agent, game


def _check_same(label: str, token: str, game: Any, other: str, rules: Any) -> None:
    if game.rules != rules:
        raise PokerlabError(
            f"{label} {token!r} was trained on another game ({_describe(game.rules)}) than "
            f"{other} ({_describe(rules)})"
        )


@blueprint_app.command("match")
def match(
    hero: str = typer.Argument(..., metavar="HERO", help="built-in agent or checkpoint .npz"),
    opponent: str = typer.Argument(..., metavar="OPPONENT", help="the same"),
    config: str | None = typer.Option(None, "--config", help=CONFIG_HELP),
    players: PlayersOption = None,
    stack: StackOption = None,
    blinds: BlindsOption = None,
    ante: AnteOption = None,
    deck: DeckOption = None,
    rounds: RoundsOption = None,
    pairs: int = typer.Option(1000, "--pairs", min=2, help="deals, each played once per seat"),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the deals"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    search_streets: StreetsOption = "river",
    search_iterations: IterationsOption = 100,
    search_seconds: SecondsOption = None,
    search_bets: BetsOption = SearchSettings.bets,
    search_raises: RaisesOption = SearchSettings.raises,
    search_freeze: FreezeOption = SearchSettings.freeze,
    search_gadget: GadgetOption = SearchSettings.gadget,
    search_depth: DepthOption = SearchSettings.depth,
    search_continuations: ContinuationsOption = SearchSettings.continuations,
    search_deal_sample: DealSampleOption = SearchSettings.deal_sample,
    search_deal_draws: DealDrawsOption = SearchSettings.deal_draws,
    search_preflop_far: PreflopFarOption = SearchSettings.preflop_far,
    workers: WorkersOption = 1,
    ray: RayOption = False,
    address: AddressOption = None,
) -> None:
    """Duplicate match of HERO against OPPONENT: the hero's mbb/g with its 95% interval; the
    same numbers on any number of --workers, local or Ray.

    An agent written search:CHECKPOINT searches in play (the --search options set how)."""
    from pokerlab.evaluate.nolimit import duplicate_match

    settings = SearchSettings(
        search_streets,
        search_iterations,
        search_seconds,
        search_bets,
        search_raises,
        search_freeze,
        search_gadget,
        depth=search_depth,
        continuations=search_continuations,
        deal_sample=search_deal_sample,
        deal_draws=search_deal_draws,
        preflop_far=search_preflop_far,
    )
    hero_agent, hero_game = load_agent(hero, "HERO", settings)
    opp_agent, opp_game = load_agent(opponent, "OPPONENT", settings)
    options = dict(players=players, stack=stack, blinds=blinds, ante=ante, deck=deck, rounds=rounds)
    if (
        config is not None
        or any(o is not None for o in options.values())
        or (hero_game is None and opp_game is None)
    ):
        game = game_from_options(config, **options)
        rules, where = game.rules, f"the configuration {config or 'hunl-100'!r}"
    elif hero_game is not None:
        rules, where = hero_game.rules, f"HERO {hero!r}"
    else:
        rules, where = opp_game.rules, f"OPPONENT {opponent!r}"
    if hero_game is not None:
        _check_same("HERO", hero, hero_game, where, rules)
    if opp_game is not None:
        _check_same("OPPONENT", opponent, opp_game, where, rules)
    with _executor(ray, address) as executor:
        result = duplicate_match(rules, hero_agent, opp_agent, pairs, seed, workers, executor)
    if as_json:
        print_json(result.as_dict())
        return
    info = result.as_dict()
    print(f"{_describe(rules)}: {result.hero} against {result.opponent}")
    print(
        f"hero {result.mbb_per_game:+.1f} +- {result.ci95_mbb:.1f} mbb/g (95%), "
        f"{info['games']:,} games, {result.seconds:.1f} s"
    )


@blueprint_app.command("lbr")
def lbr(
    agent: str = typer.Argument(..., metavar="AGENT", help="built-in agent or checkpoint .npz"),
    config: str | None = typer.Option(
        None, "--config", help=f"{CONFIG_HELP} (for a built-in agent; default hunl-100)"
    ),
    pairs: int = typer.Option(100, "--pairs", min=2, help="deals, each played in both seats"),
    actions: str = typer.Option("fcpa", "--actions", help="LBR's actions: fcpa or fc"),
    rounds: str = typer.Option("3-4", "--rounds", help="rounds LBR plays: 3-4 or 1-4"),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the deals"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    against: AgainstOption = None,
    search_streets: StreetsOption = "river",
    search_iterations: IterationsOption = 100,
    search_seconds: SecondsOption = None,
    search_bets: BetsOption = SearchSettings.bets,
    search_raises: RaisesOption = SearchSettings.raises,
    search_freeze: FreezeOption = SearchSettings.freeze,
    search_gadget: GadgetOption = SearchSettings.gadget,
    search_depth: DepthOption = SearchSettings.depth,
    search_continuations: ContinuationsOption = SearchSettings.continuations,
    search_deal_sample: DealSampleOption = SearchSettings.deal_sample,
    search_deal_draws: DealDrawsOption = SearchSettings.deal_draws,
    search_preflop_far: PreflopFarOption = SearchSettings.preflop_far,
    workers: WorkersOption = 1,
    ray: RayOption = False,
    address: AddressOption = None,
) -> None:
    """Local best response (Lisy and Bowling 2017) against AGENT: LBR's mbb/g, 95% interval;
    the same numbers on any number of --workers, local or Ray.

    An agent written search:CHECKPOINT is the blueprint with search (the --search options).
    --against AGENT2: LBR against AGENT2 on the same deals and draws too, and AGENT's minus
    AGENT2's with the paired interval (lbr_difference; e.g. a search agent against its own
    blueprint, which play alike before the searched streets)."""
    from pokerlab.evaluate.nolimit import lbr_difference, local_best_response

    if actions not in ("fcpa", "fc"):
        raise PokerlabError(f"--actions: unknown {actions!r}; known: fcpa, fc")
    if rounds not in ("3-4", "1-4"):
        raise PokerlabError(f"--rounds: unknown {rounds!r}; known: 3-4, 1-4")
    settings = SearchSettings(
        search_streets,
        search_iterations,
        search_seconds,
        search_bets,
        search_raises,
        search_freeze,
        search_gadget,
        depth=search_depth,
        continuations=search_continuations,
        deal_sample=search_deal_sample,
        deal_draws=search_deal_draws,
        preflop_far=search_preflop_far,
    )
    judged = [(agent, "AGENT", *load_agent(agent, "AGENT", settings))]
    if against is not None:
        judged.append((against, "AGENT2", *load_agent(against, "AGENT2", settings)))
    games = [(token, label, g) for token, label, _, g in judged if g is not None]
    if not games or config is not None:
        table = game_from_options(config).rules
        where = f"the configuration {config or 'hunl-100'!r}"
    else:
        table, where = games[0][2].rules, f"{games[0][1]} {games[0][0]!r}"
    for token, label, g in games:
        _check_same(label, token, g, where, table)
    results = []
    with _executor(ray, address) as executor:
        for _, _, the_agent, _ in judged:
            results.append(
                local_best_response(
                    table,
                    the_agent,
                    pairs,
                    seed,
                    actions=actions,
                    rounds=rounds,
                    workers=workers,
                    executor=executor,
                )  # fmt: skip
            )
    difference = lbr_difference(results[0], results[1]) if against is not None else None
    if as_json:
        if difference is None:
            print_json(results[0].as_dict())
        else:
            mean, half = difference
            print_json(
                {
                    "agent": results[0].as_dict(),
                    "against": results[1].as_dict(),
                    "difference": {"mbb_per_game": mean, "ci95_mbb": half, "pairs": pairs},
                }
            )
        return
    names = " and ".join(r.agent for r in results)
    print(f"{_describe(table)}: LBR ({actions}, rounds {rounds}) against {names}")
    for result in results:
        print(
            ("" if difference is None else f"{result.agent}: ")
            + f"LBR {result.mbb_per_game:+.1f} +- {result.ci95_mbb:.1f} mbb/g (95%), "
            f"{2 * result.pairs:,} games, {result.seconds:.1f} s"
        )
    if difference is not None:
        print(
            f"{results[0].agent} minus {results[1].agent}, paired on the same deals: "
            f"{difference[0]:+.1f} +- {difference[1]:.1f} mbb/g (95%)"
        )


@contextmanager
def _executor(ray: bool, address: str | None) -> Iterator[Any]:
    """A Ray executor for ``--ray`` / ``--address`` (shut down after), else None."""
    if not ray and address is None:
        yield None
        return
    from pokerlab.distributed.ray_executor import RayExecutor

    executor = RayExecutor(address)
    try:
        yield executor
    finally:
        executor.shutdown()
