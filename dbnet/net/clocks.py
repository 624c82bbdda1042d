"""A game session's chess clocks (docs/protocol.md, "Clocks"): the thin trio layer over
``dbnet.protocol.clock``.

``SessionClocks`` keeps this side's ``ClockView`` in step with the game (every entry
written or received), gives the readings this side's entries carry, learns the round
trip from the connection's PINGs, claims the game on time when the peer's clock runs
out (``watch``), disputes a clock claim against this side that its own clock refutes
(protocol version 4), keeps waiting on the peer's clock when the peer withholds entries,
and keeps this side's view beside the replay while the game is adjourned. The rules of a
claim and of a dispute are the log's (``protocol.claims``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Final

import trio

from dbnet.engine import Player
from dbnet.files import replace_atomically
from dbnet.net.link import Link
from dbnet.protocol.claims import is_clock_claim
from dbnet.protocol.clock import ClockView, format_clock
from dbnet.protocol.errors import ProtocolError
from dbnet.protocol.log import Status
from dbnet.protocol.remote import RemoteGame
from dbnet.text import os_error_words
from dbnet.wire.bodies import ClaimBody, EntryKind
from dbnet.wire.entries import Entry
from dbnet.wire.versions import DISPUTE_VERSION

__all__ = [
    "CLAIM_SUFFIX",
    "CLOCKS_SUFFIX",
    "DISPUTE_MARGIN_MS",
    "MAX_TRANSIT_CREDIT_MS",
    "SessionClocks",
    "clock_claim_result",
]

CLOCKS_SUFFIX: Final = ".clocks"
"""Beside a replay, this side's view of the clocks of its adjourned game (JSON)."""

MAX_TRANSIT_CREDIT_MS: Final = 2_000
"""The most a move of the peer is not charged for as transit (its estimated round trip,
which a peer can make longer by answering PINGs late, is capped at this)."""

DISPUTE_MARGIN_MS: Final = MAX_TRANSIT_CREDIT_MS
"""A clock claim against this side is disputed when this side's own clock reads more than
this when the claim comes: an honest claim arrives when this side's own view reads about
0, give or take the transit the two views credit differently (at most this)."""

CLAIM_SUFFIX: Final = ".clock-claim-"
"""Beside a replay, ``REPLAY.clock-claim-SEQ``: the peer's clock claim (entry SEQ) that
this side could not add to its log, as the signed entry record it received."""


def now_ms() -> int:
    """Trio's clock in milliseconds: what clocks are measured with."""
    return int(trio.current_time() * 1000)


def clock_claim_result(game: RemoteGame | None) -> str | None:
    """When a clock claim closed the log: who claimed, whether it is disputed, and that a
    claim is its claimant's word (no result: ``dbnet verify`` shows it as a claim)."""
    if game is None or not game.records:
        return None
    found = game.log.clock_claim()
    if found is None:
        return None
    claimant = Player(found[1].author)
    flagged = claimant.other
    last = game.log.decoded[-1].body
    dispute = last.clock if game.log.status is Status.DISPUTED else None
    if claimant is game.me:
        said = (
            f"you ({claimant.name}) claimed the game on time: by your clock "
            f"{flagged.name}'s ran out"
        )
    else:
        said = (
            f"the opponent ({claimant.name}) claimed the game on time: by its clock yours ran out"
        )
    if dispute is None:
        signer = "you" if flagged is game.me else "the opponent"
        return (
            f"{said}; {signer} signed no dispute (dbnet verify: a clock claim, not "
            "acknowledged by the flagged player)"
        )
    whose = "your" if flagged is game.me else "its"
    who = "you" if flagged is game.me else "the opponent"
    return (
        f"{said}; {who} disputed it: by {whose} clock, {format_clock(dispute[flagged])} was "
        "left. A disputed clock claim is no result: the event's rules decide it (dbnet "
        "verify shows both signed readings)"
    )


