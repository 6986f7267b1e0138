"""A :class:`concurrent.futures.Executor` whose tasks run as Ray tasks (local or on a cluster).

Work that pokerlab hands to a process pool (the simulated matches of a genetic search's
tournaments, :mod:`pokerlab.evolve.tournaments`) runs on Ray unchanged through this executor:
``submit(fn, *args)`` becomes a Ray task calling ``fn`` and returns a standard future
(``ObjectRef.future()``), so the callers keep one code path and the process pool stays the
dependency-free default. Task arguments and results travel through Ray's object store; ``fn``
must be importable on the workers (a module-level function of pokerlab).

Ray is started (``ray.init``) by the executor unless it is already running (a local instance by
default, ``address="host:port"`` for a cluster, checked before Ray's minutes-long wait; see
:func:`pokerlab.distributed.limit_ray.start_ray`) and shut down on :meth:`RayExecutor.shutdown`
when the executor started it. The results depend only on the tasks' inputs (their seeds are
fixed before submission), so a run gives the same numbers on Ray as on the pool or in-process.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from pokerlab.distributed.limit_ray import import_ray, start_ray

__all__ = ["RayExecutor"]


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The one Ray task: call ``fn`` (sent by reference, so builtins and module functions of
    any kind serve)."""
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """Run submitted calls as Ray tasks.

    Parameters
    ----------
    address:
        ``None`` for a local Ray instance (started here if none runs), or a cluster's
        ``host:port`` / ``ray://host:port``.
    num_cpus:
        CPUs each task reserves (Ray's scheduling unit; 1 by default).
    """

    def __init__(self, address: str | None = None, num_cpus: float = 1.0) -> None:
        self._ray = import_ray()
        self._started = start_ray(self._ray, address)
        self._num_cpus = float(num_cpus)
        self._remote: Any = None  # the Ray task that calls a submitted function
        self._closed = False

    @property
    def workers(self) -> int:
        """The CPUs Ray offers (local machine or cluster): how many tasks run at once."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` as a Ray task; a future of its result."""
        if self._closed:
            raise RuntimeError("cannot submit to a RayExecutor after shutdown")
        if self._remote is None:
            self._remote = self._ray.remote(num_cpus=self._num_cpus)(_call)
        return self._remote.remote(fn, *args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop accepting tasks; shut Ray down if this executor started it."""
        if self._closed:
            return
        self._closed = True
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
