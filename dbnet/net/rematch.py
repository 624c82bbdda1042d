"""The rematch offer and its answer after a network game, sans-IO (docs/channel.md).

When a game's log is complete on both sides, each player says once, in a REMATCH
message sent right after its BYE (done), whether it wants another game over the same
connection: the first to say yes offers, the other's answer accepts or declines. Both
yes: a new game starts on the connection (the joiner sends a new HELLO with a fresh
nonce, the host a new OFFER: a new game id, a new replay). Any no: both close as
before. REMATCH exists from channel version ``REMATCH_VERSION`` on; with an older peer
nothing is sent, and a side that wanted another game is told in one line.

No sockets or clock here: ``Rematch`` takes this side's policy and the peer's message
and says what to send and how it ended. Usage::

    rematch = Rematch(RematchPolicy(games=1))
    message = rematch.answer(channel_version)   # send it (None: nothing to send)
    rematch.receive(peer_message)               # the peer's REMATCH, once
    if rematch.agreed: ...                      # a new game on this connection
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

import trio

from dbnet.net.errors import NetError
from dbnet.net.messages import MAX_REASON_LEN, RematchMessage

__all__ = [
    "ASK_SECONDS",
    "NO_REMATCH",
    "OLD_PEER",
    "PLAYER_DECLINES",
    "REMATCH_VERSION",
    "SEEDED",
    "TERMS_HINT",
    "Ask",
    "Rematch",
    "RematchError",
    "RematchPolicy",
    "RematchState",
    "ask_player",
]

REMATCH_VERSION: Final = 4
"""The first channel version with REMATCH."""

NO_REMATCH: Final = "this side plays one game (dbnet host/join --rematch N allows N more)"
"""Why a side without ``--rematch`` (a bot, a script) declines."""
SEEDED: Final = "a --seed game cannot be rematched: it would repeat its game id (and its dice)"
"""Why a side that plays with ``--seed`` declines."""
TERMS_HINT: Final = "--turns-to-win N, --clock MINUTES[+SECONDS] or --warband FILE"
"""The terms the host may change for a rematch (``rematch --clock 10+5``)."""
PLAYER_DECLINES: Final = "the player declines"
"""Why a person asked at the end of the game declines (or did not answer in time)."""
ASK_SECONDS: Final = 60.0
"""How long a person is given to answer; then this side declines."""

Ask = Callable[[bool], Awaitable[bool]]
"""Asks the person whether they want another game (given whether the opponent offers
one already): True for yes."""
OLD_PEER: Final = (
    "no rematch: the opponent's dbnet is older (channel version {version}, REMATCH needs "
    f"{REMATCH_VERSION}): it cannot rematch; start a new game with a new invite"
)


class RematchError(NetError):
    """The peer broke the rematch's rules: a second REMATCH, or one on an older channel."""


@dataclass(frozen=True, slots=True)
class RematchPolicy:
    """What this side answers: yes while ``games`` more games are allowed, unless
    ``refusal`` says why it never can (a ``--seed`` game)."""

    games: int = 0
    refusal: str | None = None

    def message(self) -> RematchMessage:
        if self.refusal is not None:
            return RematchMessage(False, self.refusal[:MAX_REASON_LEN])
        if self.games <= 0:
            return RematchMessage(False, NO_REMATCH)
        return RematchMessage(True, "")

    def next(self) -> RematchPolicy:
        """The policy for the next game of the series: one game fewer."""
        return RematchPolicy(max(self.games - 1, 0), self.refusal)


class RematchState(enum.Enum):
    OPEN = "the game is not over, or nobody has said anything yet"
    OFFERED = "this side said yes; waiting for the peer's answer"
    ASKED = "the peer said yes; this side has not answered"
    AGREED = "both said yes: a new game on this connection"
    DECLINED = "a side said no (or the peer's dbnet is older): both close"


