"""``pokerlab pushfold`` and ``pokerlab match``: heads-up push/fold equilibria, charts, matches."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import typer

from pokerlab.cli.app import app, warn
from pokerlab.cli.render import console, hand_grid, print_json, stack_chart_grid
from pokerlab.errors import PokerlabError

#: Largest stack the push/fold commands accept (big blinds): far beyond where push/fold means
#: anything, and small enough that the equilibrium converges in well under a second.
MAX_STACK_BB = 1000.0
#: Largest ante (big blinds per player).
MAX_ANTE_BB = 100.0
#: Smallest target exploitability of ``pushfold`` (bb/hand): about 30,000 iterations at 10 bb;
#: 1e-10 would take about 200,000 (minutes).
MIN_TARGET_BB = 1e-9
#: Most stacks one ``--sweep`` solves (each about 0.1-0.5 s).
MAX_SWEEP_STACKS = 500
#: Most hands per match, and hands in all (``--hands`` x ``--matches``): each hand keeps one
#: float of the running result, so 10^8 hands are 0.8 GB.
MAX_MATCH_HANDS = 10_000_000
MAX_TOTAL_HANDS = 100_000_000


def _stack_above_blind(value: float | None) -> float | None:
    """``--stack``'s lower bound, the game's own (:class:`~pokerlab.games.pushfold.PushFoldGame`):
    above the small blind's 0.5 bb, which the option's ``min`` (inclusive) cannot say."""
    if value is not None and not value > 0.5:
        raise typer.BadParameter(f"Input should be greater than 0.5 big blinds, got {value:g}")
    return value


def _parse_sweep(text: str) -> list[float]:
    """Stacks of ``--sweep START:STOP:STEP`` (both ends included), checked before any work:
    START > 0.5, STOP <= :data:`MAX_STACK_BB`, at most :data:`MAX_SWEEP_STACKS` stacks."""
    parts = text.split(":")
    try:
        lo, hi, step = (float(x) for x in parts) if len(parts) == 3 else (float("nan"),) * 3
    except ValueError:
        lo = hi = step = float("nan")
    if not (lo > 0.5 and hi >= lo and step > 0):
        raise PokerlabError(f"bad --sweep {text!r}: use START:STOP:STEP with START > 0.5, STEP > 0")
    count = int((hi - lo) / step + 0.5) + 1
    if count > MAX_SWEEP_STACKS:
        raise PokerlabError(
            f"--sweep {text!r} would solve {count:,} stacks; at most {MAX_SWEEP_STACKS} per "
            "sweep (use a larger STEP)"
        )
    if hi > MAX_STACK_BB:
        raise PokerlabError(
            f"bad --sweep {text!r}: STOP {hi:g} is above the largest stack, {MAX_STACK_BB:g} bb"
        )
    return [float(x) for x in np.round(np.arange(lo, hi + step / 2, step), 6)]


def _check_target(what: str, exploitability: float, target: float) -> bool:
    """Warn on stderr when ``exploitability`` (bb/hand) missed ``target``; True when it did."""
    if exploitability <= target:
        return False
    warn(
        f"target exploitability {target:g} bb/hand not reached for {what} "
        f"(exploitability {exploitability:.3g} after the iteration limit)"
    )
    return True


def _max_stack(stacks: list[float], freq: np.ndarray) -> np.ndarray:
    """Per class, the largest stack of the sweep at which it plays with frequency >= 1/2."""
    out = np.zeros(freq.shape[1])
    for k, s in enumerate(stacks):
        out = np.where(freq[k] >= 0.5, s, out)
    return out


@app.command()
def pushfold(
    stack: float = typer.Option(
        10.0,
        "--stack",
        "-s",
        max=MAX_STACK_BB,
        callback=_stack_above_blind,
        help="Effective stack in big blinds (above 0.5).",
    ),
    ante: float = typer.Option(0.0, min=0.0, max=MAX_ANTE_BB, help="Ante per player, big blinds."),
    sweep: str | None = typer.Option(
        None,
        help=f"Sweep stacks START:STOP:STEP, e.g. 1:25:0.5 (at most {MAX_SWEEP_STACKS} stacks).",
    ),
    best_response: str | None = typer.Option(
        None, "--best-response", help="Best response to a strategy: '70/60', ranges, a file."
    ),
    target: float = typer.Option(
        1e-6,
        min=MIN_TARGET_BB,
        max=1.0,
        help="Target exploitability, bb/hand; when the iteration cap comes first a warning is "
        "printed and the exit code is 3.",
    ),
    csv_file: Path | None = typer.Option(None, "--csv", help="Sweep chart as CSV."),
    png: Path | None = typer.Option(None, help="Write the 13x13 grids (or the chart) as PNG."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Save the equilibrium strategy."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Heads-up push/fold Nash equilibrium over all 1326 hands (blinds 0.5/1)."""
    from pokerlab.analysis.pushfold import (
        best_response_report,
        class_frequencies,
        strategy_from_spec,
    )
    from pokerlab.cards.deck import N_CLASSES, class_name
    from pokerlab.games.pushfold import PushFoldGame
    from pokerlab.io.paths import check_output_file
    from pokerlab.solvers.pushfold import solve_pushfold, sweep_pushfold

    for option, path in (("--csv", csv_file), ("--png", png), ("--out", out)):
        if path is not None:
            check_output_file(path, option)  # before the work, not after it
    if sweep is not None:
        stacks = _parse_sweep(sweep)
        with (
            console.status(f"solving {len(stacks)} stacks", spinner="dots")
            if not as_json
            else _null()
        ):
            solutions = sweep_pushfold(stacks, ante, target_exploitability=target)
        sb = np.array([s.sb_shove[0] for s in solutions])
        bb = np.array([s.bb_call[0] for s in solutions])
        sb_max, bb_max = _max_stack(stacks, sb), _max_stack(stacks, bb)
        rows = [
            {
                "stack_bb": s.game.stacks[0],
                "sb_shove_fraction": s.sb_shove_fraction,
                "bb_call_fraction": s.bb_call_fraction,
                "sb_game_value_bb": s.sb_game_value_bb,
                "exploitability_bb": s.exploitability_bb,
                "seconds": s.seconds,
            }
            for s in solutions
        ]
        if csv_file is not None:
            buf = io.StringIO()
            writer = csv.writer(buf)
            writer.writerow(["hand", "sb_shove_max_bb", "bb_call_max_bb"])
            for c in range(N_CLASSES):
                writer.writerow([class_name(c), f"{sb_max[c]:g}", f"{bb_max[c]:g}"])
            from pokerlab.io.atomic import atomic_write_bytes

            atomic_write_bytes(csv_file, buf.getvalue().encode())
            _wrote(csv_file, as_json)
        if png is not None:
            from pokerlab.plots.grids import plot_chart

            plot_chart(sb_max, bb_max, png, top=max(stacks))
            _wrote(png, as_json)
        chart = {
            "sb_shove_max_bb": {class_name(c): float(sb_max[c]) for c in range(N_CLASSES)},
            "bb_call_max_bb": {class_name(c): float(bb_max[c]) for c in range(N_CLASSES)},
        }
        if as_json:
            print_json({"ante_bb": ante, "stacks": rows, **chart})
            _exit_if_missed(rows, target)
            return
        from rich.table import Table

        table = Table(title=f"push/fold sweep, ante {ante:g}")
        for col in ("stack", "SB shove", "BB call", "SB value", "exploitability"):
            table.add_column(col, justify="right")
        for r in rows:
            table.add_row(
                f"{r['stack_bb']:g}",
                f"{r['sb_shove_fraction']:.1%}",
                f"{r['bb_call_fraction']:.1%}",
                f"{r['sb_game_value_bb']:+.4f}",
                f"{r['exploitability_bb']:.1e}",
            )
        console.print(table)
        top = max(stacks)
        console.print(stack_chart_grid(sb_max, "small blind: shove up to (bb)", top))
        console.print(stack_chart_grid(bb_max, "big blind: call up to (bb)", top))
        _exit_if_missed(rows, target)
        return

    game = PushFoldGame(stack, ante)
    if best_response is not None:
        strategy = strategy_from_spec(best_response, game)
        report = best_response_report(game, strategy)
        if as_json:
            print_json({"stack_bb": stack, "ante_bb": ante, "opponent": best_response, **report})
            return
        for seat, key, title in (
            ("sb", "sb_shove", "small blind best response: shove"),
            ("bb", "bb_call", "big blind best response: call"),
        ):
            r = report[f"{seat}_best_response"]
            freq = np.array([r[key][class_name(c)] for c in range(N_CLASSES)])
            console.print(hand_grid(freq, f"{title} {r['fraction']:.1%}"))
            console.print(
                f"  value {r['value_bb']:+.4f} bb/hand vs the strategy's own "
                f"{r['strategy_value_bb']:+.4f}: gain {r['gain_bb']:+.4f}"
            )
        console.print(
            f"exploitability of {best_response!r}: {report['exploitability_bb']:.4f} bb/hand"
        )
        return

    solution = solve_pushfold(stack, ante, target_exploitability=target)
    if out is not None:
        from pokerlab.io.files import save_strategy

        save_strategy(
            out,
            solution.strategy,
            algorithm="dcfr (class reduction)",
            iterations=solution.iterations,
            exploitability=solution.exploitability_bb,
        )
        _wrote(out, as_json)
    if png is not None:
        from pokerlab.plots.grids import plot_grids

        plot_grids(
            [
                (f"small blind shoves {solution.sb_shove_fraction:.1%}", solution.sb_shove[0]),
                (f"big blind calls {solution.bb_call_fraction:.1%}", solution.bb_call[0]),
            ],
            png,
            suptitle=f"Push/fold Nash equilibrium, {stack:g} bb, ante {ante:g}",
            colorbar_label="share of the hand's combos played",
        )
    if png is not None:
        _wrote(png, as_json)
    missed = _check_target(f"{stack:g} bb", solution.exploitability_bb, target)
    if as_json:
        print_json(solution.to_dict())
        _exit_if_missed([], target, missed)
        return
    console.print(
        hand_grid(
            class_frequencies(solution.sb_shove[0]),
            f"small blind shoves {solution.sb_shove_fraction:.1%}",
        )
    )
    console.print(
        hand_grid(
            class_frequencies(solution.bb_call[0]),
            f"big blind calls {solution.bb_call_fraction:.1%}",
        )
    )
    mixed = solution.mixed_hands()
    for seat, hands in mixed.items():
        if hands:
            console.print(f"mixed ({seat}): " + ", ".join(f"{h} {f:.1%}" for h, f in hands.items()))
    console.print(
        f"{stack:g} bb: small blind value {solution.sb_game_value_bb:+.5f} bb/hand, "
        f"exploitability {solution.exploitability_bb:.2e} bb/hand, "
        f"{solution.iterations} iterations, {solution.seconds:.3f} s"
    )
    _exit_if_missed([], target, missed)


