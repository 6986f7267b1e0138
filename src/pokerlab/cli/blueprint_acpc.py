"""``pokerlab blueprint acpc`` and ``pokerlab blueprint acpc-dealer``: a no-limit blueprint in an
ACPC match over TCP (issue 25, "Playing"; :mod:`pokerlab.interop.acpc`,
:mod:`pokerlab.evaluate.nolimit.acpc`).

``acpc AGENT --host H --port P`` connects to an ACPC dealer (the ACPC server's ``dealer`` or
``acpc-dealer`` below) and plays AGENT, a checkpoint of ``pokerlab blueprint train`` (or a
built-in agent: ``always-call``, ...), until the dealer closes the connection; it prints the
hands played and the chips won, read from each hand's final state. The game is the
checkpoint's (a built-in agent's: ``--config`` and the game options, ``acpc-hunl`` by
default); ``--gamedef`` prints its ACPC game definition, for the dealer, and exits. Positions
follow the ACPC HUNL game (big blind in position 0) unless ``--normal-blinds``.

``acpc-dealer [CONFIG] --hands N`` opens one port per seat (printed first, as the ACPC dealer
does), waits for two players, plays N hands with the positions alternating and prints the
``SCORE`` line. Actions the dealer cannot play are played as a call, as the ACPC dealer does
(``--strict`` stops the match instead).
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from pokerlab.cli.blueprint import (
    CONFIG_HELP,
    BlindsOption,
    DeckOption,
    RoundsOption,
    StackOption,
    blueprint_app,
    game_from_options,
    parse_counts,
)
from pokerlab.cli.blueprint_search import (
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
    ThreadsOption,
)
from pokerlab.cli.render import print_json
from pokerlab.errors import PokerlabError

__all__ = ["acpc", "acpc_dealer"]


def _game(rules: Any, normal_blinds: bool) -> Any:
    from pokerlab.interop.acpc import AcpcGame

    return AcpcGame(rules, reverse_blinds=not normal_blinds)


@blueprint_app.command("acpc")
def acpc(
    agent: str = typer.Argument(
        ..., metavar="AGENT", help="checkpoint .npz of blueprint train, or a built-in agent"
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="the dealer's host"),
    port: int | None = typer.Option(None, "--port", min=1, max=65535, help="the seat's port"),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the agent's draws"),
    timeout: float | None = typer.Option(
        None, "--timeout", min=0.001, help="seconds to wait for each message (default: forever)"
    ),
    config: str | None = typer.Option(
        None, "--config", help=f"{CONFIG_HELP} (built-in agents only; default acpc-hunl)"
    ),
    normal_blinds: bool = typer.Option(
        False, "--normal-blinds", help="position 0 is the small blind (default: the big blind)"
    ),
    gamedef: bool = typer.Option(False, "--gamedef", help="print the ACPC game definition"),
    verbose: bool = typer.Option(False, "--verbose", help="print every message on stderr"),
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
    search_threads: ThreadsOption = SearchSettings.threads,
) -> None:
    """Play AGENT in an ACPC match: connect to the dealer's port and play until it closes.

    An agent written search:CHECKPOINT is the blueprint with real-time search (the --search
    options)."""
    from pokerlab.cli.blueprint_eval import load_agent
    from pokerlab.evaluate.nolimit.acpc import play_acpc

    settings = SearchSettings(
        search_streets,
        search_iterations,
        search_seconds,
        search_bets,
        search_raises,
        search_freeze,
        search_gadget,
        search_threads,
        search_depth,
        search_continuations,
        search_deal_sample,
        search_deal_draws,
        search_preflop_far,
    )
    the_agent, game = load_agent(agent, "AGENT", settings)
    if game is not None and config is not None:
        raise PokerlabError("--config is for built-in agents; a checkpoint plays its own game")
    rules = game.rules if game is not None else game_from_options(config or "acpc-hunl").rules
    table = _game(rules, normal_blinds)
    if gamedef:
        sys.stdout.write(table.gamedef())
        return
    if port is None:
        raise PokerlabError("--port: give the dealer's port of this seat")
    log = (lambda line: print(line, file=sys.stderr, flush=True)) if verbose else None
    result = play_acpc(table, the_agent, host, port, seed=seed, timeout=timeout, log=log)
    info = result.as_dict()
    if as_json:
        print_json({"agent": the_agent.name, "host": host, "port": port, **info})
        return
    per = "" if not info["hands"] else f", {info['mbb_per_hand']:+,.0f} mbb/hand"
    chips = info["chips"]
    shown = f"{chips:+,.0f}" if chips == int(chips) else f"{chips:+,.2f}"
    print(
        f"acpc {host}:{port}: {the_agent.name} played {info['hands']:,} hands, "
        f"{shown} chips ({info['bb']:+,.2f} bb){per}"
    )


@blueprint_app.command("acpc-dealer")
def acpc_dealer(
    config: str | None = typer.Argument(None, metavar="[CONFIG]", help=CONFIG_HELP),
    stack: StackOption = None,
    blinds: BlindsOption = None,
    deck: DeckOption = None,
    rounds: RoundsOption = None,
    hands: int = typer.Option(1000, "--hands", min=1, help="hands to play"),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the deals"),
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    ports: str = typer.Option("0,0", "--ports", help="the two seats' ports (0: any free one)"),
    timeout: float = typer.Option(600.0, "--timeout", min=0.001, help="seconds per answer"),
    names: str = typer.Option("seat0,seat1", "--names", help="the seats' names, for SCORE"),
    normal_blinds: bool = typer.Option(
        False, "--normal-blinds", help="position 0 is the small blind (default: the big blind)"
    ),
    strict: bool = typer.Option(False, "--strict", help="stop on an invalid action"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object at the end"),
) -> None:
    """Run an ACPC heads-up match between two players that connect over TCP."""
    from pokerlab.evaluate.nolimit.acpc_dealer import AcpcDealer

    game = game_from_options(
        config or "acpc-hunl", players=2, stack=stack, blinds=blinds, deck=deck, rounds=rounds
    )
    port_list = parse_counts(ports, "--ports", 2)
    name_list = [n.strip() for n in names.split(",")]
    if len(name_list) != 2 or not all(name_list):
        raise PokerlabError(f"--names: give two names separated by a comma, got {names!r}")
    dealer = AcpcDealer(
        _game(game.rules, normal_blinds),
        hands,
        seed,
        host=host,
        ports=port_list,
        timeout=timeout,
        invalid="error" if strict else "call",
        names=name_list,
    )
    print(" ".join(str(p) for p in dealer.ports), flush=True)
    result = dealer.run()
    if as_json:
        print_json({"score": result.score_line(), **result.as_dict(), "fixes": result.fixes})
        return
    for fix in result.fixes:
        print(f"invalid action: {fix}", file=sys.stderr)
    print(result.score_line())
