"""Training runs owned by the library (pokerlab.solvers.run) and the command lines that call them:
stopping rules, resume semantics and checks, the appending log, output paths checked before the
work, the history-tree guard."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import pokerlab
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.io.files import read_metadata
from pokerlab.io.interrupts import StopFlag
from pokerlab.io.paths import check_output_file, check_output_folder
from pokerlab.solvers.guards import estimate_history_count
from pokerlab.solvers.resume import resume_solver
from pokerlab.solvers.run import TrainingRun
from pokerlab.solvers.stopping import EXIT_INTERRUPTED, EXIT_TARGET_NOT_REACHED, default_limits


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# --- the library ------------------------------------------------------------------------------


class CountingSolver:
    """Not a Solver subclass: only the verb set and counters a TrainingRun needs."""

    algorithm = "toy"

    def __init__(self) -> None:
        self.iterations = 0
        self.nodes_touched = 0
        self.seconds = 0.0
        self.steps: list[int] = []

    def step(self, iterations: int = 1) -> None:
        self.steps.append(iterations)
        self.iterations += iterations
        self.nodes_touched += 7 * iterations
        self.seconds += 1e-6 * iterations

    def state_dict(self) -> dict:
        return {"format": 1, "iterations": self.iterations, "arrays": {"x": np.zeros(2)}}

    def load_state_dict(self, state: dict) -> None:
        self.iterations = state["iterations"]

    def average_strategy(self):  # pragma: no cover - not needed here
        raise AssertionError


def test_duck_typed_solver_target_and_checkpoint_cadence(tmp_path):
    solver = CountingSolver()
    written: list[tuple[int, str]] = []
    result = TrainingRun(
        solver,
        target_exploitability=0.05,
        check_every=10,
        checkpoint=tmp_path / "toy.ckpt.npz",
        checkpoint_every=25,
        on_write=lambda path, kind: written.append((solver.iterations, kind)),
        measure=lambda s: 1.0 / s.iterations,  # reaches 0.05 at iteration 20
    ).run()
    assert result.status == "completed" and result.exit_code == 0
    assert result.iterations == 20 and result.exploitability == pytest.approx(0.05)
    assert result.stop_reason == "target exploitability 0.05 reached"
    assert solver.steps == [10, 10]
    assert written == [(20, "checkpoint")]  # at the end (25 not reached)
    assert pokerlab.load_checkpoint(tmp_path / "toy.ckpt.npz")["iterations"] == 20


def test_time_in_exploitability_checks_is_recorded_apart_from_solving_time():
    solver = CountingSolver()
    calls: list[int] = []

    def slow_measure(s: CountingSolver) -> float:
        calls.append(s.iterations)
        time.sleep(0.005)
        return 1.0 / s.iterations

    result = TrainingRun(
        solver, target_exploitability=0.05, check_every=10, measure=slow_measure
    ).run()
    assert calls == [10, 20]  # not measured before the first iteration
    assert 0.01 <= result.check_seconds < 1.0
    assert result.seconds == pytest.approx(20e-6)  # the solver's own clock: steps only
    assert result.to_dict()["check_seconds"] == result.check_seconds


def test_checkpoint_every_bounds_the_chunks(tmp_path):
    solver = CountingSolver()
    written: list[int] = []
    TrainingRun(
        solver,
        iterations=100,
        check_every=40,
        checkpoint=tmp_path / "c.npz",
        checkpoint_every=30,
        on_write=lambda path, kind: written.append(solver.iterations),
    ).run()
    assert solver.steps == [30, 30, 30, 10]
    assert written == [30, 60, 90, 100]


def test_a_run_needs_a_limit_and_checks_its_numbers():
    with pytest.raises(PokerlabError, match="needs a limit"):
        TrainingRun(CountingSolver())
    with pytest.raises(PokerlabError, match="checkpoint_every must be >= 1"):
        TrainingRun(CountingSolver(), iterations=5, checkpoint="x.npz", checkpoint_every=-5)
    kuhn3 = pokerlab.make_solver(pokerlab.load_game("kuhn", players=3), "cfr")
    with pytest.raises(PokerlabError, match="more than two players CFR need not reach"):
        TrainingRun(kuhn3, target_exploitability=1e-3)  # nothing would end it
    result = TrainingRun(kuhn3, target_exploitability=1e-3, iterations=5000).run()
    assert result.status == "completed" and result.exploitability <= 1e-3
    assert result.exploitability == pytest.approx(
        pokerlab.exploitability(kuhn3.game, kuhn3.average_strategy()), rel=1e-12
    )


def test_default_limits():
    kuhn = pokerlab.load_game("kuhn")
    kuhn3 = pokerlab.load_game("kuhn", players=3)
    assert default_limits(pokerlab.make_solver(kuhn, "cfr")) == {"target_exploitability": 1e-3}
    assert default_limits(pokerlab.make_solver(kuhn, "es-mccfr")) == {"target_exploitability": 1e-2}
    assert default_limits(pokerlab.make_solver(kuhn3, "cfr")) == {"iterations": 10_000}


def test_iterations_are_a_total_and_a_resumed_run_equals_a_straight_one(tmp_path):
    game = pokerlab.load_game("leduc")
    ckpt = tmp_path / "l.ckpt.npz"
    first = pokerlab.make_solver(game, "es-mccfr", seed=9)
    TrainingRun(first, iterations=3000, check_every=1000, checkpoint=ckpt).run()
    resumed = resume_solver(ckpt, game_name="leduc", algorithm="es", seed=9)
    result = TrainingRun(resumed, iterations=5000, check_every=1000, checkpoint=ckpt).run()
    assert result.iterations == 5000
    straight = pokerlab.make_solver(game, "es-mccfr", seed=9)
    straight.step(5000)
    assert np.array_equal(resumed.average_strategy().probs, straight.average_strategy().probs)
    assert pokerlab.load_checkpoint(ckpt)["iterations"] == 5000
    # a run already past its limit does nothing more
    again = resume_solver(ckpt)
    assert TrainingRun(again, iterations=4000).run().iterations == 5000


def test_resume_checks_name_both_values(tmp_path):
    ckpt = tmp_path / "k.ckpt.npz"
    solver = pokerlab.make_solver(pokerlab.load_game("kuhn"), "es-mccfr", seed=2)
    TrainingRun(solver, iterations=10, checkpoint=ckpt).run()
    with pytest.raises(PokerlabError, match="'es-mccfr'; algorithm 'cfr' conflicts"):
        resume_solver(ckpt, algorithm="cfr")
    with pytest.raises(PokerlabError, match="seed 2; seed 3 conflicts"):
        resume_solver(ckpt, seed=3)
    with pytest.raises(PokerlabError, match="for game 'kuhn', not 'leduc'"):
        resume_solver(ckpt, game_name="leduc")
    with pytest.raises(PokerlabError, match="parameters"):
        resume_solver(ckpt, game_params={"players": 3})
    assert resume_solver(ckpt, algorithm="ES", seed=2).iterations == 10


def test_interrupted_run_saves_checkpoint_and_partial_strategy(tmp_path):
    stop = StopFlag()
    solver = pokerlab.make_solver(pokerlab.load_game("kuhn"), "cfr")

    def report(progress):
        if progress.iterations >= 20:
            stop.request()

    result = TrainingRun(
        solver,
        iterations=1000,
        checkpoint=tmp_path / "k.ckpt.npz",
        checkpoint_at_end=False,  # still written when interrupted
        out=tmp_path / "k.npz",
        on_report=report,
        stop=stop,
    ).run()
    assert result.status == "interrupted" and result.exit_code == EXIT_INTERRUPTED
    assert result.partial and result.iterations == 20
    assert result.files == [tmp_path / "k.ckpt.npz", tmp_path / "k.npz"]
    meta = read_metadata(tmp_path / "k.npz")
    assert meta["partial"] is True and meta["status"] == "interrupted"
    assert meta["iterations"] == 20


def test_target_not_reached(tmp_path):
    solver = pokerlab.make_solver(pokerlab.load_game("kuhn"), "cfr")
    result = TrainingRun(solver, iterations=5, target_exploitability=1e-9).run()
    assert result.status == "target not reached" and result.exit_code == EXIT_TARGET_NOT_REACHED
    assert result.exploitability > 1e-9 and result.stop_reason == "5 iterations"
    assert result.to_dict()["partial"] is True


def test_log_appends(tmp_path):
    log = tmp_path / "run.jsonl"
    for _ in range(2):
        solver = pokerlab.make_solver(pokerlab.load_game("kuhn"), "cfr")
        TrainingRun(solver, iterations=20, check_every=10, log=log, log_fields={"x": 1}).run()
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [0, 10, 20, 0, 10, 20]
    assert lines[0]["exploitability"] is None and lines[-1]["x"] == 1
    assert not math.isnan(lines[-1]["exploitability"])


# --- output paths ----------------------------------------------------------------------------


def test_output_file_checks(tmp_path, monkeypatch):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    with pytest.raises(PokerlabError, match=r"--out '.*adir' is a directory"):
        check_output_file(tmp_path / "adir", "--out")
    with pytest.raises(PokerlabError, match=r"'.*afile' is a file, not a folder"):
        check_output_file(tmp_path / "afile" / "sub" / "x.npz", "--out")
    with pytest.raises(PokerlabError, match="longer than 255 bytes"):
        check_output_file(tmp_path / ("x" * 300), "--out")
    with pytest.raises(PokerlabError, match=r"folder '.*new/deeper' does not exist"):
        check_output_file(tmp_path / "new" / "deeper" / "x.npz")  # no folder made silently
    assert not (tmp_path / "new").exists()
    assert check_output_file(tmp_path / "adir" / "x.npz") == tmp_path / "adir" / "x.npz"
    assert check_output_folder(tmp_path / "run") == tmp_path / "run"  # the folder itself: made
    with pytest.raises(PokerlabError, match=r"folder '.*nope' does not exist"):
        check_output_folder(tmp_path / "nope" / "run", "--out")
    with pytest.raises(PokerlabError, match="is a file, not a folder"):
        check_output_folder(tmp_path / "afile", "--out")
    _read_only(tmp_path / "ro", monkeypatch)
    with pytest.raises(PokerlabError, match=r"folder '.*ro' is not writable"):
        check_output_file(tmp_path / "ro" / "x.npz", "--out")
    with pytest.raises(PokerlabError, match=r"folder '.*ro' is not writable"):
        check_output_folder(tmp_path / "ro" / "run", "--out")


def _read_only(folder: Path, monkeypatch) -> None:
    """A folder this process cannot write to (root ignores permission bits: simulate it)."""
    folder.mkdir()
    folder.chmod(0o555)
    if os.geteuid() == 0:
        real = os.access

        def access(path, mode, *args, **kwargs):
            if Path(path).resolve() == folder.resolve() and mode & os.W_OK:
                return False
            return real(path, mode, *args, **kwargs)

        monkeypatch.setattr("pokerlab.io.paths.os.access", access)


def _forbid(monkeypatch, target: str) -> None:
    def fail(*args, **kwargs):
        raise AssertionError("work started before the output paths were checked")

    monkeypatch.setattr(target, fail)


@pytest.mark.parametrize(
    "args,forbidden,needle",
    [
        (["solve", "kuhn", "-n", "5", "--out", "{adir}"], "make", "--out '{adir}' is a directory"),
        (["solve", "kuhn", "-n", "5", "--out", "{afile}/x.npz"], "make", "is a file, not a folder"),
        (["solve", "kuhn", "-n", "5", "--log", "{adir}"], "make", "--log '{adir}' is a directory"),
        (["solve", "kuhn", "-n", "5", "--checkpoint", "{afile}/c"], "make", "--checkpoint"),
        (["solve", "kuhn", "-n", "5", "--out", "{ro}/x.npz"], "make", "is not writable"),
        (["compare", "kuhn", "--png", "{adir}"], "curves", "--png '{adir}' is a directory"),
        (["compare", "kuhn", "--png", "{ro}/c.png"], "curves", "is not writable"),
        (["evolve", "--out", "{afile}"], "evolve", "--out '{afile}' is a file, not a folder"),
        (["evolve", "--out", "{ro}/run"], "evolve", "is not writable"),
    ],
)
def test_bad_output_paths_fail_before_any_work(
    capsys, tmp_path, monkeypatch, args, forbidden, needle
):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    _read_only(tmp_path / "ro", monkeypatch)
    names = {k: str(tmp_path / k) for k in ("afile", "adir", "ro")}
    targets = {
        "make": "pokerlab.cli.solve.make_solver",
        "curves": "pokerlab.cli.compare.convergence_curves",
        "evolve": "pokerlab.evolve.search.evolve",
    }
    _forbid(monkeypatch, targets[forbidden])
    code, _, err = run(capsys, *[a.format(**names) for a in args])
    assert code == 2, err
    assert needle.format(**names) in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# --- the solve command ------------------------------------------------------------------------


def test_target_not_reached_warns_and_exits_3(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "5", "-t", "1e-9", "--json")
    assert code == EXIT_TARGET_NOT_REACHED == 3
    summary = json.loads(out)
    assert summary["status"] == "target not reached" and summary["partial"] is True
    assert "warning: target exploitability 1e-09 not reached" in err


def test_three_player_kuhn_without_a_limit_uses_the_stated_default(capsys):
    """10,000 iterations (no target: nothing guarantees one with three players), and the
    exploitability reported (NashConv / players) equals the library's for the same run."""
    code, out, err = run(capsys, "solve", "kuhn", "--players", "3", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["iterations"] == 10_000 and summary["status"] == "completed"
    solver = pokerlab.make_solver(pokerlab.load_game("kuhn", players=3), "dcfr")
    solver.step(10_000)
    expected = pokerlab.exploitability(solver.game, solver.average_strategy())
    assert 0 < summary["exploitability"] < 1e-4
    assert summary["exploitability"] == pytest.approx(expected, rel=1e-9)


def test_checkpoint_every_negative_names_the_flag(capsys):
    code, _, err = run(capsys, "solve", "kuhn", "-n", "5", "--checkpoint-every", "-5")
    assert code == 2 and "--checkpoint-every must be >= 1, got -5" in err
    assert "check_every" not in err


def test_log_appends_across_commands(capsys, tmp_path):
    log = tmp_path / "run.jsonl"
    for _ in range(2):
        code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "20", "--log", str(log))
        assert code == 0, err
    assert [json.loads(x)["iteration"] for x in log.read_text().splitlines()] == [0, 10, 20] * 2


