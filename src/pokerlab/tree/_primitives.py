"""Numba building blocks shared by every tree backend: node kinds, the discount schedule's
factors, the discount of a slice, regret matching, and the store of a regret into a float or an
int32 array (:func:`store_regret`).

Each exists once, here; the backends' kernels (``tree/<backend>/_kernels.py``) import them.
:func:`pokerlab.solvers.schedule.discount_factors` is the pure-Python twin of
:func:`discount_factors` (a test compares them on every named schedule).
"""

from __future__ import annotations

import os
import platform
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

#: Node kinds of the public, vector and betting trees (flat arrays, one kind per node): a
#: player's decision, a chance node (a card is dealt), a fold and a showdown terminal.
DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
#: The same kinds under the betting tree's names (a deal is a chance node; terminals by how the
#: hand ended).
DEAL, FOLD_END, SHOWDOWN_END = CHANCE, FOLD, SHOWDOWN
#: Node kinds of the history tree (one node per history; terminals carry payoffs per player).
H_DECISION, H_CHANCE, H_TERMINAL = 0, 1, 2

#: Positions in a schedule array (:meth:`pokerlab.solvers.schedule.DiscountSchedule.as_array`).
#: Slots 5 and 6 are 0 except in the postflop ``dcfr-ps`` schedule: 5 is the base at whose powers
#: the average restarts (postflop-solver's DCFR), 6 = 1 makes beta a constant factor.
PARAMS_LAYOUT = {
    "alpha": 0,
    "beta": 1,
    "gamma": 2,
    "floor": 3,
    "linear_until": 4,
    "reset_base": 5,
    "beta_const": 6,
    "predictive": 7,
    "alpha_end": 8,
    "beta_end": 9,
    "gamma_end": 10,
    "horizon": 11,
}
PARAMS_SIZE = 12


#: The range of integer regrets (Pluribus stored 4-byte integers): a store saturates here.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def store_regret(regrets: np.ndarray, k: int, x: float) -> None:
    """``regrets[k] = x``: as is in a float array; in an int32 array rounded to the nearest
    integer (half to even) and saturated at the int32 range rather than wrapped. numba compiles
    it per dtype of ``regrets`` (an ``overload``), so a kernel calling it is specialised on the
    regret array's dtype with no branch at run time; this body is its Python twin."""
    if regrets.dtype.kind == "i":
        regrets[k] = min(max(np.rint(x), float(INT32_MIN)), float(INT32_MAX))
    else:
        regrets[k] = x


@overload(store_regret)
def _store_regret_jit(regrets, k, x):  # type: ignore[no-untyped-def]
    """numba's :func:`store_regret`: one body for integer arrays, one for float arrays."""
    if isinstance(regrets.dtype, types.Integer):
        lo, hi = float(INT32_MIN), float(INT32_MAX)

        def store_int(regrets, k, x):  # type: ignore[no-untyped-def]
            if x >= hi:
                regrets[k] = INT32_MAX
            elif x <= lo:
                regrets[k] = INT32_MIN
            else:
                regrets[k] = np.rint(x)

        return store_int

    def store_float(regrets, k, x):  # type: ignore[no-untyped-def]
        regrets[k] = x

    return store_float


class RunArrays(NamedTuple):
    """What a full-width CFR pass updates, as one kernel argument: cumulative regrets, strategy
    sums and the predicted regrets of a predictive schedule (same layout; empty otherwise)."""

    regrets: np.ndarray
    strat_sum: np.ndarray
    pred: np.ndarray


class RegretPruning(NamedTuple):
    """Regret-based pruning (Pluribus): on ``probability`` of the iterations when ``enabled``,
    actions whose regret is below ``threshold`` are not explored; regrets never go below
    ``min_regret`` (-inf: no floor)."""

    enabled: bool
    probability: float
    threshold: float
    min_regret: float


@njit(cache=True)
def _ratio(tp: float, exponent: float) -> float:
    """tp^e / (tp^e + 1); 1 where there is no discount (e NaN) and where tp^e is infinite (tp = 0
    with e < 0: the limit)."""
    if np.isnan(exponent):
        return 1.0
    if tp == 0.0 and exponent < 0.0:
        return 1.0
    x = tp**exponent
    if np.isinf(x):
        return 1.0
    return x / (x + 1.0)


@njit(cache=True)
def _exponent(params, k, t):
    """Exponent k (0 alpha, 1 beta, 2 gamma) of iteration t, moved along its hyperparameter
    schedule (slots 8-11) when it has one: start + (end - start) * min((t - 1) / horizon, 1)
    (Zhang et al. 2024, "hyperparameter schedules")."""
    if params.shape[0] < 12:
        return params[k]
    end = params[8 + k]
    horizon = params[11]
    if np.isnan(end) or horizon <= 0.0:
        return params[k]
    return params[k] + (end - params[k]) * min((t - 1) / horizon, 1.0)


