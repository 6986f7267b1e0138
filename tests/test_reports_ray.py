"""``pokerlab report --ray``: one Ray task per flop gives the one-process report's numbers, and a
task whose worker dies is run again. Skipped when Ray is not installed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from _report_data import TEMPLATE  # noqa: E402
from pokerlab.cli.main import main  # noqa: E402
from pokerlab.reports import ray_run  # noqa: E402
from pokerlab.reports.flops import read_flop_file  # noqa: E402
from pokerlab.reports.run import ReportSettings, load_template, run_local  # noqa: E402

FLOPS = "KsKh5d\nAsQh2d\n9s8s7h\n"
TIMING = ("seconds", "wall_seconds")


def _numbers(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in TIMING}


def crash_once(template, flop, settings, threads, marker_dir):  # noqa: ANN001, ANN201
    """A task that kills its worker process the first time it sees the flop AsQh2d."""
    marker = Path(marker_dir) / f"{flop.text}.seen"
    if flop.text == "AsQh2d" and not marker.exists():
        marker.write_text("x")
        os._exit(1)
    return ray_run.solve_task(template, flop, settings, threads)


@pytest.fixture(scope="module")
def ray_session():
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_report_equals_one_process(ray_session, tmp_path, capsys) -> None:
    (tmp_path / "tiny.toml").write_text(TEMPLATE)
    (tmp_path / "flops.txt").write_text(FLOPS)
    common = ["report", str(tmp_path / "tiny.toml"), "--flops", str(tmp_path / "flops.txt")]
    common += ["--target", "1%"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    ray_args = ["--out", str(tmp_path / "ray"), "--ray", "--workers", "2", "--save-solutions"]
    code = main([*common, *ray_args, "--json"])
    assert code == 0, capsys.readouterr().err
    local = json.loads((tmp_path / "local" / "report.json").read_text())
    remote = json.loads((tmp_path / "ray" / "report.json").read_text())
    assert [r["board"] for r in remote["rows"]] == ["KsKh5d", "AsQh2d", "9s8s7h"]
    assert [_numbers(r) for r in remote["rows"]] == [_numbers(r) for r in local["rows"]]
    assert ray_run.LAST_RUN["tasks"] == 3 and len(ray_run.LAST_RUN["overhead_seconds"]) == 3
    saved = sorted(p.name for p in (tmp_path / "ray" / "solutions").iterdir())
    assert saved == ["9s8s7h.npz", "AsQh2d.npz", "KsKh5d.npz"]


def test_a_dead_worker_has_its_flop_run_again(ray_session, tmp_path) -> None:
    (tmp_path / "tiny.toml").write_text(TEMPLATE)
    (tmp_path / "flops.txt").write_text(FLOPS)
    template = load_template(tmp_path / "tiny.toml")
    flops, _ = read_flop_file(tmp_path / "flops.txt")
    settings = ReportSettings(target_pct=1.0)
    want: list[dict] = []
    run_local(template, flops[1:2], settings, want.append)
    got: list[dict] = []

    def task(template, flop, settings, threads):  # noqa: ANN001, ANN202
        return crash_once(template, flop, settings, threads, str(tmp_path))

    assert ray_run.run_on_ray(template, flops[:2], settings, got.append, workers=2, task=task)
    assert (tmp_path / "AsQh2d.seen").exists()  # the first try died
    assert sorted(r["board"] for r in got) == ["AsQh2d", "KsKh5d"]
    again = next(r for r in got if r["board"] == "AsQh2d")
    assert _numbers(again) == _numbers(want[0])


def test_a_stop_cancels_the_running_tasks(ray_session, tmp_path) -> None:
    (tmp_path / "tiny.toml").write_text(TEMPLATE)
    (tmp_path / "flops.txt").write_text(FLOPS)
    template = load_template(tmp_path / "tiny.toml")
    flops, _ = read_flop_file(tmp_path / "flops.txt")
    got: list[dict] = []
    finished = ray_run.run_on_ray(
        template, flops, ReportSettings(target_pct=1.0), got.append, workers=2,
        should_stop=lambda: len(got) >= 1,
    )  # fmt: skip
    assert finished is False
    assert len(got) == 1 and got[0]["board"] in ("KsKh5d", "AsQh2d")
    # two were submitted; the other was cancelled when the stop came, the third never ran
    assert ray_run.LAST_RUN["tasks"] == 2
