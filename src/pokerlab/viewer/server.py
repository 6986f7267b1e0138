"""Running the viewer: bind a socket (a free port by default), print the URL, serve until Ctrl-C."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

from pokerlab.errors import PokerlabError

__all__ = ["serve", "is_loopback", "bind", "url_for"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and addresses in 127.0.0.0/8 or ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0: a free one)."""
    if not 0 <= port <= 65535:
        raise PokerlabError(f"port must be in 0..65535, got {port}")
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise PokerlabError(f"cannot use host {host!r}: {exc.strerror}") from None
    family, _, proto, _, address = infos[0]
    # the protocol number matters: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on
    # sockets whose proto is IPPROTO_TCP, and with it on every answer with a body waited 40 ms
    # for the client's delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, proto or socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise PokerlabError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_for(sock: socket.socket) -> str:
    """``http://HOST:PORT/`` of a bound socket (IPv6 addresses in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(
    root: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    out: TextIO | None = None,
    log_level: str = "warning",
) -> int:
    """Serve the viewer of ``root`` on ``host``:``port`` until interrupted; return 0.

    The URL is printed on one line (to ``out``, default stdout) once the socket listens. A host
    that is not a loopback address is allowed with a warning on stderr: anyone who can reach it
    can read the strategy files in ``root``.
    """
    import uvicorn

    from pokerlab.viewer.app import create_app

    folder = Path(root)
    if not folder.is_dir():
        raise PokerlabError(f"{str(root)!r} is not a folder")
    loopback = is_loopback(host)
    if not loopback:
        print(
            f"warning: serving on {host}, not a loopback address: anyone who can reach it can "
            f"read the pokerlab files in {str(folder)!r}",
            file=sys.stderr,
            flush=True,
        )
    sock = bind(host, port)
    allowed = None
    if loopback:
        bound_port = sock.getsockname()[1]
        names = list(LOOPBACK_NAMES) + [host]
        allowed = names + [f"{n}:{bound_port}" for n in names]
    app = create_app(folder, allowed_hosts=allowed)
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=3,
        limit_concurrency=4096,
        backlog=2048,
    )
    server = uvicorn.Server(config)
    print(url_for(sock), file=out or sys.stdout, flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0


def _main(argv: list[str] | None = None) -> Any:  # pragma: no cover - python -m entry
    args = sys.argv[1:] if argv is None else argv
    return serve(args[0] if args else ".")
