"""Whole games between two ``GameSession``s over memory streams, on trio's mock clock:
a perfect network, connections cut anywhere (mid-frame, mid-roll), half-open
connections, heartbeats, adjournment and resumption, a lossy network."""

from __future__ import annotations

import argparse
import errno
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from dbnet.commands import net as net_command
from dbnet.commands.series import Series
from dbnet.engine import ChanceRequest, Choice, Game
from dbnet.match.seats import PeerSeat, PersonSeat
from dbnet.match.story import Event, EventKind
from dbnet.net.session import GameSession, Timing
from dbnet.net.session_values import Outcome, resume_command
from dbnet.protocol.log import GameLog
from dbnet.replay import file as replay_file
from dbnet.replay.errors import DiskFullError
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.replay.verify import VerdictStatus
from dbnet.wire.bodies import EntryKind, PlayBody
from dbnet.wire.entries import decode_signed_entry
from dbnet.wire.replay_header import ReplayHeader

from .helpers import ALICE, BOB, ENTRY_FRAME_MIN, LossyStream, Meter, PassThroughStream
from .sessions import (
    GAME_LIMIT,
    Network,
    Side,
    Wrap,
    bot_chooser,
    final_state,
    make_side,
    play,
    reference,
    resume_side,
    run_side,
)

# Every test runs on trio's mock clock (the autojump_clock fixture), which jumps ahead
# whenever all tasks wait: the real timings (PING after 5 s, dead after 20 s, adjourned
# after 300 s) take no time.
TIMING = Timing()
Clock = trio.testing.MockClock


def pair(tmp_path: Path, *, turns: int = 2, think: float = 0.0) -> tuple[Side, Side]:
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, turns=turns, think=think)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, turns=turns)
    return host, joiner


def decisions_of(records: list[bytes], author: int) -> list[str]:
    """The decisions ``author`` (0 for A) made in ``records``, in order."""
    out: list[str] = []
    for record in records:
        _, entry = decode_signed_entry(record)
        body = entry.body
        if entry.author == author and isinstance(body, PlayBody) and body.decision:
            out.append(body.decision)
    return out


def arming_entries(records: list[bytes]) -> list[int]:
    """The entries after which a roll waits for the other player's link (the arming
    entries: a cut right after one falls "during the roll")."""
    log = GameLog.start(records[0])
    armed: list[int] = []
    for seq, record in enumerate(records[1:], 1):
        log.append(record)
        if isinstance(log.game.pending, ChanceRequest) and log.expected_author() is not None:
            armed.append(seq)
    return armed


def assert_same_game(host: Side, joiner: Side, expected: list[bytes]) -> None:
    """Both sides finished the reference game: the same records (nothing lost, nothing
    twice), each decision made once, files that verify complete and are identical."""
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.records == expected
    assert joiner.records == expected
    assert final_state(host.records) == final_state(expected)
    assert host.decisions == decisions_of(expected, 0)
    assert joiner.decisions == decisions_of(expected, 1)
    for side in (host, joiner):
        verdict = side.verdict()
        assert verdict.status is VerdictStatus.COMPLETE, verdict
        assert side.file_records() == expected
    assert host.path.read_bytes() == joiner.path.read_bytes()


# --- a perfect network -------------------------------------------------------------------


async def test_a_whole_game_over_memory_streams(autojump_clock: Clock, tmp_path: Path) -> None:
    host, joiner = pair(tmp_path, turns=6)
    await play(host, joiner, Network())
    expected = host.records
    assert len(expected) > 100  # a real game: both warbands, several turns
    kinds = {decode_signed_entry(r)[1].kind for r in expected}
    assert {EntryKind.OFFER, EntryKind.ACCEPT, EntryKind.FINAL, EntryKind.COSIGN} <= kinds
    assert_same_game(host, joiner, expected)
    assert host.session.connections == joiner.session.connections == 1
    assert host.saw("connected to bob")
    assert joiner.saw("connected to alice")
    assert joiner.saw("the host offers:")
    # each side's seat faces the peer's: its records arrived over the network
    assert host.session.seats == (PersonSeat(), PeerSeat("bob"))
    assert joiner.session.seats == (PeerSeat("alice"), PersonSeat())
    # the replay files of both players are the same, header included
    assert host.path.read_bytes() == joiner.path.read_bytes()


