"""The loser of an honest game signs a second entry at a place of the game it had signed
already (a RESIGN instead of its own first move), to set its copy against the winner's:
``dbnet event`` and ``dbnet verify`` (real processes, real signed replays) name the
equivocating key with the proof and give the game to the other player by forfeit. The
proof is found in two copies of the game anywhere in the folder, or in an evidence file
(``DBNEQUV1``); a merely damaged copy proves nothing against anyone. The same loser's
forged timeout claim is refuted by its own later entries in the winner's copy, and a
claim crossing the counter-signature of a decided game changes no result."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dbnet.engine import Player
from dbnet.protocol.identity import Identity
from dbnet.replay.evidence import save_evidence
from dbnet.replay.verify import verify_replay
from dbnet.wire.bodies import EntryKind
from dbnet.wire.entries import decode_signed_entry

from .events import Played, first_entry_of, forge, play
from .test_event import dbnet

SEED = 1
"""With these two keys, the random bots' game of this seed is won by A (checked below)."""


@dataclass(frozen=True)
class Attack:
    game: Played
    forged: tuple[bytes, ...]
    """B's copy: the honest entries before ``seq``, then B's RESIGN at ``seq``."""
    seq: int
    a: str
    b: str


@pytest.fixture(scope="module")
def attack() -> Attack:
    keys = (Identity.from_private_bytes(b"\x0a" * 32), Identity.from_private_bytes(b"\x0b" * 32))
    game = play(keys, SEED, names=("ann", "bob"))
    seq = first_entry_of(game, Player.B)
    forged = forge(game, Player.B, seq)
    assert decode_signed_entry(forged[-1])[1].kind is EntryKind.RESIGN
    assert forged[seq] != game.records[seq]
    return Attack(game, forged, seq, keys[0].fingerprint, keys[1].fingerprint)


