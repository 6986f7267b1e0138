"""Long viewer work (re-solves after a node lock) as jobs: a bounded queue, a fixed pool of worker
threads, progress, cancellation and per-client limits.

A request submits a job and gets its id at once (HTTP 202); the page polls ``/api/jobs/{id}``
for the state and the iterations run so far and fetches the result from there when the job is
done. The work itself is a function of a :class:`JobContext`: it reports progress with
:meth:`JobContext.progress` and stops at the next iteration boundary once
:meth:`JobContext.cancelled` is true (the re-solve loop in
:func:`pokerlab.viewer.models.lock_and_resolve` checks it between chunks of iterations).

Limits (:class:`JobLimits`): ``workers`` threads run jobs, never two of one client at a time;
at most ``queued`` jobs wait; one client has at most ``per_client`` jobs queued or running; one
key (a file) has at most one job queued or running, so two re-solves never interleave on one
spot. A submission over a limit raises :class:`JobRefused` (HTTP 429) or :class:`JobBusy`
(HTTP 409) with a message saying which limit. Finished jobs stay readable for ``keep_seconds``
(at most ``keep`` of them).

Workers are threads: the postflop kernels are compiled ``nogil``, so a running re-solve leaves
the GIL to the server's event loop and request threads (the parallel kernel launches are
serialized in :class:`pokerlab.tree.vector.passes.Passes`).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = [
    "JOB_STATES",
    "Job",
    "JobBusy",
    "JobContext",
    "JobLimits",
    "JobQueue",
    "JobRefused",
]

log = logging.getLogger("pokerlab.viewer")

#: The states of a job, in the order it can pass through them (``queued`` may go straight to
#: ``cancelled``).
JOB_STATES = ("queued", "running", "done", "failed", "cancelled")
_FINISHED = frozenset({"done", "failed", "cancelled"})


class JobRefused(PokerlabError):
    """A job was not accepted: the queue or the client's share of it is full (HTTP 429)."""

    retry_after_s = 5


class JobBusy(PokerlabError):
    """A job for the same key (file) is already queued or running (HTTP 409)."""


@dataclass(frozen=True)
class JobLimits:
    """The job queue's sizes.

    ``workers``: threads running jobs; ``queued``: jobs waiting at most; ``per_client``: jobs
    queued or running per client at most; ``keep``, ``keep_seconds``: finished jobs kept for
    reading their result (count, seconds after they finished).
    """

    workers: int = 2
    queued: int = 16
    per_client: int = 2
    keep: int = 256
    keep_seconds: float = 900.0

    def __post_init__(self) -> None:
        for name in ("workers", "queued", "per_client", "keep"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise PokerlabError(f"job limit {name} must be an integer >= 1, got {value!r}")
        if not self.keep_seconds > 0:
            raise PokerlabError(f"keep_seconds must be > 0, got {self.keep_seconds!r}")


class JobContext:
    """What a job's work sees: its progress counter and its cancel flag."""

    def __init__(self, job: Job) -> None:
        self._job = job

    def progress(self, done: int) -> None:
        """Record that ``done`` of the job's ``total`` units (iterations) are finished."""
        self._job.done = int(done)

    def cancelled(self) -> bool:
        """True once someone asked the job to stop (check it at each iteration boundary)."""
        return self._job.cancel_requested.is_set()


class Job:
    """One unit of long work: what it is, whose it is, where it stands."""

    def __init__(
        self,
        kind: str,
        client: str,
        key: str,
        total: int,
        work: Callable[[JobContext], dict[str, Any]],
        describe: dict[str, Any] | None = None,
        finished: Callable[[], None] | None = None,
    ) -> None:
        self.id = uuid.uuid4().hex
        self.kind = kind
        self.client = client
        self.key = key
        self.total = int(total)
        self.work = work
        self.describe = dict(describe or {})
        self.state = "queued"
        self.done = 0
        self.created = time.time()
        self.started: float | None = None
        self.finished: float | None = None
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.cancel_requested = threading.Event()
        self.position = 0  # place in the queue when queued (0: first), set by the queue
        self.on_finish = finished

    def to_dict(self) -> dict[str, Any]:
        """The job for the page: id, kind, state, progress (units done of total), times
        (seconds since the epoch), queue position, and the result or error once finished."""
        now = time.time()
        ran = None
        if self.started is not None:
            ran = round((self.finished or now) - self.started, 3)
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "position": self.position if self.state == "queued" else None,
            "cancel_requested": self.cancel_requested.is_set(),
            "created": round(self.created, 3),
            "seconds": ran,
            "result": self.result,
            "error": self.error,
            **self.describe,
        }


