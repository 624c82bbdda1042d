"""Clocks (protocol version 3): the setting, the readings every entry carries, one peer's
view of the clocks, and clock claims that verify or are refuted, in real replay files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dbnet.commands.verify import result_text
from dbnet.engine import GameSetup, Player
from dbnet.errors import DecodeError
from dbnet.protocol.clock import (
    ClockSetting,
    ClockView,
    format_clock,
    paused_reading,
    running_player,
)
from dbnet.protocol.errors import InvalidEntryError, LocalProtocolError
from dbnet.protocol.log import GameLog, Status
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import RemoteGame
from dbnet.replay.file import ReplayWriter
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.bodies import Body, ClaimBody, OfferBody, PlayBody
from dbnet.wire.entries import (
    Entry,
    decode_entry,
    decode_signed_entry,
    encode_entry,
    encode_signed_entry,
    sign_entry,
)
from dbnet.wire.replay_header import ReplayHeader
from dbnet.wire.setup import setup_to_wire
from dbnet.wire.values import encode
from dbnet.wire.versions import DISPUTE_VERSION, PROTOCOL_VERSION

from .helpers import bot_chooser, derive, identity

CLOCK = ClockSetting(60_000, 2_000)


class Clocked:
    """Two peers of a game with a clock, each keeping time with its own ``ClockView`` on a
    fake clock (``now``, ms) that the test moves; a record is delivered at once."""

    def __init__(self, setup: GameSetup, clock: ClockSetting = CLOCK) -> None:
        self.now = 0
        a, offer = Peer.offer(
            identity(7, "A"),
            identity(7, "B").public_key,
            setup,
            secret=derive(7, "secret A"),
            nonce=derive(7, "nonce"),
            joiner_nonce=derive(7, "joiner nonce"),
            clock=clock.wire,
        )
        b, accept = Peer.accept(identity(7, "B"), offer, secret=derive(7, "secret B"))
        a.receive(accept)
        self.peers = (a, b)
        self.records = [offer, accept]
        self.views = (ClockView(a.log, Player.A, 0), ClockView(b.log, Player.B, 0))
        for peer, view in zip(self.peers, self.views, strict=True):
            peer.reading = self._reader(view)
            view.follow(peer.log, 0)
        self.choose = bot_chooser(("greedy", "greedy"), 7)

    def _reader(self, view: ClockView) -> Callable[[], tuple[int, int]]:
        return lambda: view.reading(self.now)

    @property
    def log(self) -> GameLog:
        return self.peers[0].log

    @property
    def next_author(self) -> Player | None:
        return self.log.expected_author()

    def step(self, think: int = 1_000) -> bytes:
        """The next author thinks ``think`` ms, writes its entry; the other gets it."""
        author = self.next_author
        assert author is not None
        self.now += think
        peer = self.peers[author]
        if peer.log.status in (Status.FINAL_DUE, Status.COSIGN_DUE):
            record = peer.finish()
        else:
            view = peer.view()
            pending = view.pending
            if getattr(pending, "player", None) is author:
                record = peer.decide(self.choose(view))
            else:
                record = peer.reveal()
        self.deliver(peer.me, record)
        return record

    def deliver(self, author: Player, record: bytes) -> None:
        self.peers[author.other].receive(record)
        self.records.append(record)
        for peer, view in zip(self.peers, self.views, strict=True):
            view.follow(peer.log, self.now)

    def until_owes(self, player: Player, limit: int = 400) -> None:
        """Step until ``player`` owes the next entry, after at least 3 entries of play."""
        for _ in range(limit):
            if len(self.records) > 4 and self.next_author is player:
                return
            self.step()
        raise AssertionError("never")

    def run_to(self, player: Player) -> None:
        """Step until ``player`` writes next."""
        for _ in range(100):
            if self.next_author is player:
                return
            self.step()
        raise AssertionError("never")

    def save(self, path: Path, records: list[bytes] | None = None) -> bytes:
        """A real replay file of ``records`` (default: the game's), and its bytes."""
        log = self.log
        header = ReplayHeader(
            format=log.version,
            protocol=log.version,
            rules=log.rules,
            game_id=log.game_id,
            keys=log.keys,
            created="2026-11-26T00:00:00Z",
        )
        with ReplayWriter.create(path, header) as writer:
            for record in self.records if records is None else records:
                writer.append(record)
        return path.read_bytes()


# --- the setting and the wire ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "base", "increment"),
    [("10", 600_000, 0), ("25+10", 1_500_000, 10_000), ("0.5+2", 30_000, 2_000)],
)
def test_a_clock_is_minutes_and_seconds_a_move(text: str, base: int, increment: int) -> None:
    assert ClockSetting.parse(text) == ClockSetting(base, increment)


