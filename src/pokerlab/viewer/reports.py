"""The viewer's report page (``pokerlab report`` folders): routes registered on the viewer's
application by :func:`register_reports`.

* ``/reports``: the page (``static/reports.html`` and ``reports.js``): the reports found under
  the served folder, then one report as a sortable, filterable table (by texture), a stacked
  bar chart of the first player's root strategy by flop, and the overall row of the rows shown;
* ``/api/reports``: every ``report.json`` under the folder (path, kind, boards done of planned);
* ``/api/report?path=``: one report, checked whole (a damaged or edited file is refused by
  name, HTTP 400), with the boards whose solution is saved (``solutions`` next to it);
* POST ``/api/report/solve`` ``{path, board}``: the solution of one board of the report, for the
  spot browser (``/#/file?path=...``): ``200 {"solution": PATH}`` when it is saved already,
  else ``202`` and a job (:mod:`pokerlab.viewer.jobs`; poll ``/api/jobs/{id}``) that solves the
  board as the report did (:func:`pokerlab.reports.run.solve_flop`, same template and settings)
  and saves it as ``solutions/BOARD.npz`` in the report's folder. This is the one place the
  viewer writes a file: a new file beside the report, atomically; nothing else changes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import Body, Query, Request
from fastapi.responses import HTMLResponse, Response

from pokerlab.errors import PokerlabError
from pokerlab.viewer.files import FileMissing, resolve_inside
from pokerlab.viewer.http import json_response

__all__ = ["register_reports", "REPORT_STATIC", "SOLUTIONS"]

#: The report page's script, served by name only.
REPORT_STATIC = {"reports.js": "text/javascript; charset=utf-8"}
#: The folder, next to ``report.json``, where solved boards are saved.
SOLUTIONS = "solutions"
#: Folders below the served one searched for reports.
MAX_DEPTH = 6
#: Most reports listed.
MAX_REPORTS = 500


def _static(name: str) -> bytes:
    return resources.files("pokerlab.viewer").joinpath("static", name).read_bytes()


def find_reports(root: Path) -> list[dict[str, Any]]:
    """Every ``report.json`` under ``root`` (hidden folders and links skipped) with its kind
    and how many of its boards are done; a file that cannot be read gets its error."""
    from pokerlab.reports.rows import read_report

    base = root.resolve()
    out: list[dict[str, Any]] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        rel_folder = Path(folder).relative_to(base)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and len(rel_folder.parts) < 6)
        if "report.json" not in files:
            continue
        rel = (rel_folder / "report.json").as_posix()
        entry: dict[str, Any] = {"path": rel}
        try:
            doc = read_report(resolve_inside(base, rel))
            entry.update(
                kind=doc.get("kind"),
                boards=len(doc.get("plan", [])),
                done=len(doc.get("rows", [])),
                complete=bool(doc.get("complete")),
                target_pct=(doc.get("settings") or {}).get("target_pct"),
            )
        except PokerlabError as exc:
            entry["error"] = str(exc).replace(str(base) + os.sep, "")
        out.append(entry)
        if len(out) >= MAX_REPORTS:
            break
    return sorted(out, key=lambda e: e["path"])


def _solution_rel(report_rel: str, board: str) -> str:
    return (Path(report_rel).parent / SOLUTIONS / f"{board}.npz").as_posix()


def register_reports(app: Any, viewer: Any, client_of: Callable[[Request], str]) -> None:
    """Add the report page and its API to the viewer application ``app`` (whose state is
    ``viewer``: the served folder and the job queue); ``client_of`` names a request's client
    for the job limits."""
    page_html = _static("reports.html")
    statics = {name: _static(name) for name in REPORT_STATIC}

    def load(path: str) -> tuple[Path, dict[str, Any]]:
        from pokerlab.reports.rows import read_report

        if Path(path).name != "report.json":
            raise PokerlabError(f"{path!r} is not a report (a report is a report.json file)")
        real = resolve_inside(viewer.root, path)
        try:
            return real, read_report(real)
        except PokerlabError as exc:
            raise PokerlabError(str(exc).replace(str(viewer.root) + os.sep, "")) from None

    def saved(path: str, board: str) -> str | None:
        rel = _solution_rel(path, board)
        try:
            resolve_inside(viewer.root, rel)
        except FileMissing:
            return None
        return rel

    @app.get("/reports", response_class=HTMLResponse)
    async def reports_page() -> Response:
        return Response(page_html, media_type="text/html; charset=utf-8")

    @app.get("/reports/static/{name}")
    async def reports_static(name: str) -> Response:
        body = statics.get(name)
        if body is None:
            return json_response({"error": "no such file"}, 404)
        return Response(body, media_type=REPORT_STATIC[name])

    @app.get("/api/reports")
    def reports_list() -> Response:
        return json_response(find_reports(viewer.root))

    @app.get("/api/report")
    def report(path: str = Query(...)) -> Response:
        _, doc = load(path)
        boards = [p["board"] for p in doc.get("plan", [])]
        doc["solutions"] = {b: s for b in boards if (s := saved(path, b)) is not None}
        doc["path"] = path
        return json_response(doc)

    @app.post("/api/report/solve")
    def report_solve(request: Request, body: dict[str, Any] = Body(...)) -> Response:
        path, board = body.get("path"), body.get("board")
        if not isinstance(path, str) or not isinstance(board, str):
            raise PokerlabError("give 'path' (a report.json) and 'board' as strings")
        real, doc = load(path)
        plan = {p["board"]: p["weight"] for p in doc.get("plan", [])}
        if board not in plan:
            raise PokerlabError(f"{board!r} is not a board of {path}")
        done = saved(path, board)
        if done is not None:
            return json_response({"solution": done})
        from pokerlab.reports.flops import Flop, parse_board
        from pokerlab.reports.run import ReportSettings, solve_flop

        settings = ReportSettings(**doc["settings"])
        cards = parse_board(board, len(board) // 2, "board")
        target = real.parent / SOLUTIONS / f"{board}.npz"
        rel = _solution_rel(path, board)
        client = client_of(request)
        viewer.jobs.check(client, str(target))

        def work(ctx: Any) -> dict[str, Any]:
            target.parent.mkdir(exist_ok=True)
            row = solve_flop(
                doc["template"], Flop(cards, plan[board]), settings,
                should_stop=ctx.cancelled, save_to=target, on_iterations=ctx.progress,
            )  # fmt: skip
            return {"solution": rel if row is not None else None, "row": row}

        job = viewer.jobs.submit(
            "report-solve", client, str(target), settings.max_iterations, work,
            {"path": path, "board": board},
        )  # fmt: skip
        return json_response(job.to_dict(), 202)
