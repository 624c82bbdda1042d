"""Chess-style clocks (docs/protocol.md, "Clocks"): the setting, and one peer's view of
both players' clocks.

Sans-IO and integer: the caller passes the time as monotonic milliseconds; nothing here
reads a clock. What the log checks of the clocks (every entry's reading, clock claims) is
in ``dbnet.protocol.log``; this module is how an honest peer keeps time:

- a player's clock runs while the log names it as the author of the next entry (from the
  first entry after the ACCEPT until the game is over);
- its own time is measured locally, from when the entry that made it the author came (or
  was written) until it writes its own;
- the other player's time runs from when this peer's entry went out until the other's
  next entry arrives, less the estimated round trip (``round_trip``), so that the time a
  message spends in transit, either way, is not charged;
- a player who hands the move over (its entry makes the other the author) gains the
  increment; a clock that reaches 0 stays at 0 (the flag has fallen).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Final

from dbnet.engine import Player
from dbnet.protocol.log import GameLog, Status
from dbnet.wire.setup import MAX_CLOCK_MS, MAX_INCREMENT_MS

__all__ = [
    "CLOCK_EXAMPLE",
    "ClockSetting",
    "ClockView",
    "format_clock",
    "paused_reading",
    "running_player",
]

CLOCK_EXAMPLE: Final = "--clock 10 (10 minutes each) or --clock 25+10 (25 minutes, +10 s a move)"
_CLOCK_TEXT: Final = re.compile(r"(\d{1,9}(?:\.\d{1,3})?)(?:\+(\d{1,9}(?:\.\d{1,3})?))?")


@dataclass(frozen=True, slots=True)
class ClockSetting:
    """The time each player starts with and gains with each move it hands over, in ms."""

    base_ms: int
    increment_ms: int = 0

    @classmethod
    def parse(cls, text: str) -> ClockSetting:
        """``MINUTES[+SECONDS]``: ``10``, ``25+10``, ``0.5+2``.

        Raises:
            ValueError: the text is not of that form, or out of range (saying so, with an
                example).
        """
        match = _CLOCK_TEXT.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"expected MINUTES[+SECONDS], got {text!r}; e.g. {CLOCK_EXAMPLE}")
        try:
            base = int(Decimal(match[1]) * 60_000)
            increment = int(Decimal(match[2] or "0") * 1000)
        except InvalidOperation as exc:  # pragma: no cover - the pattern allows only digits
            raise ValueError(f"not a number in {text!r}; e.g. {CLOCK_EXAMPLE}") from exc
        if not 1_000 <= base <= MAX_CLOCK_MS:
            raise ValueError(
                f"the base time must be from 1 second to {MAX_CLOCK_MS // 60_000} minutes, "
                f"got {text!r}; e.g. {CLOCK_EXAMPLE}"
            )
        if increment > MAX_INCREMENT_MS:
            raise ValueError(
                f"the increment must be at most {MAX_INCREMENT_MS // 1000} seconds, got "
                f"{text!r}; e.g. {CLOCK_EXAMPLE}"
            )
        return cls(base, increment)

    @classmethod
    def from_wire(cls, clock: tuple[int, int]) -> ClockSetting:
        return cls(clock[0], clock[1])

    @property
    def wire(self) -> tuple[int, int]:
        """``(base, increment)`` in ms: the setup's ``clock``."""
        return self.base_ms, self.increment_ms

    def describe(self) -> str:
        """``10 min``, ``25 min + 10 s a move``, ``1:30 min + 0.5 s a move``."""
        base = self.base_ms
        text = f"{base // 60_000} min" if base % 60_000 == 0 else f"{format_clock(base)} min"
        if not self.increment_ms:
            return text
        seconds, ms = divmod(self.increment_ms, 1000)
        increment = str(seconds) if not ms else f"{seconds}.{ms:03}".rstrip("0")
        return f"{text} + {increment} s a move"