@njit(cache=True)
def discount_factors(params, t):
    """(a_t, b_t, g_t) of iteration t (1-based) from a schedule array (:data:`PARAMS_LAYOUT`).

    DCFR (Brown & Sandholm 2019): positive regrets times a_t = t'^alpha / (t'^alpha + 1), negative
    ones times b_t (same with beta), strategy sums times g_t = (t' / t)^gamma, with t' = t - 1;
    NaN means no discount, so CFR, CFR+ and Linear CFR are special cases. After
    ``linear_until`` iterations (when >= 0) nothing is discounted (Pluribus). With ``reset_base``
    >= 2 the iteration counter starts at 0, regrets use max(t' - 1, 0) and the average is
    discounted as if the run restarted at the last power of the base (postflop-solver's DCFR
    variant); with ``beta_const`` = 1, beta is the factor itself.
    """
    if params[4] >= 0.0 and t > params[4]:
        return 1.0, 1.0, 1.0
    tp = float(t - 1)
    base = params[5] if params.shape[0] > 5 else 0.0
    # postflop-solver counts iterations from 0 and discounts regrets with max(t0 - 1, 0)
    a = _ratio(max(tp - 1.0, 0.0) if base >= 2.0 else tp, _exponent(params, 0, t))
    if params.shape[0] > 6 and params[6] == 1.0:
        b = params[1]
    else:
        b = _ratio(tp, _exponent(params, 1, t))
    gamma = _exponent(params, 2, t)
    if np.isnan(gamma):
        g = 1.0
    else:
        if base >= 2.0:
            # iteration counter from 0 as postflop-solver counts; restart at powers of base
            it0 = t - 1
            p = 1
            while p * base <= it0:
                p = int(p * base)
            tg = float(it0 - p) if it0 > 0 else 0.0
            g = (tg / (tg + 1.0)) ** gamma
        else:
            g = (tp / t) ** gamma
    return a, b, g


@njit(cache=True)
def discount_range(
    regrets: np.ndarray, strat_sum: np.ndarray, start: int, stop: int, a: float, b: float, g: float
) -> None:
    """Scale accumulated regrets (a if positive, b otherwise) and strategy sums (g) in a slice;
    integer regrets are rounded back (:func:`store_regret`)."""
    if a != 1.0 or b != 1.0:
        for k in range(start, stop):
            r = regrets[k]
            store_regret(regrets, k, r * a if r > 0.0 else r * b)
    if g != 1.0:
        for k in range(start, stop):
            strat_sum[k] *= g


@njit(cache=True, inline="always")
def regret_matching_block(
    regrets: np.ndarray, sigma: np.ndarray, off: int, num_actions: int, h: int, stride: int
) -> float:
    """sigma(a) = R+(a) / sum_b R+(b), uniform when no regret is positive (Hart & Mas-Colell);
    returns sum_b R+(b)."""
    total = 0.0
    for a in range(num_actions):
        r = regrets[off + a * stride + h]
        if r > 0.0:
            total += r
    if total > 0.0:
        for a in range(num_actions):
            r = regrets[off + a * stride + h]
            sigma[off + a * stride + h] = r / total if r > 0.0 else 0.0
    else:
        u = 1.0 / num_actions
        for a in range(num_actions):
            sigma[off + a * stride + h] = u
    return total


@njit(cache=True, inline="always")
def sample_action(
    probs: np.ndarray, start: int, count: int, u: float, explore: float = 0.0, keep: float = 1.0
) -> int:
    """The action (0 .. ``count`` - 1) drawn by ``u`` (uniform in [0, 1)) with probability
    ``explore + keep * probs[start + a]`` (the plain distribution by default; outcome sampling's
    epsilon-on-policy mix with ``explore = epsilon / count``, ``keep = 1 - epsilon``): the first
    action whose cumulative probability passes ``u``; the last action of positive probability
    when rounding leaves the sum short of ``u``, and the last action when none is positive (NaN
    regrets), so the index never leaves the node. The one sampling step of every Monte Carlo
    pass (indices, not a slice: a slice per node cost B2 15%)."""
    acc = 0.0
    sel = -1
    for a in range(count):
        q = explore + keep * probs[start + a]
        if q > 0.0:
            sel = a
            acc += q
            if u < acc:
                break
    if sel < 0:
        sel = count - 1
    return sel


@njit(cache=True, nogil=True)
def first_non_finite_f32(values):  # type: ignore[no-untyped-def]
    """Index of the first NaN or infinity in the 1-d float32 array ``values``, -1 if none.

    On the bit patterns: with the sign cleared, a float32 is non-finite exactly when it is at
    least 0x7F800000 (all exponent bits set), and an integer maximum over a block vectorises
    where a float test with an early exit does not (a check before every exploitability
    measure: 1 us on the river spot against 6 for ``numpy.isfinite`` over the solver arrays)."""
    bits = values.view(np.int32)
    n = bits.shape[0]
    block = 1 << 14
    for start in range(0, n, block):
        seg = bits[start : min(start + block, n)]
        mx = np.int32(0)
        for i in range(seg.shape[0]):  # from 0: no index wraparound to stop the vectoriser
            x = seg[i] & np.int32(0x7FFFFFFF)
            mx = x if x > mx else mx
        if mx >= np.int32(0x7F800000):
            for i in range(seg.shape[0]):
                if (seg[i] & np.int32(0x7FFFFFFF)) >= np.int32(0x7F800000):
                    return start + i
    return -1


