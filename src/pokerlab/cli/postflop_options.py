"""The options of ``pokerlab postflop``: the spot (a file, a built-in name or flags), the target
in percent of the pot, bet-size flags, the raise limit, the algorithm and the Ray options, each
checked with an error that names the option and the token."""

from __future__ import annotations

import math
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_TARGET_PCT",
    "canonical_postflop_algorithm",
    "check_ray_options",
    "check_sizes",
    "parse_target",
    "parse_raise_limit",
    "ray_solver",
    "spot_config",
]

#: Target exploitability (percent of the starting pot) when no limit is given.
DEFAULT_TARGET_PCT = 0.5
#: Iterations at most when a target is given without ``--iterations``.
DEFAULT_MAX_ITERATIONS = 1000


def parse_target(text: str) -> float:
    """``--target`` in percent of the starting pot: ``"0.5%"`` or ``"0.5"`` -> 0.5.

    Raises :class:`~pokerlab.errors.PokerlabError` naming the text for anything that is not a
    finite number above 0 (with at most one ``%`` at its end)."""
    body = text.strip()
    body = body[:-1].rstrip() if body.endswith("%") else body
    try:
        if not body.isascii():  # float() reads Unicode digits too
            raise ValueError(body)
        value = float(body)
    except ValueError:
        raise PokerlabError(
            f"bad --target {text!r}: give a share of the starting pot such as 0.5% or 0.5"
        ) from None
    if not math.isfinite(value) or value <= 0.0:
        raise PokerlabError(f"--target {text!r} must be above 0% of the pot (e.g. 0.5%)")
    return value


def check_sizes(option: str, text: str | None, raise_sizes: bool) -> None:
    """Parse a bet-size flag up front so that its error names the flag and the token."""
    from pokerlab.games.postflop import parse_bet_sizes

    if text is None:
        return
    try:
        parse_bet_sizes(text, raise_sizes=raise_sizes)
    except PokerlabError as exc:
        shown = text if len(text) <= 60 else text[:40] + "..."
        raise PokerlabError(f"{option} {shown!r}: {exc}") from None


def parse_raise_limit(text: str | None) -> int | str | None:
    """``--raise-limit``: a whole number >= 0 or ``"none"`` (no limit); None when not given."""
    if text is None or text.strip().lower() == "none":
        return None if text is None else "none"
    try:
        return int(text)
    except ValueError:
        raise PokerlabError(
            f"--raise-limit must be a whole number >= 0 or 'none', got {text!r}"
        ) from None


def spot_config(spot: str | None, flags: dict[str, Any]) -> tuple[Any, str]:
    """The spot (a :class:`SpotConfig`) and a short name for it, from SPOT or the flags."""
    from pokerlab.games.postflop.spot import builtin_spots, load_spot, resolve_spot

    given = {k: v for k, v in flags.items() if v is not None}
    if spot is not None:
        if given:
            names = ", ".join("--" + k.replace("_", "-") for k in given)
            raise PokerlabError(f"give a SPOT or spot flags, not both (SPOT {spot!r} and {names})")
        path = resolve_spot(spot)
        name = spot if path.parent.name == "spots" and path.stem == spot.lower() else str(path)
        return load_spot(path), name
    required = ("board", "oop_range", "ip_range", "pot", "stack")
    missing = ["--" + k.replace("_", "-") for k in required if k not in given]
    if missing:
        raise PokerlabError(
            f"give a SPOT (built-in: {', '.join(builtin_spots())}, or a .toml/.json file) or "
            f"the flags --board, --oop-range, --ip-range, --pot and --stack; missing: "
            f"{', '.join(missing)}"
        )
    check_sizes("--bets", given.get("bets"), raise_sizes=False)
    check_sizes("--raises", given.get("raises"), raise_sizes=True)
    check_sizes("--donks", given.get("donks"), raise_sizes=False)
    from pokerlab.games.postflop import spot_from_params

    return spot_from_params(**given), "spot"


def canonical_postflop_algorithm(algorithm: str) -> str:
    from pokerlab.solvers.postflop import POSTFLOP_ALGORITHMS
    from pokerlab.solvers.resume import canonical_algorithm

    name = canonical_algorithm(algorithm)
    if name not in POSTFLOP_ALGORITHMS:
        raise PokerlabError(
            f"unknown algorithm {algorithm!r} for a postflop spot; choose one of "
            f"{', '.join(POSTFLOP_ALGORITHMS)}"
        )
    return name


def check_ray_options(
    use_ray: bool, address: str | None, workers: int | None, threads: int
) -> bool:
    """Whether the run uses Ray (``--address`` implies ``--ray``), refused before any work when
    Ray is not installed, the address does not answer, ``--workers`` comes without Ray or
    ``--threads`` with it."""
    use_ray = use_ray or address is not None
    if not use_ray:
        if workers is not None:
            raise PokerlabError(
                f"--workers {workers} is the number of Ray actors: add --ray (or use --threads)"
            )
        return False
    if threads != 1:
        raise PokerlabError(
            f"--threads {threads} with --ray: the subtrees run on the Ray actors (give --workers)"
        )
    from pokerlab.distributed.ray_setup import check_address, import_ray

    import_ray()
    if address is not None:
        check_address(address)
    return True


def ray_solver(
    game: Any,
    algorithm: str,
    address: str | None,
    workers: int | None,
    compressed: bool,
    average: str | None = None,
) -> Any:
    """A :class:`~pokerlab.distributed.postflop_ray.RayPostflopSolver` with ``workers`` actors
    (2 when None) on the Ray instance at ``address`` (None: local)."""
    from pokerlab.distributed.postflop_ray import RayPostflopSolver

    return RayPostflopSolver(
        game, algorithm, workers=2 if workers is None else workers, address=address,
        compressed=compressed, average=average,
    )  # fmt: skip