def _exit_if_missed(rows: list[dict[str, float]], target: float, missed: bool = False) -> None:
    """Exit with code 3 (after the output) when the target was missed: ``missed`` for one stack,
    or for the sweep ``rows`` whose exploitability is above ``target`` (warned here)."""
    from pokerlab.solvers.stopping import EXIT_TARGET_NOT_REACHED

    late = [r["stack_bb"] for r in rows if r["exploitability_bb"] > target]
    if late:
        warn(
            f"target exploitability {target:g} bb/hand not reached at {len(late)} of "
            f"{len(rows)} stacks: "
            + ", ".join(f"{s:g}" for s in late[:10])
            + (" ..." if len(late) > 10 else "")
        )
    if missed or late:
        raise SystemExit(EXIT_TARGET_NOT_REACHED)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _player(spec: str, stack: float, ante: float, name: str):  # noqa: ANN202
    from pokerlab.analysis.pushfold import shove_call_arrays, strategy_from_spec
    from pokerlab.evaluate.matches import PushFoldPlayer
    from pokerlab.games.pushfold import PushFoldGame
    from pokerlab.solvers.pushfold import solve_pushfold

    if spec.lower() in ("nash", "equilibrium"):
        strategy = solve_pushfold(stack, ante).strategy
    else:
        strategy = strategy_from_spec(spec, PushFoldGame(stack, ante))
    sb, bb = shove_call_arrays(strategy)
    return PushFoldPlayer(sb, bb, np.array([0.0]), name=name)