@pytest.mark.parametrize("text", ["", "ten", "10+", "+5", "-3", "10:00", "0", "10+5000", "7000"])
def test_a_malformed_clock_is_refused_with_an_example(text: str) -> None:
    with pytest.raises(ValueError, match=r"--clock 25\+10"):
        ClockSetting.parse(text)


def test_clock_words() -> None:
    assert ClockSetting(600_000).describe() == "10 min"
    assert ClockSetting(1_500_000, 10_000).describe() == "25 min + 10 s a move"
    assert ClockSetting(90_000, 500).describe() == "1:30 min + 0.5 s a move"
    assert [format_clock(ms) for ms in (0, 7_450, 65_000, 3_723_000)] == [
        "0:00.0", "0:07.4", "1:05", "1:02:03"
    ]  # fmt: skip


def test_the_clock_is_in_the_setup_and_so_in_the_game_id(setup: GameSetup) -> None:
    game = Clocked(setup)
    assert game.log.version == DISPUTE_VERSION == 4
    assert game.log.clock == CLOCK.wire
    offer = game.log.decoded[0].body
    assert isinstance(offer, OfferBody)
    assert offer.clock == CLOCK.wire
    other = Clocked(setup, ClockSetting(60_000, 3_000))
    assert other.log.game_id != game.log.game_id
    wire = setup_to_wire(setup, CLOCK.wire)
    assert list(wire) == ["map", "options", "warbands", "clock"]
    assert wire["clock"] == [60_000, 2_000]


def test_every_entry_of_a_clocked_game_carries_its_authors_reading(setup: GameSetup) -> None:
    game = Clocked(setup)
    for _ in range(30):
        game.step(think=1_500)
    bodies = [entry.body for entry in game.log.decoded[1:]]
    assert all(body.clock is not None for body in bodies)
    accept = bodies[0]
    assert accept.clock == (60_000, 60_000)
    # a reading is what its author's view said when it signed: the same as the view
    for entry in game.log.decoded[2:]:
        reading = entry.body.clock
        assert reading is not None
        assert all(0 < t <= 60_000 + 30 * 2_000 for t in reading)
    assert game.views[0].reading(game.now) == game.views[1].reading(game.now)


def test_a_version_2_body_may_not_hold_a_reading(setup: GameSetup) -> None:
    game = Clocked(setup)
    game.step()
    record = game.records[-1]
    entry = decode_signed_entry(record)[1]
    old = Entry(2, entry.game_id, entry.seq, entry.author, entry.prev_hash, entry.kind, entry.body)
    with pytest.raises(DecodeError, match="unknown key 'clock'"):
        encode_entry(old)


def test_an_entry_without_its_reading_is_refused_in_a_clocked_game(setup: GameSetup) -> None:
    game = Clocked(setup)
    game.step()
    author = game.next_author
    assert author is not None
    peer = game.peers[author]
    draft = peer.view()
    assert draft is not None
    bare = _forge(game.log, peer, PlayBody("pass", (), None, bytes(32)))
    with pytest.raises(InvalidEntryError, match="without its author's clock reading"):
        game.peers[author.other].receive(bare)


def _forge(log: GameLog, author: Peer, body: Body) -> bytes:
    """An entry of ``body`` in the log's version, fitting ``log`` as its next, signed by
    ``author`` without any check of the author's own log (what a cheating peer sends)."""
    entry = Entry(log.version, log.game_id, log.next_seq, int(author.me), log.head, body.KIND, body)
    return encode_signed_entry(sign_entry(entry, author.identity.sign))


# --- one peer's view -------------------------------------------------------------------------


def test_transit_is_not_charged_and_a_handover_earns_the_increment(setup: GameSetup) -> None:
    game = Clocked(setup)
    game.until_owes(Player.A)
    view = game.views[Player.B]  # B's view of A's clock
    view.round_trip = 300
    a_before = view.left(Player.A, game.now)
    assert view.running is Player.A
    # B's view started A's clock after the estimated round trip of B's last entry
    view.since = game.now + 300
    game.now += 5_300
    assert view.left(Player.A, game.now) == a_before - 5_000