def write(attack: Attack, path: Path, records: tuple[bytes, ...]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return Played(attack.game.header, records, attack.game.players, attack.game.secrets).write(path)


def test_each_copy_verifies_on_its_own(attack: Attack, tmp_path: Path) -> None:
    """The attack: both copies are valid games; A won the honest one, and the forged one
    ends with B's resignation (not counter-signed)."""
    honest = write(attack, tmp_path / "ann.dbnr", attack.game.records)
    forged = write(attack, tmp_path / "bob.dbnr", attack.forged)
    won = verify_replay(honest.read_bytes(), where="ann")
    assert (won.status.value, won.winner) == ("complete", "A")
    resigned = verify_replay(forged.read_bytes(), where="bob")
    assert resigned.status.value == "decided"


def equivocation_of(game: dict[str, Any]) -> dict[str, Any]:
    [cheat] = game["equivocations"]
    assert isinstance(cheat, dict)
    return cheat


@pytest.mark.parametrize("where", ["beside", "in a subfolder"])
def test_the_event_gives_the_game_to_the_other_player_by_forfeit(
    attack: Attack, tmp_path: Path, where: str
) -> None:
    write(attack, tmp_path / "round-1" / "ann.dbnr", attack.game.records)
    inside = "round-1" if where == "beside" else "round-1/late/bob"
    write(attack, tmp_path / inside / "bob.dbnr", attack.forged)
    done = dbnet(tmp_path, "event", ".", "--json")
    assert done.returncode == 1, done.stderr  # a proven cheat: for the organiser to see
    document = json.loads(done.stdout)
    [game] = document["games"]
    assert game["counted"]
    assert game["winner"] == "A"
    assert game["forfeit"]
    cheat = equivocation_of(game)
    assert cheat["player"] == "B"
    assert cheat["fingerprint"] == attack.b
    assert cheat["seq"] == attack.seq
    assert sorted(Path(str(f)).name for f in cheat["files"]) == ["ann.dbnr", "bob.dbnr"]
    assert game["result"] == (
        f"A won by forfeit: B ({attack.b}) signed two different entries with "
        f"sequence number {attack.seq}"
    )
    standings = {
        s["fingerprint"]: (s["played"], s["wins"], s["losses"]) for s in document["standings"]
    }
    assert standings == {attack.a: (1, 1, 0), attack.b: (1, 0, 1)}
    assert [s["fingerprint"] for s in document["standings"]] == [attack.a, attack.b]
    [flag] = document["flags"]
    assert flag["kind"] == "equivocation"
    assert attack.b in flag["text"]
    assert "same_id" not in json.dumps(document)
    text = dbnet(tmp_path, "event", ".")
    assert text.returncode == 1
    assert "none count" not in text.stdout
    assert (
        f"equivocation proven: game {game['game_id'][:16]}: B ({attack.b}) signed two "
        f"different entries with sequence number {attack.seq}; A won by forfeit"
    ) in text.stdout
    page = dbnet(tmp_path, "event", ".", "--html")
    assert "A won by forfeit" in page.stdout


def test_an_evidence_file_gives_the_game_by_forfeit(attack: Attack, tmp_path: Path) -> None:
    """The winner's copy and the evidence its client saved; then the forged copy and the
    evidence alone: either way the equivocator loses."""
    honest = write(attack, tmp_path / "ann.dbnr", attack.game.records)
    evidence = save_evidence(
        honest,
        attack.game.header,
        attack.game.records[0],
        attack.game.records[attack.seq],
        attack.forged[attack.seq],
    )
    done = dbnet(tmp_path, "event", ".", "--json")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    [game] = document["games"]  # the evidence is the game's, not a game of its own
    assert (game["counted"], game["winner"], game["forfeit"]) == (True, "A", True)
    cheat = equivocation_of(game)
    assert (cheat["player"], cheat["fingerprint"]) == ("B", attack.b)
    assert cheat["files"] == [os.path.join(".", evidence.name)]
    assert [Path(f).name for f in game["files"]] == ["ann.dbnr"]
    assert document["files"] == 2
    honest.unlink()
    write(attack, tmp_path / "bob.dbnr", attack.forged)
    done = dbnet(tmp_path, "event", ".", "--json")
    document = json.loads(done.stdout)
    [game] = document["games"]
    assert (game["counted"], game["winner"]) == (True, "A")
    standings = {s["fingerprint"]: (s["wins"], s["losses"]) for s in document["standings"]}
    assert standings == {attack.a: (1, 0), attack.b: (0, 1)}


def test_when_both_equivocated_the_game_counts_for_nobody(attack: Attack, tmp_path: Path) -> None:
    write(attack, tmp_path / "ann.dbnr", attack.game.records)
    write(attack, tmp_path / "bob.dbnr", attack.forged)
    a_seq = first_entry_of(attack.game, Player.A, after=attack.seq)
    write(attack, tmp_path / "ann-2.dbnr", forge(attack.game, Player.A, a_seq))
    done = dbnet(tmp_path, "event", ".", "--json")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    [game] = document["games"]
    assert not game["counted"]
    assert game["winner"] is None
    assert sorted(c["player"] for c in game["equivocations"]) == ["A", "B"]
    assert game["result"].startswith("no result: both players signed two different entries")
    assert document["standings"] == []


def test_a_damaged_copy_proves_nothing(attack: Attack, tmp_path: Path) -> None:
    """A flipped byte in B's copy breaks a signature: no proof against anyone; the game
    counts by its good copy, and the damaged copy is listed under it."""
    write(attack, tmp_path / "ann.dbnr", attack.game.records)
    damaged = write(attack, tmp_path / "bob.dbnr", attack.game.records)
    data = bytearray(damaged.read_bytes())
    data[-40] ^= 0x01  # in the COSIGN entry, B's last
    damaged.write_bytes(bytes(data))
    done = dbnet(tmp_path, "event", ".", "--json")
    document = json.loads(done.stdout)
    [game] = document["games"]
    assert (game["counted"], game["winner"], game["forfeit"]) == (True, "A", False)
    assert game["equivocations"] == []
    assert game["bad_copies"] == [os.path.join(".", "bob.dbnr")]
    assert [f["kind"] for f in document["flags"]] == ["invalid"]
    assert "equivocation" not in done.stdout.replace('"equivocations"', "")


def test_dbnet_verify_given_both_copies_names_the_equivocator(
    attack: Attack, tmp_path: Path
) -> None:
    honest = write(attack, tmp_path / "ann.dbnr", attack.game.records)
    forged = write(attack, tmp_path / "bob.dbnr", attack.forged)
    alone = dbnet(tmp_path, "verify", str(forged))
    assert alone.returncode == 0  # one copy alone proves nothing: it is a valid game
    done = dbnet(tmp_path, "verify", str(honest), str(forged))
    assert done.returncode == 1, done.stderr
    assert (
        f"equivocation proven: game {attack.game.header.game_id.hex()[:16]}: B ({attack.b}) "
        f"signed two different entries with sequence number {attack.seq} ({honest}, {forged}); "
        "A won by forfeit"
    ) in done.stdout
    assert "NOT all verified" in done.stdout
    document = json.loads(dbnet(tmp_path, "verify", "--json", str(honest), str(forged)).stdout)
    assert document["ok"] is False
    [game] = document["equivocations"]
    assert game["game_id"] == attack.game.header.game_id.hex()[:16]
    assert game["players"] == {"A": attack.a, "B": attack.b}
    assert game["winner"] == "A"
    [cheat] = game["cheats"]
    assert cheat["player"] == "B"
    assert cheat["fingerprint"] == attack.b
    assert cheat["key"] == attack.game.players[1].public_key.hex()
    assert cheat["seq"] == attack.seq
    assert cheat["files"] == [str(honest), str(forged)]
    assert len(cheat["entries"]) == 2
    assert [v["status"] for v in document["verdicts"]] == ["complete", "decided"]
    plain = json.loads(dbnet(tmp_path, "verify", "--json", str(honest)).stdout)
    assert plain["equivocations"] == []


def last_entry_of(game: Played, seat: Player) -> int:
    return max(
        seq
        for seq, record in enumerate(game.records)
        if decode_signed_entry(record)[1].author == seat
    )


@pytest.mark.parametrize("at", ["a move", "the FINAL"])
def test_a_forged_timeout_claim_does_not_erase_a_loss(
    attack: Attack, tmp_path: Path, at: str
) -> None:
    """B signs a timeout claim where A's entry came, and sets it against A's copy, in which
    B itself went on past that entry: B's own later signature refutes the claim, and the
    game counts as its moves say (no key signed two entries for one place: no forfeit)."""
    game = attack.game
    seq = (
        first_entry_of(game, Player.A, after=attack.seq)
        if at == "a move"
        else last_entry_of(game, Player.A)
    )
    write(attack, tmp_path / "ann.dbnr", game.records)
    write(attack, tmp_path / "bob.dbnr", forge(game, Player.B, seq, claim=True))
    done = dbnet(tmp_path, "event", ".", "--json")
    assert done.returncode == 1, done.stderr  # B's claim is a lie: for the organiser to see
    document = json.loads(done.stdout)
    [game_json] = document["games"]
    assert (game_json["counted"], game_json["winner"], game_json["forfeit"]) == (True, "A", False)
    [flag] = document["flags"]
    assert flag["kind"] == "refuted_claim"
    assert flag["text"].startswith(
        f"game {game_json['game_id'][:16]}: B ({attack.b}) signed a timeout claim as entry "
        f"{seq} ({os.path.join('.', 'bob.dbnr')}), and also entry "
    )
    assert flag["text"].endswith(
        f"which follows A's entry {seq} ({os.path.join('.', 'ann.dbnr')}): the claim does not count"
    )
    standings = {s["fingerprint"]: (s["wins"], s["losses"]) for s in document["standings"]}
    assert standings == {attack.a: (1, 0), attack.b: (0, 1)}


def test_a_claim_crossing_the_last_entry_changes_no_result(tmp_path: Path) -> None:
    """B wrote the FINAL of A's win and claims that A never counter-signed it: A's copy
    holds A's COSIGN, B's copy the claim; both copies give A the game, so it counts."""
    keys = (Identity.from_private_bytes(b"\x0a" * 32), Identity.from_private_bytes(b"\x0b" * 32))
    game = play(keys, 16)
    last = len(game.records) - 1
    assert decode_signed_entry(game.records[last])[1].kind is EntryKind.COSIGN
    assert decode_signed_entry(game.records[last])[1].author == Player.A
    game.write(tmp_path / "ann.dbnr")
    Played(game.header, forge(game, Player.B, last, claim=True), keys, game.secrets).write(
        tmp_path / "bob.dbnr"
    )
    done = dbnet(tmp_path, "event", ".", "--json")
    document = json.loads(done.stdout)
    [game_json] = document["games"]
    assert (game_json["counted"], game_json["winner"]) == (True, "A")
    assert game_json["status"] == "complete"
    assert [f["kind"] for f in document["flags"]] == ["claim_crossed"]
    assert done.returncode == 0, done.stderr
