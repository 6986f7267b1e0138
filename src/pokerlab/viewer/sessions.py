"""The play sessions a viewer holds (:class:`Sessions`: per-client and total limits, idle
eviction) and :func:`new_session`, which picks the session kind for a solution file."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.viewer.models import BlueprintModel, Model, PostflopModel, PushFoldModel, TableModel
from pokerlab.viewer.play import HistoryPlay, PlaySession, PushFoldPlay
from pokerlab.viewer.play_nolimit import NoLimitPlay
from pokerlab.viewer.play_postflop import PostflopPlay

__all__ = ["Sessions", "SessionsFull", "new_session"]


def new_session(
    model: Model,
    seat: int,
    seed: int | None = None,
    search: bool = False,
    search_streets: str | None = None,
    search_iterations: int | None = None,
    search_gadget: str | None = None,
    search_seconds: float | dict[str, float] | None = None,
    search_options: dict[str, Any] | None = None,
) -> PlaySession:
    """A play session for ``model`` (push/fold, a two-player history game, a postflop spot, a
    heads-up no-limit blueprint checkpoint). ``search``: the blueprint's bot searches in play
    (:class:`~pokerlab.viewer.play_nolimit.NoLimitPlay`; ``search_streets``,
    ``search_iterations`` and ``search_gadget`` default to ``"river"``, 100 and ``"unsafe"``;
    ``search_seconds``, a time budget instead of iterations, and ``search_options``, the
    agent's other settings by name, to none);
    other files refuse it."""
    if isinstance(model, BlueprintModel):
        return NoLimitPlay(
            model,
            seat,
            seed,
            search=search,
            search_streets="river" if search_streets is None else search_streets,
            search_iterations=100 if search_iterations is None else search_iterations,
            search_gadget="unsafe" if search_gadget is None else search_gadget,
            search_seconds=search_seconds,
            search_options=search_options,
        )
    if search:
        raise PokerlabError(
            f"search: only a no-limit blueprint checkpoint searches in play; {model.rel} is a "
            f"{model.kind} file"
        )
    if isinstance(model, PushFoldModel):
        return PushFoldPlay(model, seat, seed)
    if isinstance(model, PostflopModel):
        return PostflopPlay(model, seat, seed)
    if isinstance(model, TableModel):
        return HistoryPlay(model, seat, seed)
    raise PokerlabError(f"{model.rel}: there is nothing to play in a {model.kind} file")


class SessionsFull(PokerlabError):
    """No room for another play session (HTTP 429)."""

    retry_after_s = 60


class Sessions:
    """Open play sessions and who opened them.

    A client keeps at most ``per_client`` sessions: its next one replaces its own least recently
    used. At most ``capacity`` in all: when full, a new session replaces the least recently used
    one of any client only if that one has been idle ``idle_seconds``; otherwise it is refused
    (:class:`SessionsFull`). So no client's requests drop another client's session in use.
    """

    def __init__(
        self, capacity: int = 1024, per_client: int = 32, idle_seconds: float = 3600.0
    ) -> None:
        self.capacity = capacity
        self.per_client = per_client
        self.idle_seconds = idle_seconds
        #: session id -> (session, client, last use as time.monotonic()), least recent first
        self._items: OrderedDict[str, tuple[PlaySession, str, float]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: PlaySession, client: str = "") -> PlaySession:
        """Keep ``session`` for ``client`` (see the class for what it may replace)."""
        now = time.monotonic()
        with self._lock:
            mine = [sid for sid, (_, owner, _) in self._items.items() if owner == client]
            if len(mine) >= self.per_client:
                del self._items[mine[0]]
            elif len(self._items) >= self.capacity:
                oldest = next(iter(self._items))
                idle = now - self._items[oldest][2]
                if idle < self.idle_seconds:
                    raise SessionsFull(
                        f"the server holds {len(self._items)} play sessions, the most it keeps, "
                        f"and none has been idle for {self.idle_seconds:g} s; try again later"
                    )
                del self._items[oldest]
            self._items[session.id] = (session, client, now)
        return session

    def get(self, sid: str) -> PlaySession:
        """The session ``sid`` (KeyError when unknown or dropped), marked as used now."""
        with self._lock:
            hit = self._items.get(sid)
            if hit is None:
                raise KeyError(sid)
            self._items[sid] = (hit[0], hit[1], time.monotonic())
            self._items.move_to_end(sid)
            return hit[0]

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
