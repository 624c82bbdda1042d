"""``dbnet replay`` and ``dbnet export`` on real replay files, as real processes.

The games are recorded here through the signed log (``LocalGame`` writing a
``ReplayWriter``); what the commands print is checked against the records
themselves, decoded and re-played independently of the commands.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import (
    ChanceRequest,
    Game,
    GameSetup,
    Options,
    Player,
    format_choice,
    parse_choice,
)
from dbnet.match.keys import MatchKeys, replay_header
from dbnet.match.local import LocalGame
from dbnet.match.render import render_position
from dbnet.match.seats import BotSeat, PersonSeat
from dbnet.match.story import faces_in_words
from dbnet.protocol import dice
from dbnet.protocol.identity import fingerprint
from dbnet.protocol.log import GameLog
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.replay.paths import now_utc
from dbnet.wire.bodies import AcceptBody, ClaimBody, EntryKind, OfferBody, PlayBody
from dbnet.wire.entries import decode_signed_entry, entry_hash

from .terminal import isolated_env

LISTED = re.compile(r"^ {0,5}(\d+)  ([AB]) (.+)$", re.MULTILINE)
ROLLED = re.compile(r"^ {0,5}(\d+)    roll ((?:\d )*\d) +([A-Z].*)$", re.MULTILINE)


def dbnet(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env=isolated_env(tmp_path),
    )


def record_game(
    path: Path,
    setup: GameSetup,
    seed: int,
    *,
    resign_after: int | None = None,
    chain_length: int | None = None,
) -> LocalGame:
    """A bot game (greedy A, random B) saved at ``path``; with ``resign_after`` A is a
    person who resigns at their first decision after that many entries."""
    keys = MatchKeys.from_seed(f"test-replay:{seed}".encode())
    a = PersonSeat() if resign_after is not None else BotSeat(GreedyBot(random.Random(seed)))
    seats = (a, BotSeat(RandomBot(random.Random(seed + 1))))
    with ReplayWriter.create(path, replay_header(keys, setup, now_utc())) as writer:
        local = LocalGame(setup, seats, keys, chain_length=chain_length, on_record=writer.append)
        local.advance()
        if resign_after is not None:
            rng = random.Random(seed)
            while len(local.match.records) < resign_after:
                choices = local.game.legal_choices()
                assert choices is not None
                local.play(format_choice(local.game, rng.choice(choices)))
                local.advance()
            local.resign(Player.A)
    return local


@pytest.fixture(scope="module")
def setup() -> GameSetup:
    return GameSetup(load_map(), default_warbands(load_catalog()))


@pytest.fixture(scope="module")
def game_file(setup: GameSetup, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replays") / "game.dbnr"
    record_game(path, setup, 1, chain_length=4)
    return path


def rebuilt(path: Path) -> GameLog:
    """The file's log, rebuilt from its records without the commands."""
    records = load_replay(path).records
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return log


def test_replay_prints_the_verdict_then_every_decision_and_roll(
    tmp_path: Path, game_file: Path
) -> None:
    result = dbnet(tmp_path, "replay", str(game_file))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    log = rebuilt(game_file)
    winner = log.game.winner
    assert winner is not None
    first = out.splitlines()[0]
    assert first.startswith(f"{game_file}: complete: {winner.name} won by victory on turn ")
    for player in (Player.A, Player.B):
        assert f"{player.name}: " in out
        assert fingerprint(log.keys[player]) in out
    # every decision, in order, with its entry's number and author
    decisions = [
        (e.seq, Player(e.author).name, e.body.decision)
        for e in log.decoded
        if isinstance(e.body, PlayBody) and e.body.decision is not None
    ]
    listed = [(int(s), who, text) for s, who, text in LISTED.findall(out)]
    assert [x for x in listed if not x[2].startswith(("FINAL", "COSIGN"))] == decisions
    assert listed[-2][2] == f"FINAL: {winner.name} wins by victory"
    assert listed[-1][2] == f"COSIGN: agrees that {winner.name} wins"
    # every roll with its dice; attack dice also as faces
    rolled = ROLLED.findall(out)
    assert [tuple(int(d) for d in values.split()) for _, values, _ in rolled] == [
        r.dice for r in log.rolls
    ]
    for (_, _, words), roll in zip(rolled, log.rolls, strict=True):
        if roll.kind == "initiative":
            assert words.startswith("Initiative: ")
        else:
            assert faces_in_words(roll.dice) in words
    assert any(r.kind == "attack" for r in log.rolls)
    # the conquest points of every turn, and the result
    turns = re.findall(r"End of turn (\d+): A (\d+), B (\d+) conquest points", out)
    assert [(int(a), int(b)) for _, a, b in turns] == log.game.conquest_history
    assert [int(t) for t, _, _ in turns] == list(range(1, len(turns) + 1))
    assert re.findall(r"^Turn (\d+)$", out, re.MULTILINE) == [str(t) for t, _, _ in turns]
    assert "Score by turn (conquest points):" in out


