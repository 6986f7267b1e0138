"""What the viewer reads out of each kind of file, as JSON-ready dictionaries.

* :class:`TableModel`: a strategy or checkpoint of a small game (Kuhn, Leduc, any history game):
  information sets as rows, filtered and paged.
* :class:`PushFoldModel`: a push/fold strategy (``.npz``) or ``pokerlab pushfold --json`` result:
  the small blind's shove and the big blind's call grids, and per combo its strategy, EV and
  all-in equity against the other seat's range.
* :class:`SweepModel`: ``pokerlab pushfold --sweep --json``: the largest stack each class plays.
* :class:`PostflopModel`: a solved postflop spot, read node by node through
  :class:`~pokerlab.analysis.postflop.SolvedSpot` (the tree is never expanded as a whole).
* :class:`CurveModel`: a ``--log`` file or ``pokerlab compare --json`` output.
* :class:`BlueprintModel`: a no-limit blueprint checkpoint, node by node (preflop charts per
  line and seat to act).

Models are loaded once per file version (path, modification time, size) and kept in a small
cache (:class:`ModelCache`); loading runs in a worker thread, so a large spot loading does not
hold up other requests. Every model that keeps scratch state guards it with its own lock.
"""

from __future__ import annotations

from pokerlab.viewer.models.base import MAX_TABLE_ROWS, Model, TableModel, finite
from pokerlab.viewer.models.blueprint import BlueprintModel
from pokerlab.viewer.models.cache import ModelCache, load_model
from pokerlab.viewer.models.curves import CurveModel
from pokerlab.viewer.models.limit import LimitModel
from pokerlab.viewer.models.locking import (
    RESOLVE_CHUNK_SECONDS,
    check_lock,
    check_unlock,
    lock_and_resolve,
    unlock_and_resolve,
)
from pokerlab.viewer.models.postflop import PostflopModel
from pokerlab.viewer.models.pushfold import PushFoldModel, SweepModel

__all__ = [
    "Model",
    "TableModel",
    "PushFoldModel",
    "SweepModel",
    "PostflopModel",
    "CurveModel",
    "BlueprintModel",
    "ModelCache",
    "load_model",
    "lock_and_resolve",
    "unlock_and_resolve",
    "check_lock",
    "check_unlock",
    "RESOLVE_CHUNK_SECONDS",
    "finite",
    "LimitModel",
    "MAX_TABLE_ROWS",
]