class Rematch:
    """One game's rematch exchange on one connection: ``answer`` once, ``receive`` once."""

    def __init__(self, policy: RematchPolicy | None = None, *, person: bool = False) -> None:
        self.policy = policy or RematchPolicy()
        self.person = person
        """Whether a person is asked for this side's answer (then told of an offer)."""
        self.ours: RematchMessage | None = None
        self.theirs: RematchMessage | None = None
        self.old_peer: int | None = None  # the older channel version, if so
        self.said: list[str] = []
        """What to tell the player about the outcome (one line each, at most one)."""

    @property
    def state(self) -> RematchState:
        ours, theirs = self.ours, self.theirs
        if self.old_peer is not None:
            return RematchState.DECLINED
        if (ours is not None and not ours.want) or (theirs is not None and not theirs.want):
            return RematchState.DECLINED
        if ours is not None and theirs is not None:
            return RematchState.AGREED
        if ours is not None:
            return RematchState.OFFERED
        if theirs is not None:
            return RematchState.ASKED
        return RematchState.OPEN

    @property
    def agreed(self) -> bool:
        return self.state is RematchState.AGREED

    @property
    def settled(self) -> bool:
        """Whether both answers are in (or the peer cannot rematch): the game's connection
        may close, or a new game start on it."""
        return self.old_peer is not None or (self.ours is not None and self.theirs is not None)

    def asks(self, version: int) -> bool:
        """Whether this side's answer is the person's to give (asked before ``answer``):
        the policy allows no more games by itself, nothing forbids one, and the peer,
        on a channel that knows REMATCH, has not declined already."""
        theirs = self.theirs
        return (
            self.ours is None
            and version >= REMATCH_VERSION
            and self.policy.games <= 0
            and self.policy.refusal is None
            and (theirs is None or theirs.want)
        )

    @property
    def peer_declined(self) -> bool:
        return self.theirs is not None and not self.theirs.want

    def answer(self, version: int, want: bool | None = None) -> RematchMessage | None:
        """This side's REMATCH on a channel of ``version``, the first time it is asked
        (None after, or on an older channel: nothing to send): the person's ``want`` if
        they were asked, else the policy's.'"""
        if self.ours is not None or self.old_peer is not None:
            return None
        if want is not None and version >= REMATCH_VERSION:
            self.ours = RematchMessage(want, "" if want else PLAYER_DECLINES)
            self._settle()
            return self.ours
        if version < REMATCH_VERSION:
            self.old_peer = version
            if self.policy.games > 0 and self.policy.refusal is None:
                self.said.append(OLD_PEER.format(version=version))
            return None
        self.ours = self.policy.message()
        self._settle()
        return self.ours

    def receive(self, message: RematchMessage, version: int) -> None:
        """The peer's REMATCH on a channel of ``version``.

        Raises:
            RematchError: a second REMATCH, or one on a channel older than REMATCH.
        """
        if version < REMATCH_VERSION:
            raise RematchError(
                f"the peer sent REMATCH on a channel of version {version}; it exists from "
                f"version {REMATCH_VERSION} on"
            )
        if self.theirs is not None:
            raise RematchError("the peer sent REMATCH twice after one game")
        self.theirs = message
        if message.want and self.ours is None and self.person and self.policy.games <= 0:
            self.said.append("the opponent offers a rematch")  # this side's answer is not in
        self._settle()

    def _settle(self) -> None:
        ours, theirs = self.ours, self.theirs
        if ours is None or theirs is None:
            return
        if ours.want and theirs.want:
            self.said.append("rematch: both players want another game; it starts now")
        elif ours.want:
            reason = theirs.reason or "no reason given"
            self.said.append(f"no rematch: the opponent declines: {reason}")
        elif theirs.want:
            self.said.append(
                f"no rematch: the opponent offers one, and this side declines: {ours.reason}"
            )
        elif self.policy.games > 0:  # asked for, but this side cannot (a --seed game)
            self.said.append(f"no rematch: {ours.reason}")
        elif self.person:  # a person may have been asked: the opponent's answer ends it
            self.said.append(f"no rematch: the opponent declines: {theirs.reason or 'no reason'}")


# --- the person's answer (the thin trio side) --------------------------------------------------


async def ask_player(
    rematch: Rematch, ask: Ask, changed: Callable[[], trio.Event], seconds: float = ASK_SECONDS
) -> bool:
    """The person's answer, asked with ``ask``; False when they do not answer within
    ``seconds``, or once the peer declines (``changed`` gives the event set when the
    peer's REMATCH may have come): nobody waits for a question that has no point."""
    answer = False
    async with trio.open_nursery() as nursery:

        async def asking() -> None:
            nonlocal answer
            with trio.move_on_after(seconds):
                answer = await ask(rematch.state is RematchState.ASKED)
            nursery.cancel_scope.cancel()

        nursery.start_soon(asking)
        while True:
            event = changed()
            if rematch.peer_declined:
                nursery.cancel_scope.cancel()
                break
            await event.wait()
    return answer
