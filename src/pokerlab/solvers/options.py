"""Which solver options each algorithm uses: the checks that :func:`pokerlab.make_solver` and the
postflop Monte Carlo CFR factory share, so that an option an algorithm would not use is refused by
name, with the reason, never ignored."""

from __future__ import annotations

from pokerlab.solvers.mccfr import MCCFR_ALGORITHMS
from pokerlab.solvers.schedule import SCHEDULES

__all__ = ["OPTION_NAMES", "inapplicable_options"]


#: Why an option does not apply, by option name: the full-width and the sampling message.
_FULL_WIDTH_ONLY = {
    "alternating": "Monte Carlo CFR always alternates (one traversal per player)",
    "prune": "prune is zero-reach pruning of full-width CFR; for Monte Carlo CFR's "
    "regret-based pruning use regret_pruning=True",
}
_SAMPLING_ONLY = {
    "seed": "full-width CFR draws no random numbers",
    "schedule": "a full-width algorithm's name is its schedule (cfr, cfr+, linear, dcfr, ...)",
    "epsilon": "outcome sampling's exploration (os-mccfr only)",
    "regret_pruning": "regret-based pruning is for Monte Carlo CFR; full width has prune "
    "(zero-reach pruning)",
    "prune_threshold": "used only with regret_pruning=True (Monte Carlo CFR)",
    "prune_probability": "used only with regret_pruning=True (Monte Carlo CFR)",
    "min_regret": "a regret floor of Monte Carlo CFR",
    "discount_every": "Monte Carlo CFR's discount block size",
    "linear_seconds": "Monte Carlo CFR only; full width has linear_until",
}
OPTION_NAMES = (
    "representation",
    "alternating",
    "prune",
    "linear_until",
    "alpha",
    "beta",
    "gamma",
    "seed",
    "schedule",
    "epsilon",
    "regret_pruning",
    "prune_threshold",
    "prune_probability",
    "min_regret",
    "discount_every",
    "linear_seconds",
    "horizon",
)

#: The exponents each schedule lets a caller override (DCFR+ and PDCFR+ floor their regrets at
#: 0, so there is no negative regret for beta to discount).
_EXPONENTS = {
    "dcfr": ("alpha", "beta", "gamma"),
    "dcfr+": ("alpha", "gamma"),
    "pdcfr+": ("alpha", "gamma"),
    "pcfr+": ("gamma",),
}


def inapplicable_options(name: str, given: dict[str, object]) -> dict[str, str]:
    """Options in ``given`` that algorithm ``name`` would not use, each with the reason."""
    bad: dict[str, str] = {}
    sampling = name in MCCFR_ALGORITHMS
    for option in given:
        if sampling and option in _FULL_WIDTH_ONLY:
            if option == "alternating" and given[option] is True:
                continue  # what it does anyway
            bad[option] = _FULL_WIDTH_ONLY[option]
        elif not sampling and option in _SAMPLING_ONLY:
            bad[option] = _SAMPLING_ONLY[option]
    if sampling:
        if "epsilon" in given and name != "os-mccfr":
            bad["epsilon"] = _SAMPLING_ONLY["epsilon"]
        if given.get("regret_pruning") and name == "os-mccfr":
            bad["regret_pruning"] = (
                "outcome sampling follows one action per node: there is nothing to prune"
            )
        if not given.get("regret_pruning"):
            for option in ("prune_threshold", "prune_probability"):
                if option in given:
                    bad[option] = "used only with regret_pruning=True"
        if given.get("representation", "history") != "history":
            bad["representation"] = "Monte Carlo CFR runs on the history tree only"
        schedule = given.get("schedule")
        discounts = (
            (schedule is not None and schedule != "cfr")
            or "linear_until" in given
            or "linear_seconds" in given
        )
        if "discount_every" in given and not discounts:
            bad["discount_every"] = (
                "plain CFR weighting discounts nothing: give schedule=, linear_until= or "
                "linear_seconds="
            )
    exponents_for = given.get("schedule") if sampling else name
    if sampling and isinstance(exponents_for, str) and exponents_for in SCHEDULES:
        sched = SCHEDULES[exponents_for]
        if sched.predictive or sched.scheduled:
            bad["schedule"] = (
                f"{exponents_for!r} (prediction or a hyperparameter schedule) is full-width only"
            )
    takes = _EXPONENTS.get(exponents_for, ()) if isinstance(exponents_for, str) else ()
    for option in ("alpha", "beta", "gamma"):
        if option in given and option not in takes:
            owners = [k for k, v in _EXPONENTS.items() if option in v]
            bad[option] = f"an exponent of {', '.join(owners)} only" + (
                " (schedule=)" if sampling else ""
            )
    if "horizon" in given and (sampling or not SCHEDULES[name].scheduled):
        bad["horizon"] = "the length of a hyperparameter schedule (hs-pcfr+, hs-dcfr) only"
    return bad
