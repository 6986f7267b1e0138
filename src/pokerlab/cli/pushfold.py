"""``pokerlab pushfold`` and ``pokerlab match``: heads-up push/fold equilibria, charts, matches."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import typer

from pokerlab.cli.app import app
from pokerlab.cli.render import console, hand_grid, print_json, stack_chart_grid
from pokerlab.errors import PokerlabError


def _parse_sweep(text: str) -> list[float]:
    parts = text.split(":")
    try:
        lo, hi, step = (float(x) for x in parts) if len(parts) == 3 else (float("nan"),) * 3
    except ValueError:
        lo = hi = step = float("nan")
    if not (lo > 0.5 and hi >= lo and step > 0):
        raise PokerlabError(f"bad --sweep {text!r}: use START:STOP:STEP with START > 0.5, STEP > 0")
    return [float(x) for x in np.round(np.arange(lo, hi + step / 2, step), 6)]


def _max_stack(stacks: list[float], freq: np.ndarray) -> np.ndarray:
    """Per class, the largest stack of the sweep at which it plays with frequency >= 1/2."""
    out = np.zeros(freq.shape[1])
    for k, s in enumerate(stacks):
        out = np.where(freq[k] >= 0.5, s, out)
    return out


@app.command()
def pushfold(
    stack: float = typer.Option(10.0, "--stack", "-s", help="Effective stack in big blinds."),
    ante: float = typer.Option(0.0, help="Ante per player, big blinds."),
    sweep: str | None = typer.Option(None, help="Sweep stacks START:STOP:STEP, e.g. 1:25:0.5."),
    best_response: str | None = typer.Option(
        None, "--best-response", help="Best response to a strategy: '70/60', ranges, a file."
    ),
    target: float = typer.Option(1e-6, help="Target exploitability, bb/hand."),
    csv_file: Path | None = typer.Option(None, "--csv", help="Sweep chart as CSV."),
    png: Path | None = typer.Option(None, help="Write the 13x13 grids (or the chart) as PNG."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Save the equilibrium strategy."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Heads-up push/fold Nash equilibrium over all 1326 hands (blinds 0.5/1)."""
    from pokerlab.analysis.pushfold import (
        best_response_report,
        class_frequencies,
        solve_pushfold,
        strategy_from_spec,
        sweep_pushfold,
    )
    from pokerlab.cards.deck import N_CLASSES, class_name
    from pokerlab.games.pushfold import PushFoldGame

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
            from pokerlab.io.files import atomic_write_bytes

            atomic_write_bytes(csv_file, buf.getvalue().encode())
        if png is not None:
            from pokerlab.plots.grids import plot_chart

            plot_chart(sb_max, bb_max, png, top=max(stacks))
        chart = {
            "sb_shove_max_bb": {class_name(c): float(sb_max[c]) for c in range(N_CLASSES)},
            "bb_call_max_bb": {class_name(c): float(bb_max[c]) for c in range(N_CLASSES)},
        }
        if as_json:
            print_json({"ante_bb": ante, "stacks": rows, **chart})
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
    if as_json:
        print_json(solution.to_dict())
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


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _player(spec: str, stack: float, ante: float, name: str):  # noqa: ANN202
    from pokerlab.analysis.pushfold import shove_call_arrays, solve_pushfold, strategy_from_spec
    from pokerlab.evaluate.matches import PushFoldPlayer
    from pokerlab.games.pushfold import PushFoldGame

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
    hands: int = typer.Option(10_000, "--hands", "-n", help="Hands per match."),
    matches: int = typer.Option(1, "--matches", "-m", help="Number of matches."),
    stack: float = typer.Option(10.0, "--stack", "-s", help="Stack in big blinds."),
    ante: float = typer.Option(0.0, help="Ante per player, big blinds."),
    until_broke: bool = typer.Option(False, help="Play until one player has no chips left."),
    seed: int = typer.Option(0, help="Random seed."),
    png: Path | None = typer.Option(None, help="Running bb/hand of player A as PNG."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Simulated heads-up push/fold matches between two strategies (seats alternate)."""
    from pokerlab.evaluate.matches import play_matches

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
            f"{m.bb_per_hand:+.4f}",
            f"±{m.ci95_bb_per_hand:.4f}",
            f"{m.bb_per_100:+.1f}",
            f"{m.shove_frequency[0]:.0%}/{m.shove_frequency[1]:.0%}",
            f"{m.call_frequency[0]:.0%}/{m.call_frequency[1]:.0%}",
        )
    console.print(table)
    console.print(
        f"mean over {len(series.matches)} matches: {series.mean_bb_per_hand:+.4f} "
        f"bb/hand (spread {series.std_bb_per_hand:.4f})"
    )
