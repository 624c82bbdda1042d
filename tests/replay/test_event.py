"""``dbnet.replay.event``: games, flags, roster and standings from the facts of files
(made up here, so that every number is known); ``dbnet.replay.gamefile`` on real files.
``tests/commands/test_event.py`` runs ``dbnet event`` on real replays."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest

from dbnet.protocol.identity import fingerprint
from dbnet.replay.errors import ReplayError
from dbnet.replay.event import FlagKind, Points, no_names, report
from dbnet.replay.event_page import event_page
from dbnet.replay.evidence import Proof
from dbnet.replay.file import iter_records
from dbnet.replay.forks import Comparison, forfeit_winner
from dbnet.replay.gamefile import GameFile, entry_hashes, examine
from dbnet.replay.verify import Owed, Verdict, VerdictStatus

from .helpers import RecordedGame, header_for, write_replay
from .shipped import SHORT, shipped

P, Q, R, S = "PPPP-PPPP", "QQQQ-QQQQ", "RRRR-RRRR", "SSSS-SSSS"


def fact(
    where: str,
    a: str,
    b: str,
    winner: str | None,
    *,
    status: VerdictStatus = VerdictStatus.COMPLETE,
    game_id: str | None = None,
    head: str | None = None,
    entries: int = 40,
    names: tuple[str | None, str | None] = (None, None),
) -> GameFile:
    owed = None
    if status in (VerdictStatus.DECIDED, VerdictStatus.UNFINISHED, VerdictStatus.CLAIM):
        owed = Owed(player="B" if winner == "A" else "A", what="cosign", seq=entries)
    verdict = Verdict(
        where=where,
        status=status,
        entries=entries,
        game_id=(game_id or where)[:16],
        players=(a, b),
        winner=winner,
        reason="victory" if winner else None,
        turn=5,
        owed=owed,
        claimant="A" if status is VerdictStatus.CLAIM else None,
    )
    return GameFile(
        where=where,
        verdict=verdict,
        game_id=game_id or f"id-{where}",
        keys=(f"key-{a}", f"key-{b}"),
        players=(a, b),
        warbands=(f"band {a[0]}", f"band {b[0]}"),
        head=head or f"head-{where}",
        entries=entries,
        names=names,
    )


def no_hashes(path: str) -> list[str]:
    raise AssertionError(f"no copies to compare, but {path} was read")


def test_standings_count_points_and_break_ties_by_the_opponents_win_rate() -> None:
    files = [
        fact("1", P, Q, "A"),  # P beats Q
        fact("2", R, P, "B"),  # P beats R
        fact("3", Q, R, "A"),  # Q beats R
        fact("4", S, R, "A"),  # S beats R
        fact("5", Q, S, None),  # a draw
    ]
    event = report(files, Points(3, 1, 0), hashes=no_hashes)
    table = {s.fingerprint: s for s in event.standings}
    assert [
        (s.fingerprint, s.played, s.wins, s.draws, s.losses, s.points) for s in event.standings
    ] == [
        (P, 2, 2, 0, 0, 6),
        (Q, 3, 1, 1, 1, 4),
        (S, 2, 1, 1, 0, 4),
        (R, 3, 0, 0, 3, 0),
    ]
    rates = {P: Fraction(2, 2), Q: Fraction(1, 3), R: Fraction(0), S: Fraction(1, 2)}
    assert table[P].opponents_win_rate == (rates[Q] + rates[R]) / 2
    assert table[Q].opponents_win_rate == (rates[P] + rates[R] + rates[S]) / 3
    assert table[S].opponents_win_rate == (rates[R] + rates[Q]) / 2
    # Q and S are level on points; Q's opponents won more of their games.
    assert table[Q].opponents_win_rate == Fraction(1, 2)
    assert table[S].opponents_win_rate == Fraction(1, 6)
    assert [s.rank for s in event.standings] == [1, 2, 3, 4]
    other = report(files, Points(2, 1, 0), hashes=no_hashes)
    assert [s.points for s in other.standings] == [4, 3, 3, 0]


def test_players_level_on_points_and_tie_break_share_a_rank() -> None:
    event = report([fact("1", P, Q, "A"), fact("2", R, S, "A")], hashes=no_hashes)
    assert [(s.rank, s.fingerprint) for s in event.standings] == [(1, P), (1, R), (3, Q), (3, S)]


def test_both_copies_of_a_game_count_once() -> None:
    files = [
        fact("a.dbnr", P, Q, "A", game_id="g1", head="h"),
        fact("b.dbnr", P, Q, "A", game_id="g1", head="h"),
    ]
    event = report(files, hashes=no_hashes)
    assert len(event.games) == 1
    assert event.games[0].files == ("a.dbnr", "b.dbnr")
    assert [s.played for s in event.standings] == [1, 1]
    assert event.flags == ()
    roster = {e.fingerprint: e for e in event.roster}
    assert roster[P].files == 2
    assert roster[P].games == 1


def test_a_copy_that_stops_earlier_is_the_same_game() -> None:
    """One player's copy ends before the counter-signature: the game is the longer copy's."""
    files = [
        fact(
            "mine.dbnr",
            P,
            Q,
            "A",
            game_id="g",
            head="h30",
            entries=30,
            status=VerdictStatus.UNFINISHED,
        ),
        fact("theirs.dbnr", P, Q, "A", game_id="g", head="h40", entries=40),
    ]
    longest = [f"h{n}" for n in range(1, 41)]
    event = report(files, hashes=lambda path: longest)
    assert len(event.games) == 1
    game = event.games[0]
    assert game.files == ("theirs.dbnr", "mine.dbnr")
    assert game.counted
    assert game.verdict.status is VerdictStatus.COMPLETE
    assert event.flags == ()


def test_two_different_replays_with_one_game_id_are_flagged_and_not_counted() -> None:
    files = [
        fact("one.dbnr", P, Q, "A", game_id="g", head="x40", entries=40),
        fact("two.dbnr", P, Q, "B", game_id="g", head="y40", entries=40),
    ]
    longest = [f"x{n}" for n in range(1, 41)]
    event = report(files, hashes=lambda path: longest)
    assert len(event.games) == 1
    assert not event.games[0].counted
    assert [f.kind for f in event.flags] == [FlagKind.SAME_ID]
    assert set(event.flags[0].files) == {"one.dbnr", "two.dbnr"}
    assert event.standings == ()
    unreadable = report(files, hashes=lambda path: (_ for _ in ()).throw(ReplayError(path, "gone")))
    assert [f.kind for f in unreadable.flags] == [FlagKind.SAME_ID]


def test_what_counts_and_what_is_listed_apart() -> None:
    bad = Verdict(where="bad.dbnr", status=VerdictStatus.INVALID, entries=0, reason="bad magic")
    nothing = Verdict(
        where="proof.dbnr", status=VerdictStatus.INVALID, entries=0, reason="evidence: no proof"
    )
    files = [
        fact("decided.dbnr", P, Q, "A", status=VerdictStatus.DECIDED),
        fact("open.dbnr", P, R, None, status=VerdictStatus.UNFINISHED),
        fact("claim.dbnr", Q, R, None, status=VerdictStatus.CLAIM),
        fact("self.dbnr", S, S, "A"),
        GameFile("bad.dbnr", bad),
        GameFile("proof.dbnr", nothing),
    ]
    event = report(files, hashes=no_hashes)
    assert [g.files[0] for g in event.counted] == ["decided.dbnr"]
    assert {g.files[0] for g in event.apart} == {"open.dbnr", "claim.dbnr", "self.dbnr"}
    assert [v.where for v in event.unreadable] == ["bad.dbnr", "proof.dbnr"]  # no games
    kinds = {f.files[0]: f.kind for f in event.flags}
    assert kinds == {
        "decided.dbnr": FlagKind.DECIDED,
        "open.dbnr": FlagKind.UNFINISHED,
        "claim.dbnr": FlagKind.CLAIM,
        "self.dbnr": FlagKind.ONE_KEY,
        "bad.dbnr": FlagKind.UNREADABLE,
        "proof.dbnr": FlagKind.UNREADABLE,
    }
    assert [(s.fingerprint, s.points, s.unsigned) for s in event.standings] == [
        (P, 3, 1),
        (Q, 0, 1),
    ]
    assert "bad magic" in next(f.text for f in event.flags if f.kind is FlagKind.UNREADABLE)
    # the four files with a valid OFFER (of facts made without names) record no names
    assert event.notes == (no_names(4),)
    assert event.notes[0].startswith("4 files record no player names")
    assert no_names(1).startswith("1 file records no player names")
    assert {e.fingerprint for e in event.roster} == {P, Q, R, S}


def test_the_roster_shows_the_signed_names_and_flags_a_key_or_a_name_used_twice() -> None:
    files = [
        fact("1", P, Q, "A", names=("ann", "bob")),
        fact("2", P, R, "A", names=("annie", "cy")),  # P signed two names
        fact("3", S, Q, "B", names=("cy", "bob")),  # 'cy' signed by two keys
        fact("4", Q, R, "A", names=("bob", None)),  # R's ACCEPT is missing
    ]
    event = report(files, hashes=no_hashes)
    roster = {e.fingerprint: e.names for e in event.roster}
    assert roster == {P: ("ann", "annie"), Q: ("bob",), R: ("cy",), S: ("cy",)}
    flags = [(f.kind, f.text, f.files) for f in event.flags]
    assert flags == [
        (FlagKind.KEY_NAMES, f"key {P} signed as 'ann', 'annie'", ("1", "2")),
        (FlagKind.NAME_KEYS, f"'cy' signed by keys {R}, {S}", ("2", "3")),
    ]
    assert event.notes == (no_names(1),)
    assert {s.fingerprint: s.names for s in event.standings}[P] == ("ann", "annie")
    games = event.to_json()["games"]
    assert isinstance(games, list)
    assert games[3]["names"] == {"A": "bob", "B": None}


def test_a_roster_with_one_name_per_key_raises_no_flag_and_no_note() -> None:
    files = [fact("1", P, Q, "A", names=("ann", "bob")), fact("2", Q, P, "B", names=("bob", "ann"))]
    event = report(files, hashes=no_hashes)
    assert event.flags == ()
    assert event.notes == ()


def test_the_json_document_has_roster_standings_and_games() -> None:
    files = [fact("1", P, Q, "A"), fact("2", Q, P, None, status=VerdictStatus.UNFINISHED)]
    event = report(files, hashes=no_hashes)
    document = event.to_json()
    assert {"roster", "standings", "games"} <= set(document)
    standings = document["standings"]
    assert isinstance(standings, list)
    assert standings[0] == {
        "rank": 1,
        "fingerprint": P,
        "names": [],
        "played": 1,
        "wins": 1,
        "draws": 0,
        "losses": 0,
        "points": 3,
        "opponents_win_rate": 0.0,
        "not_counter_signed": 0,
        "won_by_forfeit": 0,
    }
    games = document["games"]
    assert isinstance(games, list)
    assert [g["counted"] for g in games] == [True, False]
    assert games[1]["result"] == "unfinished: A owes entry 40"


def test_the_event_page_is_self_contained_and_escapes_names() -> None:
    hostile = "<script>alert(1)</script>\u202e"
    files = [dataclasses.replace(fact("1", P, Q, "A"), warbands=(hostile, "b"))]
    page = event_page(report(files, hashes=no_hashes), version="1.2.3", folder="event<1>")
    assert "<script" not in page
    assert "script-src 'none'" in page
    assert "http:" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\u202e" in page
    assert "event&lt;1&gt;" in page
    assert P in page


# --- the facts of real files -------------------------------------------------------------


def test_the_facts_of_a_shipped_replay() -> None:
    path = str(shipped(SHORT))
    facts = examine(path)
    assert facts.verdict.status is VerdictStatus.COMPLETE
    assert facts.players == facts.verdict.players
    assert facts.keys is not None
    assert facts.players == tuple(fingerprint(bytes.fromhex(k)) for k in facts.keys)
    assert facts.game_id is not None
    assert facts.verdict.game_id == facts.game_id[:16]
    hashes = entry_hashes(path)
    assert len(hashes) == facts.entries == facts.verdict.entries
    assert hashes[-1] == facts.head
    assert facts.warbands == ("Bulwark of Dawn", "Infernal Pyre")
    # protocol version 3: A signed its name in the OFFER, B in the ACCEPT
    assert facts.names == ("greedy-05A", "random-05B")


def test_the_facts_of_a_cut_copy_and_of_files_that_are_not_games(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    whole = tmp_path / "whole.dbnr"
    part = tmp_path / "part.dbnr"
    write_replay(whole, short_game.header, short_game.records)
    write_replay(part, header_for(short_game.log), short_game.records[:10])
    full, cut = examine(str(whole)), examine(str(part))
    assert cut.verdict.status is VerdictStatus.UNFINISHED
    assert cut.entries == 10
    assert entry_hashes(str(whole))[9] == cut.head
    missing = examine(str(tmp_path / "nothing.dbnr"))
    assert missing.verdict.status is VerdictStatus.INVALID
    assert missing.game_id is None
    junk = tmp_path / "junk.dbnr"
    junk.write_bytes(b"junk")
    assert examine(str(junk)).players is None
    assert full.game_id == cut.game_id
    with pytest.raises(ReplayError):
        entry_hashes(str(tmp_path / "nothing.dbnr"))


def test_a_clock_claim_is_listed_apart_and_never_as_a_win() -> None:
    """A clock claim is its claimant's word alone: listed as a clock claim not
    acknowledged by the flagged player, or, with the flagged player's dispute, as a
    disputed clock claim; like every claim, left to the organiser (it counts for nobody)."""
    claim = dataclasses.replace(
        fact("time.dbnr", P, Q, None, status=VerdictStatus.CLAIM).verdict,
        reason="clock",
        flagged_at=30,
        claim_reading=(5_000, 0),
    )
    disputed = dataclasses.replace(claim, where="other.dbnr", dispute_reading=(5_000, 29_000))
    event = report(
        [
            GameFile("time.dbnr", claim, "id-time", players=(P, Q)),
            GameFile("other.dbnr", disputed, "id-other", players=(P, Q)),
        ],
        hashes=no_hashes,
    )
    assert event.counted == ()
    first, second = event.flags
    assert first.kind is FlagKind.CLOCK_CLAIM
    assert first.kind.value == "clock claim, not acknowledged by the flagged player"
    assert first.text.endswith(
        "clock claim, not acknowledged by B: A says B's clock ran out before entry 30; not counted"
    )
    assert second.kind is FlagKind.DISPUTED_CLOCK
    assert second.text.endswith(
        "disputed clock claim: A says B's clock ran out before entry 30; B disputes it; not counted"
    )
    assert not any("won" in flag.text for flag in event.flags)


# --- equivocation: the forfeit rule ------------------------------------------------------


def proof(seat: int, seq: int, *files: str, game_id: str = "g") -> Proof:
    who = (P, Q)[seat]
    return Proof(game_id, seat, f"key-{who}", who, seq, (f"x{seq}", f"y{seq}"), files)


def test_the_forfeit_rule() -> None:
    assert forfeit_winner(frozenset({1})) == 0
    assert forfeit_winner(frozenset({0})) == 1
    assert forfeit_winner(frozenset({0, 1})) is None


def forked() -> list[GameFile]:
    """Two copies of one game that fork; ``fork`` says what they prove."""
    return [
        fact("won.dbnr", P, Q, "A", game_id="g", head="x40", entries=40),
        fact("forged.dbnr", P, Q, "B", game_id="g", head="y9", entries=9),
    ]


@pytest.mark.parametrize("honest_winner", ["A", "B"])
def test_an_equivocator_loses_by_forfeit_whatever_the_copies_say(honest_winner: str) -> None:
    files = [
        fact("won.dbnr", P, Q, honest_winner, game_id="g", head="x40", entries=40),
        fact("forged.dbnr", P, Q, "A", game_id="g", head="y9", entries=9),
    ]
    longest = [f"x{n}" for n in range(1, 41)]
    event = report(
        files,
        hashes=lambda path: longest,
        fork=lambda one, other: Comparison((proof(1, 4, one, other),)),
    )
    [game] = event.games
    assert game.counted
    assert game.winner == 0
    assert (
        game.result()
        == f"A won by forfeit: B ({Q}) signed two different entries with sequence number 4"
    )
    assert [(s.fingerprint, s.wins, s.losses, s.forfeits) for s in event.standings] == [
        (P, 1, 0, 1),
        (Q, 0, 1, 0),
    ]
    [flag] = event.flags
    assert flag.kind is FlagKind.EQUIVOCATION
    assert flag.files == ("won.dbnr", "forged.dbnr")
    assert game.to_json()["forfeit"] is True


def test_both_equivocated_and_the_game_counts_for_nobody() -> None:
    files = [
        fact("one.dbnr", P, Q, "A", game_id="g", head="x40", entries=40),
        fact("two.dbnr", P, Q, "B", game_id="g", head="y40", entries=40),
    ]
    event = report(
        files,
        hashes=lambda path: [f"x{n}" for n in range(1, 41)],
        fork=lambda one, other: Comparison(
            (
                proof(0, 7, one, other),
                proof(1, 8, one, other),
            )
        ),
    )
    [game] = event.games
    assert not game.counted
    assert game.winner is None
    assert game.result().startswith("no result: both players signed two different entries")
    assert event.standings == ()


def test_an_event_may_apply_its_own_forfeit_rule() -> None:
    """The rule is one function, given to ``report``: an event may decide otherwise."""
    files = forked()
    event = report(
        files,
        hashes=lambda path: [f"x{n}" for n in range(1, 41)],
        fork=lambda one, other: Comparison((proof(1, 4, one, other),)),
        forfeit=lambda cheats: None,
    )
    assert not event.games[0].counted


def test_evidence_files_join_their_game_and_the_same_proof_counts_once() -> None:
    copy = fact("won.dbnr", P, Q, "B", game_id="g", head="x40", entries=40)
    evidence = dataclasses.replace(
        fact("proof.dbnr", P, Q, None, game_id="g"), proof=proof(1, 4, "proof.dbnr")
    )
    again = dataclasses.replace(evidence, where="again.dbnr", proof=proof(1, 4, "again.dbnr"))
    event = report([copy, evidence, again], hashes=no_hashes)
    [game] = event.games
    assert game.files == ("won.dbnr",)
    assert game.evidence == ("proof.dbnr", "again.dbnr")
    [found] = game.proofs
    assert found.files == ("proof.dbnr", "again.dbnr")
    assert (game.counted, game.winner) == (True, 0)  # B won the moves, but lost by forfeit
    alone = report([evidence], hashes=no_hashes)  # no copy of the game at all
    assert (alone.games[0].counted, alone.games[0].winner) == (True, 0)
    assert alone.games[0].files == ()


def test_a_fork_that_proves_nothing_counts_for_nobody() -> None:
    """Copies that fork between two authors (a claim crossing an entry): no key signed two
    entries for one place; flagged, none counts, nobody named."""
    files = forked()
    event = report(
        files, hashes=lambda path: [f"x{n}" for n in range(1, 41)], fork=lambda a, b: Comparison()
    )
    [game] = event.games
    assert not game.counted
    assert [f.kind for f in event.flags] == [FlagKind.SAME_ID]


def test_a_damaged_copy_counts_under_its_game() -> None:
    damaged = dataclasses.replace(
        fact("bad.dbnr", P, Q, None, game_id="g", head="x12", entries=12),
        verdict=Verdict(
            where="bad.dbnr",
            status=VerdictStatus.INVALID,
            entries=12,
            record=13,
            reason="bad signature",
        ),
    )
    good = fact("good.dbnr", P, Q, "A", game_id="g", head="x40", entries=40)
    event = report(
        [damaged, good],
        hashes=lambda path: [f"x{n}" for n in range(1, 41)],
        fork=lambda a, b: Comparison(),
    )
    [game] = event.games
    assert game.counted
    assert game.files == ("good.dbnr", "bad.dbnr")
    assert [v.where for v in game.bad] == ["bad.dbnr"]
    assert [(f.kind, f.files) for f in event.flags] == [(FlagKind.INVALID, ("bad.dbnr",))]
    assert {e.fingerprint: (e.games, e.files) for e in event.roster}[P] == (1, 2)
    only = report([damaged], hashes=no_hashes)
    assert not only.games[0].counted
    assert "no valid copy" in only.flags[0].text


def test_a_copy_damaged_in_its_offer_counts_under_the_game_its_header_names(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    """Its header names a game that another file proves: a bad copy of that game. Alone,
    or with a damaged header, it holds no game: unreadable."""
    good = tmp_path / "good.dbnr"
    write_replay(good, short_game.header, short_game.records)
    data = good.read_bytes()
    [(_, offer_at, _)] = [r for r in iter_records(data, where="good") if r[0] == 1]
    broken = bytearray(data)
    broken[offer_at + 40] ^= 0x01
    (tmp_path / "offer.dbnr").write_bytes(bytes(broken))
    facts = examine(str(tmp_path / "offer.dbnr"))
    assert facts.game_id is None
    assert facts.header_id == short_game.header.game_id.hex()
    event = report([examine(str(good)), facts])
    [game] = event.games
    assert game.counted
    assert [v.where for v in game.bad] == [str(tmp_path / "offer.dbnr")]
    assert event.unreadable == ()
    alone = report([facts])
    assert (alone.games, [v.where for v in alone.unreadable]) == ((), [facts.where])
    header = bytearray(data)
    header[12] ^= 0x01
    (tmp_path / "header.dbnr").write_bytes(bytes(header))
    bad_header = examine(str(tmp_path / "header.dbnr"))
    assert bad_header.header_id is None
    assert len(report([examine(str(good)), bad_header]).unreadable) == 1


def test_one_game_id_recorded_under_two_protocol_versions_is_two_games() -> None:
    """The shipped replays (version 3) play their version-2 fixtures again with the same
    keys and nonces, so under the same game ids: the id does not bind the version, so
    they are two games each, not copies in conflict, and nobody is said to equivocate."""
    v2 = shipped(SHORT).parents[1] / "tests" / "replay" / "fixtures" / "v2" / SHORT
    files = [examine(str(v2)), examine(str(shipped(SHORT)))]
    assert files[0].game_id == files[1].game_id
    assert (files[0].protocol, files[1].protocol) == (2, 3)
    event = report(files)
    assert [(g.counted, g.proofs) for g in event.games] == [(True, ()), (True, ())]
    assert event.flags == ()