def test_a_resumed_view_starts_from_the_players_last_reading(setup: GameSetup) -> None:
    game = Clocked(setup)
    for _ in range(20):
        game.step(think=2_000)
    for player in (Player.A, Player.B):
        log = game.peers[player].log
        last = next(e for e in reversed(log.decoded) if e.author == player)
        again = ClockView(log, player, 10**9)  # any time: adjourned time does not count
        assert last.body.clock is not None
        assert again.left(player, 10**9) >= last.body.clock[player]
        assert again.running is running_player(log)


# --- clock claims ----------------------------------------------------------------------------


def test_a_flag_that_fell_while_waiting_is_claimed_and_verifies(
    setup: GameSetup, tmp_path: Path
) -> None:
    game = Clocked(setup)
    game.until_owes(Player.B)
    view = game.views[Player.A]
    flag = view.flag_at()
    assert flag is not None
    game.now = flag
    reading = view.reading(game.now)
    assert reading[Player.B] == 0
    assert reading[Player.A] > 0
    claim = game.peers[Player.A].claim_on_time(reading)
    game.peers[Player.B].receive(claim)  # the flagged player's own log accepts it too
    game.records.append(claim)
    assert game.log.status is Status.CLAIMED
    verdict = verify_replay(game.save(tmp_path / "flag.dbnr"), where="flag")
    assert verdict.status is VerdictStatus.CLAIM
    assert (verdict.winner, verdict.claimant, verdict.reason) == (None, "A", "clock")
    assert verdict.flagged_at == len(game.records) - 1
    assert verdict.summary().startswith(
        "clock claim, not acknowledged by the flagged player (not a result): A says"
    )
    assert verdict.to_json()["flagged_at"] == verdict.flagged_at


def test_an_entry_that_came_after_the_flag_is_claimed_and_verifies(
    setup: GameSetup, tmp_path: Path
) -> None:
    game = Clocked(setup)
    game.until_owes(Player.B)
    left = game.views[Player.A].left(Player.B, game.now)
    game.step(think=left + 1)  # B's entry comes 1 ms after B's flag, by A's view
    view = game.views[Player.A]
    assert view.flagged is Player.B
    late_seq = len(game.records) - 1
    assert view.late == late_seq
    claim = game.peers[Player.A].claim_on_time(view.reading(game.now), late_seq)
    game.records.append(claim)
    verdict = verify_replay(game.save(tmp_path / "late.dbnr"), where="late")
    assert verdict.status is VerdictStatus.CLAIM
    assert (verdict.claimant, verdict.flagged_at) == ("A", late_seq)
    assert f"A says B's clock ran out before B's entry {late_seq}" in verdict.summary()
    table = result_text(verdict)
    assert table == (
        f"clock claim, not acknowledged by B: A says B's flag fell before entry {late_seq}"
    )


def test_a_false_claim_is_refuted_by_the_claimants_own_reading(
    setup: GameSetup, tmp_path: Path
) -> None:
    """B's entry came in time: A's own next entry, signed, reads B's clock with time left.
    A later claim that this entry of B's came after B's flag is refused, in A's peer, in
    B's and in a replay file holding it."""
    game = Clocked(setup)
    game.until_owes(Player.B)
    game.step(think=1_000)  # B's entry, in time
    in_time = len(game.records) - 1
    game.run_to(Player.A)
    game.step()  # A's own entry: its reading shows B in time
    a_entry = game.log.decoded[-1]
    assert a_entry.author == Player.A
    assert a_entry.body.clock is not None
    assert a_entry.body.clock[Player.B] > 0
    game.run_to(Player.B)
    a = game.peers[Player.A]
    reading = (game.views[Player.A].left(Player.A, game.now), 0)
    with pytest.raises(InvalidEntryError, match=r"refuted: A's own entry \d+, after B's entry"):
        a.claim_on_time(reading, in_time)
    false_claim = _forge(game.log, a, ClaimBody("clock", in_time, reading))
    with pytest.raises(InvalidEntryError, match="refuted"):
        game.peers[Player.B].receive(false_claim)
    data = game.save(tmp_path / "false.dbnr", [*game.records, false_claim])
    verdict = verify_replay(data, where="false")
    assert verdict.status is VerdictStatus.INVALID
    assert verdict.seq == len(game.records)
    assert verdict.reason is not None
    assert "refuted" in verdict.reason


