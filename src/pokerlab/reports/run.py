"""Solving a report: the template, one flop's row (:func:`solve_flop`), and the loop over the
flops in this process (:func:`run_local`; Ray: :mod:`pokerlab.reports.ray_run`).

A **template** is a postflop spot file (``docs/postflop-spots.md``) without its ``board``: the
report deals each flop (or turn) of its plan into it. A row is computed exactly as ``pokerlab
postflop`` computes its output for that board (same solver, same stopping rule, same readings),
so the two give the same numbers.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pokerlab.cards.deck import format_cards
from pokerlab.errors import PokerlabError
from pokerlab.reports.flops import Flop
from pokerlab.reports.rows import PLAYERS, SIDES, group_actions
from pokerlab.reports.texture import texture

__all__ = [
    "ReportSettings",
    "builtin_templates",
    "load_template",
    "spot_for",
    "check_template",
    "solve_flop",
    "run_local",
    "flops_at_once",
]

#: Largest template file read, bytes.
MAX_TEMPLATE_BYTES = 1 << 20


@dataclass(frozen=True)
class ReportSettings:
    """How every flop is solved: ``target_pct`` (exploitability to reach, percent of the
    starting pot), ``max_iterations`` (iterations at most), ``algorithm`` and ``check_every``
    (iterations between exploitability checks): ``pokerlab postflop``'s defaults."""

    target_pct: float = 0.5
    max_iterations: int = 1000
    algorithm: str = "dcfr-ps"
    check_every: int = 10

    def to_dict(self) -> dict[str, Any]:
        """The settings as stored in ``report.json``."""
        return asdict(self)


def builtin_templates() -> list[str]:
    """Names of the templates shipped with the package (``pokerlab/data/templates``):
    ``small`` (a 3-bet pot, SPR 1, seconds a flop) and ``flop-one-size`` (spot F's ranges and
    stacks, one bet size a street)."""
    return sorted(p.stem for p in _template_folder().glob("*.toml"))


def _template_folder() -> Path:
    return Path(str(resources.files("pokerlab") / "data" / "templates"))