def position_at(log: GameLog, turn: int) -> Game:
    """The position at the start of ``turn``, re-played from the log's decisions and dice."""
    offer = log.decoded[0].body
    assert isinstance(offer, OfferBody)
    game = Game(offer.setup)
    k = 0
    for entry in log.decoded:
        for step in ("rolls", "decision", "rolls"):
            if step == "rolls":
                while isinstance(game.pending, ChanceRequest) and k < len(log.rolls):
                    if game.turn == turn:
                        return game
                    game.roll(log.rolls[k].dice)
                    k += 1
            elif isinstance(entry.body, PlayBody) and entry.body.decision is not None:
                game.apply(parse_choice(game, entry.body.decision))
    raise AssertionError(f"turn {turn} never started")


def test_replay_at_a_turn_draws_that_position(tmp_path: Path, game_file: Path) -> None:
    log = rebuilt(game_file)
    result = dbnet(tmp_path, "replay", str(game_file), "--at", "3")
    assert result.returncode == 0, result.stderr
    board = result.stdout.split("Position at the start of turn 3:\n", 1)[1]
    assert board == render_position(position_at(log, 3)) + "\n"
    assert "Turn 3, initiative phase." in board
    last = len(log.game.conquest_history)
    beyond = dbnet(tmp_path, "replay", str(game_file), "--at", str(last + 5))
    assert beyond.returncode == 2
    assert beyond.stdout == ""
    assert beyond.stderr.strip() == (
        f"dbnet replay: {game_file}: the game has no turn {last + 5} (it has turns 1 to "
        f"{log.game.turn})"
    )
    for bad in ("0", "three"):
        usage = dbnet(tmp_path, "replay", str(game_file), "--at", bad)
        assert usage.returncode == 2
        assert "Traceback" not in usage.stderr


def tampered(game_file: Path, tmp_path: Path, record: int) -> Path:
    """A copy of the game with one bit of ``record``'s signature flipped."""
    data = bytearray(game_file.read_bytes())
    offset = 8
    for _ in range(record):
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big")
    size = int.from_bytes(data[offset : offset + 4], "big")
    data[offset + 4 + size - 1] ^= 1  # the signature is the record's last 64 bytes
    path = tmp_path / f"tampered-{record}.dbnr"
    path.write_bytes(bytes(data))
    return path


def test_an_invalid_replay_is_told_up_to_where_it_stops(tmp_path: Path, game_file: Path) -> None:
    bad = tampered(game_file, tmp_path, 30)
    result = dbnet(tmp_path, "replay", str(bad))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{bad}: invalid at record 30 (entry 29, byte ")
    assert "bad signature" in lines[0]
    seqs = [int(s) for s, _, _ in LISTED.findall(result.stdout)]
    seqs += [int(s) for s, _, _ in ROLLED.findall(result.stdout)]
    assert max(seqs) == 28  # entry 29 is in record 30
    assert lines[-1].startswith("The replay stops here: invalid at record 30")
    assert "Score by turn" not in result.stdout

    torn = tmp_path / "torn.dbnr"
    torn.write_bytes(game_file.read_bytes()[:-10])
    result = dbnet(tmp_path, "replay", str(torn))
    assert result.returncode == 1
    assert "truncated record (torn write)" in result.stdout.splitlines()[-1]
    assert "COSIGN" not in result.stdout
    assert "FINAL" in result.stdout


def test_files_that_are_not_replays(tmp_path: Path) -> None:
    junk = tmp_path / "junk.dbnr"
    junk.write_bytes(b"not a replay at all")
    result = dbnet(tmp_path, "replay", str(junk))
    assert result.returncode == 1
    assert result.stdout.startswith(f"{junk}: invalid: not a dbnet replay")
    assert "Traceback" not in result.stderr
    missing = dbnet(tmp_path, "export", str(tmp_path / "missing.dbnr"))
    assert missing.returncode == 2
    assert missing.stdout == ""
    lines = missing.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"dbnet export: {tmp_path / 'missing.dbnr'}: cannot read")


