"""The viewer's web application (FastAPI): the page, its static files and the JSON API.

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
* POST ``/api/play`` ``{path, seat, seed}``, GET ``/api/play/{id}``, POST ``/api/play/{id}/act``
  ``{action}``, POST ``/api/play/{id}/next``: hands against the solution;
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

import json
import logging
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from fastapi import Body, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from pokerlab.errors import PokerlabError
from pokerlab.viewer.files import FileMissing, PathRefused, resolve_inside, scan, summarize
from pokerlab.viewer.jobs import JobBusy, JobLimits, JobQueue, JobRefused
from pokerlab.viewer.models import (
    CurveModel,
    Model,
    ModelCache,
    PostflopModel,
    PushFoldModel,
    SweepModel,
    TableModel,
    check_lock,
    check_unlock,
    lock_and_resolve,
    unlock_and_resolve,
)
from pokerlab.viewer.play import Sessions, SessionsFull, new_session

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

#: Most iterations one re-solve after a lock may run.
MAX_RESOLVE_ITERATIONS = 10_000

#: The cookie naming a browser (32 hex digits, set by the server; see the module's docstring).
CLIENT_COOKIE = "pokerlab_client"
_TOKEN = re.compile(r"[0-9a-f]{32}")
#: Where the middleware leaves the request's client key in the ASGI scope.
_CLIENT_SCOPE = "pokerlab.client"


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


_SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
    ),
}


def _json(obj: Any) -> Response:
    """A JSON response encoded by the standard library's C encoder (no per-item conversion:
    the models already return plain lists, numbers and strings; NaN is refused)."""
    body = json.dumps(obj, allow_nan=False, separators=(",", ":")).encode()
    return Response(body, media_type="application/json")


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


def _client(request: Request) -> str:
    """The request's client key (set by :class:`_Limits`; the address when it did not run)."""
    key = request.scope.get(_CLIENT_SCOPE)
    if key:
        return str(key)
    return f"{request.client.host if request.client else '?'}/-"


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
        return _json({"root": str(viewer.root)})

    @app.get("/api/files")
    def files() -> Response:
        return _json(viewer.listing())

    @app.get("/api/info")
    def info(path: str = Query(...)) -> Response:
        return _json(viewer.model(path).info())

    @app.get("/api/table")
    def table(
        path: str = Query(...),
        q: str = Query(""),
        mode: str = Query("prefix"),
        offset: int = Query(0, ge=0),
        limit: int = Query(500, ge=1, le=5000),
    ) -> Response:
        m: TableModel = viewer.typed(path, TableModel, "a small game's strategy")
        return _json(m.table(q, mode, offset, limit))

    @app.get("/api/pushfold")
    def pushfold(path: str = Query(...), row: int = Query(0, ge=0)) -> Response:
        m: PushFoldModel = viewer.typed(path, PushFoldModel, "a push/fold strategy")
        return _json(m.grids(row))

    @app.get("/api/pushfold/cell")
    def pushfold_cell(
        path: str = Query(...),
        seat: str = Query(...),
        hand: str = Query(...),
        row: int = Query(0, ge=0),
    ) -> Response:
        m: PushFoldModel = viewer.typed(path, PushFoldModel, "a push/fold strategy")
        return _json(m.cell(seat, hand, row))

    @app.get("/api/sweep")
    def sweep(path: str = Query(...)) -> Response:
        m: SweepModel = viewer.typed(path, SweepModel, "a push/fold sweep")
        return _json(m.info())

    @app.get("/api/node")
    def node(path: str = Query(...), line: str = Query("")) -> Response:
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        return _json(m.node(line))

    @app.get("/api/combos")
    def combos(
        path: str = Query(...),
        line: str = Query(""),
        player: int = Query(...),
        hand: str = Query(...),
    ) -> Response:
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        return _json(m.combos(line, player, hand))

    @app.get("/api/curve")
    def curve(path: str = Query(...)) -> Response:
        m: CurveModel = viewer.typed(path, CurveModel, "a log or compare file")
        return _json(m.info())

    @app.post("/api/play")
    def play_new(request: Request, body: dict[str, Any] = Body(...)) -> Response:
        path = body.get("path")
        seat = body.get("seat", 0)
        seed = body.get("seed")
        if not isinstance(path, str):
            raise PokerlabError("give the file to play against as 'path'")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise PokerlabError("seat must be 0 or 1")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise PokerlabError("seed must be an integer >= 0")
        session = new_session(viewer.model(path), seat, seed)
        viewer.sessions.add(session, _client(request))
        with session.lock:
            return _json(session.state())

    @app.get("/api/play/{sid}")
    def play_state(sid: str) -> Response:
        session = viewer.sessions.get(sid)
        with session.lock:
            return _json(session.state())

    @app.post("/api/play/{sid}/act")
    def play_act(sid: str, body: dict[str, Any] = Body(...)) -> Response:
        action = body.get("action")
        if not isinstance(action, str):
            raise PokerlabError("give the action as 'action'")
        session = viewer.sessions.get(sid)
        with session.lock:
            session.act(action)
            return _json(session.state())

    @app.post("/api/play/{sid}/next")
    def play_next(sid: str) -> Response:
        session = viewer.sessions.get(sid)
        with session.lock:
            session.deal()
            return _json(session.state())

    def iterations_of(body: dict[str, Any]) -> int:
        n = body.get("iterations", 100)
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_RESOLVE_ITERATIONS:
            raise PokerlabError(
                f"iterations must be an integer in 0..{MAX_RESOLVE_ITERATIONS}, got {n!r}"
            )
        return n

    def submit(
        request: Request, kind: str, m: PostflopModel, n: int, work: Any, what: dict[str, Any]
    ) -> Response:
        """Queue a re-solve of ``m`` (``what``: the path and line, shown with the job): 202 and
        the job. The model stays cached while the job lasts (a later request for the file sees
        the job's changes)."""
        viewer.models.pin(m)
        try:
            job = viewer.jobs.submit(
                kind,
                _client(request),
                str(m.path),
                n,
                work,
                what,
                finished=lambda: viewer.models.unpin(m),
            )
        except BaseException:
            viewer.models.unpin(m)
            raise
        body = json.dumps(job.to_dict(), allow_nan=False, separators=(",", ":")).encode()
        return Response(body, status_code=202, media_type="application/json")

    @app.post("/api/lock")
    def lock(request: Request, body: dict[str, Any] = Body(...)) -> Response:
        path, line = body.get("path"), body.get("line", "")
        strategy, hands = body.get("strategy"), body.get("hands")
        if not isinstance(path, str) or not isinstance(line, str):
            raise PokerlabError("give 'path' and 'line' as strings")
        if not isinstance(strategy, dict) or not all(
            isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
            for k, v in strategy.items()
        ):
            raise PokerlabError("'strategy' maps action labels to probabilities")
        if hands is not None and not isinstance(hands, str):
            raise PokerlabError("'hands' is a range string such as 'AA, KQs' or null for all")
        n = iterations_of(body)
        real, _ = viewer.entry(path)
        viewer.jobs.check(_client(request), str(real))  # refusals before loading the spot
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        check_lock(m, line, strategy, hands)

        def work(ctx: Any) -> dict[str, Any]:
            return lock_and_resolve(m, line, strategy, hands, n, ctx)

        return submit(request, "lock", m, n, work, {"path": path, "line": line})

    @app.post("/api/unlock")
    def unlock(request: Request, body: dict[str, Any] = Body(...)) -> Response:
        path, line = body.get("path"), body.get("line")
        if not isinstance(path, str) or not (line is None or isinstance(line, str)):
            raise PokerlabError("give 'path' and 'line' (null: every lock) as strings")
        n = iterations_of(body)
        real, _ = viewer.entry(path)
        viewer.jobs.check(_client(request), str(real))  # refusals before loading the spot
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        check_unlock(m, line)

        def work(ctx: Any) -> dict[str, Any]:
            return unlock_and_resolve(m, line, n, ctx)

        return submit(request, "unlock", m, n, work, {"path": path, "line": line})

    @app.get("/api/jobs/{job_id}")
    async def job_state(job_id: str) -> Response:
        try:
            return _json(viewer.jobs.get(job_id).to_dict())
        except KeyError:
            return JSONResponse({"error": f"no such job: {job_id}"}, status_code=404)

    @app.post("/api/jobs/{job_id}/cancel")
    async def job_cancel(job_id: str) -> Response:
        try:
            return _json(viewer.jobs.cancel(job_id).to_dict())
        except KeyError:
            return JSONResponse({"error": f"no such job: {job_id}"}, status_code=404)

    @app.post("/api/reset")
    def reset(body: dict[str, Any] = Body(...)) -> Response:
        path = body.get("path")
        if not isinstance(path, str):
            raise PokerlabError("give 'path' as a string")
        real, _ = viewer.entry(path)
        cancelled = viewer.jobs.cancel_key(str(real))
        viewer.models.drop(real)
        return _json({"path": path, "reset": True, "cancelled_jobs": [j.id for j in cancelled]})

    from pokerlab.viewer.reports import register_reports  # the report page (pokerlab report)

    register_reports(app, viewer, _client)
    return _Guard(_Limits(app, viewer.limits.max_body_bytes), hosts)  # type: ignore[return-value]


