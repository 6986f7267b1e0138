"""An agent in an ACPC match over TCP (issue 25, "Playing"): the protocol client.

:func:`play_acpc` connects to an ACPC dealer (the reference server's ``dealer``, or
:class:`~pokerlab.evaluate.nolimit.acpc_dealer.AcpcDealer`), announces ``VERSION:2.0.0`` and
plays a :class:`~pokerlab.evaluate.nolimit.agents.NoLimitAgent` until the dealer closes the
connection. The messages are read, checked and written by :mod:`pokerlab.interop.acpc` (the
protocol, positions and chip conventions are described there).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from pokerlab._rng import keyed_generator
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import NoLimitAgent, PublicView, check_policy
from pokerlab.interop.acpc import VERSION, AcpcGame, Replay, parse_matchstate

__all__ = ["ClientResult", "play_acpc", "replay_view"]


def replay_view(replay: Replay) -> PublicView:
    """The agent's public view of a replayed match state."""
    return PublicView(replay.rules, replay.state, replay.board, replay.history)


@dataclass
class ClientResult:
    """What :func:`play_acpc` saw: ``hands``: each finished hand as ``(hand number, position,
    net chips)``, the chips computed from the final message by the rules; ``decisions``: the
    actions sent; ``big_blind``: the game's big blind in chips."""

    big_blind: int
    hands: list[tuple[int, int, Fraction]] = field(default_factory=list)
    decisions: int = 0

    @property
    def chips(self) -> Fraction:
        """Net chips over the finished hands."""
        return sum((c for _, _, c in self.hands), Fraction(0))

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary: hands, chips, big blinds, mbb per hand, decisions."""
        n = len(self.hands)
        bb = float(self.chips) / self.big_blind
        return {
            "hands": n,
            "chips": float(self.chips),
            "bb": bb,
            "mbb_per_hand": 1000.0 * bb / n if n else None,
            "decisions": self.decisions,
        }


def _hand_generator(seed: int, hand: int) -> np.random.Generator:
    """The draws of one hand: a generator seeded by (seed, hand number), so a hand's choices
    do not depend on the hands before it."""
    return keyed_generator(seed, hand)


def play_acpc(
    game: AcpcGame,
    agent: NoLimitAgent,
    host: str,
    port: int,
    *,
    seed: int = 0,
    timeout: float | None = None,
    log: Callable[[str], None] | None = None,
) -> ClientResult:
    """Connect to an ACPC dealer at ``host:port``, announce ``VERSION:2.0.0`` and play
    ``agent`` until the dealer closes the connection.

    Every match state is replayed on ``game``'s rules (:meth:`AcpcGame.replay`); when the
    receiver is on move the agent's policy is checked (:func:`~pokerlab.evaluate.nolimit.
    agents.check_policy`), an action drawn with one uniform per decision from a generator of
    (``seed``, hand number) (:func:`~pokerlab.evaluate.nolimit.matches.sample_action`) and
    answered as the protocol says. Each hand's final state gives its chips. ``timeout``: seconds
    to wait for the connection and for each message (None: forever); ``log``: called with every
    line received (``<-``) and sent (``->``). Bad messages and network failures raise
    :class:`~pokerlab.errors.PokerlabError`."""
    from pokerlab.evaluate.nolimit.matches import sample_action

    result = ClientResult(game.rules.big_blind)
    done: set[int] = set()
    rng_hand, rng = -1, _hand_generator(seed, 0)
    try:
        sock = socket.create_connection((host, int(port)), timeout=timeout)
    except OSError as exc:
        raise PokerlabError(f"ACPC: could not connect to {host}:{port}: {exc}") from None
    with sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = sock.makefile("rb")
        try:
            sock.sendall(f"VERSION:{VERSION}\r\n".encode("ascii"))
            if log:
                log(f"-> VERSION:{VERSION}")
            for raw in reader:
                try:
                    line = raw.decode("ascii").rstrip("\r\n")
                except UnicodeDecodeError:
                    raise PokerlabError(
                        f"ACPC: the dealer sent a line that is not ASCII: {raw[:60]!r}"
                    ) from None
                if log:
                    log(f"<- {line}")
                if not line or line[0] in "#;":
                    continue
                replay = game.replay(parse_matchstate(line))
                hand = replay.message.hand
                if replay.finished:
                    if hand not in done:
                        done.add(hand)
                        chips = replay.chips()[replay.seat]
                        result.hands.append((hand, replay.message.position, chips))
                    continue
                if not replay.on_move:
                    continue
                if hand != rng_hand:
                    rng_hand, rng = hand, _hand_generator(seed, hand)
                who = f"agent {agent.name!r}"
                view = replay_view(replay)
                policy = check_policy(view, agent.policy(view, replay.hole), who)
                action = sample_action(policy, float(rng.random()))
                answer = f"{line}:{game.action_token(replay.state, action)}"
                sock.sendall((answer + "\r\n").encode("ascii"))
                result.decisions += 1
                if log:
                    log(f"-> {answer}")
        except TimeoutError:
            raise PokerlabError(
                f"ACPC: no message from the dealer at {host}:{port} within {timeout} s"
            ) from None
        except OSError as exc:
            raise PokerlabError(f"ACPC: the connection to {host}:{port} failed: {exc}") from None
        finally:
            reader.close()
    return result
