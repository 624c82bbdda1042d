"""Copies of one game that disagree, read in the worker processes (``commands.copies``):
with ``--jobs 2`` the event and the verdicts are byte for byte those of one process, on a
folder of real signed games with every kind of disagreement (an equivocation, a copy
saved before the last entries, a damaged copy, a refuted claim, evidence, a file that is
no replay); and the process that gathers the workers' results reads no copy again itself.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbnet.commands.copies import read_in_workers
from dbnet.commands.event import read_all
from dbnet.engine import Player
from dbnet.protocol.identity import Identity
from dbnet.replay import checked, forks, gamefile
from dbnet.replay.event import Points, report
from dbnet.replay.evidence import save_evidence

from .events import Played, first_entry_of, forge, play
from .test_event import dbnet

GAMES = 8
"""Forked games: as many pairs of copies to compare as the workers take (``PARALLEL_FROM``)."""


def _write(game: Played, path: Path, records: tuple[bytes, ...]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return Played(game.header, records, game.players, game.secrets).write(path)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each game: A's honest copy, B's copy with a second entry B signed for one place (an
    equivocation) and A's copy saved before its last entries. Beside them: a damaged copy,
    a copy with a refuted timeout claim, an evidence file, and a file that is no replay."""
    folder = tmp_path_factory.mktemp("forks")
    games = []
    for index in range(GAMES):
        keys = (
            Identity.from_private_bytes(bytes([2 * index + 1]) * 32),
            Identity.from_private_bytes(bytes([2 * index + 2]) * 32),
        )
        game = play(keys, index, names=(f"a{index}", f"b{index}"))
        games.append(game)
        seq = first_entry_of(game, Player.B)
        round_folder = folder / f"round-{index % 3}"
        _write(game, round_folder / f"a{index}.dbnr", game.records)
        _write(game, round_folder / f"b{index}.dbnr", forge(game, Player.B, seq))
        _write(game, round_folder / "late" / f"a{index}.dbnr", game.records[:-3])
    first = games[0]
    damaged = bytearray(_write(first, folder / "damaged.dbnr", first.records).read_bytes())
    damaged[-40] ^= 0xFF
    (folder / "damaged.dbnr").write_bytes(bytes(damaged))
    second = games[1]
    claim = first_entry_of(second, Player.A, after=first_entry_of(second, Player.B))
    _write(second, folder / "claim.dbnr", forge(second, Player.B, claim, claim=True))
    third = games[2]
    seq = first_entry_of(third, Player.B)
    save_evidence(
        folder / "c2.dbnr",
        third.header,
        third.records[0],
        third.records[seq],
        forge(third, Player.B, seq)[seq],
    )
    (folder / "no-replay.dbnr").write_bytes(b"not a replay at all")
    return folder


@pytest.mark.parametrize(
    "command",
    [
        ("event",),
        ("event", "--json"),
        ("event", "--html"),
        ("verify",),
        ("verify", "--json"),
    ],
    ids=["event", "event-json", "event-html", "verify", "verify-json"],
)
def test_two_workers_say_what_one_process_says(folder: Path, command: tuple[str, ...]) -> None:
    serial = dbnet(folder, *command, "--jobs", "1", ".", timeout=300)
    parallel = dbnet(folder, *command, "--jobs", "2", ".", timeout=300)
    assert "Traceback" not in serial.stderr + parallel.stderr
    assert serial.returncode == 1, serial.stderr  # equivocations, damage: flagged
    assert parallel.returncode == serial.returncode
    assert parallel.stdout == serial.stdout
    assert "equivocation" in serial.stdout


def test_the_gathering_process_reads_no_copy_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every copy ``replay.forks`` asks about (entry hashes of a longer copy, the records
    of two branches) is read in a worker: this process only gathers. The workers are
    forked after the spy is in, so they run it too, in their own memory: the calls it
    records are this process's own."""
    files = sorted(str(p) for p in folder.rglob("*.dbnr"))
    points = Points()
    facts = read_all(files, 1)
    alone = report(facts, points)
    here = os.getpid()
    calls: list[str] = []
    real = checked.read_checked

    def spy(path: str) -> checked.CheckedReplay:
        if os.getpid() == here:
            calls.append(path)
        return real(path)

    monkeypatch.setattr(forks, "read_checked", spy)
    monkeypatch.setattr(gamefile, "read_checked", spy)
    facts = read_all(files, 2)
    shared = read_in_workers(lambda h, f: report(facts, points, h, fork=f), facts, 2)
    assert calls == []
    assert shared.to_json() == alone.to_json()
    assert len([g for g in alone.games if g.proofs]) >= GAMES