def test_export_json_holds_every_entry(tmp_path: Path, game_file: Path) -> None:
    result = dbnet(tmp_path, "export", str(game_file), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    log = rebuilt(game_file)
    header = load_replay(game_file).header
    assert doc["verdict"]["status"] == "complete"
    assert doc["verdict"]["winner"] == log.game.winner.name  # type: ignore[union-attr]
    assert doc["header"]["game_id"] == header.game_id.hex() == log.game_id.hex()
    assert doc["header"]["created"] == header.created
    assert doc["players"]["A"]["fingerprint"] == fingerprint(log.keys[0])
    assert doc["players"]["B"]["key"] == log.keys[1].hex()
    offer, accept = log.decoded[0].body, log.decoded[1].body
    assert isinstance(offer, OfferBody)
    assert isinstance(accept, AcceptBody)
    assert offer.name is not None
    assert accept.name is not None
    assert doc["players"]["A"]["name"] == offer.name
    assert doc["players"]["B"]["name"] == accept.name
    assert doc["stopped_at_record"] is None
    entries = doc["entries"]
    assert [e["seq"] for e in entries] == list(range(len(log.entries)))
    rolls = []
    for item, entry, signed in zip(entries, log.decoded, log.entries, strict=True):
        assert item["author"] == Player(entry.author).name
        assert item["kind"] == entry.kind.name.lower()
        assert item["hash"] == entry_hash(signed.signed).hex()
        body = entry.body
        assert item["decision"] == getattr(body, "decision", None)
        state = getattr(body, "state", None)
        assert item["state"] == (None if state is None else state.hex())
        rolls += item["rolls"]
    assert [(r["index"], r["kind"], tuple(r["dice"])) for r in rolls] == [
        (r.index, r.kind, r.dice) for r in log.rolls
    ]
    # and the dice follow from the links in the file
    for r in log.rolls:
        assert r.dice == dice.roll_dice(
            log.game_id, r.index, log.links[0][r.index], log.links[1][r.index], len(r.dice)
        )
    assert entries[-2]["result"]["winner"] == doc["verdict"]["winner"]
    assert entries[-2]["result"]["turns"] == [list(t) for t in log.game.conquest_history]


def test_export_text_and_an_invalid_file(tmp_path: Path, game_file: Path) -> None:
    result = dbnet(tmp_path, "export", str(game_file), "--format", "text")
    assert result.returncode == 0, result.stderr
    log = rebuilt(game_file)
    out = result.stdout
    assert f"game id: {log.game_id.hex()}" in out
    for entry in log.decoded:
        assert f"entry {entry.seq} (record {entry.seq + 1}) by " in out
    for decision in (e.body.decision for e in log.decoded if isinstance(e.body, PlayBody)):
        if decision is not None:
            assert f"  decision: {decision}\n" in out
    bad = tampered(game_file, tmp_path, 12)
    text = dbnet(tmp_path, "export", str(bad), "--format", "text")
    assert text.returncode == 1
    assert "entry 10 (record 11)" in text.stdout
    assert "entry 11 (record 12)" not in text.stdout
    assert text.stdout.splitlines()[-1].startswith("stops here: invalid at record 12")
    doc = json.loads(dbnet(tmp_path, "export", str(bad)).stdout)
    assert doc["verdict"]["status"] == "invalid"
    assert doc["stopped_at_record"] == 12
    assert len(doc["entries"]) == 11


def test_a_resignation_and_a_claim(tmp_path: Path) -> None:
    setup = GameSetup(load_map(), default_warbands(load_catalog()), options=Options())
    resigned = tmp_path / "resigned.dbnr"
    record_game(resigned, setup, 3, resign_after=12)
    result = dbnet(tmp_path, "replay", str(resigned))
    assert result.returncode == 0, result.stderr
    assert "complete: B won by resignation" in result.stdout.splitlines()[0]
    assert re.search(r"^ {0,5}\d+  A resign$", result.stdout, re.MULTILINE)
    assert "B wins: A resigned." in result.stdout

    # a game closed by a timeout claim: valid, exit 0, labelled as a claim
    claimed = tmp_path / "claimed.dbnr"
    keys = MatchKeys.from_seed(b"test-replay:claim")
    with ReplayWriter.create(claimed, replay_header(keys, setup, now_utc())) as writer:
        local = LocalGame(setup, (PersonSeat(), PersonSeat()), keys, on_record=writer.append)
        match = local.match
        waiter = match.peers[Player.B]  # A owes its link for the first initiative roll
        claim = waiter.claim_timeout()
        match.peers[Player.A].receive(claim)
        writer.append(claim)
    result = dbnet(tmp_path, "export", str(claimed))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["verdict"]["status"] == "claim"
    assert doc["entries"][-1]["kind"] == EntryKind.CLAIM.name.lower()
    assert doc["entries"][-1]["claim"] == {"reason": "timeout", "waiting_for": 2}
    shown = dbnet(tmp_path, "replay", str(claimed))
    assert shown.returncode == 0
    assert "B CLAIM: entry 2 never came (a unilateral claim, not a result)" in shown.stdout
    assert isinstance(decode_signed_entry(claim)[1].body, ClaimBody)


# --- a hostile file: read as verify reads it --------------------------------------------------


def hostile_file(game_file: Path, path: Path, size: int) -> Path:
    """A real game's header and OFFER, then ``size`` bytes of tiny garbage records (two
    bytes each): the verifier stops at the first of them, a reader that frames the whole
    file first holds hundreds of thousands of records."""
    data = game_file.read_bytes()
    offset = 8
    for _ in range(2):  # the header and the OFFER
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big")
    garbage = (2).to_bytes(4, "big") + b"\x00\x00"
    path.write_bytes(data[:offset] + garbage * (size // len(garbage)))
    return path


def test_a_hostile_file_is_refused_by_verify_replay_and_export_alike(
    tmp_path: Path, game_file: Path
) -> None:
    """One refusal, the verifier's, from all three commands, each exiting non-zero."""
    path = hostile_file(game_file, tmp_path / "hostile.dbnr", 1 << 20)
    verified = subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(tmp_path),
        check=False,
    )
    assert verified.returncode == 1
    refusal = verified.stdout.splitlines()[0]
    assert refusal.startswith(f"{path}: invalid at record 2 (entry 1, byte ")
    shown = dbnet(tmp_path, "replay", "--plain", str(path))
    assert shown.returncode == 1
    assert shown.stdout.splitlines()[0] == refusal
    for form in ("json", "text"):
        exported = dbnet(tmp_path, "export", "--format", form, str(path))
        assert exported.returncode == 1
        assert exported.stderr == f"dbnet export: {refusal}\n"  # one line for a person
    for result in (verified, shown, exported):
        assert "Traceback" not in result.stdout + result.stderr


def test_a_hostile_file_costs_no_more_memory_than_verifying_it(
    tmp_path: Path, game_file: Path
) -> None:
    """``replay`` and ``export`` keep only the records the verifier accepted: reading 2 MiB
    of two-byte records costs less than the file, not a list of 350,000 records
    (measured in memory, not time, so that the test is not flaky)."""
    import tracemalloc

    from dbnet.replay.story import read_story

    size = 2 << 20
    data = hostile_file(game_file, tmp_path / "hostile.dbnr", size).read_bytes()
    tracemalloc.start()
    try:
        story = read_story(data, where="hostile")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert story.stops_at == 2
    assert len(story.entries) == 1  # the OFFER
    assert peak < size // 2


def test_replay_export_and_verify_refuse_a_file_over_the_limit_alike(
    tmp_path: Path,
    game_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same size limit and the same words, from the one reading path (the limit is
    lowered here: a real file over 256 MiB would be a slow test)."""
    from dbnet import cli
    from dbnet.replay import file

    monkeypatch.setattr(file, "MAX_FILE_SIZE", 1000)
    size = game_file.stat().st_size
    reason = f"{size} bytes is more than any replay (limit 1000)"
    assert cli.main(["verify", str(game_file)]) == 1
    assert capsys.readouterr().out == f"{game_file}: invalid: {reason}\n"
    for command in (["replay", "--plain"], ["export"]):
        assert cli.main([*command, str(game_file)]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err == f"dbnet {command[0]}: {game_file}: {reason}\n"


def test_a_decided_game_is_valid_for_replay_and_export(tmp_path: Path, game_file: Path) -> None:
    """The loser never counter-signed (the file ends at FINAL): the game's state decides
    it, `dbnet verify` counts it as verified, and so do `replay` and `export` (exit 0)."""
    data = game_file.read_bytes()
    offset, starts = 8, []
    while offset < len(data):
        starts.append(offset)
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big")
    path = tmp_path / "decided.dbnr"
    path.write_bytes(data[: starts[-1]])  # without the last record, the COSIGN
    for args in (("replay", "--plain"), ("export", "--format", "json")):
        result = dbnet(tmp_path, *args, str(path))
        assert result.returncode == 0, result.stderr
        assert "decided" in result.stdout
