"""Ctrl-C as a request to stop at a safe point, and writes that a second Ctrl-C cannot cut.

:func:`stop_on_sigint` turns the first SIGINT into a :class:`StopFlag` that long work (training
runs, reports, the genetic search) reads at its safe points; :func:`shield_sigint` holds Ctrl-C
while a file is written, so the write completes. Signals are handled only in the main thread;
elsewhere (a Ray actor, a worker thread) share a :class:`StopFlag` and set it yourself.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["STOP_NOTICE", "StopFlag", "shield_sigint", "stop_on_sigint"]


class StopFlag:
    """A request to stop at the next safe point: set by SIGINT (:func:`stop_on_sigint`) or by
    :meth:`request` (another thread, a distributed driver)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def request(self) -> None:
        """Ask every run watching this flag to stop at its next safe point."""
        self._event.set()

    @property
    def requested(self) -> bool:
        """True once a stop was asked for."""
        return self._event.is_set()


#: What the first Ctrl-C prints on stderr as soon as Python sees it (:func:`stop_on_sigint`).
STOP_NOTICE = "stopping after this iteration..."


def _notice(message: str) -> None:
    """``message`` on stderr now, in one write (safe inside a signal handler)."""
    try:
        os.write(2, (message + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


@contextmanager
def stop_on_sigint(
    flag: StopFlag | None = None, notice: str | None = STOP_NOTICE
) -> Iterator[StopFlag]:
    """While inside, the first SIGINT (Ctrl-C) sets the returned :class:`StopFlag` instead of
    raising and prints ``notice`` on stderr at once (None: nothing); a second one raises
    ``KeyboardInterrupt`` at once, except inside :func:`shield_sigint` (a file being written).
    The previous handler is restored on exit. Outside the main thread signals cannot be caught:
    the flag is returned unarmed."""
    flag = flag if flag is not None else StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def on_sigint(signum: int, frame: object) -> None:
        if not flag.requested:
            flag.request()
            if notice:
                _notice(notice)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def shield_sigint(what: str = "the files", flag: StopFlag | None = None) -> Iterator[None]:
    """While inside (a file being written), Ctrl-C does not interrupt: it asks ``flag`` to stop
    at the next safe point (printing :data:`STOP_NOTICE`) if it has not yet, else prints that
    ``what`` is being written and carries on, so the write completes. The previous handler is
    restored on exit. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(signum: int, frame: object) -> None:
        if flag is not None and not flag.requested:
            flag.request()
            _notice(STOP_NOTICE)
        else:
            _notice(f"writing {what}: Ctrl-C is held until it is complete")

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