class _Limits:
    """ASGI middleware: refuse a request body over ``max_body`` bytes with 413 (by its
    ``Content-Length`` before reading it, else while reading it: at most ``max_body`` bytes are
    held), and name the client (address plus the ``pokerlab_client`` cookie, set on the answer
    when the request had none) in the scope for the per-client limits."""

    def __init__(self, app: FastAPI, max_body: int) -> None:
        self.app = app
        self.state = app.state
        self.max_body = max_body

    @staticmethod
    async def _refuse(send: Any, status: int, why: str) -> None:
        body = json.dumps({"error": why}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length: int | None = None
        chunked = False
        token = None
        for k, v in scope.get("headers", ()):
            if k == b"content-length":
                text = v.decode("latin-1").strip()
                if not text.isascii() or not text.isdigit():
                    await self._refuse(send, 400, f"bad Content-Length {text!r}")
                    return
                length = int(text)
            elif k == b"transfer-encoding":
                chunked = True
            elif k == b"cookie":
                for part in v.decode("latin-1").split(";"):
                    name, _, value = part.strip().partition("=")
                    if name == CLIENT_COOKIE and _TOKEN.fullmatch(value):
                        token = value
        too_big = f"request body over {self.max_body} bytes; this server takes at most that"
        if length is not None and length > self.max_body:
            await self._refuse(send, 413, too_big)
            return
        if chunked or length:
            # read the body here, at most max_body bytes, and hand it on in one message
            parts, size, more = [], 0, True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    await self._refuse(send, 413, too_big)
                    return
                parts.append(chunk)
                more = message.get("more_body", False)
            pending = [{"type": "http.request", "body": b"".join(parts), "more_body": False}]

            async def replay() -> Any:
                return pending.pop() if pending else await receive()

            receive = replay
        client = scope.get("client")
        address = client[0] if client else "?"
        new_token = None if token else secrets.token_hex(16)
        # without the cookie a request counts as its address's cookieless client: a script
        # that drops cookies is one client per address, not a new one per request
        scope = {**scope, _CLIENT_SCOPE: f"{address}/{token or '-'}"}
        if new_token is None:
            await self.app(scope, receive, send)
            return
        cookie = f"{CLIENT_COOKIE}={new_token}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def send_with_cookie(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie)]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class _Guard:
    """ASGI middleware: refuse unknown ``Host`` headers (DNS rebinding) and add the security
    headers to every response. Written as plain ASGI (no per-request task or stream copies)."""

    def __init__(self, app: FastAPI, hosts: set[str] | None) -> None:
        self.app = app
        self.hosts = hosts
        self.state = app.state
        self.extra = [(k.lower().encode(), v.encode()) for k, v in _SECURITY_HEADERS.items()]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = ""
            for k, v in scope.get("headers", ()):
                if k == b"host":
                    host = v.decode("latin-1").lower()
                    break
            name = host if host.endswith("]") else host.rsplit(":", 1)[0]
            if host not in self.hosts and name not in self.hosts:
                await JSONResponse({"error": "unknown host"}, status_code=400)(scope, receive, send)
                return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in self.extra if k not in names
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)
