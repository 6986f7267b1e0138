"""Starting Ray for the distributed runners (an optional dependency): the module with a clear
error when it is missing, a cluster address checked before joining, and a local instance started
or joined with the settings the runners use."""

from __future__ import annotations

import logging
import os
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = ["check_address", "import_ray", "start_ray", "stop_actors"]


def import_ray() -> Any:
    """The ``ray`` module, or a clear error saying how to install it."""
    try:
        import ray
    except ImportError:  # pragma: no cover - depends on the environment
        raise PokerlabError(
            "Ray is not installed: pip install 'pokerlab[ray]' (or use threads: no --ray)"
        ) from None
    return ray


def check_address(address: str, timeout: float = 5.0) -> None:
    """Refuse a ``host:port`` (or ``ray://host:port``) Ray address that does not answer.

    Ray itself waits minutes for an unreachable cluster before it fails; a TCP connection with a
    short ``timeout`` (seconds) tells at once. ``"auto"`` and ``"local"`` are Ray's own words and
    pass unchecked.
    """
    import socket

    if address in ("auto", "local"):
        return
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise PokerlabError(f"--address: {address!r} is not host:port (or ray://host:port)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise PokerlabError(f"--address: no Ray cluster answers at {address!r} ({exc})") from None


def start_ray(ray: Any, address: str | None) -> bool:
    """Start or join Ray unless it is running: a local instance (``address`` None) or the
    cluster at ``address`` (checked first, :func:`check_address`), quiet (no dashboard, driver
    logs off, warnings only). Returns True when this call started it (the caller shuts it
    down)."""
    if ray.is_initialized():
        return False
    if address is not None:
        check_address(address)
    else:
        # Ray starts its worker processes at niceness 15 by default; the actors do the
        # training's work, so on a busy machine they would starve behind the head
        # (measured: 4x slower passes with two other jobs running). Keep them at the
        # head's priority unless the user set the variable.
        os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(
        address=address,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.WARNING,
    )
    return True


def stop_actors(ray: Any, actors: list[Any], started: bool) -> None:
    """End ``actors`` (while Ray runs) and, when ``started`` (the caller's
    :func:`start_ray` started a local instance), shut Ray down."""
    if ray.is_initialized():
        for actor in actors:
            ray.kill(actor)
    if started:
        ray.shutdown()