async def test_each_peer_applies_each_decision_once_and_tells_it_from_there(
    autojump_clock: Clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each decision is applied once by each peer's log, and by nothing else: each side's
    story is told from its own log's application (random bots apply nothing)."""
    host, joiner = pair(tmp_path)
    stories: list[list[Event]] = [[], []]
    for side, story in zip((host, joiner), stories, strict=True):
        player = side.session.player
        player.choose = bot_chooser("random", f"count {player.name}", decisions=side.decisions)
        player.on_events = story.extend
    inside: list[GameLog] = []  # the log applying an entry now, if any
    calls: dict[int, int] = {}
    real_apply, real_play = Game.apply, GameLog._play

    def apply(game: Game, choice: Choice) -> None:
        key = id(inside[-1]) if inside else 0
        calls[key] = calls.get(key, 0) + 1
        real_apply(game, choice)

    def play_entry(log: GameLog, *args: Any, **kwargs: Any) -> None:
        inside.append(log)
        try:
            real_play(log, *args, **kwargs)
        finally:
            inside.pop()

    monkeypatch.setattr(Game, "apply", apply)
    monkeypatch.setattr(GameLog, "_play", play_entry)
    await play(host, joiner, Network())
    monkeypatch.undo()
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    decisions = [
        d for record in host.records for d in decisions_of([record], 0) + decisions_of([record], 1)
    ]  # in the log's order
    assert len(decisions) > 20
    logs = [side.session.game.log for side in (host, joiner)]  # type: ignore[union-attr]
    assert calls == {id(logs[0]): len(decisions), id(logs[1]): len(decisions)}
    for story in stories:
        told = [e.notation for e in story if e.kind is EventKind.CHOICE]
        assert told == decisions
        assert len([e for e in story if e.kind is EventKind.ROLL]) == len(logs[0].rolls)


async def test_the_same_seed_plays_the_same_game(autojump_clock: Clock, tmp_path: Path) -> None:
    expected = await reference(tmp_path)
    host, joiner = pair(tmp_path / "again")
    await play(host, joiner, Network())
    assert_same_game(host, joiner, expected)


# --- cuts ----------------------------------------------------------------------------------


def cut_first(meters: list[Meter], make: Callable[[], Meter]) -> Wrap:
    """Meter every connection into ``meters``; cut the first as ``make()`` says."""

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = make() if n == 0 else Meter()
        meters.append(meter)
        return meter.pair(a, b)

    return wrap  # type: ignore[return-value]


_TOTAL: list[int] = []


async def total_bytes(tmp_path: Path) -> int:
    """The bytes both sides send in the reference game, over one connection."""
    if not _TOTAL:
        meters: list[Meter] = []
        host, joiner = pair(tmp_path)
        await play(host, joiner, Network(cut_first(meters, Meter)))
        _TOTAL.append(meters[0].passed)
    return _TOTAL[0]


async def play_with_cut(tmp_path: Path, make: Callable[[], Meter]) -> tuple[Side, Side, Meter]:
    meters: list[Meter] = []
    host, joiner = pair(tmp_path)
    await play(host, joiner, Network(cut_first(meters, make)))
    assert meters[0].cut, "the first connection was never cut"
    assert len(meters) >= 2, "the joiner never reconnected"
    return host, joiner, meters[0]


CUT_POINTS = 16


@pytest.mark.parametrize("point", range(CUT_POINTS))
async def test_a_connection_cut_after_any_byte_resumes_the_same_game(
    autojump_clock: Clock, tmp_path: Path, point: int
) -> None:
    """The first connection is cut after a number of bytes spread over the whole game,
    handshake included (almost always mid-frame); the joiner reconnects, each side sends
    what the other lacks, and the game goes on to the same end."""
    expected = await reference(tmp_path)
    total = await total_bytes(tmp_path / "measure")
    cut_at = 7 + point * (total - 7) // CUT_POINTS + point * 13 % 97
    host, joiner, _ = await play_with_cut(tmp_path, lambda: Meter(cut_at))
    assert_same_game(host, joiner, expected)


async def test_cuts_at_every_arming_entry_resume_the_same_game(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Cut between the entry that arms a roll and the other player's link, whole or in
    the middle of that entry's frame: the roll comes out the same after the reconnection."""
    expected = await reference(tmp_path)
    armed = arming_entries(expected)
    assert len(armed) >= 4
    for seq in armed:
        for into in (0, 60):
            where = tmp_path / f"{seq}-{into}"
            where.mkdir()
            # entry seq+1 carries the other player's link: cut before (or inside) its frame
            host, joiner, meter = await play_with_cut(
                where, functools.partial(Meter, entry=seq + 1, into=into)
            )
            assert meter.entries >= seq + 1
            assert_same_game(host, joiner, expected)


async def test_every_connection_cut_still_finishes_the_same_game(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Six connections in a row are cut, each in its eighth entry's frame (resent ones
    included), half of them as a reset and half as half-open connections (20 s of
    silence each)."""
    expected = await reference(tmp_path)
    meters: list[Meter] = []

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = Meter(entry=7, into=30, silent=n % 2 == 1) if n < 6 else Meter()
        meters.append(meter)
        return meter.pair(a, b)

    host, joiner = pair(tmp_path)
    start = trio.current_time()
    await play(host, joiner, Network(wrap))  # type: ignore[arg-type]
    assert sum(m.cut for m in meters) == 6
    assert_same_game(host, joiner, expected)
    assert host.session.connections == joiner.session.connections == 7
    # three half-open connections, each noticed after 20 s without a message
    assert trio.current_time() - start >= 3 * TIMING.dead_after
    assert sum("silent for 20 s" in line for line in host.said + joiner.said) >= 3


# --- liveness ------------------------------------------------------------------------------


async def test_a_half_open_connection_is_noticed_by_both_sides(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The connection goes silent mid-game (no close, no reset: a cable pulled, a NAT
    that forgot it): both sides notice after ``dead_after``, reconnect and finish."""
    expected = await reference(tmp_path)
    start = trio.current_time()
    middle = len(expected) // 2
    host, joiner, _ = await play_with_cut(tmp_path, lambda: Meter(entry=middle, silent=True))
    assert_same_game(host, joiner, expected)
    for side in (host, joiner):
        assert side.saw("connection lost (the peer was silent for 20 s); waiting to reconnect")
    assert trio.current_time() - start >= TIMING.dead_after


async def test_heartbeats_keep_a_slow_player_connected(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """A player who takes a minute over each decision: PINGs every 5 s keep the
    connection alive, and it is never taken for dead."""
    expected = await reference(tmp_path)
    host, joiner = pair(tmp_path, think=60.0)
    start = trio.current_time()
    await play(host, joiner, Network())
    assert_same_game(host, joiner, expected)
    thinking = 60.0 * len(decisions_of(expected, 0))
    assert trio.current_time() - start >= thinking
    assert host.session.connections == joiner.session.connections == 1
    # the joiner, waiting, pinged at least every 5 s of silence
    entries_sent = len([r for r in expected if decode_signed_entry(r)[1].author == 1])
    assert joiner.session.messages_sent >= entries_sent + thinking / TIMING.ping_after * 0.9
    assert not any("connection lost" in line for line in host.said + joiner.said)


async def test_a_slow_player_survives_a_cut_while_thinking(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The connection drops while the host's bot thinks: the decision is not lost or
    asked again, and is sent on the next connection."""
    expected = await reference(tmp_path)
    host, joiner = pair(tmp_path, think=30.0)
    meters: list[Meter] = []

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = Meter()
        meters.append(meter)
        return meter.pair(a, b)

    async def cut_while_thinking() -> None:
        # decision 3 is being thought about from 2 x 30 s on: cut 10 s into it
        await trio.sleep(70.0)
        meters[-1].sever()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(cut_while_thinking)
        await play(host, joiner, Network(wrap))  # type: ignore[arg-type]
    assert meters[0].cut
    assert_same_game(host, joiner, expected)


# --- adjournment -----------------------------------------------------------------------


async def test_a_long_absence_adjourns_and_the_game_resumes_later(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The joiner's network goes away for good mid-game: after ``adjourn_after`` both
    sides adjourn with an unfinished replay; resumed from the replays later, the game
    is finished and both files verify complete."""
    cut = len(await reference(tmp_path)) // 3
    network = Network()

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = Meter(entry=cut)
        original = meter.sever

        def sever() -> None:
            network.refuse = True  # and the host cannot be reached any more
            original()

        meter.sever = sever  # type: ignore[method-assign]
        return meter.pair(a, b)

    network.wrap = wrap  # type: ignore[assignment]
    host, joiner = pair(tmp_path)
    start = trio.current_time()
    await play(host, joiner, network)
    assert host.outcome is Outcome.ADJOURNED, host.said
    assert joiner.outcome is Outcome.ADJOURNED, joiner.said
    assert trio.current_time() - start >= TIMING.adjourn_after
    assert joiner.saw("cannot reach the host: the connection was refused: nothing listens at")
    for side in (host, joiner):
        verdict = side.verdict()
        assert verdict.status is VerdictStatus.UNFINISHED, verdict
        assert verdict.entries >= cut
    # later: both resume from their replays (new bots: the game goes on differently)
    host2 = resume_side(host, seed="later A")
    joiner2 = resume_side(joiner, seed="later B")
    await play(host2, joiner2, Network())
    assert host2.outcome is joiner2.outcome is Outcome.COMPLETE
    assert host2.records == joiner2.records
    assert host2.records[:cut] == host.records[:cut]
    for side in (host2, joiner2):
        assert side.verdict().status is VerdictStatus.COMPLETE
    assert host2.path.read_bytes() == joiner2.path.read_bytes()


async def test_after_adjournment_the_waiting_player_may_claim_a_timeout(
    autojump_clock: Clock,
    tmp_path: Path,
) -> None:
    cut = len(await reference(tmp_path)) // 3
    network = Network()
    meters: list[Meter] = []

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = Meter(entry=cut)
        meters.append(meter)
        network.refuse = True
        return meter.pair(a, b)

    network.wrap = wrap  # type: ignore[assignment]
    host, joiner = pair(tmp_path)
    await play(host, joiner, network)
    assert host.outcome is Outcome.ADJOURNED
    waiting = host if not host.session.game.my_turn else joiner  # type: ignore[union-attr]
    again = resume_side(waiting, seed="claim")
    game = again.session.game
    assert game is not None
    game.claim_timeout()
    again.session.writer.close()  # type: ignore[union-attr]
    verdict = waiting.verdict()
    assert verdict.status is VerdictStatus.CLAIM, verdict


class LoseTheLastBye(PassThroughStream):
    """The joiner's end of a connection: once the joiner's log is complete, the first
    frame too small for an entry that it sends (its BYE) is lost and the connection is
    cut."""

    def __init__(self, inner: trio.abc.Stream, meter: Meter, joiner: Side) -> None:
        super().__init__(inner)
        self.meter = meter
        self.joiner = joiner

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        game = self.joiner.session.game
        if game is not None and game.is_closed and len(data) < ENTRY_FRAME_MIN:
            self.meter.sever()
        if self.meter.cut:
            raise trio.BrokenResourceError("the connection was cut")
        await self.inner.send_all(data)


async def test_a_complete_game_ends_complete_when_the_last_bye_is_lost(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The joiner's last BYE is lost with the connection, and the host cannot be reached
    again: each side has the whole log but does not know that the other has. Neither
    adjourns: each waits ``dead_after`` for the other to come back for anything it
    lacks, then ends the game as complete."""
    expected = await reference(tmp_path)
    host, joiner = pair(tmp_path)
    network = Network()

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = Meter()
        a, b = meter.pair(a, b)
        network.refuse = True  # no second connection
        return LoseTheLastBye(a, meter, joiner), b

    network.wrap = wrap  # type: ignore[assignment]
    start = trio.current_time()
    await play(host, joiner, network)
    assert_same_game(host, joiner, expected)
    assert network.count == 1
    assert host.saw("the game's log is complete here; the opponent left without saying so")
    assert TIMING.dead_after <= trio.current_time() - start < TIMING.adjourn_after


# --- a lossy network -----------------------------------------------------------------------


async def test_a_game_over_a_lossy_network_completes(autojump_clock: Clock, tmp_path: Path) -> None:
    """Each connection loses, corrupts, duplicates or trickles some of its bytes (in one
    direction or the other) a little later than the one before: every damage breaks
    the connection (the channel's authentication catches it), and the game goes on."""
    expected = await reference(tmp_path)
    at = 1500  # bytes into one direction of a connection: past the handshake

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        damage: list[LossyStream] = [
            LossyStream(b, drop=range(at, at + 3)),
            LossyStream(a, corrupt=[at]),
            LossyStream(b, duplicate=(at, 40)),
            LossyStream(a, drop=[at + 1], trickle=True),
            LossyStream(b, corrupt=[at + 5], trickle=True),
            LossyStream(a, duplicate=(at, 1)),
        ]
        if n >= len(damage):
            return a, b
        lossy = damage[n]
        return (lossy, b) if lossy.inner is a else (a, lossy)

    host, joiner = pair(tmp_path)
    network = Network(wrap)  # type: ignore[arg-type]
    await play(host, joiner, network)
    assert network.count == 7  # six damaged connections, then a good one
    assert_same_game(host, joiner, expected)


async def test_a_lost_accept_is_sent_again(autojump_clock: Clock, tmp_path: Path) -> None:
    """The connection breaks inside the ACCEPT's frame: the host holds only its OFFER,
    the joiner has accepted. The joiner comes back; the host resends the OFFER, the joiner
    its ACCEPT, and the game is the same."""
    expected = await reference(tmp_path)
    host, joiner, meter = await play_with_cut(tmp_path, lambda: Meter(entry=1, into=50))
    assert meter.entries == 2
    assert_same_game(host, joiner, expected)


async def test_a_lost_offer_is_sent_again(autojump_clock: Clock, tmp_path: Path) -> None:
    """The connection breaks inside the OFFER's frame: the host has written it, the joiner
    has no game yet. On the next connection the joiner takes the host's OFFER (the host
    says in HELLO that it holds one entry) and the game is the same."""
    expected = await reference(tmp_path)
    host, joiner, _ = await play_with_cut(tmp_path, lambda: Meter(entry=0, into=80))
    assert_same_game(host, joiner, expected)


async def test_resuming_tells_the_story_so_far(autojump_clock: Clock, tmp_path: Path) -> None:
    """A game resumed from a replay with several rolls in it is told from the start, each
    roll in its place (the narrator takes the rolls entry by entry)."""
    expected = await reference(tmp_path)
    log = GameLog.start(expected[0])
    held = 1
    while len(log.rolls) < 4 or held < 10:  # past a few rolls and some decisions
        log.append(expected[held])
        held += 1
    source = make_side(tmp_path, "source", identity=ALICE, host=True)
    header = ReplayHeader(
        rules=log.rules, game_id=log.game_id, keys=log.keys, created="2026-01-01T00:00:00Z"
    )
    with ReplayWriter.create(source.path, header) as writer:
        for record in expected[:held]:
            writer.append(record)
    told: list[Event] = []
    resumed = resume_side(source, seed="story", on_events=told.extend)
    resumed.session.writer.close()  # type: ignore[union-attr]
    rolled = [event for event in told if event.kind is EventKind.ROLL]
    # every roll of the log, in order, and maybe the next one this player can already see
    assert [event.dice for event in rolled[: len(log.rolls)]] == [r.dice for r in log.rolls]
    assert len(rolled) <= len(log.rolls) + 1
    decisions = [event for event in told if event.kind is EventKind.CHOICE]
    assert len(decisions) == len(
        decisions_of(expected[:held], 0) + decisions_of(expected[:held], 1)
    )


class SlowToReturn(PassThroughStream):
    """The host's end of a connection: once the host's log is complete, each send
    delivers its bytes at once but returns only a second later (a busy machine), so the
    joiner can answer and close before the host's sending task runs again."""

    def __init__(self, inner: trio.abc.Stream, host: Side) -> None:
        super().__init__(inner)
        self.host = host

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)
        game = self.host.session.game
        if game is not None and game.is_closed:
            await trio.sleep(1.0)


async def test_the_last_byes_cross_cleanly_when_the_host_is_slow(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The joiner reads the host's BYE, says its own and closes before the host's sending
    task has come back from sending that BYE: the host still ends on this connection,
    knowing the joiner is done (not "left without saying so" after a wait)."""
    expected = await reference(tmp_path)
    host, joiner = pair(tmp_path)
    network = Network(lambda n, a, b: (a, SlowToReturn(b, host)))
    start = trio.current_time()
    await play(host, joiner, network)
    assert_same_game(host, joiner, expected)
    assert network.count == 1
    assert not host.saw("connection lost")
    assert not host.saw("left without saying so")
    assert trio.current_time() - start < TIMING.dead_after


# --- a full disk ------------------------------------------------------------------------------


def disk_fills(monkeypatch: pytest.MonkeyPatch, path: Path, after: int) -> None:
    """Writes to the replay at ``path`` fail with ENOSPC once ``after`` records were
    appended to it (the header is written before the file has its name: it fits)."""
    real = replay_file._write_all
    appended = 0

    def write(fd: int, data: bytes) -> None:
        nonlocal appended
        if path.exists() and os.fstat(fd).st_ino == path.stat().st_ino:
            if appended >= after:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            appended += 1
        real(fd, data)

    monkeypatch.setattr(replay_file, "_write_all", write)


async def until_the_disk_fills(host: Side, joiner: Side, network: Network) -> DiskFullError:
    """Play until the host's session stops on its full disk; the joiner is stopped then."""
    caught: list[DiskFullError] = []
    with trio.fail_after(GAME_LIMIT):
        async with trio.open_nursery() as nursery:

            async def run_host() -> None:
                try:
                    await host.session.serve(network.arrivals)
                except DiskFullError as exc:
                    caught.append(exc)
                nursery.cancel_scope.cancel()

            nursery.start_soon(run_host)
            nursery.start_soon(run_side, joiner, lambda: joiner.session.join(network.connect))
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    assert caught, host.said
    return caught[0]


def finish(session: GameSession, exc: Exception) -> int:
    """What ``dbnet host`` makes of a session that stopped with ``exc``."""

    def run() -> Outcome:
        raise exc

    return net_command._finish(Series(argparse.Namespace(), lambda _: session, session), run)


async def test_a_full_disk_mid_game_says_what_to_do_and_loses_nothing(
    autojump_clock: Clock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    host, joiner = pair(tmp_path)
    disk_fills(monkeypatch, host.path, after=6)
    exc = await until_the_disk_fills(host, joiner, Network())
    assert host.verdict().status is VerdictStatus.UNFINISHED  # whole, nothing torn
    assert host.verdict().entries == 6
    assert finish(host.session, exc) == net_command.EXIT_ADJOURNED
    err = capsys.readouterr().err
    assert err == (
        f"dbnet: {host.path}: record 7 (byte {host.path.stat().st_size}): cannot append the "
        "record: No space left on device. Free some space on that disk, then go on with: "
        f"dbnet resume {host.path}\n"
    )


async def test_a_disk_full_before_the_offer_fits_leaves_a_file_the_next_game_replaces(
    autojump_clock: Clock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    host, joiner = pair(tmp_path)
    disk_fills(monkeypatch, host.path, after=0)
    exc = await until_the_disk_fills(host, joiner, Network())
    assert load_replay(host.path).records == ()  # the header only
    assert finish(host.session, exc) == net_command.EXIT_FAILED
    assert capsys.readouterr().err == (
        f"dbnet: {host.path}: record 1 (byte {host.path.stat().st_size}): cannot append the "
        "record: No space left on device. Free some space on that disk, then start the game "
        f"again: {host.path} holds no entry, and a new game may replace it\n"
    )
    monkeypatch.undo()
    again = make_side(tmp_path, "alice", identity=ALICE, host=True)  # the same --replay
    other = make_side(tmp_path, "bob-again", identity=BOB, host=False)
    await play(again, other, Network())
    assert again.outcome is Outcome.COMPLETE, again.said
    assert again.verdict().status is VerdictStatus.COMPLETE


def test_the_resume_command_keeps_the_name_and_the_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19: the hint to go on with a game names everything the resumed side needs,
    the same --name (the opponent pinned this key under it) and DBNET_HOME, quoted."""
    monkeypatch.setenv("DBNET_HOME", "/tmp/alice home")
    path = Path("/tmp/my games/a.dbnr")
    assert resume_command(path, "alice") == (
        "DBNET_HOME='/tmp/alice home' dbnet resume '/tmp/my games/a.dbnr' [HOST:PORT] --name alice"
    )
    monkeypatch.delenv("DBNET_HOME")
    assert resume_command(path, "bob", claim=True) == (
        "dbnet resume '/tmp/my games/a.dbnr' --claim-timeout --name bob"
    )
