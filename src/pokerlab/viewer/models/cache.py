"""Loading a file's model by kind, and the cache of loaded models."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from pokerlab.errors import PokerlabError
from pokerlab.viewer.models.base import Model, TableModel
from pokerlab.viewer.models.blueprint import BlueprintModel
from pokerlab.viewer.models.curves import CurveModel
from pokerlab.viewer.models.limit import LimitModel
from pokerlab.viewer.models.postflop import PostflopModel
from pokerlab.viewer.models.pushfold import PushFoldModel, SweepModel

# --- loading and the cache ------------------------------------------------------------------------


def load_model(path: Path, rel: str, kind: str) -> Model:
    """The model of file kind ``kind`` (as listed by :func:`pokerlab.viewer.files.summarize`)."""
    if kind == "table":
        return TableModel(path, rel)
    if kind == "limit":
        return LimitModel(path, rel)
    if kind in ("pushfold", "pushfold-result"):
        return PushFoldModel.from_file(path, rel)
    if kind == "pushfold-sweep":
        return SweepModel(path, rel)
    if kind == "postflop":
        return PostflopModel(path, rel)
    if kind in ("log", "compare"):
        return CurveModel(path, rel)
    if kind == "blueprint":
        return BlueprintModel(path, rel)
    raise PokerlabError(f"{rel}: nothing to show for a file of kind {kind!r}")


class ModelCache:
    """Loaded models by file version; at most ``capacity`` (``postflop`` and limit models count as
    ``heavy``: at most ``heavy_capacity`` of them). One load per file version at a time: other
    requests for the same file wait for it instead of loading it again. At most ``loads`` files
    load at once: loading is mostly Python, so more at once would only take turns at the GIL
    with the server's event loop (a burst of requests for many files slowed every answer).
    A pinned model (:meth:`pin`: a re-solve job holds it) is never evicted, so the job's changes
    stay what later requests for the file see."""

    def __init__(self, capacity: int = 32, heavy_capacity: int = 2, loads: int = 2) -> None:
        self.capacity = capacity
        self.heavy_capacity = heavy_capacity
        self._load_slots = threading.BoundedSemaphore(loads)
        self._items: OrderedDict[tuple[str, int, int], Model] = OrderedDict()
        self._loading: dict[tuple[str, int, int], threading.Lock] = {}
        self._pins: dict[int, int] = {}  # id(model) -> pins
        self._lock = threading.Lock()

    def get(
        self, path: Path, rel: str, kind: str, loader: Callable[..., Model] = load_model
    ) -> Model:
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
            gate = self._loading.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                hit = self._items.get(key)
                if hit is not None:
                    return hit
            try:
                with self._load_slots:
                    model = loader(path, rel, kind)
            finally:
                with self._lock:
                    self._loading.pop(key, None)
            with self._lock:
                self._items[key] = model
                self._evict()
            return model

    def peek(self, path: Path) -> Model | None:
        """The loaded model of ``path``'s current version, or None (never loads)."""
        try:
            st = path.stat()
        except OSError:
            return None
        with self._lock:
            return self._items.get((str(path), st.st_mtime_ns, st.st_size))

    def drop(self, path: Path) -> None:
        """Forget every loaded version of ``path`` (the next request reads the file again)."""
        with self._lock:
            for key in [k for k in self._items if k[0] == str(path)]:
                del self._items[key]

    def put(self, model: Model) -> None:
        """Replace the cached model of ``model.path`` (after a re-solve changed it)."""
        st = model.path.stat()
        with self._lock:
            for key in [k for k in self._items if k[0] == str(model.path)]:
                del self._items[key]
            self._items[(str(model.path), st.st_mtime_ns, st.st_size)] = model

    def pin(self, model: Model) -> None:
        """Keep ``model`` cached until as many :meth:`unpin` calls; pinned models do not count
        against the capacities (the pinning job holds the model in memory anyway)."""
        with self._lock:
            self._pins[id(model)] = self._pins.get(id(model), 0) + 1

    def unpin(self, model: Model) -> None:
        """Undo one :meth:`pin` of ``model``."""
        with self._lock:
            left = self._pins.get(id(model), 0) - 1
            if left > 0:
                self._pins[id(model)] = left
            else:
                self._pins.pop(id(model), None)
            self._evict()

    def _evict(self) -> None:
        # pinned models are not counted: their jobs hold them in memory whether cached or not
        free = [k for k, m in self._items.items() if id(m) not in self._pins]
        heavy = [
            k
            for k in free
            if self._items[k].kind == "postflop" or getattr(self._items[k], "heavy", False)
        ]
        for key in heavy[: max(0, len(heavy) - self.heavy_capacity)]:
            del self._items[key]
            free.remove(key)
        for key in free[: max(0, len(free) - self.capacity)]:
            del self._items[key]
