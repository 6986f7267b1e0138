"""The viewer's web application (FastAPI): the page, its static files and the JSON API.

This module holds the application, its error answers and the read-only routes; the routes that
change state (play sessions, re-solve jobs) are in :mod:`pokerlab.viewer.routes`, the HTTP
plumbing (JSON answers, the client cookie, the middlewares) in :mod:`pokerlab.viewer.http`.

``create_app(root)`` serves the files under ``root`` and nothing else. Routes (GET unless said):

* ``/``: the page; ``/static/{name}``: its script and style (a fixed list, from the package);
* ``/api/files``: the file list (game, algorithm, iterations, exploitability, or the error);
* ``/api/info?path=``: one file's summary (computes what the file lacks, e.g. exploitability);
* ``/api/table?path=&q=&mode=&offset=&limit=``: a small game's information sets;
* ``/api/pushfold?path=&row=``, ``/api/pushfold/cell?path=&seat=&hand=&row=``: push/fold grids
  and one class's combos (strategy, EV, equity); ``/api/sweep?path=``: a sweep chart;
* ``/api/node?path=&line=``: a postflop node (actions with frequencies, the actor's grid, both
  ranges, the cards that can come); ``/api/combos?path=&line=&player=&hand=``: a class's combos;
* ``/api/curve?path=``: exploitability curves of a ``--log`` or ``compare --json`` file;
* ``/api/blueprint?path=&line=``: a no-limit blueprint's node (``pokerlab blueprint show``'s
  figures: preflop the seat to act's chart per hand class, after the flop per bucket);
* POST ``/api/play`` ``{path, seat, seed}``, GET ``/api/play/{id}``, POST ``/api/play/{id}/act``
  ``{action}``, POST ``/api/play/{id}/next``: hands against the solution (a no-limit blueprint
  also takes ``search``, ``search_streets``, ``search_iterations``; its action is any text of
  ``pokerlab blueprint play``: ``fold``, ``call``, ``raise 350``, ``all-in`` ...);
* POST ``/api/lock`` ``{path, line, strategy, hands, iterations}``, POST ``/api/unlock``
  ``{path, line, iterations}``: node locking and re-solving in memory (the file is never
  written), as a job (202 and the job; :mod:`pokerlab.viewer.jobs`); GET ``/api/jobs/{id}``: its
  state, progress and, once done, its result; POST ``/api/jobs/{id}/cancel``: stop it at the next
  iteration boundary; POST ``/api/reset`` ``{path}``: cancel the file's job and drop every change.

Errors are JSON ``{"error": message}``: 400 bad input or unreadable file, 403 a path outside the
folder, 404 nothing there, 409 a re-solve of the file already queued or running, 413 a request
body over :attr:`ViewerLimits.max_body_bytes`, 429 a full job queue, a client's job or session
limit or a full session store (with ``Retry-After``), 500 an unexpected failure (logged; the
server keeps running).

A client is the request's address plus the ``pokerlab_client`` cookie the server sets on its
first answer to a browser (random, HttpOnly, SameSite=Strict); requests without the cookie count
as one client per address. Per-client limits keep one tab or script from taking every job slot
or evicting others' play sessions; the global limits bound the total for clients that drop
their cookie.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from pokerlab.errors import PokerlabError
from pokerlab.viewer.files import FileMissing, PathRefused, resolve_inside, scan, summarize
from pokerlab.viewer.http import CLIENT_COOKIE, Guard, Limits, client_key, json_response
from pokerlab.viewer.jobs import JobBusy, JobLimits, JobQueue, JobRefused
from pokerlab.viewer.models import (
    BlueprintModel,
    CurveModel,
    Model,
    ModelCache,
    PostflopModel,
    PushFoldModel,
    SweepModel,
    TableModel,
)
from pokerlab.viewer.reports import register_reports
from pokerlab.viewer.routes import add_job_routes, add_play_routes
from pokerlab.viewer.sessions import Sessions, SessionsFull

__all__ = ["create_app", "STATIC_FILES", "ViewerLimits", "CLIENT_COOKIE"]

log = logging.getLogger("pokerlab.viewer")

#: The page's files, served from the package by name only (no path from a request reaches the
#: file system here).
STATIC_FILES = {
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}

#: How long a file listing is reused (seconds): many requests at once scan the folder once.
LISTING_SECONDS = 1.0


@dataclass(frozen=True)
class ViewerLimits:
    """What one server accepts.

    ``max_body_bytes``: largest request body (bytes; the page's largest is a lock, well under
    4 KiB); ``jobs``: the re-solve queue (:class:`~pokerlab.viewer.jobs.JobLimits`);
    ``sessions``, ``sessions_per_client``: open play sessions in all and per client (a client's
    next one replaces its own least recently used); ``session_idle_seconds``: how long a
    session must have been unused before a full store drops it for another client's new one.
    """

    max_body_bytes: int = 65_536
    jobs: JobLimits = field(default_factory=JobLimits)
    sessions: int = 1024
    sessions_per_client: int = 32
    session_idle_seconds: float = 3600.0

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "sessions", "sessions_per_client"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise PokerlabError(f"viewer limit {name} must be an integer >= 1, got {value!r}")


def _static(name: str) -> bytes:
    return resources.files("pokerlab.viewer").joinpath("static", name).read_bytes()


class Viewer:
    """The state behind the routes: the folder, the loaded models, the play sessions."""

    def __init__(self, root: Path, limits: ViewerLimits | None = None) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise PokerlabError(f"{str(root)!r} is not a folder")
        self.limits = limits or ViewerLimits()
        self.models = ModelCache()
        self.sessions = Sessions(
            self.limits.sessions, self.limits.sessions_per_client, self.limits.session_idle_seconds
        )
        self.jobs = JobQueue(self.limits.jobs)
        self._listing: tuple[float, dict[str, Any]] | None = None
        self._listing_lock = threading.Lock()

    def listing(self) -> dict[str, Any]:
        """The file list, read again at most every :data:`LISTING_SECONDS` seconds. A postflop
        spot whose file has no exploitability shows the one measured when it was opened (while
        it is loaded and unchanged)."""
        with self._listing_lock:
            now = time.monotonic()
            if self._listing is None or now - self._listing[0] > LISTING_SECONDS:
                entries = scan(self.root)
                body = {"root": str(self.root), "files": [e.to_dict() for e in entries]}
                self._listing = (now, body)
            body = self._listing[1]
        files = []
        for f in body["files"]:
            if f["kind"] == "postflop" and f["exploitability"] is None:
                model = self.models.peek(self.root / f["path"])
                measured = model.measured() if isinstance(model, PostflopModel) else None
                if measured is not None and measured["exploitability"] is not None:
                    f = {**f, "exploitability": measured["exploitability"], "measured": True}
            files.append(f)
        return {**body, "files": files}

    def entry(self, rel: str) -> tuple[Path, str]:
        path = resolve_inside(self.root, rel)
        entry = summarize(self.root, rel)
        if entry is None:
            raise PokerlabError(f"{rel!r} is not a file pokerlab wrote")
        if entry.kind == "error":
            raise PokerlabError(entry.error or f"cannot read {rel!r}")
        return path, entry.kind

    def model(self, rel: str) -> Model:
        path, kind = self.entry(rel)
        return self.models.get(path, rel, kind)

    def typed(self, rel: str, cls: type[Any], what: str) -> Any:
        m = self.model(rel)
        if not isinstance(m, cls):
            raise PokerlabError(f"{rel!r} is a {m.kind} file, not {what}")
        return m


def create_app(
    root: str | Path,
    allowed_hosts: list[str] | None = None,
    limits: ViewerLimits | None = None,
) -> Any:
    """The viewer application serving ``root``.

    ``allowed_hosts``: the ``Host`` header values accepted (with or without port); others get
    400, which keeps other web sites from reaching the server through DNS rebinding. None
    accepts any (tests, or a server bound to a public address on purpose). ``limits``: body
    size, job queue and session limits (default :class:`ViewerLimits`).
    """
    viewer = Viewer(Path(root), limits)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        # stop the re-solves (each at its next iteration boundary) before the server exits
        await anyio.to_thread.run_sync(viewer.jobs.close)

    app = FastAPI(
        title="pokerlab viewer", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.viewer = viewer
    index = _static("index.html")
    statics = {name: _static(name) for name in STATIC_FILES}
    hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    @app.exception_handler(PathRefused)
    async def refused(_: Request, exc: PathRefused) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=403)

    @app.exception_handler(FileMissing)
    async def missing(_: Request, exc: FileMissing) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=404)

    @app.exception_handler(PokerlabError)
    async def bad(_: Request, exc: PokerlabError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(JobRefused)
    @app.exception_handler(SessionsFull)
    async def too_many(_: Request, exc: PokerlabError) -> JSONResponse:
        wait = str(getattr(exc, "retry_after_s", 5))
        return JSONResponse({"error": str(exc)}, status_code=429, headers={"Retry-After": wait})

    @app.exception_handler(JobBusy)
    async def busy(_: Request, exc: JobBusy) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=409)

    @app.exception_handler(KeyError)
    async def no_session(_: Request, exc: KeyError) -> JSONResponse:
        return JSONResponse({"error": f"no such session: {exc.args[0]!s}"}, status_code=404)

    @app.exception_handler(Exception)
    async def crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("viewer request failed")
        return JSONResponse(
            {"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500
        )

    # the page and its files are answered on the event loop (no worker thread to wait for)
    @app.get("/", response_class=HTMLResponse)
    async def page() -> Response:
        return Response(index, media_type="text/html; charset=utf-8")

    @app.get("/static/{name}")
    async def static(name: str) -> Response:
        body = statics.get(name)
        if body is None:
            return JSONResponse({"error": "no such file"}, status_code=404)
        return Response(body, media_type=STATIC_FILES[name])

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/api/about")
    def about() -> Response:
        return json_response({"root": str(viewer.root)})

    @app.get("/api/files")
    def files() -> Response:
        return json_response(viewer.listing())

    @app.get("/api/info")
    def info(path: str = Query(...)) -> Response:
        return json_response(viewer.model(path).info())

    @app.get("/api/table")
    def table(
        path: str = Query(...),
        q: str = Query(""),
        mode: str = Query("prefix"),
        offset: int = Query(0, ge=0),
        limit: int = Query(500, ge=1, le=5000),
    ) -> Response:
        m: TableModel = viewer.typed(path, TableModel, "a small game's strategy")
        return json_response(m.table(q, mode, offset, limit))

    @app.get("/api/pushfold")
    def pushfold(path: str = Query(...), row: int = Query(0, ge=0)) -> Response:
        m: PushFoldModel = viewer.typed(path, PushFoldModel, "a push/fold strategy")
        return json_response(m.grids(row))

    @app.get("/api/pushfold/cell")
    def pushfold_cell(
        path: str = Query(...),
        seat: str = Query(...),
        hand: str = Query(...),
        row: int = Query(0, ge=0),
    ) -> Response:
        m: PushFoldModel = viewer.typed(path, PushFoldModel, "a push/fold strategy")
        return json_response(m.cell(seat, hand, row))

    @app.get("/api/sweep")
    def sweep(path: str = Query(...)) -> Response:
        m: SweepModel = viewer.typed(path, SweepModel, "a push/fold sweep")
        return json_response(m.info())

    @app.get("/api/node")
    def node(path: str = Query(...), line: str = Query("")) -> Response:
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        return json_response(m.node(line))

    @app.get("/api/combos")
    def combos(
        path: str = Query(...),
        line: str = Query(""),
        player: int = Query(...),
        hand: str = Query(...),
    ) -> Response:
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        return json_response(m.combos(line, player, hand))

    @app.get("/api/curve")
    def curve(path: str = Query(...)) -> Response:
        m: CurveModel = viewer.typed(path, CurveModel, "a log or compare file")
        return json_response(m.info())

    @app.get("/api/blueprint")
    def blueprint(path: str = Query(...), line: str = Query("")) -> Response:
        m: BlueprintModel = viewer.typed(path, BlueprintModel, "a no-limit blueprint checkpoint")
        return json_response(m.node(line))

    add_play_routes(app, viewer)
    add_job_routes(app, viewer)
    register_reports(app, viewer, client_key)  # the report page (pokerlab report)

    return Guard(Limits(app, viewer.limits.max_body_bytes), hosts)  # type: ignore[return-value]