def load_template(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The template file (TOML or JSON), or a built-in template by name
    (:func:`builtin_templates`; a file of that name wins), as a table, checked to have no
    ``board``. The rest is checked when a board is dealt into it (:func:`spot_for`)."""
    from pokerlab.io.paths import check_input_file, is_file

    text = os.fspath(path)
    builtin = _template_folder() / f"{text.lower()}.toml"
    if not is_file(text) and Path(text).suffix == "" and Path(text).name == text:
        if not is_file(builtin):
            raise PokerlabError(
                f"unknown template {text!r}: not a file and not a built-in template; built-in "
                f"templates: {', '.join(builtin_templates())} (or give a .toml or .json file)"
            )
        path = builtin
    p = check_input_file(path, "template")
    suffix = p.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise PokerlabError(f"{p}: a template is a .toml or .json spot file, not {suffix!r}")
    if p.stat().st_size > MAX_TEMPLATE_BYTES:
        raise PokerlabError(f"{p}: too large for a template (at most {MAX_TEMPLATE_BYTES:,} bytes)")
    try:
        text = p.read_bytes().decode("utf-8")
        data = tomllib.loads(text) if suffix == ".toml" else json.loads(text)
    except UnicodeDecodeError:
        raise PokerlabError(f"{p}: not UTF-8 text") from None
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        raise PokerlabError(f"{p}: not valid {suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise PokerlabError(f"{p}: a template is a table of keys")
    if "board" in data:
        raise PokerlabError(
            f"{p}: a report template has no board (the report deals each flop into it); "
            f"remove board = {data['board']!r}"
        )
    return data


def spot_for(template: Mapping[str, Any], cards: Iterable[int], name: str = "template") -> Any:
    """The :class:`~pokerlab.games.postflop.spot.SpotConfig` of ``template`` on the board
    ``cards``; errors name ``name`` and the board."""
    from pokerlab.games.postflop.spot import SpotConfig

    board = format_cards(cards)
    try:
        return SpotConfig.from_dict({**template, "board": board})
    except PokerlabError as exc:
        raise PokerlabError(f"{name} on {board}: {exc}") from None


def check_template(template: Mapping[str, Any], plan: Iterable[Flop], name: str) -> None:
    """Refuse the template when some board of the plan makes it a bad spot (a range left
    empty by the board's cards, a bad size): before anything is solved."""
    from pokerlab.cards.ranges import parse_range, remove_blocked

    rows = list(plan)
    if not rows:
        raise PokerlabError("the report has no flops")
    spot_for(template, rows[0].cards, name)  # every key checked once
    ranges = [parse_range(str(template[k])) for k in ("oop_range", "ip_range")]
    for flop in rows:
        for key, weights in zip(("oop_range", "ip_range"), ranges, strict=True):
            if not remove_blocked(weights, flop.cards).any():
                raise PokerlabError(
                    f"{name}: {key} is empty on the board {flop.text} (every combo holds a "
                    "board card); leave that flop out"
                )


def solve_flop(
    template: Mapping[str, Any],
    flop: Flop,
    settings: ReportSettings,
    threads: int = 1,
    should_stop: Callable[[], bool] | None = None,
    save_to: str | os.PathLike[str] | None = None,
    on_iterations: Callable[[int], None] | None = None,
) -> dict[str, Any] | None:
    """Solve ``template`` on ``flop`` and return its report row (:mod:`pokerlab.reports.rows`),
    or None when ``should_stop`` answered True during the solve (the row is dropped).
    ``save_to``: also save the solution there (a file ``pokerlab postflop show`` and the
    viewer open); ``on_iterations``: called with the iterations done at every check.

    The only place a report calls the postflop solver: the solve and its readings are those of
    ``pokerlab postflop --target T`` (``make_solver``, ``check_every`` iterations between
    exploitability checks, at most ``max_iterations``; EV from ``values()``, equity and action
    frequencies from the root of ``average_strategy()``)."""
    from pokerlab.analysis.postflop import spot_numbers
    from pokerlab.games.postflop.game import PostflopGame
    from pokerlab.solvers.factory import make_solver

    wall = time.perf_counter()
    game = PostflopGame(spot_for(template, flop.cards))
    game.check_memory()
    solver: Any = make_solver(game, settings.algorithm, threads=threads)
    stopped = False

    def callback(progress: Any) -> bool:
        nonlocal stopped
        if on_iterations is not None:
            on_iterations(int(progress.iterations))
        stopped = should_stop is not None and should_stop()
        return stopped

    progress = solver.solve(
        iterations=settings.max_iterations,
        target_pct=settings.target_pct,
        check_every=settings.check_every,
        callback=callback,
    )
    if stopped:
        return None
    pot = float(game.config.pot)
    exploitability = float(progress.exploitability)
    # the numbers pokerlab postflop prints (EV from values(), equity and EQR at the root)
    numbers, root = spot_numbers(solver, exploitability)
    actions: dict[str, dict[str, float]] = {side: {} for side in SIDES}
    if root.actions:
        actions["root"] = numbers["root"]["actions"]
        if "check" in root.actions:
            after = solver.average_strategy().node("check")
            if after.kind == "decision" and after.player == 1:
                actions["ip_vs_check"] = after.action_totals()
    reached = bool(exploitability <= settings.target_pct / 100.0 * pot)
    if save_to is not None:
        from pokerlab.solvers.postflop import save_spot_solution

        save_spot_solution(
            save_to,
            solver,
            status="completed" if reached else "target not reached",
            partial=False,
            exploitability=exploitability,
            exploitability_pct=100.0 * exploitability / pot,
        )
    return {
        "board": flop.text,
        "weight": flop.weight,
        **texture(flop.cards),
        "pot": pot,
        "ev": {k: numbers["ev"][k] for k in PLAYERS},
        "equity": {k: numbers["equity"][k] for k in PLAYERS},
        "eqr": {k: numbers["eqr"][k] for k in PLAYERS},
        "actions": actions,
        "groups": {side: group_actions(actions[side], pot) for side in SIDES},
        "exploitability": exploitability,
        "exploitability_pct": 100.0 * exploitability / pot,
        "target_reached": reached,
        "iterations": int(solver.iterations),
        "seconds": float(solver.seconds),
        "wall_seconds": time.perf_counter() - wall,
    }


def flops_at_once(template: Mapping[str, Any], todo: list[Flop], threads: int) -> tuple[int, int]:
    """How ``threads`` threads of this process share a report: ``(flops solved at once, solver
    threads each)``. Whole flops are independent work, so with several flops left each thread
    solves its own flop on one solver thread (a solve's own threads split only the subtrees
    below its turn cards and gain less); as many at once as the first flop's solver arrays fit
    in the memory available (``tree_summary``'s upper bound), the threads left over going to
    each solve."""
    threads = max(1, int(threads))
    if threads == 1 or len(todo) <= 1:
        return 1, threads
    from pokerlab.games.postflop.game import PostflopGame
    from pokerlab.games.postflop.sizing import available_memory_bytes

    need = PostflopGame(spot_for(template, todo[0].cards)).tree_summary()
    need_bytes = max(1, int(need["memory_upper_bound_bytes"]))
    available = available_memory_bytes()
    fit = threads if available is None else max(1, int(available // need_bytes))
    at_once = max(1, min(threads, len(todo), fit))
    return at_once, max(1, threads // at_once)


def run_local(
    template: Mapping[str, Any],
    todo: Iterable[Flop],
    settings: ReportSettings,
    on_row: Callable[[dict[str, Any]], None],
    threads: int = 1,
    should_stop: Callable[[], bool] | None = None,
    save_dir: str | os.PathLike[str] | None = None,
) -> bool:
    """Solve the flops of ``todo`` in this process on ``threads`` threads, handing each row to
    ``on_row`` (in the calling thread) as it finishes (``save_dir``: also save each solution
    there as ``BOARD.npz``). With several threads and flops, several flops are solved at once
    (:func:`flops_at_once`); rows may then finish out of plan order. Returns False when
    ``should_stop`` stopped it (the flops being solved then are dropped), True when every flop
    is done. An error in one solve stops the others at their next check and is raised here."""
    todo = list(todo)
    at_once, solver_threads = flops_at_once(template, todo, threads)

    def solve(flop: Flop, stop: Callable[[], bool] | None) -> dict[str, Any] | None:
        save_to = None if save_dir is None else Path(save_dir) / f"{flop.text}.npz"
        return solve_flop(template, flop, settings, solver_threads, stop, save_to)

    if at_once == 1:
        for flop in todo:
            if should_stop is not None and should_stop():
                return False
            row = solve(flop, should_stop)
            if row is None:
                return False
            on_row(row)
        return True
    return _run_threads(todo, at_once, solve, on_row, should_stop)


def _run_threads(
    todo: list[Flop],
    at_once: int,
    solve: Callable[[Flop, Callable[[], bool]], dict[str, Any] | None],
    on_row: Callable[[dict[str, Any]], None],
    should_stop: Callable[[], bool] | None,
) -> bool:
    """:func:`run_local` with ``at_once`` flops solved at once on threads (the solves' kernels
    let the GIL go), rows handed to ``on_row`` in this thread as they come."""
    lock = threading.Lock()
    left = iter(todo)
    rows: queue.Queue[tuple[str, Any]] = queue.Queue()
    failed = threading.Event()

    def stop() -> bool:
        return failed.is_set() or (should_stop is not None and should_stop())

    def worker() -> None:
        try:
            while not stop():
                with lock:
                    flop = next(left, None)
                if flop is None:
                    break
                row = solve(flop, stop)
                if row is None:
                    break
                rows.put(("row", row))
        except BaseException as exc:  # handed to the caller's thread
            failed.set()
            rows.put(("error", exc))
        finally:
            rows.put(("done", None))

    threads = [
        threading.Thread(target=worker, name=f"pokerlab-report-{k}", daemon=True)
        for k in range(at_once)
    ]
    for t in threads:
        t.start()
    running, error, done = at_once, None, 0
    while running:
        kind, value = rows.get()
        if kind == "done":
            running -= 1
        elif kind == "error":
            error = error or value
        elif error is None:
            try:
                on_row(value)
            except BaseException as exc:  # the others stop at their next check
                failed.set()
                error = exc
                continue
            done += 1
    for t in threads:
        t.join()
    if error is not None:
        raise error
    return done == len(todo)
