"""One viewer client cannot stall the others (issue 29, item 2): re-solves run as jobs in a bounded
queue with progress and cancellation, per-client limits (429), one job per file (409), a request
body limit (413), play sessions that only their own client's new ones replace, and `/` answering
in under 100 ms while the queue is full, measured on loopback with one slow client and many fast
ones."""

from __future__ import annotations

import asyncio
import shutil
import socket
import statistics
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the viewer extra (fastapi, uvicorn) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx (test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

import pokerlab  # noqa: E402
from pokerlab.errors import PokerlabError  # noqa: E402
from pokerlab.viewer import create_app  # noqa: E402
from pokerlab.viewer.app import CLIENT_COOKIE, ViewerLimits  # noqa: E402
from pokerlab.viewer.jobs import JobBusy, JobLimits, JobQueue, JobRefused  # noqa: E402
from pokerlab.viewer.sessions import Sessions, SessionsFull  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _viewer_data import LiveServer  # noqa: E402

#: Iterations the river spot was solved for in the fixture's files.
BASE_ITERATIONS = 60
#: Most iterations a re-solve may run: on the built-in turn spot (tens of ms an iteration) it
#: outlasts every measurement here by minutes.
LONG = 10_000
#: Locks of the river spot (short re-solves) and of the turn spot (long ones).
LOCK = {"line": "check", "strategy": {"check": 0.25, "bet 66": 0.75}, "hands": "QQ, JJ"}
TURN_LOCK = {"line": "", "strategy": {"check": 1.0}, "hands": None, "iterations": LONG}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Four copies of the solved river spot (``r0.npz`` .. ``r3.npz``), two of the built-in turn
    spot after one iteration (``t0.npz``, ``t1.npz``) and a Kuhn strategy."""
    from pokerlab.solvers.postflop import PostflopSolver, save_spot_solution

    root = tmp_path_factory.mktemp("jobs")
    river = PostflopSolver(pokerlab.load_game("postflop", spot="river"))
    if not hasattr(river, "lock"):
        pytest.skip("this pokerlab has no node locking")
    river.step(BASE_ITERATIONS)
    save_spot_solution(root / "r0.npz", river)
    for k in range(1, 4):
        shutil.copy(root / "r0.npz", root / f"r{k}.npz")
    turn = PostflopSolver(pokerlab.load_game("postflop", spot="turn"))
    turn.step(1)
    save_spot_solution(root / "t0.npz", turn)
    shutil.copy(root / "t0.npz", root / "t1.npz")
    kuhn = pokerlab.load_game("kuhn")
    s = pokerlab.make_solver(kuhn, "cfr+")
    s.solve(iterations=100)
    pokerlab.save_strategy(root / "kuhn.npz", s.average_strategy(), algorithm="cfr+")
    return root


def wait_for(predicate, seconds: float = 60.0, what: str = "a condition") -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def job_of(client, job_id: str) -> dict:
    r = client.get(f"/api/jobs/{job_id}")
    assert r.status_code == 200, r.text
    return r.json()


def until_finished(client, job_id: str, seconds: float = 120.0) -> dict:
    job: dict = {}

    def finished() -> bool:
        job.update(job_of(client, job_id))
        return job["state"] in ("done", "failed", "cancelled")

    wait_for(finished, seconds, f"job {job_id}")
    return job


# --- the queue on its own (no solver) ------------------------------------------------------------


def blocking(gate: threading.Event, started: list[str], name: str):
    def work(ctx) -> dict:
        started.append(name)
        assert gate.wait(30)
        return {"name": name}

    return work


def test_queue_limits_refuse_with_the_reason_and_keep_order() -> None:
    q = JobQueue(JobLimits(workers=1, queued=2, per_client=2))
    gate, started = threading.Event(), []
    try:
        a1 = q.submit("t", "A", "k1", 1, blocking(gate, started, "a1"))
        wait_for(lambda: a1.state == "running", what="a1 to run")
        a2 = q.submit("t", "A", "k2", 1, blocking(gate, started, "a2"))
        with pytest.raises(JobRefused, match="you have 2 job\\(s\\) queued or running"):
            q.submit("t", "A", "k3", 1, blocking(gate, started, "a3"))
        with pytest.raises(JobBusy, match=f"'k1' is already running \\(job {a1.id}\\)"):
            q.submit("t", "B", "k1", 1, blocking(gate, started, "b0"))
        b1 = q.submit("t", "B", "k3", 1, blocking(gate, started, "b1"))
        with pytest.raises(JobRefused, match="queue is full \\(2 waiting\\)"):
            q.submit("t", "C", "k4", 1, blocking(gate, started, "c1"))
        assert (a2.to_dict()["position"], b1.to_dict()["position"]) == (0, 1)
        assert q.counts()["queued"] == 2 and q.counts()["running"] == 1
        gate.set()
        wait_for(lambda: all(j.state == "done" for j in (a1, a2, b1)), what="all jobs")
        assert started == ["a1", "a2", "b1"]
        assert q.get(b1.id).result == {"name": "b1"} and b1.to_dict()["position"] is None
        c1 = q.submit("t", "C", "k4", 1, lambda ctx: {"ok": True})  # room again
        wait_for(lambda: c1.state == "done", what="c1")
    finally:
        gate.set()
        q.close()


def test_a_worker_never_runs_two_jobs_of_one_client() -> None:
    q = JobQueue(JobLimits(workers=2, queued=4, per_client=2))
    gate, started = threading.Event(), []
    try:
        a1 = q.submit("t", "A", "k1", 1, blocking(gate, started, "a1"))
        a2 = q.submit("t", "A", "k2", 1, blocking(gate, started, "a2"))
        b1 = q.submit("t", "B", "k3", 1, blocking(gate, started, "b1"))
        wait_for(lambda: a1.state == "running" and b1.state == "running", what="a1 and b1")
        time.sleep(0.2)  # the second worker had time to take a2, and must not have
        assert a2.state == "queued" and sorted(started) == ["a1", "b1"]
        gate.set()
        wait_for(lambda: a2.state == "done", what="a2 after a1")
        assert started[2] == "a2"
    finally:
        gate.set()
        q.close()


def test_cancel_failures_and_forgetting() -> None:
    q = JobQueue(JobLimits(workers=1, queued=4, per_client=4, keep=2))

    def counting(ctx) -> dict:
        done = 0
        while not ctx.cancelled() and done < 10**9:
            done += 1
            ctx.progress(done)
            time.sleep(0.001)
        return {"stopped_at": done}

    try:
        running = q.submit("count", "A", "k1", 10**9, counting)
        waiting = q.submit("count", "A", "k2", 10**9, counting)
        wait_for(lambda: running.done > 5, what="progress")
        assert q.cancel(waiting.id).state == "cancelled"  # never ran
        assert q.cancel(running.id).to_dict()["cancel_requested"]
        wait_for(lambda: running.state == "cancelled", what="the running job to stop")
        assert running.result["stopped_at"] == running.done > 5 and waiting.done == 0

        def refused(ctx) -> dict:
            raise PokerlabError("hand 'XX' is not a hand")

        def crashed(ctx) -> dict:
            raise ValueError("boom")

        bad = q.submit("t", "A", "k3", 1, refused)
        worse = q.submit("t", "A", "k4", 1, crashed)
        wait_for(lambda: bad.state == "failed" and worse.state == "failed", what="failures")
        assert bad.error == "hand 'XX' is not a hand"
        assert worse.error == "internal error: ValueError: boom"
        after = q.submit("t", "A", "k5", 1, lambda ctx: {"still": "working"})
        wait_for(lambda: after.state == "done", what="a job after a crash")
        # keep=2: of the five finished jobs, the two that finished last stay readable
        assert q.get(after.id).result == {"still": "working"}
        with pytest.raises(KeyError):
            q.get(running.id)
    finally:
        q.close()
    with pytest.raises(JobRefused, match="shutting down"):
        q.submit("t", "A", "k7", 1, lambda ctx: {})


def test_job_limits_are_checked() -> None:
    with pytest.raises(PokerlabError, match="workers must be an integer >= 1, got 0"):
        JobLimits(workers=0)
    with pytest.raises(PokerlabError, match="max_body_bytes must be an integer >= 1"):
        ViewerLimits(max_body_bytes=0)


def test_at_most_two_files_load_at_once(tmp_path) -> None:
    from pokerlab.viewer.models import Model, ModelCache

    cache = ModelCache(loads=2)
    now, most, lock = [0], [0], threading.Lock()

    def loader(path: Path, rel: str, kind: str) -> Model:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.05)
        with lock:
            now[0] -= 1
        return Model(path, rel)

    paths = []
    for k in range(6):
        paths.append(tmp_path / f"f{k}")
        paths[-1].write_text(str(k))
    threads = [threading.Thread(target=cache.get, args=(p, p.name, "table", loader)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert most[0] == 2 and all(cache.peek(p) is not None for p in paths)


def test_a_pinned_model_is_not_evicted(tmp_path) -> None:
    from pokerlab.viewer.models import Model, ModelCache

    class Heavy(Model):
        kind = "postflop"

    cache = ModelCache(capacity=3, heavy_capacity=1)
    paths = []
    for k in range(4):
        paths.append(tmp_path / f"f{k}")
        paths[-1].write_text(str(k))
    first = cache.get(paths[0], "f0", "x", lambda p, r, k: Heavy(p, r))
    cache.pin(first)
    second = cache.get(paths[1], "f1", "x", lambda p, r, k: Heavy(p, r))
    assert cache.peek(paths[0]) is first and cache.peek(paths[1]) is second  # f0 not counted
    cache.get(paths[2], "f2", "x", lambda p, r, k: Heavy(p, r))
    assert cache.peek(paths[0]) is first and cache.peek(paths[1]) is None
    cache.unpin(first)
    assert cache.peek(paths[0]) is None and cache.peek(paths[2]) is not None


# --- play sessions -------------------------------------------------------------------------------


def fake(n: int) -> SimpleNamespace:
    return SimpleNamespace(id=f"s{n}")


def test_sessions_replace_only_their_own_clients_oldest() -> None:
    store = Sessions(capacity=4, per_client=2, idle_seconds=3600.0)
    store.add(fake(1), "A")
    store.add(fake(2), "B")
    store.add(fake(3), "A")
    store.get("s1")  # used: s3 is now A's least recently used
    store.add(fake(4), "A")
    with pytest.raises(KeyError):
        store.get("s3")
    assert store.get("s1").id == "s1" and store.get("s2").id == "s2" and len(store) == 3
    for k in range(5, 300):  # A opens 295 more: B's session stays
        store.add(fake(k), "A")
    assert store.get("s2").id == "s2" and len(store) == 3
    store.add(fake(300), "B")
    with pytest.raises(SessionsFull, match="holds 4 play sessions"):
        store.add(fake(301), "C")  # full, and nobody's session is idle
    idle = Sessions(capacity=2, per_client=2, idle_seconds=0.05)
    idle.add(fake(1), "A")
    idle.add(fake(2), "B")
    time.sleep(0.1)
    idle.get("s2")
    idle.add(fake(3), "C")  # replaces A's idle session, not B's used one
    assert idle.get("s2") and idle.get("s3")
    with pytest.raises(KeyError):
        idle.get("s1")


def test_many_new_sessions_do_not_evict_another_clients_session(folder) -> None:
    app = create_app(folder, limits=ViewerLimits(sessions=64, sessions_per_client=8))
    alice, bob = TestClient(app), TestClient(app)
    alice.get("/")  # the page sets each browser's cookie
    bob.get("/")
    mine = bob.post("/api/play", json={"path": "kuhn.npz", "seed": 1})
    assert mine.status_code == 200, mine.text
    assert bob.cookies.get(CLIENT_COOKIE) != alice.cookies.get(CLIENT_COOKIE)
    ids = []
    for k in range(300):
        r = alice.post("/api/play", json={"path": "kuhn.npz", "seed": k})
        assert r.status_code == 200, r.text
        ids.append(r.json()["id"])
    assert bob.get(f"/api/play/{mine.json()['id']}").status_code == 200
    assert alice.get(f"/api/play/{ids[-1]}").status_code == 200
    assert alice.get(f"/api/play/{ids[0]}").status_code == 404  # alice's own oldest went
    assert len(app.state.viewer.sessions) == 1 + 8


def test_a_browser_gets_a_client_cookie(folder) -> None:
    c = TestClient(create_app(folder))
    first = c.get("/")
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{CLIENT_COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert "set-cookie" not in c.get("/api/files").headers  # it sent the cookie back


# --- re-solves as jobs ---------------------------------------------------------------------------


def test_a_resolve_reports_progress_and_cancels_between_iterations(folder) -> None:
    c = TestClient(create_app(folder))
    r = c.post("/api/lock", json={"path": "t1.npz", **TURN_LOCK})
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["state"] in ("queued", "running") and job["total"] == LONG
    seen: list[int] = []

    def progressed() -> bool:
        seen.append(job_of(c, job["id"])["done"])
        return seen[-1] > 0

    wait_for(progressed, 60, "progress")
    # other reads of the same spot are answered while it re-solves
    node = c.get("/api/node", params={"path": "t1.npz", "line": "check"})
    assert node.status_code == 200
    # three more spots opened (two are kept at once): the re-solving one is not dropped
    for k in range(3):
        assert c.get("/api/info", params={"path": f"r{k}.npz"}).status_code == 200
    info = c.get("/api/info", params={"path": "t1.npz"}).json()
    assert info["modified"] and [k["line"] for k in info["locks"]] == [""]
    assert c.post(f"/api/jobs/{job['id']}/cancel").json()["cancel_requested"]
    end = until_finished(c, job["id"])
    assert end["state"] == "cancelled", end
    assert 0 < end["done"] < LONG and end["result"]["iterations"] == end["done"]
    assert end["result"]["cancelled"] and end["result"]["after"] is None
    info = c.get("/api/info", params={"path": "t1.npz"}).json()
    assert info["iterations"] == 1 + end["done"] and info["modified"]
    assert [k["line"] for k in info["locks"]] == [""]
    # reset cancels the file's job and drops the changes
    job = c.post("/api/lock", json={"path": "t1.npz", **TURN_LOCK}).json()
    reset = c.post("/api/reset", json={"path": "t1.npz"}).json()
    assert reset["cancelled_jobs"] == [job["id"]]
    assert until_finished(c, job["id"])["state"] == "cancelled"
    info = c.get("/api/info", params={"path": "t1.npz"}).json()
    assert info["iterations"] == 1 and not info["modified"] and info["locks"] == []
    assert c.get("/api/jobs/nothere").status_code == 404


def test_limits_answer_409_and_429_with_the_reason(folder) -> None:
    limits = ViewerLimits(jobs=JobLimits(workers=1, queued=1, per_client=1))
    app = create_app(folder, limits=limits)
    a, b, d = TestClient(app), TestClient(app), TestClient(app)
    a.get("/")  # each client has its cookie from here on
    b.get("/")
    d.get("/")
    first = a.post("/api/lock", json={"path": "t0.npz", **TURN_LOCK})
    assert first.status_code == 202, first.text
    # until the worker takes it, the first job fills the one queue slot (and the bad lock below
    # would meet "queue is full" before its own check): wait for it to run, as under load it may not
    wait_for(lambda: job_of(a, first.json()["id"])["state"] == "running", what="the first job")
    # bad locks are refused at once, not queued
    bad = d.post("/api/lock", json={"path": "r2.npz", **LOCK, "hands": "XX"})
    assert bad.status_code == 400 and "XX" in bad.json()["error"]
    again = a.post("/api/lock", json={"path": "r3.npz", **LOCK, "iterations": 10})
    assert again.status_code == 429 and again.headers["retry-after"] == "5"
    assert "you have 1 job(s) queued or running" in again.json()["error"]
    same = b.post("/api/lock", json={"path": "t0.npz", **TURN_LOCK})
    assert same.status_code == 409 and "t0.npz" in same.json()["error"]
    queued = b.post("/api/lock", json={"path": "r3.npz", **LOCK, "iterations": 10})
    assert queued.status_code == 202 and queued.json()["state"] == "queued"
    full = d.post("/api/lock", json={"path": "r2.npz", **LOCK, "iterations": 10})
    assert full.status_code == 429 and "queue is full" in full.json()["error"]
    a.post(f"/api/jobs/{first.json()['id']}/cancel")
    assert until_finished(b, queued.json()["id"])["state"] == "done"
    app.state.viewer.jobs.close()


def test_stopping_the_server_cancels_its_jobs(folder) -> None:
    app = create_app(folder)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=60) as c:
        job = c.post("/api/lock", json={"path": "t0.npz", **TURN_LOCK}).json()
        wait_for(lambda: job_of(c, job["id"])["done"] > 0, what="the re-solve")
    jobs = app.state.viewer.jobs
    assert jobs.get(job["id"]).state == "cancelled"
    assert not any(t.is_alive() for t in jobs._threads)
    with pytest.raises(JobRefused, match="shutting down"):
        jobs.check("anyone", "any file")


# --- request bodies ------------------------------------------------------------------------------


def raw_request(url: str, head: bytes, chunks: list[bytes] = (), pause: float = 0.0) -> bytes:
    """Send ``head`` and ``chunks`` on a fresh loopback connection; the whole answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(head)
        try:
            for c in chunks:
                s.sendall(c)
                time.sleep(pause)
        except OSError:
            pass  # the server answered and closed before reading everything: that is the point
        out = b""
        while True:
            try:
                got = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not got:
                break
            out += got
    return out


def test_request_bodies_over_the_limit_are_refused_before_they_are_read(folder) -> None:
    app = create_app(folder, limits=ViewerLimits(max_body_bytes=4096))
    with LiveServer(app) as live:
        start = time.monotonic()
        head = (
            b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n"
        )
        answer = raw_request(live.url, head, [b"x" * 65536])
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b"request body over 4096 bytes" in answer
        assert time.monotonic() - start < 10  # not after 100 MB
        chunked = (
            b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        piece = b"400\r\n" + b" " * 1024 + b"\r\n"
        answer = raw_request(live.url, chunked, [piece] * 8 + [b"0\r\n\r\n"])
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        body = b'{"path": "kuhn.npz", "seed": 3}'
        small = chunked + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        answer = raw_request(live.url, small)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
        big = httpx.post(live.url + "/api/play", json={"path": "kuhn.npz", "pad": "x" * 5000})
        assert big.status_code == 413 and "4096 bytes" in big.json()["error"]
        ok = httpx.post(live.url + "/api/play", json={"path": "kuhn.npz", "seed": 3})
        assert ok.status_code == 200


# --- latency: one slow client, many fast ones ----------------------------------------------------


def test_answers_with_a_body_do_not_wait_for_a_delayed_ack(folder) -> None:
    """The listening socket is TCP (proto set), so asyncio turns Nagle's algorithm off: an
    answer's body is not held back 40 ms waiting for the client's delayed ACK."""
    from pokerlab.viewer.server import bind

    with bind("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP
    with LiveServer(create_app(folder)) as live, httpx.Client(base_url=live.url) as c:
        seconds = []
        for _ in range(20):
            t = time.perf_counter()
            assert c.get("/api/about").status_code == 200
            seconds.append(time.perf_counter() - t)
    assert statistics.median(seconds) < 0.03, seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def test_the_page_answers_in_under_100_ms_while_the_queue_is_full(folder) -> None:
    """Two long re-solves run (one per worker), two more wait (the queue's two places), a fifth
    is refused; meanwhile `/` is timed 40 times from another client."""
    limits = ViewerLimits(jobs=JobLimits(workers=2, queued=2, per_client=1))
    app = create_app(folder, limits=limits)
    with LiveServer(app) as live:
        clients = [httpx.Client(base_url=live.url, timeout=60) for _ in range(5)]
        try:
            for c in clients:
                c.get("/")  # its cookie
            jobs = []
            for c, path in zip(clients, ("t0.npz", "t1.npz", "r0.npz", "r1.npz"), strict=False):
                lock = TURN_LOCK if path.startswith("t") else {**LOCK, "iterations": 10}
                r = c.post("/api/lock", json={"path": path, **lock})
                assert r.status_code == 202, r.text
                jobs.append(r.json()["id"])
            refused = clients[4].post("/api/lock", json={"path": "r2.npz", **LOCK})
            assert refused.status_code == 429 and "queue is full" in refused.json()["error"]
            wait_for(
                lambda: all(job_of(clients[0], j)["done"] > 0 for j in jobs[:2]),
                what="two re-solves running",
            )
            before = [job_of(clients[0], j)["done"] for j in jobs[:2]]
            page = httpx.Client(base_url=live.url, timeout=60)
            seconds = []
            for _ in range(40):
                t = time.perf_counter()
                r = page.get("/")
                seconds.append(time.perf_counter() - t)
                assert r.status_code == 200 and "pokerlab viewer" in r.text
            page.close()
            states = [job_of(clients[0], j) for j in jobs]
            # the queue was full all along, and both running re-solves went on meanwhile
            assert [s["state"] for s in states] == ["running", "running", "queued", "queued"]
            assert all(s["done"] > b for s, b in zip(states, before, strict=False))
            assert statistics.median(seconds) < 0.1, seconds
            assert percentile(seconds, 0.9) < 0.1, seconds
            # the queued ones first: a running one cancelled first frees its worker, and a
            # 10-iteration river re-solve started there can finish before its own cancel
            for c, j in reversed(list(zip(clients, jobs, strict=False))):
                c.post(f"/api/jobs/{j}/cancel")
            for j in jobs:
                assert until_finished(clients[0], j)["state"] == "cancelled"
        finally:
            for c in clients:
                c.close()


def test_one_slow_client_does_not_slow_the_fast_ones(folder) -> None:
    """The slow client queues two long re-solves (one runs, the other waits: a client never has
    two workers) and trickles a request body a byte every 0.1 s; eight fast clients make 20
    requests each, one of them a short re-solve that the second worker runs at once."""
    app = create_app(folder, limits=ViewerLimits(jobs=JobLimits(workers=2, per_client=2)))
    with LiveServer(app) as live:
        slow = httpx.Client(base_url=live.url, timeout=60)
        slow.get("/")
        jobs = [
            slow.post("/api/lock", json={"path": p, **TURN_LOCK}).json()["id"]
            for p in ("t0.npz", "t1.npz")
        ]
        wait_for(lambda: job_of(slow, jobs[0])["done"] > 0, what="the slow client's re-solve")
        body = b'{"path": "kuhn.npz", "seed": 1}'
        head = (
            b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        trickle: list[bytes] = []
        slow_body = threading.Thread(
            target=lambda: trickle.append(
                raw_request(live.url, head, [bytes([b]) for b in body], pause=0.1)
            )
        )
        slow_body.start()
        urls = [
            "/",
            "/static/app.js",
            "/api/files",
            "/api/node?path=r0.npz&line=check",
            "/api/info?path=kuhn.npz",
            f"/api/jobs/{jobs[0]}",
        ]

        async def fast_clients() -> tuple[list[tuple[str, int, float]], dict, float]:
            async def one(k: int) -> list[tuple[str, int, float]]:
                out = []
                async with httpx.AsyncClient(base_url=live.url, timeout=60) as c:
                    for n in range(20):
                        url = urls[(k + n) % len(urls)]
                        t = time.perf_counter()
                        r = await c.get(url)
                        out.append((url, r.status_code, time.perf_counter() - t))
                return out

            async def short_resolve() -> tuple[dict, float]:
                async with httpx.AsyncClient(base_url=live.url, timeout=60) as c:
                    t = time.perf_counter()
                    r = await c.post("/api/lock", json={"path": "r1.npz", **LOCK, "iterations": 20})
                    assert r.status_code == 202, r.text
                    job = r.json()
                    while job["state"] in ("queued", "running"):
                        await asyncio.sleep(0.02)
                        job = (await c.get(f"/api/jobs/{job['id']}")).json()
                    return job, time.perf_counter() - t

            results = await asyncio.gather(short_resolve(), *(one(k) for k in range(8)))
            (job, job_seconds), rest = results[0], results[1:]
            return [x for r in rest for x in r], job, job_seconds

        try:
            results, short, short_seconds = asyncio.run(
                asyncio.wait_for(fast_clients(), timeout=120)
            )
        finally:
            slow_body.join(timeout=60)
        progress = [job_of(slow, j) for j in jobs]
        for j in jobs:
            slow.post(f"/api/jobs/{j}/cancel")
        for j in jobs:
            until_finished(slow, j)
        slow.close()
    assert [p["state"] for p in progress] == ["running", "queued"], progress
    assert short["state"] == "done" and short["result"]["iterations"] == 20, short
    assert short_seconds < 10, short_seconds  # not behind the slow client's queued re-solve
    assert len(results) == 160 and {code for _, code, _ in results} == {200}
    assert trickle and trickle[0].startswith(b"HTTP/1.1 200"), trickle
    seconds = [s for _, _, s in results]
    page = [s for url, _, s in results if url == "/"]
    assert statistics.median(page) < 0.1, page
    assert statistics.median(seconds) < 0.1, sorted(seconds)[-10:]
    # The first fast requests, made as the trickle starts, would wait out its 3.1 s (31 bytes,
    # 0.1 s apart) if the server served them behind it; behind a re-solve, seconds more. The
    # bounds sit below that and above what two busy cores give (two re-solves here and a test
    # in the other xdist worker: p95 0.76 s and a slowest request of over 1 s seen once in CI).
    assert percentile(seconds, 0.95) < 1.0, sorted(seconds)[-10:]
    assert max(seconds) < 2.5, sorted(seconds)[-10:]
