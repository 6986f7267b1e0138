"""A local web viewer for pokerlab's files: strategies, solved spots, curves, play.

``pokerlab serve DIR`` (or :func:`serve`) starts it; :func:`create_app` builds the application
for tests and embedding. The server needs the ``viewer`` extra (FastAPI and uvicorn):
``pip install "pokerlab[viewer]"``. See ``docs/viewer.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["create_app", "serve"]


def create_app(root: Any, allowed_hosts: list[str] | None = None, limits: Any = None) -> FastAPI:
    """The viewer application for folder ``root`` (see :func:`pokerlab.viewer.app.create_app`;
    ``limits``: a :class:`pokerlab.viewer.app.ViewerLimits`)."""
    from pokerlab.viewer.app import create_app as _create

    return _create(root, allowed_hosts=allowed_hosts, limits=limits)


def serve(root: Any, host: str = "127.0.0.1", port: int = 0, **kwargs: Any) -> int:
    """Serve ``root`` until interrupted (see :func:`pokerlab.viewer.server.serve`)."""
    from pokerlab.viewer.server import serve as _serve

    return _serve(root, host=host, port=port, **kwargs)
