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
import numbers
from dataclasses import dataclass

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.solvers.loop import iteration_count
from pokerlab.tree._discounts import LazyScale, discount_factors

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
        for name in ("alpha", "beta", "gamma", "alpha_end", "beta_end", "gamma_end"):
            value = getattr(self, name)
            if value is None:
                continue  # no discount of that quantity (the array's NaN: set here only)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise PokerlabError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise PokerlabError(f"{name} must be finite, got {value!r}")
            # beta may be negative (HS-DCFR's -1 -> -3); a negative alpha or gamma would weigh
            # later iterations' regrets or strategies less than earlier ones
            if name[:5] in ("alpha", "gamma") and value < 0:
                raise PokerlabError(f"{name} must be >= 0, got {value!r}")
        for name in ("regret_floor", "predictive"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise PokerlabError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.linear_until is not None:
            iteration_count(self.linear_until, "linear_until")
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
        return dataclasses.replace(self, linear_until=iterations)  # checked as it is made

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