class SessionClocks:
    """This side's clocks in one game session; ``view`` is None until a game with a clock
    is being played (``start``)."""

    def __init__(self, say: Callable[[str], None], notify: Callable[[], None]) -> None:
        self.say = say
        self.notify = notify
        """Called when this side claimed on time: the log moved."""
        self.view: ClockView | None = None
        self._refused = False  # a claim on time this side's own log refused
        self._withheld: int | None = None  # the entry the peer withholds (said once)

    # --- the session's hooks -----------------------------------------------------------

    def start(self, game: RemoteGame, replay: Path | None) -> None:
        """In a game with a clock: this side's view of the clocks, from now (and from the
        view kept when the game was adjourned, if any), and the readings its entries
        carry."""
        if game.log.clock is None or self.view is not None:
            return
        self.view = view = ClockView(game.log, game.me, now_ms())
        game.peer.reading = lambda: view.reading(now_ms())
        kept = _kept_path(replay)
        if kept is None:
            return
        try:
            saved = json.loads(kept.read_text(encoding="utf-8"))
            if saved["game_id"] == game.game_id.hex() and saved["entries"] == len(game.records):
                clocks = saved["clocks"]
                view.at_most((int(clocks[0]), int(clocks[1])))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return  # none kept (or not readable): the signed readings alone

    def stop(self, game: RemoteGame | None, replay: Path | None) -> None:
        """When the session ends with the game open (adjourned, stopped): keep this side's
        view of the clocks beside the replay, so that the time of the move in progress is
        not forgotten when the game is resumed; once the log is closed, drop it."""
        view, path = self.view, _kept_path(replay)
        if game is None or view is None or path is None:
            return
        try:
            if game.is_closed:
                path.unlink(missing_ok=True)
                return
            kept = {
                "game_id": game.game_id.hex(),
                "entries": len(game.records),
                "clocks": list(view.reading(now_ms())),
            }
            replace_atomically(path, json.dumps(kept).encode())
        except OSError as exc:
            self.say(f"the clocks could not be kept beside the replay: {os_error_words(exc)}")

    def follow(self, game: RemoteGame) -> None:
        """After an entry, this side's or the peer's: the clocks switch; an entry of the
        peer's that came after its flag fell (by this side's view) is claimed on time at
        once; a clock claim against this side is told with this side's own reading."""
        view = self.view
        if view is None:
            return
        now = now_ms()
        view.follow(game.log, now)
        if view.late is not None and view.flagged is game.me.other and not game.is_closed:
            self._claim(game, view.late)
        last = game.log.decoded[-1]
        if is_clock_claim(last.body) and last.author != game.me:
            self._answer(game, now)

    def _answer(self, game: RemoteGame, now: int) -> None:
        """The peer's clock claim against this side, which its log accepted: disputed
        (signed, saved, then sent) when this side's own clock reads more than the margin
        (protocol version 4), else told with this side's own reading."""
        view = self.view
        assert view is not None
        left = view.left(game.me, now)
        if left <= DISPUTE_MARGIN_MS or game.log.version < DISPUTE_VERSION:
            self.say(
                f"the opponent claims the game on time: by its clock yours ran out; by "
                f"yours, {format_clock(left)} was left. The claim is signed by the opponent "
                "alone, and every verifier shows it as a clock claim, not a result"
            )
            return
        try:
            game.dispute(view.reading(now))
        except ProtocolError as exc:  # not expected: the log accepted the claim
            self.say(f"the opponent claims the game on time; it could not be disputed: {exc}")
            return
        self.say(
            f"the opponent claims the game on time, but by your clock {format_clock(left)} "
            "was left: you dispute it; your signed dispute is sent and saved (every "
            "verifier shows a disputed clock claim, no result)"
        )
        self.notify()

    def runs_for_peer(self, game: RemoteGame) -> bool:
        """Whether the peer's clock runs now (it owes the next entry of a game with a
        clock that is not over): leaving does not stop it."""
        return self.view is not None and not game.is_closed and self.view.flag_at() is not None

    def pong(self, link: Link, token: int) -> None:
        """A PONG came on ``link``: the round trip the peer's moves are not charged for."""
        link.pong(token)
        if self.view is not None:
            self.view.round_trip = min(link.round_trip_ms, MAX_TRANSIT_CREDIT_MS)

    async def watch(
        self, game_now: Callable[[], RemoteGame | None], changed: Callable[[], trio.Event]
    ) -> None:
        """Claim the game on time when the peer's clock runs out while this side waits
        (connected or not). ``game_now`` is the session's game, ``changed`` the event set
        at its next change."""
        while True:
            event = changed()
            game, view = game_now(), self.view
            due = None
            if game is not None and view is not None and not game.is_closed and not self._refused:
                due = view.flag_at()
            if due is None:
                await event.wait()
                continue
            with trio.move_on_at((due + 1) / 1000):
                await event.wait()
                continue
            assert game is not None
            if not self._claim(game, None):
                await trio.sleep(0.001)  # not quite yet (the clock's rounding)

    def line(self) -> str | None:
        """Both clocks now, as this side sees them (None without a clock):
        ``clocks: A 9:58  B 10:00 (B's runs)``."""
        view = self.view
        if view is None:
            return None
        now = now_ms()
        running = view.running
        a, b = (format_clock(view.left(p, now)) for p in (Player.A, Player.B))
        runs = f" ({running.name}'s runs)" if running is not None else ""
        return f"clocks: A {a}  B {b}{runs}"

    # --- claims that cross entries -----------------------------------------------------

    @staticmethod
    def own_claim(game: RemoteGame) -> int | None:
        """If this side's clock claim closed the log: the entry it names, else None."""
        if not game.is_closed or len(game.log.decoded) < 2:
            return None
        last = game.log.decoded[-1]
        body = last.body
        if is_clock_claim(last.body) and last.author == game.me:
            assert isinstance(body, ClaimBody)
            return body.waiting_for
        return None

    def too_late(self, game: RemoteGame, entry: Entry) -> bool:
        """Whether ``entry`` is the peer's and comes after this side's clock claim closed
        the log (they crossed): it came too late, and is dropped. A DISPUTE of the claim
        is not (the log checks it)."""
        waited = self.own_claim(game)
        return (
            waited is not None
            and entry.author != game.me
            and entry.seq >= waited
            and entry.kind is not EntryKind.DISPUTE
        )

    def withheld(self, game: RemoteGame, record: bytes, entry: Entry, replay: Path | None) -> bool:
        """In a game with a clock: whether ``entry`` is the peer's, beyond entries it has
        not sent (it withholds them). Such an entry is dropped, not answered: whoever owes
        the next entry by this side's log still owes it, and when that is the peer its
        clock runs on until this side claims on time (``watch``). A clock claim that came
        that way is kept beside the replay (``REPLAY.clock-claim-SEQ``). Said once."""
        held = len(game.records)
        if (
            self.view is None
            or game.is_closed
            or entry.author == game.me
            or entry.game_id != game.game_id
            or entry.seq <= held
        ):
            return False
        if self._withheld != held:
            self._withheld = held
            kept = _keep_claim(record, entry, replay) if is_clock_claim(entry.body) else ""
            what = "its clock claim" if is_clock_claim(entry.body) else f"its entry {entry.seq}"
            owes = "you owe it" if game.my_turn else "by your clock it owes it"
            self.say(
                f"the opponent sent {what} without entries {held} to {entry.seq - 1}: it "
                f"withholds entry {held}, and {owes}. The game goes on; the opponent's "
                f"clock runs until its entry comes, and you claim on time if it runs "
                f"out{kept}"
            )
        return True

    @staticmethod
    def disputed(game: RemoteGame, record: bytes, entry: Entry, replay: Path | None) -> str | None:
        """If ``record`` (decoded: ``entry``) is the peer's clock claim for an entry this
        side wrote already (they crossed): why the game cannot go on (the claim is kept
        beside the replay), else None."""
        seq = game.claim_conflict(record, entry)
        if seq is None:
            return None
        kept = _keep_claim(record, entry, replay)
        return (
            f"the opponent claims the game on time before your entry {seq}, which was "
            f'already sent: a disputed flag (docs/protocol.md, "Clocks"){kept}'
        )

    # --- claiming ----------------------------------------------------------------------

    def _claim(self, game: RemoteGame, waiting_for: int | None) -> bool:
        """Claim the game on time if the peer's clock reads 0; whether it was claimed."""
        view = self.view
        assert view is not None
        reading = view.reading(now_ms())
        other = game.me.other
        if reading[other] != 0 or self._refused:
            return False
        try:
            game.claim_on_time(reading, waiting_for)
        except ProtocolError as exc:  # not expected: this side's own view broke a rule
            self._refused = True
            self.say(f"the opponent's clock ran out, but no claim could be made: {exc}")
            return False
        view.follow(game.log, now_ms())
        self.say(
            f"the opponent's clock ran out ({other.name}): you claim the game on time; "
            "your signed clock claim is sent and saved"
        )
        self.notify()
        return True


def _keep_claim(record: bytes, entry: Entry, replay: Path | None) -> str:
    """Keep the peer's clock claim (``record``, entry ``entry.seq``) beside the replay, as
    the signed entry record received (``REPLAY.clock-claim-SEQ``); what to add to the
    message: where, or why not."""
    if replay is None:
        return ""
    path = replay.with_name(f"{replay.name}{CLAIM_SUFFIX}{entry.seq}")
    try:
        path.write_bytes(record)
    except OSError as exc:
        return f"; the claim could not be kept: {os_error_words(exc)}"
    return f"; the claim is kept in {path}"


def _kept_path(replay: Path | None) -> Path | None:
    """Where this side keeps its view of the clocks while the game is adjourned."""
    return None if replay is None else replay.with_name(replay.name + CLOCKS_SUFFIX)
