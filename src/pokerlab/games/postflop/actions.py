"""No-limit postflop betting: the action tree of a spot, before cards are dealt.

The sizing rules are those of the Rust postflop-solver (b-inary/postflop-solver,
``action_tree.rs`` at commit 9d1509f), so that trees built from the same sizes and thresholds
agree node for node once ``raise_limit`` is ``None`` (postflop-solver has no raise limit; the
default here is 3); ``benchmarks/agreement.py`` checks this against the compiled reference:

* amounts are integer chips; a bet or raise amount is the actor's *total* for the street
  ("bet to"); ``pot`` at a node is the pot after the actor would call;
* a pot-relative bet is ``round(pot * r)``; a pot-relative raise is the previous bet plus
  ``round(pot * r)`` (call, then r of the new pot); ``Nx`` raises to ``round(prev * N)``; ``Nc``
  bets N chips or raises by N over the previous bet; ``NcMr`` (raises) is ``Nc`` offered only
  while the bets and raises made on the street, the one faced included, number at most M;
* geometric sizes ``KeM%`` bet (or raise by, over the call) ``round(pot * min(f, M))`` with
  ``(1 + 2f)^n = 1 + 2 * stack_after_call / pot``, where K is the token's street count (the
  streets left, this one included, when it names none: flop 3, turn 2, river 1) and
  ``n = K`` for a bet or donk bet and ``n = max(K - B + 1, 1)`` for a raise, B being the bets
  and raises already made on the street, the one faced included (so ``e`` facing the flop's
  first bet spreads over 3 streets, facing a raise over 2; ``3e`` facing a 3-bet over 1, i.e.
  all-in);
* every amount is clamped to [minimum raise, all-in]; an amount that leaves at most
  ``force_allin_threshold * pot_after_call`` behind becomes all-in; all-in is added when it is at
  most ``add_allin_threshold`` pots (over the previous bet, for raises);
* sizes closer than ``merging_threshold`` are merged, keeping the larger (PioSolver's rule as
  postflop-solver states it: from the largest, drop a size whose pot ratio is not below
  ``(kept - t) / (1 + t)``);
* at most ``raise_limit`` raises per street (the first bet is not a raise); ``None``: no
  limit, as in postflop-solver, which has none (a limit there is applied afterwards by removing
  raise and all-in actions, which is what ``raise_limit`` does here);
* on the turn and river, OOP leads with its ``donk`` sizes (when given) after calling IP's
  bet or raise on the previous street.

The tree is built once per spot; :mod:`pokerlab.games.postflop.expand` deals the turn and river
cards into it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = [
    "FOLD",
    "CHECK",
    "CALL",
    "BET",
    "RAISE",
    "ALLIN",
    "ActionNode",
    "ActionTreeOptions",
    "build_action_tree",
    "action_label",
    "parse_action_label",
]

FOLD, CHECK, CALL, BET, RAISE, ALLIN = range(6)
_NAMES = {FOLD: "fold", CHECK: "check", CALL: "call", BET: "bet", RAISE: "raise", ALLIN: "allin"}
_BY_NAME = {v: k for k, v in _NAMES.items()}
STREET_NAMES = ("flop", "turn", "river")
#: street index -1: the betting before the flop of a spot that starts there (``blinds``)
PREFLOP = -1


def board_size(street: int) -> int:
    """Board cards showing during ``street`` (-1 preflop, 0 flop, 1 turn, 2 river)."""
    return (0, 3, 4, 5)[street + 1]


def action_label(kind: int, amount: int) -> str:
    """Readable label of an action: ``"check"``, ``"bet 66"``, ``"raise 265"``, ``"allin 900"``.

    Amounts are the actor's chips for the street after the action (bet-to)."""
    if kind in (FOLD, CHECK, CALL):
        return _NAMES[kind]
    return f"{_NAMES[kind]} {amount}"


def parse_action_label(text: str) -> tuple[int, int | None]:
    """``"bet 66"`` -> (BET, 66); ``"allin"`` -> (ALLIN, None); errors name the token."""
    parts = text.strip().lower().replace("-", "").split()
    if not parts or parts[0] not in _BY_NAME or len(parts) > 2:
        raise PokerlabError(
            f"unknown action {text.strip()!r}; actions read like 'check', 'bet 66', 'call', "
            "'raise 265', 'allin', 'fold'"
        )
    kind = _BY_NAME[parts[0]]
    if len(parts) == 1:
        return kind, None
    try:
        return kind, int(parts[1])
    except ValueError:
        raise PokerlabError(f"action amount {parts[1]!r} is not a whole number of chips") from None