def test_resume_saves_back_to_the_resumed_file(capsys, tmp_path):
    ckpt = tmp_path / "k.ckpt.npz"
    common = ["solve", "kuhn", "-a", "cfr", "--json"]
    code, _, _ = run(capsys, *common, "-n", "30", "--checkpoint", str(ckpt))
    assert code == 0 and pokerlab.load_checkpoint(ckpt)["iterations"] == 30
    code, out, err = run(capsys, "solve", "kuhn", "--resume", str(ckpt), "-n", "50", "--json")
    assert code == 0, err
    assert json.loads(out)["iterations"] == 50  # -n is the total
    assert pokerlab.load_checkpoint(ckpt)["iterations"] == 50
    assert f"wrote {ckpt}" in err


@pytest.mark.parametrize(
    "extra,needle",
    [
        (["-a", "cfr+"], "algorithm 'cfr+' conflicts"),
        (["--seed", "4"], "seed 4 conflicts"),
        (["--prune"], "--prune: a resumed run keeps the settings"),
        (["--epsilon", "0.3", "--linear-until", "5"], "--linear-until, --epsilon"),
        (["--players", "3"], "game parameters"),
    ],
)
def test_resume_refuses_conflicting_options(capsys, tmp_path, extra, needle):
    ckpt = tmp_path / "k.ckpt.npz"
    args = ["solve", "kuhn", "-a", "os-mccfr", "--seed", "2", "-n", "100", "--json"]
    code, _, err = run(capsys, *args, "--checkpoint", str(ckpt))
    assert code == 0, err
    code, _, err = run(capsys, "solve", "kuhn", "--resume", str(ckpt), "-n", "200", *extra)
    assert code == 2 and needle in err, err
    assert pokerlab.load_checkpoint(ckpt)["iterations"] == 100  # nothing ran
    code, out, err = run(
        capsys, "solve", "kuhn", "--resume", str(ckpt), "-a", "os", "--seed", "2", "-n", "200"
    )
    assert code == 0, err  # the same algorithm (an alias) and seed are fine