def _unowned_value(context, builder, ty, value):  # type: ignore[no-untyped-def]
    """LLVM value of :func:`unowned`: arrays with a null owner, tuples member by member, every
    other value as it is (with a reference of its own: the result is a new reference)."""
    if isinstance(ty, types.Array):
        src = context.make_array(ty)(context, builder, value=value)
        out = context.make_array(ty)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, field, getattr(src, field))
        out.meminfo = cgutils.get_null_value(src.meminfo.type)
        out.parent = cgutils.get_null_value(src.parent.type)
        return out._getvalue()
    if isinstance(ty, types.BaseTuple):
        items = [
            _unowned_value(context, builder, t, builder.extract_value(value, i))
            for i, t in enumerate(ty)
        ]
        return context.make_tuple(builder, ty, items)
    context.nrt.incref(builder, ty, value)
    return value


@intrinsic
def unowned(typingctx, x):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """``x`` with every array in it (``x`` itself, or the members of a tuple or named tuple,
    nested) without its owner record (numba's meminfo): the same data, shape and strides, for
    reading and writing inside one kernel call.

    Every view numba takes of an owned array (``a[i]``, ``a[i:j]``), and every array argument
    of a compiled call, increments and later decrements the owner's reference count with a
    locked (atomic) instruction, which waits for every pending store; where numba's pruning
    keeps them, in the per-node views of a tree pass or the arguments of a per-traversal call,
    they were a sixth of a river iteration and over half of a blueprint MCCFR iteration
    (``perf``: the two locked instructions). Views and calls with unowned arrays skip them
    (numba's reference-count helpers return at once on a null owner). Safe only while the
    caller keeps the arrays alive and nothing unowned outlives the call: a kernel's own
    arguments, rebound at its top."""
    if not isinstance(x, (types.Array, types.BaseTuple)):
        return None

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return _unowned_value(context, builder, signature.args[0], args[0])

    return x(x), codegen


@intrinsic
def fetch_add(typingctx, counter, amount):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Add ``amount`` to ``counter[0]`` (an int64 array) in one atomic step and return the value
    before: threads that draw work numbers from one counter each get a different number.

    Written here because numba offers no atomic operation on the CPU (its ``prange`` schedules
    work itself, without a call per worker): this is LLVM's ``atomicrmw add`` (sequentially
    consistent) on the array's first element."""
    if not (
        isinstance(counter, types.Array)
        and counter.dtype == types.int64
        and isinstance(amount, types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):  # noqa: ARG001
        ary = context.make_array(signature.args[0])(context, builder, value=args[0])
        step = context.cast(builder, args[1], signature.args[1], types.int64)
        return builder.atomic_rmw("add", ary.data, step, "seq_cst")

    return types.int64(counter, amount), codegen


@intrinsic
def atomic_load(typingctx, counter):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """``counter[0]`` (an int64 array) read with acquire ordering: what the thread that stored
    it wrote before the store is visible after this load (see :func:`atomic_store`)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):  # noqa: ARG001
        ary = context.make_array(signature.args[0])(context, builder, value=args[0])
        return builder.load_atomic(ary.data, "acquire", 8)

    return types.int64(counter), codegen


@intrinsic
def atomic_store(typingctx, counter, value):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Store ``value`` into ``counter[0]`` (an int64 array) with release ordering: everything
    this thread wrote before is visible to a thread whose :func:`atomic_load` sees the value."""
    if not (
        isinstance(counter, types.Array)
        and counter.dtype == types.int64
        and isinstance(value, types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):  # noqa: ARG001
        ary = context.make_array(signature.args[0])(context, builder, value=args[0])
        v = context.cast(builder, args[1], signature.args[1], types.int64)
        builder.store_atomic(v, ary.data, "release", 8)
        return context.get_dummy_value()

    return types.none(counter, value), codegen


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def spin_pause(typingctx):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """A spin-wait hint (x86's ``pause``: the waiting core yields its pipeline to its sibling
    and leaves the loop without a memory-order stall); nothing on other machines."""

    def codegen(context, builder, signature, args):  # noqa: ARG001
        if _X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.none(), codegen


_POSIX = os.name == "posix"


@intrinsic
def cpu_yield(typingctx):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Give the CPU to another runnable thread (POSIX ``sched_yield``; nothing elsewhere): a
    waiting worker that has spun a while lets the thread it waits for run on a busy machine."""

    def codegen(context, builder, signature, args):  # noqa: ARG001
        if _POSIX:
            fnty = ir.FunctionType(ir.IntType(32), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "sched_yield")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.none(), codegen
