"""The schedule maths a run's driver reads in Python: the discount factors of an iteration (the
pure-Python twin of the kernels' :func:`pokerlab.tree._primitives.discount_factors`) and
:class:`LazyScale`, a uniform discount kept as one number. Re-exported by
:mod:`pokerlab.solvers.schedule`; here so that the backends' runs (:mod:`pokerlab.tree.betting`)
read them without importing ``solvers/``."""

from __future__ import annotations

import math

import numpy as np

from pokerlab.tree._primitives import PARAMS_LAYOUT

__all__ = ["LazyScale", "discount_factors"]


def _ratio(t_prev: float, exponent: float) -> float:
    """t'^e / (t'^e + 1); 1 where t'^e is infinite (t' = 0 with e < 0: the limit)."""
    if math.isnan(exponent):
        return 1.0
    x = math.inf if t_prev == 0.0 and exponent < 0.0 else t_prev**exponent
    return 1.0 if math.isinf(x) else x / (x + 1.0)


def _exponent(params: np.ndarray, which: str, t: int) -> float:
    """The exponent ``which`` of iteration ``t``, moved along its schedule when it has one."""
    start = float(params[PARAMS_LAYOUT[which]])
    end = float(params[PARAMS_LAYOUT[which + "_end"]])
    horizon = float(params[PARAMS_LAYOUT["horizon"]])
    if math.isnan(end) or horizon <= 0.0:
        return start
    return start + (end - start) * min((t - 1) / horizon, 1.0)


def discount_factors(params: np.ndarray, t: int) -> tuple[float, float, float]:
    """(a_t, b_t, g_t) from :meth:`DiscountSchedule.as_array` parameters (pure Python): the twin
    of the kernels' :func:`pokerlab.tree._primitives.discount_factors`, slots 5 and 6 (the
    postflop ``dcfr-ps`` restart base and constant beta) included."""
    until = params[PARAMS_LAYOUT["linear_until"]]
    if until >= 0 and t > until:
        return 1.0, 1.0, 1.0
    tp = float(t - 1)
    base = float(params[PARAMS_LAYOUT["reset_base"]])
    restart = base >= 2.0  # postflop-solver's DCFR: iterations counted from 0
    a = _ratio(max(tp - 1.0, 0.0) if restart else tp, _exponent(params, "alpha", t))
    if params[PARAMS_LAYOUT["beta_const"]] == 1.0:
        b = float(params[PARAMS_LAYOUT["beta"]])
    else:
        b = _ratio(tp, _exponent(params, "beta", t))
    gamma = _exponent(params, "gamma", t)
    if math.isnan(gamma):
        return a, b, 1.0
    if not restart:
        return a, b, (tp / t) ** gamma
    it0, p = t - 1, 1
    while p * base <= it0:
        p = int(p * base)
    tg = float(it0 - p) if it0 > 0 else 0.0
    return a, b, (tg / (tg + 1.0)) ** gamma


class LazyScale:
    """A uniform discount of a whole stored array kept as one number instead of a pass over it.

    When iteration t scales every stored value by the same factor f_t (the strategy sums' g_t;
    the regrets' a_t when a_t = b_t, or when the regret floor leaves no regret below 0), the
    array can hold ``x * w`` instead of ``x``, with w_t = w_{t-1} / f_t, and iteration t add its
    contributions times w_t: (x w_{t-1} + c w_t) / w_t = x f_t + c. Regret matching and the
    average strategy normalise each state's block, so the common factor w never has to be
    divided out. This replaces an O(size) pass per iteration (with 12 buckets in perfect recall,
    308 million stored numbers, about 95-130 ms of a public-chance-sampling iteration on the
    2-core machine: ``benchmarks/limit.py --step-time``) by O(1).

    :meth:`advance` returns the factors the caller must still apply to the stored array now: 1
    and 1 almost always; the eager (a, b) over w when the two differ, or when w would leave
    [1/:attr:`LIMIT`, :attr:`LIMIT`] (then the array is brought back to scale 1, which also
    keeps float32 far from overflow), or 0 when f_t = 0.
    """

    #: Bound on w (and 1/w) before the array is rescaled to w = 1: the stored values then stay
    #: below about 1e18 times their true size, far inside float32's 3.4e38.
    LIMIT = 1e18

    def __init__(self, weight: float = 1.0) -> None:
        #: The scale w of the stored array (stored = true * w) and the weight of this
        #: iteration's additions.
        self.weight = float(weight)

    def advance(self, a: float, b: float | None = None) -> tuple[float, float, float]:
        """The next iteration's discount: ``a`` for the positive stored values, ``b`` (``a`` if
        None) for the others. Returns (a_now, b_now, weight): the factors to apply to the stored
        array before the iteration (see :func:`~pokerlab.tree.betting._kernels.discount`) and
        the weight of the iteration's additions."""
        a = float(a)
        b = a if b is None else float(b)
        if a != b or a <= 0.0:  # not uniform (or a reset): apply it eagerly, back to scale 1
            out = (a / self.weight, b / self.weight, 1.0)
            self.weight = 1.0
            return out
        if a == 1.0:
            return 1.0, 1.0, self.weight
        w = self.weight / a
        if not 1.0 / self.LIMIT <= w <= self.LIMIT:
            self.weight = 1.0
            return 1.0 / w, 1.0 / w, 1.0
        self.weight = w
        return 1.0, 1.0, w