def format_clock(ms: int) -> str:
    """A clock reading for people: ``9:58``, ``1:02:03``, and tenths under 20 s (``0:07.4``)."""
    ms = max(ms, 0)
    seconds, rest = divmod(ms, 1000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    text = f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"
    if not hours and not minutes and seconds < 20:
        text += f".{rest // 100}"
    return text


def paused_reading(log: GameLog, me: Player) -> Callable[[], tuple[int, int]]:
    """``me``'s reading of the clocks of an adjourned game (they do not run while it is):
    for an entry written without a connection, such as a timeout claim from ``dbnet
    resume --claim-timeout``."""
    view = ClockView(log, me, 0)
    return lambda: view.reading(0)


def running_player(log: GameLog) -> Player | None:
    """Whose clock runs now: the next author while the game is played (from the first
    entry after the ACCEPT); nobody's in a game without a clock, before, or once over."""
    if log.clock is None or len(log.entries) < 2 or log.status is not Status.PLAYING:
        return None
    return log.expected_author()


class ClockView:
    """One peer's view of both clocks in a game with a clock (see the module docstring).

    Made from the log: a resumed game goes on from this peer's last signed reading of its
    own clock, and for the other's the lower of this peer's and the other's own last
    readings (time does not run while a game is adjourned). ``follow(log, now)`` after
    every entry added to the log, this peer's own or the other's.
    """

    def __init__(self, log: GameLog, me: Player, now: int) -> None:
        assert log.clock is not None
        self.setting = ClockSetting.from_wire(log.clock)
        self.me = me
        self.remaining = [self.setting.base_ms, self.setting.base_ms]
        self.flagged: Player | None = None
        """The first player whose clock reached 0 in this view."""
        self.late: int | None = None
        """The seq of the other player's entry that came after its flag fell, if one did."""
        self.round_trip = 0
        """The estimated round trip (ms) a move of the other player is not charged for."""
        mine = self._resumed(log, me, me)
        if mine is not None:
            self.remaining[me] = mine
        other = me.other
        theirs = [
            t
            for t in (self._resumed(log, me, other), self._resumed(log, other, other))
            if t is not None
        ]
        if theirs:
            self.remaining[other] = min(theirs)
        for player in (Player.A, Player.B):
            if self.remaining[player] == 0 and self.flagged is None:
                self.flagged = player
        self.running = running_player(log)
        self.since = now
        self.seen = len(log.entries)

    def at_most(self, clocks: tuple[int, int]) -> None:
        """Lower each clock to ``clocks`` (ms) where it is higher: this peer's own view when
        the game adjourned (kept beside the replay), which the signed readings may not
        show yet (the time of a move the adjournment interrupted)."""
        for player in (Player.A, Player.B):
            self.remaining[player] = min(self.remaining[player], max(clocks[player], 0))
            if self.remaining[player] == 0 and self.flagged is None:
                self.flagged = player

    def left(self, player: Player, now: int) -> int:
        """``player``'s remaining time at ``now`` in this view (ms, at least 0)."""
        left = self.remaining[player]
        if player is self.running:
            left -= max(now - self.since, 0)
        return max(left, 0)

    def reading(self, now: int) -> tuple[int, int]:
        """Both clocks at ``now``: the reading this peer signs in an entry written now."""
        return self.left(Player.A, now), self.left(Player.B, now)

    def flag_at(self) -> int | None:
        """When the other player's clock reaches (or reached) 0 if it keeps running (None:
        it does not run)."""
        other = self.me.other
        if self.running is not other:
            return None
        return self.since + self.remaining[other]

    def follow(self, log: GameLog, now: int) -> None:
        """Account for the entries added to ``log`` since the last call, all at ``now``:
        the running clock stops (a clock at 0 flags its player; the other player's entry
        that came after its flag is ``late``), each move handed over gains its author the
        increment, and the next author's clock starts: this peer's own at once, the other
        player's after the estimated round trip."""
        held = len(log.entries)
        if held == self.seen:
            return
        running = self.running
        if running is not None:
            self.remaining[running] = self.left(running, now)
            if self.remaining[running] == 0 and self.flagged is None:
                self.flagged = running
                if running is not self.me:
                    self.late = self.seen
        for seq in range(self.seen, held):
            self._increment(log, seq)
        self.seen = held
        self.running = running_player(log)
        self.since = now if self.running is self.me else now + self.round_trip

    def _resumed(self, log: GameLog, reader: Player, player: Player) -> int | None:
        """``player``'s time by ``reader``'s last signed reading in ``log``, with the
        increments ``player`` gained after it; None if ``reader`` signed no reading."""
        for seq in range(len(log.decoded) - 1, 0, -1):
            entry = log.decoded[seq]
            if entry.author == reader and entry.body.clock is not None:
                left = entry.body.clock[player]
                for later in range(seq, len(log.decoded)):
                    if self._hands_over(log, later) is player:
                        left += self.setting.increment_ms
                return left
        return None

    def _hands_over(self, log: GameLog, seq: int) -> Player | None:
        """The author of entry ``seq`` if it handed the move over to the other player."""
        author = Player(log.decoded[seq].author)
        if seq + 1 < len(log.decoded):
            following: Player | None = Player(log.decoded[seq + 1].author)
        else:
            following = running_player(log)
        if seq < 2 or following is None or following is author:
            return None
        return author

    def _increment(self, log: GameLog, seq: int) -> None:
        """The increment for entry ``seq`` if it handed the move over (and its author's
        flag has not fallen)."""
        author = self._hands_over(log, seq)
        if author is not None and author is not self.flagged:
            self.remaining[author] += self.setting.increment_ms
