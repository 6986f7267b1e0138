"""The viewer's HTTP plumbing: JSON responses, the client key, and the two ASGI middlewares
(request body limit and client cookie; allowed hosts and security headers)."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

__all__ = ["CLIENT_COOKIE", "Guard", "Limits", "client_key", "json_response"]

#: The cookie naming a browser (32 hex digits, set by the server; see the module's docstring).
CLIENT_COOKIE = "pokerlab_client"
_TOKEN = re.compile(r"[0-9a-f]{32}")
#: Where the middleware leaves the request's client key in the ASGI scope.
_CLIENT_SCOPE = "pokerlab.client"

_SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
    ),
}


def json_response(obj: Any, status: int = 200) -> Response:
    """A JSON response (HTTP ``status``) encoded by the standard library's C encoder (no
    per-item conversion: the models already return plain lists, numbers and strings; NaN is
    refused)."""
    body = json.dumps(obj, allow_nan=False, separators=(",", ":")).encode()
    return Response(body, status_code=status, media_type="application/json")


def client_key(request: Request) -> str:
    """The request's client key (set by :class:`Limits`; the address when it did not run)."""
    key = request.scope.get(_CLIENT_SCOPE)
    if key:
        return str(key)
    return f"{request.client.host if request.client else '?'}/-"


class Limits:
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


class Guard:
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
