"""A folder of every kind of file pokerlab writes, for the viewer's API and browser tests.

``build_folder(path)`` writes, through the library's own writers:

* ``kuhn.npz``, ``leduc.npz`` (strategies), ``leduc.ckpt.npz`` (a checkpoint), ``leduc.jsonl``
  (a ``--log`` file), ``kuhn3.npz`` (three-player Kuhn: no exploitability, no play);
* ``pf10.npz`` (a push/fold strategy), ``pf10.json`` (``pokerlab pushfold --json``),
  ``sweep.json`` (``pushfold --sweep --json``), ``cmp.json`` (``compare --json``);
* ``river.npz`` (the built-in B6 river spot, solved a little) and ``spots/small_turn.npz`` (a small
  turn spot with a dealt river: chance nodes and suit isomorphism);
* damaged files: ``bad.npz`` (junk), ``trunc.npz`` (cut short), ``broken.jsonl`` (a log with a bad
  line in the middle); ``other.json`` (JSON that is not pokerlab's: not listed) and a hidden
  ``.hidden.npz`` (not listed).

Outside the folder, ``outside/secret.npz`` (a valid strategy) is the target of the traversal tests:
``link_out.npz`` is a symbolic link to it and ``linkdir`` a link to its folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

import pokerlab
from pokerlab.solvers.postflop import PostflopSolver, save_spot_solution

#: The small turn spot (both players' ranges symmetric in suits, so isomorphic rivers exist).
SMALL_TURN = dict(
    board="Td9d6hQc",
    ranges=("AA,KK,JTs,98s", "QQ,JJ,AKs,T9s"),
    pot=100,
    stack=300,
    bets="50%",
    raises="a",
)


def build_folder(root: Path) -> dict[str, object]:
    """Write the test files under ``root / "served"``; return paths and the objects behind them."""
    served = root / "served"
    outside = root / "outside"
    (served / "spots").mkdir(parents=True)
    outside.mkdir()

    kuhn = pokerlab.load_game("kuhn")
    s = pokerlab.make_solver(kuhn, "cfr+")
    s.solve(iterations=300)
    kuhn_strategy = s.average_strategy()
    pokerlab.save_strategy(
        served / "kuhn.npz",
        kuhn_strategy,
        algorithm="cfr+",
        iterations=300,
        exploitability=pokerlab.exploitability(kuhn, kuhn_strategy),
    )
    pokerlab.save_strategy(outside / "secret.npz", kuhn_strategy, algorithm="secret")

    leduc = pokerlab.load_game("leduc")
    s = pokerlab.make_solver(leduc, "dcfr")
    from pokerlab.solvers.metrics import JsonLinesLog

    with JsonLinesLog(served / "leduc.jsonl", game="leduc", algorithm="dcfr", seed=None) as log:
        s.solve(iterations=200, callback=log, check_every=20)
    leduc_strategy = s.average_strategy()
    pokerlab.save_strategy(
        served / "leduc.npz",
        leduc_strategy,
        algorithm="dcfr",
        iterations=s.iterations,
        exploitability=pokerlab.exploitability(leduc, leduc_strategy),
    )
    pokerlab.save_checkpoint(served / "leduc.ckpt.npz", s.state_dict())

    kuhn3 = pokerlab.load_game("kuhn", players=3)
    s3 = pokerlab.make_solver(kuhn3, "cfr")
    s3.step(20)
    pokerlab.save_strategy(served / "kuhn3.npz", s3.average_strategy(), algorithm="cfr")

    from pokerlab.solvers.pushfold import solve_pushfold, sweep_pushfold

    pf = solve_pushfold(10.0)
    pokerlab.save_strategy(
        served / "pf10.npz",
        pf.strategy,
        algorithm="dcfr (class reduction)",
        iterations=pf.iterations,
        exploitability=pf.exploitability_bb,
    )
    (served / "pf10.json").write_text(json.dumps(pf.to_dict()))
    from pokerlab.cards.deck import N_CLASSES, class_name
    from pokerlab.cli.pushfold import _max_stack

    stacks = [4.0, 8.0, 12.0]
    sols = sweep_pushfold(stacks)
    sb_max = _max_stack(stacks, np.array([x.sb_shove[0] for x in sols]))
    bb_max = _max_stack(stacks, np.array([x.bb_call[0] for x in sols]))
    sweep = {
        "ante_bb": 0.0,
        "stacks": [
            {
                "stack_bb": x.game.stacks[0],
                "sb_shove_fraction": x.sb_shove_fraction,
                "bb_call_fraction": x.bb_call_fraction,
                "sb_game_value_bb": x.sb_game_value_bb,
                "exploitability_bb": x.exploitability_bb,
                "seconds": x.seconds,
            }
            for x in sols
        ],
        "sb_shove_max_bb": {class_name(c): float(sb_max[c]) for c in range(N_CLASSES)},
        "bb_call_max_bb": {class_name(c): float(bb_max[c]) for c in range(N_CLASSES)},
    }
    (served / "sweep.json").write_text(json.dumps(sweep))

    from pokerlab.solvers.compare import convergence_curves

    curves = convergence_curves(kuhn, ["cfr", "cfr+"], 50_000, points=6, seed=0)
    compare = {
        "game": "kuhn",
        "budget_nodes": 50_000,
        "seed": 0,
        "status": "completed",
        "partial": False,
        "png": None,
        "curves": [c.to_dict() for c in curves],
    }
    (served / "cmp.json").write_text(json.dumps(compare))

    river = PostflopSolver(pokerlab.load_game("postflop", spot="river"))
    river.step(60)
    save_spot_solution(served / "river.npz", river)

    turn = PostflopSolver(pokerlab.load_game("postflop", **SMALL_TURN))
    turn.step(40)
    save_spot_solution(served / "spots" / "small_turn.npz", turn)

    (served / "bad.npz").write_bytes(b"this is not an archive")
    data = (served / "leduc.npz").read_bytes()
    (served / "trunc.npz").write_bytes(data[: len(data) // 2])
    lines = (served / "leduc.jsonl").read_text().splitlines()
    (served / "broken.jsonl").write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    (served / "other.json").write_text(json.dumps({"hello": "world"}))
    (served / ".hidden.npz").write_bytes(data)
    os.symlink(outside / "secret.npz", served / "link_out.npz")
    os.symlink(outside, served / "linkdir")
    os.symlink(served / "kuhn.npz", served / "link_in.npz")

    return {
        "served": served,
        "outside": outside,
        "kuhn": kuhn_strategy,
        "leduc": leduc_strategy,
        "pushfold": pf,
        "river": river,
        "turn": turn,
        "curves": curves,
        "sweep": sweep,
    }


class LiveServer:
    """A viewer app under uvicorn in a thread, on a free loopback port (``url`` without a
    trailing slash); a context manager."""

    def __init__(self, app: object) -> None:
        import uvicorn

        from pokerlab.viewer.server import bind, url_for

        self.sock = bind("127.0.0.1", 0)
        self.url = url_for(self.sock).rstrip("/")
        config = uvicorn.Config(app, log_level="error", access_log=False, backlog=2048)
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        import threading

        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        import time

        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the viewer did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