@dataclass
class ActionNode:
    """One node of the action tree.

    ``kind`` is ``"decision"``, ``"chance"`` (the next street's card), ``"fold"`` or
    ``"showdown"``. ``player`` is the actor (decision) or the folder (fold), else -1.
    ``street`` is 0, 1, 2 for flop, turn, river (-1 before the flop). ``commit`` is what each
    player has put into the pot during the spot at this node (chips, the blinds included; for a
    fold, the folder's commitment is ``commit[player]``). ``actions[i]`` = (kind, amount) leads
    to ``children[i]``. ``deal``: at a chance node, which card of the next street's it deals
    (the flop's three come from three chance nodes in a row: 0, 1, 2; else 0).
    """

    kind: str
    player: int
    street: int
    commit: tuple[int, int]
    actions: list[tuple[int, int]] = field(default_factory=list)
    children: list[ActionNode] = field(default_factory=list)
    deal: int = 0

    def labels(self) -> list[str]:
        return [action_label(k, a) for k, a in self.actions]


@dataclass(frozen=True)
class ActionTreeOptions:
    """What :func:`build_action_tree` needs: pot and stack in chips, sizes and thresholds.

    ``sizes[(street, player)]`` is an object with ``bet``, ``raise_`` and ``donk`` sequences of
    bet sizes (see :mod:`pokerlab.games.postflop.betsizes`; ``donk`` may be None).

    ``blinds``: (OOP's, IP's) chips posted, the big blind and the small blind: the tree starts
    with the betting before the flop (``first_street`` -1, IP the small blind acting first, the
    amounts "raise to" with the blinds included, a raise at least the big blind over the bet
    faced, and after a call of the big blind OOP's option to check or raise; the preflop
    sizes are ``raise_`` sizes, the blinds counting as the first bet), then the flop's three
    cards as three chance nodes in a row. ``stack`` is then each player's chips before the
    blinds, ``pot`` the dead money (antes), which may be 0.
    """

    pot: int
    stack: int
    first_street: int
    sizes: Mapping[tuple[int, int], Any]
    add_allin_threshold: float = 1.5
    force_allin_threshold: float = 0.15
    merging_threshold: float = 0.1
    raise_limit: int | None = 3
    blinds: tuple[int, int] | None = None


@dataclass(frozen=True)
class _Info:
    last: int  # -1 none/chance start, else the last action kind
    chance_start: bool
    allin: bool
    oop_called: bool  # the previous street ended with OOP calling (donk bets allowed)
    bet: tuple[int, int]  # each player's chips this street
    raises: int