@app.command()
def match(
    a: str = typer.Argument(..., help="Player A: 'nash', '70/60', ranges 'SB / BB', a file."),
    b: str = typer.Argument(..., help="Player B, same forms."),
    hands: int = typer.Option(
        10_000, "--hands", "-n", min=1, max=MAX_MATCH_HANDS, help="Hands per match."
    ),
    matches: int = typer.Option(1, "--matches", "-m", min=1, help="Number of matches."),
    stack: float = typer.Option(
        10.0,
        "--stack",
        "-s",
        max=MAX_STACK_BB,
        callback=_stack_above_blind,
        help="Stack in big blinds (above 0.5).",
    ),
    ante: float = typer.Option(0.0, min=0.0, max=MAX_ANTE_BB, help="Ante per player, big blinds."),
    until_broke: bool = typer.Option(
        False, help="Play until one player has no chips left (at most --hands hands)."
    ),
    seed: int = typer.Option(0, min=0, help="Random seed (an integer >= 0)."),
    png: Path | None = typer.Option(None, help="Running bb/hand of player A as PNG."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Simulated heads-up push/fold matches between two strategies (seats alternate)."""
    from pokerlab.evaluate.matches import play_matches

    if hands * matches > MAX_TOTAL_HANDS:
        raise PokerlabError(
            f"--hands {hands:,} x --matches {matches:,} is {hands * matches:,} hands; at most "
            f"{MAX_TOTAL_HANDS:,} in all"
        )
    if png is not None:
        from pokerlab.io.paths import check_output_file

        check_output_file(png, "--png")  # before the matches, not after them
    pa, pb = _player(a, stack, ante, "A"), _player(b, stack, ante, "B")
    series = play_matches(
        pa, pb, hands, stack, matches, ante_bb=ante, until_broke=until_broke, seed=seed
    )
    if png is not None:
        from pokerlab.plots.grids import plot_match_curve

        plot_match_curve(
            [m.running_bb_per_hand for m in series.matches],
            png,
            title=f"A = {a} vs B = {b}, {stack:g} bb",
        )
        _wrote(png, as_json)
    if as_json:
        print_json({"a": a, "b": b, "stack_bb": stack, "seed": seed, **series.to_dict()})
        return
    from rich.table import Table

    table = Table(title=f"A = {a}  vs  B = {b}   ({stack:g} bb, seed {seed})")
    for col in ("match", "hands", "A bb/hand", "95% CI", "A bb/100", "shove A/B", "call A/B"):
        table.add_column(col, justify="right")
    for k, m in enumerate(series.matches, 1):
        table.add_row(
            str(k),
            str(m.hands),
            _number(m.bb_per_hand, "+.4f"),
            _number(m.ci95_bb_per_hand, ".4f", "±"),
            _number(m.bb_per_100, "+.1f"),
            f"{_number(m.shove_frequency[0], '.0%')}/{_number(m.shove_frequency[1], '.0%')}",
            f"{_number(m.call_frequency[0], '.0%')}/{_number(m.call_frequency[1], '.0%')}",
        )
    console.print(table)
    console.print(
        f"mean over {len(series.matches)} matches: {_number(series.mean_bb_per_hand, '+.4f')} "
        f"bb/hand (spread {_number(series.std_bb_per_hand, '.4f')})"
    )
    if any(not math.isfinite(m.ci95_bb_per_hand) for m in series.matches):
        console.print(
            "n/a: not measured (no interval from one hand; no frequency without a chance)"
        )


def _number(value: float, spec: str, prefix: str = "") -> str:
    """``value`` formatted with ``spec`` (and ``prefix``), or ``n/a`` when it is nan or infinite
    (an interval from one hand, a frequency with no opportunity)."""
    return prefix + format(value, spec) if math.isfinite(value) else "n/a"


def _wrote(path: Path, as_json: bool) -> None:
    """Say ``wrote PATH`` for a file just written (on stderr with --json: stdout is the JSON)."""
    from rich.console import Console

    Console(stderr=as_json, soft_wrap=True).print(f"wrote {path}", highlight=False, markup=False)