class JobQueue:
    """A bounded queue of :class:`Job` run by a fixed pool of daemon threads (started on the
    first submission). Thread-safe; every method returns at once (none waits for a job)."""

    def __init__(self, limits: JobLimits | None = None) -> None:
        self.limits = limits or JobLimits()
        self._jobs: dict[str, Job] = {}
        self._waiting: list[Job] = []
        self._running: dict[str, Job] = {}
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._closed = False

    # --- submitting and reading -----------------------------------------------------------------
    def submit(
        self,
        kind: str,
        client: str,
        key: str,
        total: int,
        work: Callable[[JobContext], dict[str, Any]],
        describe: dict[str, Any] | None = None,
        finished: Callable[[], None] | None = None,
    ) -> Job:
        """Queue ``work`` for ``client`` on ``key``; the new job (state ``queued``).
        ``finished`` is called once when the job ends, however it ends (run, failed, cancelled
        in the queue).

        Raises :class:`JobBusy` while a job on ``key`` is queued or running, and
        :class:`JobRefused` when the client already has ``per_client`` jobs or ``queued`` jobs
        are waiting."""
        with self._cond:
            self._admit(client, key)
            job = Job(kind, client, key, total, work, describe, finished)
            self._jobs[job.id] = job
            self._waiting.append(job)
            self._number()
            self._start_workers()
            self._cond.notify_all()
            return job

    def check(self, client: str, key: str) -> None:
        """Raise what :meth:`submit` would raise now for ``client`` and ``key`` (a cheap answer
        before the work is prepared; :meth:`submit` checks again)."""
        with self._cond:
            self._admit(client, key)

    def _admit(self, client: str, key: str) -> None:
        if self._closed:
            raise JobRefused("the server is shutting down; no new jobs")
        self._forget_old()
        active = [*self._running.values(), *self._waiting]
        same = next((j for j in active if j.key == key), None)
        if same is not None:
            raise JobBusy(
                f"a re-solve of {key!r} is already {same.state} (job {same.id}); "
                "wait for it or cancel it"
            )
        mine = sum(1 for j in active if j.client == client)
        if mine >= self.limits.per_client:
            raise JobRefused(
                f"you have {mine} job(s) queued or running, the most one client may "
                "have; wait for one to finish or cancel it"
            )
        if len(self._waiting) >= self.limits.queued:
            raise JobRefused(
                f"the job queue is full ({len(self._waiting)} waiting); try again later"
            )

    def get(self, job_id: str) -> Job:
        """The job ``job_id`` (KeyError when unknown or forgotten)."""
        with self._cond:
            self._forget_old()
            job = self._jobs.get(job_id)
            if job is None:
                raise KeyError(job_id)
            return job

    def cancel(self, job_id: str) -> Job:
        """Ask job ``job_id`` to stop: a queued job is cancelled at once, a running one at its
        next iteration boundary; a finished one is left as it is."""
        with self._cond:
            job = self._jobs.get(job_id)
            if job is None:
                raise KeyError(job_id)
            self._cancel(job)
            return job

    def cancel_key(self, key: str) -> list[Job]:
        """Cancel every queued or running job on ``key``; those jobs."""
        with self._cond:
            hit = [j for j in (*self._running.values(), *self._waiting) if j.key == key]
            for job in hit:
                self._cancel(job)
            return hit

    def counts(self) -> dict[str, int]:
        """How many jobs wait and run now, and the limits."""
        with self._cond:
            return {
                "queued": len(self._waiting),
                "running": len(self._running),
                "workers": self.limits.workers,
                "max_queued": self.limits.queued,
                "per_client": self.limits.per_client,
            }

    def close(self, timeout: float = 10.0) -> None:
        """Cancel every job and stop the workers (waiting at most ``timeout`` seconds)."""
        with self._cond:
            self._closed = True
            for job in [*self._running.values(), *self._waiting]:
                self._cancel(job)
            self._cond.notify_all()
            threads = list(self._threads)
        deadline = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))

    # --- inside ---------------------------------------------------------------------------------
    def _cancel(self, job: Job) -> None:
        if job.state in _FINISHED:
            return
        job.cancel_requested.set()
        if job.state == "queued":
            self._waiting.remove(job)
            job.state = "cancelled"
            job.finished = time.time()
            self._number()
            self._cond.notify_all()
            _finish(job)

    def _number(self) -> None:
        for k, job in enumerate(self._waiting):
            job.position = k

    def _forget_old(self) -> None:
        now = time.time()
        done = [j for j in self._jobs.values() if j.state in _FINISHED]
        old = {j.id for j in done if now - (j.finished or now) > self.limits.keep_seconds}
        extra = len(done) - len(old) - self.limits.keep
        if extra > 0:
            kept = sorted((j for j in done if j.id not in old), key=lambda j: j.finished or 0)
            old.update(j.id for j in kept[:extra])
        for job_id in old:
            del self._jobs[job_id]

    def _start_workers(self) -> None:
        while len(self._threads) < self.limits.workers:
            t = threading.Thread(
                target=self._worker, name=f"pokerlab-viewer-job-{len(self._threads)}", daemon=True
            )
            self._threads.append(t)
            t.start()

    def _next(self) -> Job | None:
        """The oldest waiting job whose client has none running (the caller holds the lock)."""
        busy = {j.client for j in self._running.values()}
        return next((j for j in self._waiting if j.client not in busy), None)

    def _worker(self) -> None:
        while True:
            with self._cond:
                job = self._next()
                while job is None and not self._closed:
                    self._cond.wait()
                    job = self._next()
                if job is None:
                    return
                self._waiting.remove(job)
                self._number()
                self._running[job.id] = job
                job.state = "running"
                job.started = time.time()
            state, result, error = "done", None, None
            try:
                result = job.work(JobContext(job))
                if job.cancel_requested.is_set():
                    state = "cancelled"
            except PokerlabError as exc:
                state, error = "failed", str(exc)
            except Exception as exc:  # noqa: BLE001  one job's crash must not stop the worker
                log.exception("viewer job %s failed", job.id)
                state, error = "failed", f"internal error: {type(exc).__name__}: {exc}"
            _finish(job)
            with self._cond:
                job.result, job.error = result, error
                job.finished = time.time()
                job.state = state
                del self._running[job.id]
                self._cond.notify_all()


def _finish(job: Job) -> None:
    """Call the job's ``finished`` hook (once; a failing hook is logged, nothing more)."""
    hook, job.on_finish = job.on_finish, None
    if hook is not None:
        try:
            hook()
        except Exception:  # noqa: BLE001
            log.exception("viewer job %s: the finish hook failed", job.id)
