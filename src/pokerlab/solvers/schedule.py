"""Discount schedules: one mechanism behind CFR, CFR+, Linear CFR, Discounted CFR and Pluribus.

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
* ``linear_until=N`` applies the discount only in iterations t <= N and plain CFR afterwards, as
  Pluribus did with Linear CFR early in training (Brown & Sandholm 2019, Science).

The factors are computed inside the kernels from the four numbers of :meth:`as_array`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from pokerlab.errors import PokerlabError

__all__ = ["DiscountSchedule", "SCHEDULES", "schedule_by_name", "discount_factors"]

NO_DISCOUNT = math.nan


@dataclass(frozen=True)
class DiscountSchedule:
    """Discounting of accumulated regrets and strategy sums (see the module docstring).

    ``alpha``, ``beta``, ``gamma`` set to ``None`` mean "no discount" for that quantity.
    ``linear_until`` (iterations, ``None`` = forever) ends discounting after that iteration.
    """

    name: str
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None
    regret_floor: bool = False
    linear_until: int | None = None

    def with_linear_until(self, iterations: int | None) -> DiscountSchedule:
        """The same schedule with discounting only for the first ``iterations`` iterations."""
        if iterations is not None and iterations < 0:
            raise PokerlabError(f"linear_until must be >= 0 iterations, got {iterations}")
        return DiscountSchedule(
            self.name, self.alpha, self.beta, self.gamma, self.regret_floor, iterations
        )

    def as_array(self) -> np.ndarray:
        """``[alpha, beta, gamma, floor, linear_until]`` with NaN for "none" (kernel input)."""

        def num(x: float | None) -> float:
            return NO_DISCOUNT if x is None else float(x)

        until = -1.0 if self.linear_until is None else float(self.linear_until)
        return np.array(
            [num(self.alpha), num(self.beta), num(self.gamma), float(self.regret_floor), until],
            dtype=np.float64,
        )

    def factors(self, t: int) -> tuple[float, float, float]:
        """(a_t, b_t, g_t) for iteration ``t`` (1-based): the Python twin of the kernel helper."""
        a, b, g = discount_factors(self.as_array(), t)
        return float(a), float(b), float(g)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


SCHEDULES: dict[str, DiscountSchedule] = {
    "cfr": DiscountSchedule("cfr"),
    "cfr+": DiscountSchedule("cfr+", gamma=1.0, regret_floor=True),
    "linear": DiscountSchedule("linear", alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": DiscountSchedule("dcfr", alpha=1.5, beta=0.0, gamma=2.0),
}


def schedule_by_name(name: str, **overrides: float | int | bool | None) -> DiscountSchedule:
    """The named schedule (``cfr``, ``cfr+``, ``linear``, ``dcfr``) with optional overrides."""
    key = name.lower().replace("_", "").replace("plus", "+")
    if key not in SCHEDULES:
        raise PokerlabError(f"unknown algorithm {name!r}; choose one of {', '.join(SCHEDULES)}")
    base = asdict(SCHEDULES[key])
    for k, v in overrides.items():
        if v is None and k != "linear_until":
            continue
        if k not in base or k == "name":
            raise PokerlabError(f"unknown schedule parameter {k!r}")
        base[k] = v
    return DiscountSchedule(**base)


def _ratio(t_prev: float, exponent: float) -> float:
    if math.isnan(exponent):
        return 1.0
    x = t_prev**exponent
    return x / (x + 1.0)


def discount_factors(params: np.ndarray, t: int) -> tuple[float, float, float]:
    """(a_t, b_t, g_t) from :meth:`DiscountSchedule.as_array` parameters (pure Python)."""
    alpha, beta, gamma, _, until = params
    if until >= 0 and t > until:
        return 1.0, 1.0, 1.0
    tp = float(t - 1)
    g = 1.0 if math.isnan(gamma) else (tp / t) ** gamma
    return _ratio(tp, alpha), _ratio(tp, beta), g
