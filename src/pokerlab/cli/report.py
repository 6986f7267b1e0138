"""``pokerlab report TEMPLATE --flops SET --out DIR``: one postflop template solved on many
flops (or on the turns of one flop), one row per board, a weighted overall row.

Writes ``DIR/report.json`` and ``DIR/report.csv`` atomically after every finished board
(:mod:`pokerlab.reports.rows`); ``--resume`` checks both and solves only the boards not done.
A progress bar on stderr (terminals only) shows boards done, the rate and the time left. Ctrl-C
stops at a board boundary: the board being solved is dropped (``--resume`` solves it again),
every finished row is kept, exit 130. Exit 3 when some board stopped at ``--iterations`` before
the target (its row is written, ``target_reached`` false). ``docs/reports.md`` has the details.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from pokerlab.cli.app import app, warn
from pokerlab.cli.render import console, print_json
from pokerlab.errors import PokerlabError

#: What the first Ctrl-C prints.
STOP_NOTICE = "stopping: the board being solved is dropped (--resume solves it again)..."


@app.command("report")
def report(
    template: str = typer.Argument(
        ...,
        help="A postflop spot file without a board (.toml or .json), or a built-in template: "
        "small, flop-one-size (docs/reports.md).",
    ),
    flops: str | None = typer.Option(
        None,
        "--flops",
        help="all (the 1,755 flops), 184, 85, 49, 25 (representative subsets) or a file of "
        "flops, one a line with an optional weight (default 25).",
        show_default=False,
    ),
    turns: str | None = typer.Option(
        None, "--turns", help="A flop, e.g. AsKd7c: report its turn cards instead of flops."
    ),
    target: str = typer.Option(
        "0.5%", "--target", "-t", help="Exploitability to reach on each board, % of the pot."
    ),
    iterations: int = typer.Option(
        1000, "--iterations", "-n", min=1, help="Iterations at most on each board."
    ),
    algorithm: str = typer.Option("dcfr-ps", "--algorithm", "-a", help="Postflop algorithm."),
    threads: int = typer.Option(
        1,
        min=1,
        help="Threads: boards solved at once, one solver thread each (results do not change); "
        "with --ray, each task's solver threads.",
    ),
    ray: bool = typer.Option(False, "--ray", help="Solve the boards as Ray tasks, one each."),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster address (host:port); default: a local Ray."
    ),
    workers: int | None = typer.Option(
        None, min=1, help="With --ray: boards solved at once (default 2).", show_default=False
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Report folder (created if missing)."),
    resume: bool = typer.Option(False, "--resume", help="Continue the report in --out."),
    save_solutions: bool = typer.Option(
        False,
        "--save-solutions",
        help="Also save each board's solution as OUT/solutions/BOARD.npz (pokerlab postflop "
        "show, the viewer).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object at the end."),
) -> None:
    """Solve a postflop template on many flops; one row per flop, weighted overall row.

    Exit codes: 0 done; 2 bad input (nothing solved); 3 some board stopped at --iterations
    before the target; 130 Ctrl-C (finished rows kept; continue with --resume).
    """
    from pokerlab.cli.postflop_options import canonical_postflop_algorithm, parse_target
    from pokerlab.io.interrupts import shield_sigint, stop_on_sigint
    from pokerlab.io.paths import check_output_folder
    from pokerlab.reports.flops import flop_set, parse_board, turn_cards
    from pokerlab.reports.rows import ReportFiles, plan_entries
    from pokerlab.reports.run import ReportSettings, check_template, load_template

    if flops is not None and turns is not None:
        raise PokerlabError("give --flops or --turns, not both")
    if (address is not None or workers is not None) and not ray:
        raise PokerlabError(f"{'--address' if address is not None else '--workers'} needs --ray")
    settings = ReportSettings(
        target_pct=parse_target(target),
        max_iterations=iterations,
        algorithm=canonical_postflop_algorithm(algorithm),
    )
    data = load_template(template)
    if turns is not None:
        plan, notes, kind, spec = turn_cards(parse_board(turns, 3, "--turns")), [], "turns", turns
    else:
        spec = flops if flops is not None else "25"
        kind = "flops"
        plan, notes = flop_set(spec)
    for note in notes:
        warn(note)
    check_template(data, plan, str(template))
    folder = check_output_folder(out, "--out", ["report.json", "report.csv"])
    header = {
        "kind": kind,
        "boards": spec if kind == "turns" or spec.lower() == "all" or spec.isdigit() else "file",
        "template": data,
        "settings": settings.to_dict(),
        "plan": plan_entries(plan),
    }
    files = ReportFiles(folder, header)
    if resume:
        files.load()
    elif files.exists():
        raise PokerlabError(
            f"--out {str(folder)!r} already holds a report: --resume to continue it, or choose "
            "another folder"
        )
    todo = [f for f in plan if f.text not in files.rows]
    save_dir = None
    if save_solutions:
        save_dir = folder / "solutions"
        save_dir.mkdir(parents=True, exist_ok=True)
    err = Console(stderr=True)
    show = not as_json and err.is_terminal
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=err,
        disable=not show,
    )
    task = bar.add_task(kind, total=len(plan), completed=len(plan) - len(todo), rate="")
    done_here = [0]

    with stop_on_sigint(notice=STOP_NOTICE) as stop:

        def on_row(row: dict[str, Any]) -> None:
            with shield_sigint("the report files", stop):
                files.add(row)
            done_here[0] += 1
            elapsed = bar.tasks[0].elapsed or 0.0
            rate = f"{60.0 * done_here[0] / elapsed:.1f}/min" if elapsed > 0 else ""
            bar.update(task, advance=1, rate=rate)

        with shield_sigint("the report files", stop):
            files.write()  # the folder holds a (maybe empty) report from the start
        with bar:
            if ray:
                from pokerlab.reports.ray_run import run_on_ray

                finished = run_on_ray(
                    data, todo, settings, on_row, workers=workers or 2, address=address,
                    threads=threads, should_stop=lambda: stop.requested, save_dir=save_dir,
                )  # fmt: skip
            else:
                from pokerlab.reports.run import run_local

                finished = run_local(
                    data, todo, settings, on_row, threads, lambda: stop.requested, save_dir
                )
    rows = files.ordered_rows()
    _print_result(files, rows, as_json)
    if not finished:
        from pokerlab.cli.render_postflop import print_line_stderr

        print_line_stderr(
            f"interrupted after {len(rows)} of {len(plan)} boards: finished rows are in "
            f"{files.json_path}; continue with --resume"
        )
        raise SystemExit(130)
    short = [r["board"] for r in rows if not r["target_reached"]]
    if short:
        warn(
            f"target {settings.target_pct:g}% not reached on {len(short)} board(s) within "
            f"{iterations} iterations ({', '.join(short[:5])}{', ...' if len(short) > 5 else ''})"
            "; exit code 3"
        )
        raise SystemExit(3)


def _pct(value: Any) -> str:
    return "" if value is None or not math.isfinite(value) else f"{100 * value:.0f}%"


def _num(value: Any, fmt: str = ".3g") -> str:
    return "" if value is None or not math.isfinite(value) else format(value, fmt)


def _print_result(files: Any, rows: list[dict[str, Any]], as_json: bool) -> None:
    """The overall row (and the rows, up to 60 of them) as a table, or one JSON object."""
    doc = files.document()
    if as_json:
        print_json(
            {
                "out": str(files.folder),
                "json": str(files.json_path),
                "csv": str(files.csv_path),
                "boards": len(files.header["plan"]),
                "done": len(rows),
                "complete": doc["complete"],
                "overall": doc["overall"],
            }
        )
        from pokerlab.cli.render_postflop import print_line_stderr

        print_line_stderr(f"wrote {files.json_path}")
        print_line_stderr(f"wrote {files.csv_path}")
        return
    shown = rows if len(rows) <= 60 else []
    table = Table(header_style="bold", box=None, pad_edge=False, padding=(0, 1, 0, 0))
    heads = ("board", "weight", "EV oop", "EV ip", "eq oop", "EQR oop", "EQR ip")
    for col in (*heads, "check", "small", "large", "allin", "expl%"):
        table.add_column(col, justify="left" if col == "board" else "right", no_wrap=True)
    for row in [*shown, *([doc["overall"]] if doc["overall"] else [])]:
        groups = row["groups"]["root"]
        table.add_row(
            str(row["board"]),
            f"{row['weight']:g}",
            _num(row["ev"]["oop"]),
            _num(row["ev"]["ip"]),
            _pct(row["equity"]["oop"]),
            _num(row["eqr"]["oop"]),
            _num(row["eqr"]["ip"]),
            *(_pct(groups.get(g)) for g in ("check", "small", "large", "allin")),
            _num(row["exploitability_pct"], ".2f"),
            style="bold" if row["board"] == "overall" else None,
        )
    console.print("OOP's root strategy by board (check, bets under / from 60% of the pot, all-in):")
    console.print(table)
    console.print(
        f"{len(rows)} of {len(files.header['plan'])} boards; wrote {files.json_path} and "
        f"{files.csv_path}",
        highlight=False,
        soft_wrap=True,
    )
