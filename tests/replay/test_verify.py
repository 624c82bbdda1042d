"""Verdicts on real games: complete, unfinished (every prefix), claims, resignations."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from dbnet.engine import Options, Player
from dbnet.match.peers import LocalMatch
from dbnet.protocol.identity import Identity, fingerprint
from dbnet.protocol.log import GameLog, Status
from dbnet.protocol.peer import Peer
from dbnet.replay.verify import ReplayVerifier, VerdictStatus, verify_replay
from dbnet.wire.bodies import EntryKind, FinalBody, PlayBody, ResignBody
from dbnet.wire.entries import (
    Entry,
    decode_signed_entry,
    encode_signed_entry,
    entry_hash,
    sign_entry,
    signing_message,
)
from dbnet.wire.replay_header import ReplayHeader, encode_replay_header
from dbnet.wire.values import decode, encode
from dbnet.wire.versions import PROTOCOL_VERSION

from .helpers import (
    RecordedGame,
    chooser,
    header_for,
    new_match,
    play,
    record_game,
    setup_with,
    write_replay,
)


def test_a_complete_short_game(short_game: RecordedGame) -> None:
    log = short_game.log
    verdict = verify_replay(short_game.data, where="short.dbnr")
    assert verdict.status is VerdictStatus.COMPLETE
    assert verdict.ok
    assert log.game.winner is not None
    assert verdict.winner == log.game.winner.name
    assert verdict.reason == "victory"
    assert verdict.turns == tuple(log.game.conquest_history)
    assert len(verdict.turns) >= 1
    assert verdict.turn == log.game.turn
    assert verdict.entries == len(short_game.records)
    assert verdict.game_id == log.game_id.hex()[:16]
    assert verdict.players == tuple(i.fingerprint for i in short_game.identities)
    assert (verdict.record, verdict.seq, verdict.owed, verdict.claimant) == (None, None, None, None)
    # two-link chains: the link for roll 1 came with the next generation's anchor
    assert len(log.rolls) >= 2
    assert log.chain_length == 2
    final = decode_signed_entry(short_game.records[-2])[1].body
    assert isinstance(final, FinalBody)
    assert (final.winner, final.turns) == (int(log.game.winner), verdict.turns)


def test_a_complete_full_game(full_game: RecordedGame) -> None:
    log = full_game.log
    verdict = verify_replay(full_game.data, where="full.dbnr")
    assert verdict.status is VerdictStatus.COMPLETE
    assert log.game.winner is not None
    assert (verdict.winner, verdict.reason) == (log.game.winner.name, "victory")
    assert verdict.turns == tuple(log.game.conquest_history)
    winners = [Player.A if a > b else Player.B for a, b in verdict.turns if a != b]
    assert winners.count(log.game.winner) == log.game.setup.options.turns_to_win
    assert verdict.summary().startswith(f"complete: {verdict.winner} won by victory on turn ")
    document = verdict.to_json()
    assert json.loads(json.dumps(document)) == document
    assert document["status"] == "complete"
    assert document["turns"] == [list(t) for t in verdict.turns]
    assert document["players"] == {"A": verdict.players[0], "B": verdict.players[1]}  # type: ignore[index]


def test_every_prefix_is_unfinished_and_names_the_next_entry_that_was_written(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    """Cut after each record: the verdict names the author and kind of the record that
    really came next, checked against that record."""
    records = short_game.records
    full = short_game.data
    offsets = [8 + 4 + len(encode_replay_header(short_game.header))]
    for record in records:
        offsets.append(offsets[-1] + 4 + len(record))
    empty = verify_replay(full[: offsets[0]], where="cut")
    assert empty.status is VerdictStatus.UNFINISHED
    assert empty.owed is not None
    assert (empty.owed.player, empty.owed.what, empty.owed.seq) == ("A", "offer", 0)
    for n in range(1, len(records)):
        verdict = verify_replay(full[: offsets[n]], where="cut")
        over = decode_signed_entry(records[n])[1].kind in (EntryKind.FINAL, EntryKind.COSIGN)
        # cut before FINAL or COSIGN, the game is over: decided by its state (issue 19)
        expected = VerdictStatus.DECIDED if over else VerdictStatus.UNFINISHED
        assert verdict.status is expected, (n, verdict)
        assert verdict.entries == n
        owed = verdict.owed
        assert owed is not None
        _signed, coming = decode_signed_entry(records[n])
        assert owed.seq == coming.seq == n
        assert owed.player == Player(coming.author).name
        expected_what = {
            EntryKind.ACCEPT: "accept",
            EntryKind.FINAL: "final",
            EntryKind.COSIGN: "cosign",
        }.get(coming.kind)
        if expected_what is not None:
            assert owed.what == expected_what
        else:
            body = coming.body
            assert isinstance(body, PlayBody)
            if owed.what == "link":
                assert body.links, (n, owed)
                assert body.links[0][0] == owed.roll
                assert owed.dice in ("initiative", "attack", "deathblow")
            else:
                assert owed.what == "decision"
                assert body.decision is not None
                assert owed.decision is not None
        if over:
            assert f"({owed.player}) did not write the {owed.what.upper()} entry" in (
                verdict.summary()
            )
        else:
            assert f"{owed.player} owes entry {n}" in verdict.summary()


def test_a_replay_with_no_entries_is_unfinished_awaiting_the_offer(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    data = write_replay(tmp_path / "empty.dbnr", short_game.header, [])
    verdict = verify_replay(data, where="empty")
    assert verdict.status is VerdictStatus.UNFINISHED
    assert verdict.owed is not None
    assert verdict.owed.describe() == "the OFFER entry"
    assert verdict.game_id is None


def test_a_resignation_is_complete_with_the_other_player_winning(tmp_path: Path) -> None:
    ids = (Identity.generate(), Identity.generate())
    match = new_match(Options(turns_to_win=2), identities=ids)
    choose = chooser(("greedy", "random"), 7)

    def deciding_in_turn_2(m: LocalMatch) -> bool:
        due = m.due()
        return m.is_closed or (m.log.game.turn >= 2 and due is not None and due.view is not None)

    play(match, choose, until=deciding_in_turn_2)
    assert not match.is_closed
    due = match.due()
    assert due is not None
    resigner = due.player
    match.resign(resigner)  # in place of the decision due
    play(match, choose)  # FINAL and COSIGN
    recorded = record_game(tmp_path / "resign.dbnr", match, ids)
    verdict = verify_replay(recorded.data, where="resign")
    assert verdict.status is VerdictStatus.COMPLETE
    assert (verdict.winner, verdict.reason) == (resigner.other.name, "resignation")
    assert verdict.entries == len(match.records)
    assert verdict.turn is not None
    assert verdict.turn >= 2


def _claim_after(
    tmp_path: Path, stop_at: Status | None, name: str
) -> tuple[RecordedGame, Player, int]:
    """A short game cut when the log reaches ``stop_at`` (None: a few entries in), then a
    timeout claim by the player who is not due."""
    ids = (Identity.generate(), Identity.generate())
    match = new_match(Options(turns_to_win=1), identities=ids)
    choose = chooser(("random", "greedy"), 11)
    if stop_at is None:
        play(match, choose, until=lambda m: len(m.records) >= 9)
    else:
        play(match, choose, until=lambda m: m.peers[0].log.status is stop_at)
    due = match.next_author
    assert due is not None
    claimant = due.other
    claim = match.peers[claimant].claim_timeout()
    recorded = record_game(tmp_path / name, match, ids, [*match.records, claim])
    return recorded, claimant, len(match.records)


@pytest.mark.parametrize(
    ("stop_at", "owed_what"),
    [(None, None), (Status.FINAL_DUE, "final"), (Status.COSIGN_DUE, "cosign")],
)
def test_a_timeout_claim_is_reported_as_unilateral(
    tmp_path: Path, stop_at: Status | None, owed_what: str | None
) -> None:
    """A claim while the game is not over is unilateral, never a result; after the game
    is over (FINAL or COSIGN withheld) the game's state decides (hole 4 of issue 19):
    the claim changes nothing."""
    recorded, claimant, awaited = _claim_after(tmp_path, stop_at, "claim.dbnr")
    verdict = verify_replay(recorded.data, where="claim")
    if stop_at is not None:
        assert verdict.status is VerdictStatus.DECIDED
        assert verdict.ok
        winner = recorded.log.game.winner
        assert winner is not None
        assert verdict.winner == winner.name
        assert verdict.owed is not None
        assert verdict.owed.what == owed_what
        assert verdict.owed.seq == awaited
        return
    assert verdict.status is VerdictStatus.CLAIM
    assert not verdict.ok
    assert verdict.winner is None
    assert verdict.claimant == claimant.name
    assert verdict.owed is not None
    assert verdict.owed.player == claimant.other.name
    assert verdict.owed.seq == awaited
    if owed_what is not None:
        assert verdict.owed.what == owed_what
    else:
        assert verdict.owed.what in ("decision", "link")
    assert verdict.summary().startswith(f"unilateral claim by {claimant.name}")


def test_nothing_may_follow_a_claim(tmp_path: Path) -> None:
    recorded, claimant, awaited = _claim_after(tmp_path, None, "claim.dbnr")
    # the awaited player answers after all, with a well-formed, signed, chained entry
    late = Entry(
        version=PROTOCOL_VERSION,
        game_id=recorded.log.game_id,
        seq=awaited + 1,
        author=int(claimant.other),
        prev_hash=entry_hash(decode_signed_entry(recorded.records[-1])[0].signed),
        kind=EntryKind.RESIGN,
        body=ResignBody(state=bytes(32)),
    )
    signed = sign_entry(late, recorded.identities[claimant.other].sign)
    late_record = encode_signed_entry(signed)
    data = write_replay(tmp_path / "after.dbnr", recorded.header, [*recorded.records, late_record])
    verdict = verify_replay(data, where="after")
    assert verdict.status is VerdictStatus.INVALID
    assert verdict.record == len(recorded.records) + 1
    assert verdict.reason is not None
    assert "the log is closed (claimed)" in verdict.reason


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("game_id", bytes(32), "game id"),
        ("keys", (Identity.generate().public_key,) * 2, "keys"),  # not small-order: decodes
        ("rules", "dbnet-rules-0", "rules version"),
    ],
)
def test_a_header_that_does_not_match_the_offer_is_invalid_at_record_0(
    tmp_path: Path, short_game: RecordedGame, field: str, value: object, what: str
) -> None:
    header: ReplayHeader = dataclasses.replace(short_game.header, **{field: value})  # type: ignore[arg-type]
    data = write_replay(tmp_path / "h.dbnr", header, short_game.records)
    verdict = verify_replay(data, where="h")
    assert verdict.status is VerdictStatus.INVALID
    assert (verdict.record, verdict.seq, verdict.offset) == (0, None, 8)
    assert verdict.reason == f"the header's {what} differs from the OFFER's (entry 0)"


def test_the_created_field_is_informative_only(tmp_path: Path, short_game: RecordedGame) -> None:
    """``created`` is the only byte range no signature covers (docs/replay-format.md)."""
    header = dataclasses.replace(short_game.header, created="1999-12-31T23:59:59Z")
    data = write_replay(tmp_path / "c.dbnr", header, short_game.records)
    assert verify_replay(data, where="c").status is VerdictStatus.COMPLETE


def test_a_snapshot_verifier_is_independent_and_agrees_with_the_whole_check(
    short_game: RecordedGame,
) -> None:
    data = short_game.data
    verifier = ReplayVerifier("s")
    from dbnet.replay.file import iter_records

    frames = list(iter_records(data, where="s"))
    half = len(frames) // 2
    for _index, _offset, record in frames[:half]:
        verifier.add(record)
    snapshot = verifier.copy()
    rest_offset = frames[half][1]
    before = snapshot.verdict()
    assert verifier.run(data, rest_offset) == verify_replay(data, where="s")
    assert snapshot.verdict() == before  # finishing the original left the copy untouched
    assert snapshot.run(data, rest_offset).status is VerdictStatus.COMPLETE
    assert isinstance(snapshot.log, GameLog)


def test_fingerprints_are_those_of_the_keys(short_game: RecordedGame) -> None:
    verdict = verify_replay(short_game.data, where="s")
    assert verdict.players == (
        fingerprint(short_game.header.keys[0]),
        fingerprint(short_game.header.keys[1]),
    )


def test_a_setup_asking_for_endless_dice_is_refused_at_the_offer(tmp_path: Path) -> None:
    """A hostile OFFER, validly signed, whose creatures have 2^62 power would make the
    first attack roll 2^62 dice: the decoder refuses it at the OFFER, naming the field."""
    setup = setup_with(Options(turns_to_win=1))
    ids = (Identity.generate(), Identity.generate())
    offerer, offer = Peer.offer(ids[0], ids[1].public_key, setup)
    signed, _ = decode_signed_entry(offer)
    fields = decode(signed.signed)
    assert isinstance(fields, list)
    body = fields[6]
    assert isinstance(body, dict)
    body["setup"]["warbands"][0]["minis"][0]["power"] = 2**62
    hostile = encode(fields)
    forged = encode([hostile, ids[0].sign(signing_message(hostile))])
    data = write_replay(tmp_path / "hostile.dbnr", header_for(offerer.log), [forged])
    verdict = verify_replay(data, where="hostile")
    assert verdict.status is VerdictStatus.INVALID
    assert (verdict.record, verdict.seq) == (1, 0)
    assert verdict.reason is not None
    assert "minis[0].power: expected an integer from 0 to 99" in verdict.reason
