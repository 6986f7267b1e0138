"""The viewer's routes that change state: play sessions (hands against a solution) and
re-solve jobs (node locking, unlocking, job state and cancel, reset); see
:mod:`pokerlab.viewer.app` for the list of routes."""

from __future__ import annotations

from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from pokerlab.errors import PokerlabError
from pokerlab.viewer.http import client_key, json_response
from pokerlab.viewer.models import (
    PostflopModel,
    check_lock,
    check_unlock,
    lock_and_resolve,
    unlock_and_resolve,
)
from pokerlab.viewer.sessions import new_session

__all__ = ["MAX_RESOLVE_ITERATIONS", "add_job_routes", "add_play_routes"]

#: Most iterations one re-solve after a lock may run.
MAX_RESOLVE_ITERATIONS = 10_000


def add_play_routes(app: FastAPI, viewer: Any) -> None:
    """POST ``/api/play``, GET ``/api/play/{sid}``, POST ``/api/play/{sid}/act`` and
    ``/api/play/{sid}/next`` on ``app``, for the files of ``viewer``. ``/api/play`` takes
    ``{path, seat, seed}`` and, for a no-limit blueprint checkpoint, ``search`` (true: the bot
    searches in play) with optional ``search_streets``, ``search_iterations``,
    ``search_seconds`` (a time budget per decision: seconds, or street name to seconds),
    ``search_gadget`` and ``search_options`` (the agent's other settings by name:
    :data:`~pokerlab.viewer.play_nolimit.SEARCH_OPTIONS`)."""

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
        search = body.get("search", False)
        streets, iterations = body.get("search_streets"), body.get("search_iterations")
        gadget = body.get("search_gadget")
        seconds = body.get("search_seconds")
        options = body.get("search_options")
        if options is not None and not isinstance(options, dict):
            raise PokerlabError(
                f'search_options must be an object of settings such as {{"depth": '
                f'"round"}}, got {options!r}'
            )
        if not isinstance(search, bool):
            raise PokerlabError(f"search must be true or false, got {search!r}")
        if streets is not None and not isinstance(streets, str):
            raise PokerlabError(f"search_streets must be text such as 'river', got {streets!r}")
        if iterations is not None and (
            not isinstance(iterations, int) or isinstance(iterations, bool)
        ):
            raise PokerlabError(f"search_iterations must be an integer, got {iterations!r}")
        if gadget is not None and not isinstance(gadget, str):
            raise PokerlabError(f"search_gadget must be text such as 'resolve', got {gadget!r}")
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, int | float | dict)
        ):
            raise PokerlabError(
                f"search_seconds must be seconds or {{street: seconds}}, got {seconds!r}"
            )
        if not search and any(
            x is not None for x in (streets, iterations, gadget, seconds, options)
        ):
            raise PokerlabError(
                "search_streets, search_iterations, search_seconds, search_gadget and "
                "search_options need search: true"
            )
        session = new_session(
            viewer.model(path), seat, seed, search, streets, iterations, gadget, seconds, options
        )
        viewer.sessions.add(session, client_key(request))
        with session.lock:
            return json_response(session.state())

    @app.get("/api/play/{sid}")
    def play_state(sid: str) -> Response:
        session = viewer.sessions.get(sid)
        with session.lock:
            return json_response(session.state())

    @app.post("/api/play/{sid}/act")
    def play_act(sid: str, body: dict[str, Any] = Body(...)) -> Response:
        action = body.get("action")
        if not isinstance(action, str):
            raise PokerlabError("give the action as 'action'")
        session = viewer.sessions.get(sid)
        with session.lock:
            session.act(action)
            return json_response(session.state())

    @app.post("/api/play/{sid}/next")
    def play_next(sid: str) -> Response:
        session = viewer.sessions.get(sid)
        with session.lock:
            session.deal()
            return json_response(session.state())


def add_job_routes(app: FastAPI, viewer: Any) -> None:
    """POST ``/api/lock``, ``/api/unlock``, ``/api/reset``; GET ``/api/jobs/{id}`` and POST
    ``/api/jobs/{id}/cancel`` on ``app``, for the files of ``viewer``."""

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
                client_key(request),
                str(m.path),
                n,
                work,
                what,
                finished=lambda: viewer.models.unpin(m),
            )
        except BaseException:
            viewer.models.unpin(m)
            raise
        return json_response(job.to_dict(), 202)

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
        viewer.jobs.check(client_key(request), str(real))  # refusals before loading the spot
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
        viewer.jobs.check(client_key(request), str(real))  # refusals before loading the spot
        m: PostflopModel = viewer.typed(path, PostflopModel, "a postflop solution")
        check_unlock(m, line)

        def work(ctx: Any) -> dict[str, Any]:
            return unlock_and_resolve(m, line, n, ctx)

        return submit(request, "unlock", m, n, work, {"path": path, "line": line})

    @app.get("/api/jobs/{job_id}")
    async def job_state(job_id: str) -> Response:
        try:
            return json_response(viewer.jobs.get(job_id).to_dict())
        except KeyError:
            return JSONResponse({"error": f"no such job: {job_id}"}, status_code=404)

    @app.post("/api/jobs/{job_id}/cancel")
    async def job_cancel(job_id: str) -> Response:
        try:
            return json_response(viewer.jobs.cancel(job_id).to_dict())
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
        cancelled_ids = [j.id for j in cancelled]
        return json_response({"path": path, "reset": True, "cancelled_jobs": cancelled_ids})