def test_a_claim_must_read_zero_on_the_flagged_clock(setup: GameSetup) -> None:
    game = Clocked(setup)
    game.until_owes(Player.B)
    a = game.peers[Player.A]
    with pytest.raises(InvalidEntryError, match="reads 59000 ms left on B's clock, not 0"):
        a.claim_on_time((50_000, 59_000))


def test_a_claim_may_not_say_its_own_authors_entry_is_late(setup: GameSetup) -> None:
    game = Clocked(setup)
    game.until_owes(Player.A)
    a = game.peers[Player.A]
    with pytest.raises(InvalidEntryError, match="but A writes entry"):
        a.claim_on_time((50_000, 0))


def test_a_clockless_game_has_no_clock_claims(setup: GameSetup) -> None:
    a, _ = Peer.offer(identity(8, "A"), identity(8, "B").public_key, setup)
    assert a.log.version == PROTOCOL_VERSION == 3
    assert a.log.clock is None
    with pytest.raises(LocalProtocolError, match="no clock"):
        a.claim_on_time((1, 0))


def test_an_adjourned_clocked_game_can_be_claimed_timed_out_with_paused_clocks(
    setup: GameSetup, tmp_path: Path
) -> None:
    """``dbnet resume --claim-timeout`` of a game with a clock: the claim carries the
    claimant's reading of the clocks as they stood when the game was adjourned."""
    game = Clocked(setup)
    game.until_owes(Player.B)
    saved: list[bytes] = []
    remote = RemoteGame.restore(
        identity(7, "A"), list(game.records), saved.append, secret=derive(7, "secret A")
    )
    remote.peer.reading = paused_reading(remote.log, Player.A)
    claim = remote.claim_timeout()
    assert saved == [claim]
    body = remote.log.decoded[-1].body
    assert isinstance(body, ClaimBody)
    assert body.reason == "timeout"
    assert body.clock == game.views[Player.A].reading(game.now)
    verdict = verify_replay(game.save(tmp_path / "t.dbnr", [*game.records, claim]), where="t")
    assert verdict.status is VerdictStatus.CLAIM
    assert verdict.reason is None


def test_no_flag_falls_once_the_game_is_over(setup: GameSetup) -> None:
    """A resigning player may not claim that the winner's COSIGN (or a FINAL) came too
    late: no clock runs once the game is over."""
    game = Clocked(setup)
    game.until_owes(Player.A)
    a, b = game.peers
    resign = a.resign()
    game.deliver(Player.A, resign)
    final = a.finish()
    game.deliver(Player.A, final)
    assert game.log.status is Status.COSIGN_DUE
    with pytest.raises(InvalidEntryError, match="no clock runs once the game is over"):
        a.claim_on_time((10_000, 0))
    with pytest.raises(InvalidEntryError, match=r"FINAL entry .* written when no clock runs"):
        b.claim_on_time((0, 10_000), len(game.records) - 1)
    b.claim_on_time((0, 10_000), len(game.records) - 2)  # the resignation came late: valid


def test_a_clock_out_of_its_limits_is_refused_naming_the_field(setup: GameSetup) -> None:
    game = Clocked(setup)
    offer = decode_signed_entry(game.records[0])[1]
    wire = offer.to_wire()
    body = wire[6]
    assert isinstance(body, dict)
    body["setup"]["clock"] = [0, 0]
    with pytest.raises(DecodeError, match=r"entry\.body\.setup\.clock\[0\]: expected an integer"):
        decode_entry(encode(wire))
    body["setup"]["clock"] = [60_000, 3_600_001]
    with pytest.raises(DecodeError, match=r"entry\.body\.setup\.clock\[1\]: expected an integer"):
        decode_entry(encode(wire))
    body["setup"]["clock"] = [60_000, 0]
    wire[0] = 2  # a version-2 OFFER has no clock (nor a name)
    name = body.pop("name")
    with pytest.raises(DecodeError, match="unknown key 'clock'"):
        decode_entry(encode(wire))
    body["name"] = name
    wire[0] = 3
    assert decode_entry(encode(wire)).body.clock == (60_000, 0)
