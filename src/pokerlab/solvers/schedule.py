"""Discount schedules: one mechanism behind the whole full-width CFR family.

Every full-width and sampled solver accumulates regrets R and strategy sums S. Before iteration t
(1-based) adds its contributions, the sums of earlier iterations are scaled:

    R <- R * a_t  where R > 0,      R <- R * b_t  where R <= 0,      S <- S * g_t

and, with ``regret_floor``, regrets are clipped at 0 after the update (CFR+, Tammelin 2014).

* vanilla CFR (Zinkevich et al. 2007): a = b = g = 1;
* CFR+ : no regret discount, regret floor, linear averaging g_t = (t-1)/t;
* Linear CFR (Brown & Sandholm 2019): iteration t weighted by t, i.e. a = b = g = (t-1)/t;
* Discounted CFR(alpha, beta, gamma) (Brown & Sandholm 2019): a_t = (t-1)^alpha / ((t-1)^alpha + 1),
  b_t = (t-1)^beta / ((t-1)^beta + 1), g_t = ((t-1)/t)^gamma; the paper's recommended
  alpha = 1.5, beta = 0, gamma = 2 is the default. DCFR(1, 1, 1) equals Linear CFR;
* DCFR+ (Xu et al. 2024, "Minimizing weighted counterfactual regret with optimistic online
  mirror descent", IJCAI): R_t = [R_{t-1} d_t + r_t]+ with d_t = (t-1)^alpha / ((t-1)^alpha + 1)
  and averaging weights ((t-1)/t)^gamma: the DCFR discount with the CFR+ floor, so regrets are
  never negative and beta has nothing to act on; the paper's alpha = 1.5, gamma = 4;
* ``linear_until=N`` applies the discount only in iterations t <= N and plain CFR afterwards, as
  Pluribus did with Linear CFR early in training (Brown & Sandholm 2019, Science).

**Prediction** (``predictive=True``; optimistic regret matching). The strategy is regret matching
not on R but on a predicted regret that adds the next instantaneous regret, guessed to equal
the last one, r_t, to the regret as the next update will discount it:

    P_t = [R_t * d_{t+1} + r_t]+          (d_{t+1}: a_{t+1} where R_t > 0, b_{t+1} elsewhere)

computed by each player's update right after its regrets R_t (the floor applies when the
schedule has one). P is the prediction array, part of the solver state; it starts at 0 (uniform
play in iteration 1).

* Predictive CFR+ (Farina, Kroer & Sandholm 2021, "Faster game solving via predictive Blackwell
  approachability", AAAI): no discount (d = 1), P_t = [R_t + r_t]+ with R_t = [R_{t-1} + r_t]+,
  and quadratic averaging g_t = ((t-1)/t)^2;
* PDCFR+ (Xu et al. 2024): DCFR+'s update with P_t = [R_t d_{t+1} + r_t]+; alpha = 2.3,
  gamma = 5.

**Hyperparameter schedules** (Zhang, McAleer & Sandholm 2024, "Faster game solving via
hyperparameter schedules", arXiv:2404.09097): an exponent may move linearly over a horizon of T
iterations, evaluated at the progress p_t = min((t-1)/T, 1) of iteration t:

    alpha_t = alpha + (alpha_end - alpha) p_t     (likewise beta, gamma)

and stays at its end value after T. HS-DCFR is alpha 1 -> 4, beta -1 -> -3, gamma 15 -> 10
(or 30 -> 25); HS-PCFR+ moves only gamma, 30 -> 25 (the paper's HS-PCFR+(30)).

The factors are computed inside the kernels from the numbers of :meth:`DiscountSchedule.as_array`
(layout in :data:`PARAMS_LAYOUT`); :func:`discount_factors` is their Python twin.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from pokerlab.errors import PokerlabError

# the layout of the kernel input is defined beside the kernels that read it
from pokerlab.tree._primitives import PARAMS_LAYOUT, PARAMS_SIZE

__all__ = [
    "DiscountSchedule",
    "SCHEDULES",
    "PARAMS_LAYOUT",
    "schedule_by_name",
    "discount_factors",
    "LazyScale",
]

NO_DISCOUNT = math.nan


#: Fields added after the first release; ``to_dict`` writes them only when they are not at
#: their default, so states saved before them still match.
_LATER_FIELDS = ("predictive", "alpha_end", "beta_end", "gamma_end", "horizon")


@dataclass(frozen=True)
class DiscountSchedule:
    """Discounting of accumulated regrets and strategy sums (see the module docstring).

    ``alpha``, ``beta``, ``gamma`` set to ``None`` mean "no discount" for that quantity.
    ``linear_until`` (iterations, ``None`` = forever) ends discounting after that iteration.
    ``predictive`` plays regret matching on the predicted regrets. ``alpha_end``, ``beta_end``,
    ``gamma_end`` (with ``horizon`` T) move that exponent linearly to the end value over the
    first T iterations (a hyperparameter schedule).
    """

    name: str
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None
    regret_floor: bool = False
    linear_until: int | None = None
    predictive: bool = False
    alpha_end: float | None = None
    beta_end: float | None = None
    gamma_end: float | None = None
    horizon: int | None = None

    def __post_init__(self) -> None:
        ends = {"alpha": self.alpha_end, "beta": self.beta_end, "gamma": self.gamma_end}
        for name, end in ends.items():
            if end is not None and getattr(self, name) is None:
                raise PokerlabError(f"{name}_end needs a starting {name}")
        scheduled = any(e is not None for e in ends.values())
        if scheduled and self.horizon is None:
            raise PokerlabError("a hyperparameter schedule (an *_end exponent) needs a horizon")
        if self.horizon is not None:
            if not scheduled:
                raise PokerlabError(
                    "horizon is the length of a hyperparameter schedule: give *_end"
                )
            if isinstance(self.horizon, bool) or int(self.horizon) != self.horizon:
                raise PokerlabError(f"horizon must be a whole number, got {self.horizon!r}")
            if self.horizon < 1:
                raise PokerlabError(f"horizon must be >= 1 iteration, got {self.horizon}")

    @property
    def scheduled(self) -> bool:
        """True when an exponent moves over the run (a hyperparameter schedule)."""
        return self.horizon is not None

    def with_linear_until(self, iterations: int | None) -> DiscountSchedule:
        """The same schedule with discounting only for the first ``iterations`` iterations."""
        if iterations is not None and iterations < 0:
            raise PokerlabError(f"linear_until must be >= 0 iterations, got {iterations}")
        return dataclasses.replace(self, linear_until=iterations)

    def as_array(self) -> np.ndarray:
        """The kernel input (:data:`PARAMS_LAYOUT`), NaN for "none", -1 for "no limit"."""

        def num(x: float | None) -> float:
            return NO_DISCOUNT if x is None else float(x)

        out = np.zeros(PARAMS_SIZE, dtype=np.float64)
        at = PARAMS_LAYOUT
        out[at["alpha"]] = num(self.alpha)
        out[at["beta"]] = num(self.beta)
        out[at["gamma"]] = num(self.gamma)
        out[at["floor"]] = float(self.regret_floor)
        out[at["linear_until"]] = -1.0 if self.linear_until is None else float(self.linear_until)
        out[at["predictive"]] = float(self.predictive)
        out[at["alpha_end"]] = num(self.alpha_end)
        out[at["beta_end"]] = num(self.beta_end)
        out[at["gamma_end"]] = num(self.gamma_end)
        out[at["horizon"]] = -1.0 if self.horizon is None else float(self.horizon)
        return out

    def factors(self, t: int) -> tuple[float, float, float]:
        """(a_t, b_t, g_t) for iteration ``t`` (1-based): the Python twin of the kernel helper."""
        a, b, g = discount_factors(self.as_array(), t)
        return float(a), float(b), float(g)

    def to_dict(self) -> dict[str, object]:
        out = dataclasses.asdict(self)
        for name in _LATER_FIELDS:
            if out[name] in (None, False):
                del out[name]
        return out


SCHEDULES: dict[str, DiscountSchedule] = {
    "cfr": DiscountSchedule("cfr"),
    "cfr+": DiscountSchedule("cfr+", gamma=1.0, regret_floor=True),
    "linear": DiscountSchedule("linear", alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": DiscountSchedule("dcfr", alpha=1.5, beta=0.0, gamma=2.0),
    # Farina, Kroer & Sandholm 2021: predictive regret matching+, quadratic averaging.
    "pcfr+": DiscountSchedule("pcfr+", gamma=2.0, regret_floor=True, predictive=True),
    # Xu et al. 2024: the paper's tuned exponents.
    "dcfr+": DiscountSchedule("dcfr+", alpha=1.5, gamma=4.0, regret_floor=True),
    "pdcfr+": DiscountSchedule("pdcfr+", alpha=2.3, gamma=5.0, regret_floor=True, predictive=True),
    # Zhang, McAleer & Sandholm 2024: HS-DCFR(15) and HS-PCFR+(30) over a horizon of T iterations.
    "hs-dcfr": DiscountSchedule(
        "hs-dcfr",
        alpha=1.0,
        beta=-1.0,
        gamma=15.0,
        alpha_end=4.0,
        beta_end=-3.0,
        gamma_end=10.0,
        horizon=1000,
    ),
    "hs-pcfr+": DiscountSchedule(
        "hs-pcfr+", gamma=30.0, regret_floor=True, predictive=True, gamma_end=25.0, horizon=1000
    ),
}


def schedule_by_name(name: str, **overrides: float | int | bool | None) -> DiscountSchedule:
    """The named schedule (a key of :data:`SCHEDULES`) with optional overrides."""
    key = name.lower().replace("_", "").replace("plus", "+")
    if key not in SCHEDULES:
        raise PokerlabError(f"unknown algorithm {name!r}; choose one of {', '.join(SCHEDULES)}")
    base = dataclasses.asdict(SCHEDULES[key])
    for k, v in overrides.items():
        if v is None and k != "linear_until":
            continue
        if k not in base or k == "name":
            raise PokerlabError(f"unknown schedule parameter {k!r}")
        base[k] = v
    return DiscountSchedule(**base)


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