# --- history trees that would take minutes -----------------------------------------------------


def test_history_count_estimate_is_close_for_small_games():
    kuhn, leduc = pokerlab.load_game("kuhn"), pokerlab.load_game("leduc")
    for game in (kuhn, leduc):
        exact = pokerlab.compile_game(game, "history").tree.num_nodes
        assert abs(estimate_history_count(game) - exact) < 0.25 * exact
    assert estimate_history_count(pokerlab.load_game("pushfold")) > 8e6


@pytest.mark.parametrize(
    "args",
    [["compare", "pushfold"], ["solve", "pushfold", "-a", "es-mccfr", "-n", "10"]],
)
def test_push_fold_history_tree_is_refused_at_once(args):
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pokerlab.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,  # the build it replaces took minutes
    )
    assert proc.returncode == 2, proc.stderr
    assert "million histories" in proc.stderr and "pokerlab pushfold" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert time.perf_counter() - start < 60


# --- wrote lines of the push/fold commands ----------------------------------------------------


def test_pushfold_and_match_say_every_file_they_write(capsys, tmp_path):
    out, png = tmp_path / "pf.npz", tmp_path / "pf.png"
    code, stdout, err = run(
        capsys, "pushfold", "--stack", "10", "--out", str(out), "--png", str(png), "--json"
    )
    assert code == 0, err
    json.loads(stdout)  # stdout stays pure JSON
    assert f"wrote {out}" in err and f"wrote {png}" in err
    csv_file, chart = tmp_path / "c.csv", tmp_path / "c.png"
    code, stdout, err = run(
        capsys, "pushfold", "--sweep", "5:6:1", "--csv", str(csv_file), "--png", str(chart)
    )
    assert code == 0, err
    assert f"wrote {csv_file}" in stdout and f"wrote {chart}" in stdout
    curve = tmp_path / "m.png"
    code, stdout, err = run(
        capsys, "match", "nash", "70/60", "--hands", "500", "--matches", "2", "--png", str(curve)
    )
    assert code == 0, err
    assert f"wrote {curve}" in stdout and curve.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args",
    [
        ["pushfold", "--stack", "10", "--out", "{adir}"],
        ["pushfold", "--sweep", "5:6:1", "--csv", "{afile}/c.csv"],
        ["match", "nash", "70/60", "--hands", "500", "--png", "{adir}"],
    ],
)
def test_pushfold_output_paths_fail_before_any_work(capsys, tmp_path, monkeypatch, args):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    names = {k: str(tmp_path / k) for k in ("afile", "adir")}
    _forbid(monkeypatch, "pokerlab.solvers.pushfold.solve_pushfold")
    _forbid(monkeypatch, "pokerlab.solvers.pushfold.sweep_pushfold")
    _forbid(monkeypatch, "pokerlab.evaluate.matches.play_matches")
    code, _, err = run(capsys, *[a.format(**names) for a in args])
    assert code == 2, err
    assert "is a directory" in err or "is a file, not a folder" in err
    assert len(err.strip().splitlines()) == 1


