"""``dbnet.replay.forks`` on real signed copies of one game: two different entries signed
by one key for one place are proven; a damaged copy, an equal copy and a fork between two
authors prove nothing; an evidence file's facts name its game and the proof."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from dbnet.engine import Options, Player
from dbnet.match.peers import LocalMatch
from dbnet.protocol.identity import Identity
from dbnet.replay.evidence import save_evidence
from dbnet.replay.forks import Comparison, RefutedClaim, copies_of, fork_proof
from dbnet.replay.gamefile import entry_hashes, examine
from dbnet.wire.entries import decode_signed_entry
from dbnet.wire.replay_header import ReplayHeader

from .helpers import chooser, header_for, play, setup_with, write_replay
from .helpers import forge as forge_records


@dataclass(frozen=True)
class Game:
    header: ReplayHeader
    records: tuple[bytes, ...]
    players: tuple[Identity, Identity]
    secrets: tuple[bytes, bytes]


@pytest.fixture(scope="module")
def game() -> Game:
    keys = (Identity.generate(), Identity.generate())
    secrets = (b"\x01" * 32, b"\x02" * 32)
    match = LocalMatch(setup_with(Options(turns_to_win=1)), keys, secrets=secrets)
    play(match, chooser(("random", "random"), 3))
    return Game(header_for(match.peers[Player.A].log), tuple(match.records), keys, secrets)


def forge(game: Game, seat: Player, seq: int, *, claim: bool = False) -> tuple[bytes, ...]:
    return forge_records(game.records, game.players[seat], game.secrets[seat], seq, claim=claim)


def first_entry_of(game: Game, seat: Player, after: int = 1) -> int:
    return next(
        seq
        for seq, record in enumerate(game.records)
        if seq > after and decode_signed_entry(record)[1].author == seat
    )


def copy(game: Game, path: Path, records: tuple[bytes, ...]) -> str:
    write_replay(path, game.header, records)
    return str(path)


@pytest.mark.parametrize("seat", [Player.A, Player.B])
def test_two_entries_for_one_place_are_proven(game: Game, tmp_path: Path, seat: Player) -> None:
    seq = first_entry_of(game, seat)
    honest = copy(game, tmp_path / "honest.dbnr", game.records)
    forged = copy(game, tmp_path / "forged.dbnr", forge(game, seat, seq))
    [proof] = fork_proof(honest, forged).proofs
    assert (proof.seat, proof.seq) == (seat, seq)
    assert proof.fingerprint == game.players[seat].fingerprint
    assert proof.key == game.players[seat].public_key.hex()
    assert proof.game_id == game.header.game_id.hex()
    assert proof.files == (honest, forged)
    assert proof.entries[0] == entry_hashes(honest)[seq]
    assert proof.entries[1] == entry_hashes(forged)[seq]
    [again] = fork_proof(forged, honest).proofs
    assert again.entries == proof.entries[::-1]


@pytest.mark.parametrize("where", [-1, -40, -200, 0.9, 0.97])
def test_a_damaged_copy_proves_nothing(game: Game, tmp_path: Path, where: float) -> None:
    honest = copy(game, tmp_path / "honest.dbnr", game.records)
    damaged = tmp_path / "damaged.dbnr"
    data = bytearray(Path(honest).read_bytes())
    at = int(len(data) * where) if isinstance(where, float) else len(data) + where
    data[at] ^= 0x01
    damaged.write_bytes(bytes(data))
    facts = examine(str(damaged))
    assert facts.damaged
    assert fork_proof(honest, str(damaged)) == Comparison()
    assert fork_proof(str(damaged), honest) == Comparison()
    game_copies = copies_of(facts.game_id or "", [examine(honest), facts], entry_hashes)
    assert game_copies.proofs == ()
    assert len(game_copies.branches) == 1  # the damaged copy holds the start of the game


def test_equal_copies_and_a_copy_cut_short_prove_nothing(game: Game, tmp_path: Path) -> None:
    honest = copy(game, tmp_path / "honest.dbnr", game.records)
    assert fork_proof(honest, copy(game, tmp_path / "same.dbnr", game.records)) == Comparison()
    assert fork_proof(honest, copy(game, tmp_path / "cut.dbnr", game.records[:9])) == Comparison()
    assert fork_proof(honest, str(tmp_path / "gone.dbnr")) == Comparison()


def test_a_claim_crossing_an_entry_proves_nothing(game: Game, tmp_path: Path) -> None:
    """B claims that A timed out where A's entry came (and A's copy stops there): a claim
    crossing an entry, which an honest B may sign; no key signed two entries for one
    place, and B signed nothing after A's entry."""
    seq = first_entry_of(game, Player.A, after=3)
    claimed = forge(game, Player.B, seq, claim=True)
    assert decode_signed_entry(claimed[seq])[1].author == Player.B
    crossed = copy(game, tmp_path / "crossed.dbnr", game.records[: seq + 1])
    assert fork_proof(crossed, copy(game, tmp_path / "claim.dbnr", claimed)) == Comparison()


def test_a_claim_its_author_went_on_past_is_refuted(game: Game, tmp_path: Path) -> None:
    seq = first_entry_of(game, Player.A, after=3)
    later = first_entry_of(game, Player.B, after=seq)
    honest = copy(game, tmp_path / "honest.dbnr", game.records)
    claim = copy(game, tmp_path / "claim.dbnr", forge(game, Player.B, seq, claim=True))
    for one, other in ((honest, claim), (claim, honest)):
        found = fork_proof(one, other)
        assert found.proofs == ()
        assert found.refuted == (RefutedClaim(1, seq, claim, later, honest),)


def test_the_facts_of_an_evidence_file(game: Game, tmp_path: Path) -> None:
    seq = first_entry_of(game, Player.B)
    forged = forge(game, Player.B, seq)
    honest = Path(copy(game, tmp_path / "honest.dbnr", game.records))
    path = save_evidence(honest, game.header, game.records[0], game.records[seq], forged[seq])
    facts = examine(str(path))
    assert facts.proof is not None
    assert (facts.proof.seat, facts.proof.seq, facts.proof.files) == (1, seq, (str(path),))
    assert facts.game_id == game.header.game_id.hex()
    assert facts.players == tuple(k.fingerprint for k in game.players)
    assert not facts.is_copy
    assert facts.verdict.status.value == "equivocation"
