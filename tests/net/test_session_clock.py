"""Clocks between two live ``GameSession``s on trio's mock clock: a slow joiner's clock
runs out and the host claims the game on time (both logs close with the claim, and both
replays verify as a clock claim); quick players finish within their clocks."""

from __future__ import annotations

import json
from pathlib import Path

import trio
import trio.testing

from dbnet.engine import Player
from dbnet.net.clocks import CLOCKS_SUFFIX, MAX_TRANSIT_CREDIT_MS, clock_claim_result
from dbnet.net.session_values import GameSessionError, Outcome
from dbnet.protocol.clock import ClockSetting
from dbnet.replay.verify import VerdictStatus

from .helpers import ALICE, BOB, Meter, PassThroughStream
from .sessions import Network, make_side, play, resume_side


async def test_a_slow_joiner_loses_on_time(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    clock = ClockSetting(30_000, 1_000)
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, clock=clock)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, think=4.0, clock=clock)
    await play(host, joiner, Network())
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.records == joiner.records
    assert host.saw("the opponent's clock ran out (B): you claim the game on time")
    assert joiner.saw("a clock of 0:30 min + 1 s a move")
    assert joiner.saw("the opponent claims the game on time: by its clock yours ran out")
    for side in (host, joiner):
        verdict = side.verdict()
        assert verdict.status is VerdictStatus.CLAIM, verdict
        assert (verdict.reason, verdict.winner, verdict.claimant) == ("clock", None, "A")
        assert not verdict.disputed  # the joiner's own clock ran out too: no dispute
    game = host.session.game
    assert game is not None
    claim = game.log.decoded[-1]
    assert claim.author == Player.A
    assert claim.body.clock is not None
    assert claim.body.clock[Player.B] == 0
    assert claim.body.clock[Player.A] > 0
    result = clock_claim_result(joiner.session.game)
    assert result is not None
    assert result.startswith(
        "the opponent (A) claimed the game on time: by its clock yours ran out; you signed "
        "no dispute"
    )


async def test_quick_players_finish_within_their_clocks(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    clock = ClockSetting(600_000)
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, clock=clock, think=0.5)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, clock=clock, think=0.5)
    await play(host, joiner, Network())
    assert host.outcome is Outcome.COMPLETE, host.said
    assert host.records == joiner.records
    assert host.verdict().status is VerdictStatus.COMPLETE
    # each side's readings of its own clock: what its view measured (0.5 s a decision)
    game = host.session.game
    assert game is not None
    for player in (Player.A, Player.B):
        entries = [e for e in game.log.decoded[2:] if e.author == player]
        own = [e.body.clock[player] for e in entries if e.body.clock is not None]
        assert len(own) == len(entries)
        assert own == sorted(own, reverse=True)
        assert 500_000 < own[-1] < 600_000
    assert host.saw("clocks: A ")


class Delayed(PassThroughStream):
    """Everything sent through it arrives ``delay`` seconds late (a slow one-way link)."""

    def __init__(self, inner: trio.abc.Stream, delay: float) -> None:
        super().__init__(inner)
        self.delay = delay

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.sleep(self.delay)
        await self.inner.send_all(data)


async def test_a_claim_that_crosses_the_flagged_players_entry(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """The joiner's entries take 3 s to reach the host, which credits at most 2 s of
    transit: by the host's clock the joiner's flag falls while, by the joiner's own, its
    entry was written in time. The host's log ends with its claim on time, and it drops
    the entry that comes after; the joiner's ends with its own entry: it stops, saying
    the flag is disputed, and keeps the claim beside its replay. Both replays verify."""
    clock = ClockSetting(20_000)
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, clock=clock)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, think=5.0, clock=clock)

    def slow_joiner(
        n: int, joiner_end: trio.abc.Stream, host_end: trio.abc.Stream
    ) -> tuple[trio.abc.Stream, trio.abc.Stream]:
        return Delayed(joiner_end, 3.0), host_end

    await play(host, joiner, Network(slow_joiner))
    assert host.outcome is Outcome.COMPLETE, host.said
    view = host.session.clocks.view
    assert view is not None
    assert view.round_trip == MAX_TRANSIT_CREDIT_MS  # 3 s measured by PING, capped at 2 s
    host_verdict = host.verdict()
    assert host_verdict.status is VerdictStatus.CLAIM
    assert (host_verdict.reason, host_verdict.claimant) == ("clock", "A")
    claim_seq = len(host.records) - 1
    if isinstance(joiner.outcome, GameSessionError):  # the claim and the entry crossed
        assert "a disputed flag" in str(joiner.outcome)
        kept = joiner.path.with_name(f"{joiner.path.name}.clock-claim-{claim_seq}")
        assert kept.read_bytes() == host.records[-1]
        assert joiner.records[:claim_seq] == host.records[:claim_seq]
        assert joiner.verdict().status is VerdictStatus.UNFINISHED
        assert host.saw("you claim the game on time")  # the joiner's entry came after
    else:  # pragma: no cover - the mock clock makes it cross, at entry 4
        raise AssertionError(f"they did not cross: {joiner.outcome}")