def test_population_gif_goes_through_the_atomic_writer(tmp_path):
    import stat

    from pokerlab.evolve.pictures import animate_simple
    from pokerlab.evolve.search import EvolutionConfig, evolve

    result = evolve(EvolutionConfig(population=4, max_generations=3, patience=3))
    gif = tmp_path / "population.gif"
    animate_simple(result.history, gif, {"CFR equilibrium": (0.58, 0.37)})
    assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a")
    assert stat.S_IMODE(gif.stat().st_mode) == 0o644  # was 0600 (mkstemp) before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["population.gif"]


def test_stale_temporaries_in_an_evolve_folder(tmp_path):
    from pokerlab.cli.evolve import EVOLVE_FILES

    ours = [
        tmp_path / ".summary.json.k2j4_x9a.tmp",
        tmp_path / ".best_strategy_3bb.json.aaaaaaaa.tmp",
    ]
    theirs = [tmp_path / ".notes.txt.k2j4_x9a.tmp", tmp_path / "summary.json.k2j4_x9a.tmp"]
    for p in ours + theirs:
        p.write_text("x")
    assert check_output_folder(tmp_path, "--out", targets=EVOLVE_FILES) == tmp_path
    assert [p.exists() for p in ours + theirs] == [False, False, True, True]


def test_solve_in_a_read_only_folder_needs_no_checkpoint(capsys, tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    _read_only(folder, monkeypatch)
    monkeypatch.chdir(folder)
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "20", "--json")
    assert code == 0, err  # the default checkpoint path is needed only on Ctrl-C
    assert json.loads(out)["checkpoint"] is None
    code, _, err = run(capsys, "solve", "kuhn", "-n", "20", "--checkpoint-every", "10")
    assert code == 2 and "is not writable" in err  # asked for: refused before the work


def test_node_budget_chunks_are_stepped_in_pieces_a_stop_can_cut():
    solver = CountingSolver()  # 7 nodes per iteration
    stop = StopFlag()
    points: list[int] = []

    def report(progress):
        points.append(progress.iterations)

    original = solver.step

    def step(n: int = 1) -> None:
        original(n)
        if solver.iterations >= 250:
            stop.request()

    solver.step = step
    result = TrainingRun(
        solver, nodes=7000, report_nodes=[7, 7000], check_every=50, on_report=report, stop=stop
    ).run()
    # the chunk to the 7000-node mark (999 iterations) goes in pieces of 50; the stop cuts it
    assert solver.steps == [1, 50, 50, 50, 50, 50]
    assert result.status == "interrupted" and points == [0, 1, 251]