def round_half_away(x: float) -> int:
    """``x`` rounded to the nearest integer, halves away from zero (as postflop-solver's Rust
    ``round`` does; Python's ``round`` rounds halves to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _size_amount(
    size: Any,
    *,
    raising: bool,
    pot: int,
    opp_bet: int,
    spr_after_call: float,
    streets_left: int,
    max_amount: int,
    bets: int = 0,
) -> int:
    """Bet-to amount (before clamping) of one size token at a node; ``bets`` counts the bets
    and raises made on the street so far (the one faced included)."""
    kind = size.kind
    if kind == "allin":
        return max_amount
    if kind == "pot":
        add = round_half_away(pot * float(size.value))
        return opp_bet + add if raising else add
    if kind == "prev":
        if not raising:
            raise PokerlabError(
                "an 'Nx' size (a multiple of the previous bet) needs a bet to raise"
            )
        return round_half_away(opp_bet * float(size.value))
    if kind == "chips":
        add = round_half_away(float(size.value))
        return opp_bet + add if raising else add
    if kind == "geometric":
        n = int(size.streets) or streets_left
        if raising:  # postflop-solver: each bet made on the street uses up one street
            n = max(n - bets + 1, 1)
        ratio = ((2.0 * spr_after_call + 1.0) ** (1.0 / n) - 1.0) / 2.0
        cap = float(size.value) if size.value and size.value > 0 else math.inf
        add = round_half_away(pot * min(ratio, cap))
        return opp_bet + add if raising else add
    raise PokerlabError(f"unknown bet size kind {kind!r}")


def merge_close_sizes(
    actions: list[tuple[int, int]], pot: int, offset: int, t: float
) -> list[tuple[int, int]]:
    """Drop sizes within ``t`` of a larger kept size (largest kept first)."""
    if t <= 0.0:
        return actions
    kept: list[tuple[int, int]] = []
    cur = math.inf
    for kind, amount in reversed(actions):
        if kind in (BET, RAISE, ALLIN):
            ratio = (amount - offset) / pot
            cur_ratio = (cur - offset) / pot
            if ratio < (cur_ratio - t) / (1.0 + t) * (1.0 - 1e-12):
                kept.append((kind, amount))
                cur = amount
        else:
            kept.append((kind, amount))
    kept.reverse()
    return kept


def _order(action: tuple[int, int]) -> tuple[int, int]:
    return action


def build_action_tree(
    opts: ActionTreeOptions,
    budget: Callable[[ActionNode], None] | None = None,
    share: bool = False,
) -> ActionNode:
    """The betting tree of a spot (OOP = player 0 acts first on every street).

    ``budget(node)`` is called with every decision node made, once its actions are known
    (children first); it may raise to stop a build that grows too large. ``share=True`` makes
    one node per betting state (street, player, chips in, the street's history that matters):
    a graph whose paths are the tree's, small even where the tree is huge, for counting it
    before it is built (:mod:`pokerlab.games.postflop.game`); not for solving."""
    memo: dict[tuple[Any, ...], ActionNode] | None = {} if share else None
    blinds = opts.blinds
    if (blinds is not None) != (opts.first_street == PREFLOP):
        raise PokerlabError("a tree starts before the flop exactly when it has blinds")
    if blinds is not None:
        if not 0 < blinds[1] <= blinds[0] <= opts.stack or opts.pot < 0:
            raise PokerlabError(
                f"blinds {blinds[1]}/{blinds[0]} need 0 < small <= big <= the stack "
                f"({opts.stack}) and a pot >= 0 (got {opts.pot})"
            )
    elif opts.pot <= 0:
        raise PokerlabError(f"the pot must be positive, got {opts.pot}")
    if opts.stack < 0:
        raise PokerlabError(f"the stack must be >= 0, got {opts.stack}")

    def streets_left(street: int) -> int:
        return 3 - street

    def node_after_street(street: int, matched: int, allin: bool, oop_called: bool) -> ActionNode:
        commit = (matched, matched)
        if street == 2:
            return ActionNode("showdown", -1, street, commit)
        nxt = street + 1
        if allin or matched >= opts.stack:
            child = node_after_street(nxt, matched, True, False)
        else:
            info = _Info(-1, True, False, oop_called, (0, 0), 0)
            child = decision(nxt, 0, matched, info)
        for deal in reversed(range(board_size(nxt) - board_size(street))):  # the flop: 3 in a row
            chance = ActionNode("chance", -1, street, commit, deal=deal)
            chance.actions = [(-1, 0)]
            chance.children = [child]
            child = chance
        return child

    def decision(street: int, player: int, matched: int, info: _Info) -> ActionNode:
        """``matched``: chips each player had in before this street (equal)."""
        if memo is not None:
            key = (street, player, matched, info)
            if key in memo:
                return memo[key]
        opp = 1 - player
        pb, ob = info.bet[player], info.bet[opp]
        commit = (matched + info.bet[0], matched + info.bet[1])
        node = ActionNode("decision", player, street, commit)
        pot = opts.pot + 2 * (matched + ob)
        max_amount = opts.stack - matched
        # a raise is at least the last increment; before the flop at least the big blind
        increment = max(ob - pb, blinds[0] if street == PREFLOP and blinds else 1)
        min_amount = min(ob + increment, max_amount)
        spr = (opts.stack - matched - ob) / pot
        sizes = opts.sizes[(street, player)]
        left = streets_left(street)
        actions: list[tuple[int, int]] = []
        facing = ob > pb
        preflop = street == PREFLOP
        if preflop:  # the blinds are the bet: fold, call or raise; the big blind's option
            actions.append((FOLD, 0) if facing else (CHECK, 0))  # after a call: check or raise
            if facing:
                actions.append((CALL, 0))
        if not facing and not preflop:
            actions.append((CHECK, 0))
            cand = sizes.bet
            if info.chance_start and info.oop_called and player == 0 and sizes.donk is not None:
                cand = sizes.donk
            for s in cand:
                amt = _size_amount(
                    s,
                    raising=False,
                    pot=pot,
                    opp_bet=ob,
                    spr_after_call=spr,
                    streets_left=left,
                    max_amount=max_amount,
                )
                actions.append((ALLIN, max_amount) if s.kind == "allin" else (BET, amt))
            if max_amount <= round_half_away(pot * opts.add_allin_threshold):
                actions.append((ALLIN, max_amount))
        else:
            if not preflop:
                actions.append((FOLD, 0))
                actions.append((CALL, 0))
            limit = opts.raise_limit
            if not info.allin and (limit is None or info.raises < limit) and ob < max_amount:
                bets = info.raises + 1  # the first bet and the raises so far
                for s in sizes.raise_:
                    if not s.offered_at(bets):
                        continue  # NcMr: capped; Nc@M: at one depth
                    amt = _size_amount(
                        s,
                        raising=True,
                        pot=pot,
                        opp_bet=ob,
                        spr_after_call=spr,
                        streets_left=left,
                        max_amount=max_amount,
                        bets=bets,
                    )
                    actions.append((ALLIN, max_amount) if s.kind == "allin" else (RAISE, amt))
                if max_amount <= ob + round_half_away(pot * opts.add_allin_threshold):
                    actions.append((ALLIN, max_amount))

        def above_threshold(amount: int) -> bool:
            new_pot = pot + 2 * (amount - ob)
            return max_amount <= amount + round_half_away(new_pot * opts.force_allin_threshold)

        fixed: list[tuple[int, int]] = []
        for kind, amt in actions:
            if kind in (BET, RAISE):
                clamped = min(max(amt, min_amount), max_amount)
                if above_threshold(clamped):
                    fixed.append((ALLIN, max_amount))
                else:
                    fixed.append((kind, clamped))
            else:
                fixed.append((kind, amt))
        fixed = sorted(set(fixed), key=_order)
        fixed = merge_close_sizes(fixed, pot, ob, opts.merging_threshold)
        if max_amount <= 0:  # nothing behind: only check/call remain meaningful
            fixed = [a for a in fixed if a[0] in (CHECK, CALL, FOLD)]
        for kind, amt in fixed:
            node.actions.append((kind, amt))
            if kind == FOLD:
                child = ActionNode("fold", player, street, commit)
            elif kind == CHECK:
                if player == 0 and not preflop:
                    nxt = _Info(CHECK, False, info.allin, False, info.bet, info.raises)
                    child = decision(street, opp, matched, nxt)
                else:  # (a check faces no bet; before the flop it matches the big blind)
                    child = node_after_street(street, matched + ob, False, False)
            elif kind == CALL and preflop and info.last == -1:  # the small blind completes
                nxt = _Info(CALL, False, False, False, (ob, ob), 0)
                child = decision(street, opp, matched, nxt)
            elif kind == CALL:
                new_matched = matched + ob
                child = node_after_street(street, new_matched, info.allin, player == 0)
            else:
                bets = (amt, ob) if player == 0 else (ob, amt)
                raises = info.raises + (1 if facing or preflop else 0)
                nxt = _Info(kind, False, kind == ALLIN or info.allin, False, bets, raises)
                child = decision(street, opp, matched, nxt)
            node.children.append(child)
        if budget is not None:
            budget(node)
        if memo is not None:
            memo[key] = node
        return node

    if blinds is not None:  # the small blind (IP) acts first, facing the big blind
        return decision(PREFLOP, 1, 0, _Info(-1, True, False, False, (blinds[0], blinds[1]), 0))
    root_info = _Info(-1, True, False, False, (0, 0), 0)
    if opts.stack == 0:
        # No chips behind: the cards run out to a showdown.
        if opts.first_street == 2:
            return ActionNode("showdown", -1, 2, (0, 0))
        return _runout(opts.first_street)
    return decision(opts.first_street, 0, 0, root_info)


def _runout(street: int) -> ActionNode:
    node = ActionNode("chance", -1, street, (0, 0))
    child = ActionNode("showdown", -1, 2, (0, 0)) if street == 1 else _runout(street + 1)
    node.actions = [(-1, 0)]
    node.children = [child]
    return node