async def test_the_clocks_stand_still_while_a_game_is_adjourned(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """The connection is cut at entry 20 and the host cannot be reached: both sides wait
    ``adjourn_after`` (300 s), during which the other's clock runs in each view (each
    waits for the other: the entry cut off never came), and adjourn, keeping their views
    of the clocks beside their replays. Later (hours, for all the clocks know) both
    resume and go on from their own views: no clock went back up, the wait counted for
    the player each side waited for, and nothing after the adjournment counted."""
    network = Network()

    def wrap(
        n: int, joiner_end: trio.abc.Stream, host_end: trio.abc.Stream
    ) -> tuple[trio.abc.Stream, trio.abc.Stream]:
        meter = Meter(entry=20)
        original = meter.sever

        def sever() -> None:
            network.refuse = True
            original()

        meter.sever = sever  # type: ignore[method-assign]
        ends: tuple[trio.abc.Stream, trio.abc.Stream] = meter.pair(joiner_end, host_end)
        return ends

    network.wrap = wrap
    clock = ClockSetting(3_600_000)
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, clock=clock, think=1.0)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, clock=clock, think=1.0)
    await play(host, joiner, network)
    assert host.outcome is Outcome.ADJOURNED, host.said
    assert joiner.outcome is Outcome.ADJOURNED, joiner.said
    for side, other in ((host, Player.B), (joiner, Player.A)):
        # each side keeps its view of the clocks beside its replay: the other's clock ran
        # while this side waited for it, until the game adjourned
        path = side.path.with_name(side.path.name + CLOCKS_SUFFIX)
        kept = json.loads(path.read_text())
        assert kept["entries"] == len(side.records)
        assert kept["clocks"][other] < 3_600_000 - 290_000
    await trio.sleep(7_200)  # two hours later
    host2 = resume_side(host, seed="later A")
    joiner2 = resume_side(joiner, seed="later B")
    await play(host2, joiner2, Network())
    assert host2.outcome is joiner2.outcome is Outcome.COMPLETE
    assert host2.verdict().status is VerdictStatus.COMPLETE
    game = host2.session.game
    assert game is not None
    for player in (Player.A, Player.B):
        readings = [e.body.clock for e in game.log.decoded[1:] if e.author == player]
        own = [r[player] for r in readings if r is not None]
        assert len(own) == len(readings)
        assert own == sorted(own, reverse=True)  # no clock went back up on resuming
        assert 3_600_000 - 250_000 < own[-1] < 3_600_000 - 5_000  # its own: no waiting
        last = [r for r in readings if r is not None][-1]
        assert last[player.other] < 3_600_000 - 290_000  # the other's: the wait counted
    for side in (host2, joiner2):  # the game is over: no clocks are kept any more
        assert not side.path.with_name(side.path.name + CLOCKS_SUFFIX).exists()


async def test_a_claim_the_flagged_players_own_clock_refutes_is_disputed(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """The joiner's entries take 3 s to reach the host, which credits at most 2 s of
    transit: the host's view of the joiner's clock falls ever further behind the
    joiner's own, and the host claims the game on time while, by the joiner's own
    clock, seconds are left. The joiner disputes it with its own signed reading; the
    host takes the dispute (it is no entry that came too late), and both replays end
    with the claim and the dispute: a disputed clock claim, no result (issue 29 item 4)."""
    clock = ClockSetting(40_000)
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, clock=clock)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, think=12.0, clock=clock)

    def slow_joiner(
        n: int, joiner_end: trio.abc.Stream, host_end: trio.abc.Stream
    ) -> tuple[trio.abc.Stream, trio.abc.Stream]:
        return Delayed(joiner_end, 3.0), host_end

    await play(host, joiner, Network(slow_joiner))
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.records == joiner.records
    assert joiner.saw("the opponent claims the game on time, but by your clock ")
    assert joiner.saw("you dispute it; your signed dispute is sent and saved")
    for side in (host, joiner):
        verdict = side.verdict()
        assert verdict.status is VerdictStatus.CLAIM, verdict
        assert (verdict.claimant, verdict.winner, verdict.disputed) == ("A", None, True)
        assert verdict.dispute_reading is not None
        assert verdict.dispute_reading[Player.B] > 2_000
        assert verdict.summary().startswith("disputed clock claim (not a result): A says B's")
    result = clock_claim_result(host.session.game)
    assert result is not None
    assert result.startswith("you (A) claimed the game on time: by your clock B's ran out; the")
    assert "opponent disputed it: by its clock, " in result
