"""Disputed clock claims (protocol version 4, issue 29 item 4): nobody can prove wall-clock
time to a third party, so one side's clock claim alone never reads as a result. The
flagged player answers a claim its own measurement refutes with a signed DISPUTE carrying
its reading; a file holding both is a "disputed clock claim", a file holding a claim
alone a "clock claim, not acknowledged by the flagged player". Checked in both players'
logs and in real replay files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.commands.verify import result_text
from dbnet.engine import GameSetup, Player
from dbnet.errors import DecodeError
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.log import Status
from dbnet.replay.event import FlagKind, report
from dbnet.replay.export import export_json, game_lines
from dbnet.replay.gamefile import examine
from dbnet.replay.steps import seal_words
from dbnet.replay.story import read_story
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.bodies import DisputeBody, EntryKind
from dbnet.wire.entries import Entry, decode_entry, decode_signed_entry, encode_entry, replace
from dbnet.wire.values import encode

from .test_clock import Clocked, _forge


def false_claim(setup: GameSetup) -> tuple[Clocked, bytes]:
    """A claims B's flag fell while B owes an entry with most of its time left (by
    both views): the claim, delivered to B's log, which accepts it (only the claimant's
    own readings can refute a claim)."""
    game = Clocked(setup)
    game.until_owes(Player.B)
    game.now += 1_000
    a = game.peers[Player.A]
    reading = (game.views[Player.A].left(Player.A, game.now), 0)
    claim = a.claim_on_time(reading)
    game.deliver(Player.A, claim)
    assert game.peers[Player.B].log.status is Status.CLAIMED
    return game, claim


def test_the_flagged_player_disputes_a_false_claim_and_the_file_says_so(
    setup: GameSetup, tmp_path: Path
) -> None:
    game, claim = false_claim(setup)
    b = game.peers[Player.B]
    own = game.views[Player.B].reading(game.now)
    assert own[Player.B] > 50_000  # by B's own clock, most of a minute was left
    dispute = b.dispute(own)
    game.deliver(Player.B, dispute)  # the claimant's log takes it too
    for peer in game.peers:
        assert peer.log.status is Status.DISPUTED
        assert peer.log.expected_author() is None  # closed: nothing may follow
        assert peer.log.clock_claim() == (len(game.records) - 2, peer.log.decoded[-2])
    verdict = verify_replay(game.save(tmp_path / "disputed.dbnr"), where="disputed")
    assert verdict.status is VerdictStatus.CLAIM
    assert (verdict.reason, verdict.claimant, verdict.winner) == ("clock", "A", None)
    assert verdict.disputed
    assert verdict.claim_reading == decode_signed_entry(claim)[1].body.clock
    assert verdict.dispute_reading == own
    summary = verdict.summary()
    assert summary.startswith("disputed clock claim (not a result): A says B's clock ran out")
    assert "B disputes it (B's signed reading: A " in summary
    assert "won" not in summary
    document = verdict.to_json()
    assert document["winner"] is None
    assert verdict.claim_reading is not None
    assert document["readings"] == {
        "claim": {"A": verdict.claim_reading[0], "B": 0},
        "dispute": {"A": own[0], "B": own[1]},
    }
    owed = document["owed"]
    assert isinstance(owed, dict)
    assert (owed["player"], owed["seq"]) == ("B", len(game.records) - 2)  # the claim's own
    assert result_text(verdict).startswith("disputed clock claim: A says B's flag fell before")


def test_a_claim_alone_is_never_a_win_on_time(setup: GameSetup, tmp_path: Path) -> None:
    game, _ = false_claim(setup)
    verdict = verify_replay(game.save(tmp_path / "alone.dbnr"), where="alone")
    assert verdict.status is VerdictStatus.CLAIM
    assert (verdict.winner, verdict.disputed, verdict.dispute_reading) == (None, False, None)
    assert verdict.summary().startswith(
        "clock claim, not acknowledged by the flagged player (not a result): A says B's "
        "clock ran out before B's entry"
    )
    assert "won" not in verdict.summary()
    assert verdict.to_json()["readings"]["dispute"] is None  # type: ignore[index]
    assert result_text(verdict).startswith("clock claim, not acknowledged by B: A says B's flag")


def test_only_the_flagged_player_disputes_and_only_with_time_left(setup: GameSetup) -> None:
    game, _ = false_claim(setup)
    a, b = game.peers
    with pytest.raises(InvalidEntryError, match="A disputes its own clock claim"):
        a.dispute((50_000, 0))
    with pytest.raises(InvalidEntryError, match="reads 0 ms left on its own clock"):
        b.dispute((50_000, 0))
    forged = _forge(a.log, b, DisputeBody((50_000, 0)))
    with pytest.raises(InvalidEntryError, match="agrees with the clock claim"):
        a.receive(forged)
    dispute = b.dispute((50_000, 40_000))
    game.deliver(Player.B, dispute)
    again = _forge(a.log, b, DisputeBody((50_000, 40_000)))
    with pytest.raises(InvalidEntryError, match=r"entry \d+ is no clock claim"):
        a.receive(again)


def test_a_dispute_answers_only_a_clock_claim(setup: GameSetup) -> None:
    game = Clocked(setup)
    game.until_owes(Player.B)
    a, b = game.peers
    forged = _forge(b.log, b, DisputeBody((50_000, 40_000)))
    with pytest.raises(InvalidEntryError, match="is no clock claim"):
        a.receive(forged)
    timeout = a.claim_timeout()
    game.deliver(Player.A, timeout)
    with pytest.raises(InvalidEntryError, match="is no clock claim"):
        b.dispute((50_000, 40_000))


def test_a_version_3_entry_cannot_be_a_dispute(setup: GameSetup) -> None:
    game, _ = false_claim(setup)
    b = game.peers[Player.B]
    log = b.log
    entry = Entry(
        3, log.game_id, log.next_seq, 1, log.head, EntryKind.DISPUTE,
        DisputeBody((50_000, 40_000)),
    )  # fmt: skip
    with pytest.raises(DecodeError, match=r"unknown entry kind 7 in protocol version 3"):
        encode_entry(entry)
    wire = decode_entry(encode_entry(replace(entry, version=4))).to_wire()
    wire[0] = 3
    with pytest.raises(DecodeError, match=r"entry\.kind: unknown entry kind 7 in protocol"):
        decode_entry(encode(wire))


def test_a_late_entry_claim_names_the_late_entry_and_its_author(
    setup: GameSetup, tmp_path: Path
) -> None:
    """Issue 29 item 8: ``owed`` is the entry the claim waited for (the late one) and the
    flagged player who owed it, never the claimant."""
    game = Clocked(setup)
    game.until_owes(Player.B)
    left = game.views[Player.A].left(Player.B, game.now)
    game.step(think=left + 1)  # B's entry comes 1 ms after B's flag, by A's view
    late = len(game.records) - 1
    view = game.views[Player.A]
    claim = game.peers[Player.A].claim_on_time(view.reading(game.now), late)
    game.deliver(Player.A, claim)
    verdict = verify_replay(game.save(tmp_path / "late.dbnr"), where="late")
    assert verdict.flagged_at == late
    assert verdict.owed is not None
    assert (verdict.owed.player, verdict.owed.seq) == ("B", late)
    assert f"B's clock ran out before B's entry {late}" in verdict.summary()


def test_an_event_tells_both_copies_of_a_disputed_claim_as_one_disputed_game(
    setup: GameSetup, tmp_path: Path
) -> None:
    """The claimant's copy may end with its claim (the dispute had not reached it); the
    flagged player's holds the dispute too: one game, told by the longer copy, listed
    apart as a disputed clock claim, counted for nobody."""
    game, _ = false_claim(setup)
    claimants = tmp_path / "claimant.dbnr"
    game.save(claimants)
    game.deliver(Player.B, game.peers[Player.B].dispute((50_000, 40_000)))
    flaggeds = tmp_path / "flagged.dbnr"
    game.save(flaggeds)
    event = report([examine(str(claimants)), examine(str(flaggeds))])
    [told] = event.games
    assert told.files == (str(flaggeds), str(claimants))
    assert told.flags == (FlagKind.DISPUTED_CLOCK,)
    assert not told.counted
    assert told.result().startswith("disputed clock claim: A says B's clock ran out")


def test_the_story_and_the_exports_tell_the_dispute(setup: GameSetup, tmp_path: Path) -> None:
    game, _ = false_claim(setup)
    game.deliver(Player.B, game.peers[Player.B].dispute((50_000, 40_000)))
    story = read_story(game.save(tmp_path / "disputed.dbnr"), where="disputed")
    seq = len(game.records) - 1
    lines = list(game_lines(story))
    assert f"{seq:>6}  B DISPUTES THE CLOCK CLAIM: by B's clock 0:40 was left (clocks A 0:50, " in (
        "\n".join(lines)
    )
    entries = export_json(story)["entries"]
    assert isinstance(entries, list)
    assert entries[-1]["kind"] == "dispute"
    assert entries[-1]["dispute"] == {"claim": seq - 1, "left": 40_000}
    assert seal_words(game.log.decoded[-1].body).startswith("DISPUTE: by the flagged player")
