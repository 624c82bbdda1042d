"""``dbnet event FOLDER`` on real replay files, as a real process: three players, their
games (one in two copies, one copy cut short, one not counter-signed, one unfinished),
then a folder with an invalid file and two different games under one game id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from dbnet.protocol.identity import Identity
from dbnet.replay.verify import verify_replay

from .events import play


def dbnet(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``dbnet ARGS`` in ``cwd``, a home of its own there, no relay or router asked
    (``timeout``: a hang guard only)."""
    env = {
        **os.environ,
        "DBNET_HOME": str(cwd / "home"),
        "DBNET_RELAY": "off",
        "DBNET_PORT_MAPPING": "off",
    }
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
        check=False,
    )


@dataclass(frozen=True)
class Event:
    folder: Path
    players: tuple[str, str, str]
    counted: tuple[Path, ...]
    """One file of each game that counts."""


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Event:
    folder = tmp_path_factory.mktemp("event")
    p, q, r = (Identity.generate() for _ in range(3))
    g1 = play((p, q), 1, names=("petra", "quinn"))
    g2 = play((q, r), 2, names=("quinn", "rosa"))
    g3 = play((r, p), 3, names=("rosa", "petra"))
    g4 = play((p, r), 4, names=("petra", "rose"))  # r signs another name in its ACCEPT
    rounds = folder / "round-1"
    rounds.mkdir()
    one = g1.write(rounds / "g1-from-a.dbnr")
    g1.write(folder / "g1-from-b.dbnr", created="2025-01-01T00:00:09Z")  # B's copy
    two = g2.write(folder / "g2.dbnr")
    g2.write(folder / "g2-saved-early.dbnr", upto=len(g2.records) // 2)
    three = g3.write(folder / "g3-not-cosigned.dbnr", upto=len(g3.records) - 1)
    g4.write(folder / "g4-unfinished.dbnr", upto=len(g4.records) // 2)
    names = tuple(i.fingerprint for i in (p, q, r))
    assert len(names) == 3
    return Event(folder, (names[0], names[1], names[2]), (one, two, three))


def expected_standings(files: tuple[Path, ...]) -> list[tuple[str, int, int, int, int]]:
    """Fingerprint, played, won, lost, points: counted from the verifier's verdicts."""
    results: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for path in files:
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.ok
        assert verdict.players is not None
        a, b = verdict.players
        results[a].append((b, verdict.winner == "A"))
        results[b].append((a, verdict.winner == "B"))
    rate = {p: Fraction(sum(w for _, w in g), len(g)) for p, g in results.items()}
    rows = []
    for player, games in results.items():
        wins = sum(w for _, w in games)
        tie = sum((rate[o] for o, _ in games), Fraction(0)) / len(games)
        rows.append((-3 * wins, -tie, player, len(games), wins, len(games) - wins, 3 * wins))
    rows.sort()
    return [(r[2], r[3], r[4], r[5], r[6]) for r in rows]


def test_the_standings_count_each_verified_game_once(event: Event) -> None:
    done = dbnet(event.folder, "event", ".", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert {"roster", "standings", "games"} <= set(document)
    standings = [
        (s["fingerprint"], s["played"], s["wins"], s["losses"], s["points"])
        for s in document["standings"]
    ]
    assert standings == expected_standings(event.counted)
    assert sum(s["played"] for s in document["standings"]) == 6  # three games, two players each
    games = document["games"]
    assert len(games) == 4  # six files: one game has two copies, one a copy cut short
    copies = {g["game_id"]: sorted(Path(f).name for f in g["files"]) for g in games}
    assert sorted(copies.values()) == [
        ["g1-from-a.dbnr", "g1-from-b.dbnr"],
        ["g2-saved-early.dbnr", "g2.dbnr"],
        ["g3-not-cosigned.dbnr"],
        ["g4-unfinished.dbnr"],
    ]
    by_file = {Path(g["files"][0]).name: g for g in games}
    assert by_file["g2.dbnr"]["status"] == "complete"  # the longer copy tells the game
    assert by_file["g3-not-cosigned.dbnr"]["status"] == "decided"
    assert by_file["g3-not-cosigned.dbnr"]["counted"]
    assert not by_file["g4-unfinished.dbnr"]["counted"]
    flags = {f["kind"]: f for f in document["flags"]}
    assert set(flags) == {"decided", "unfinished", "key_names"}
    p, q, r = event.players
    assert flags["key_names"]["text"] == f"key {r} signed as 'rosa', 'rose'"
    unsigned = {s["fingerprint"]: s["not_counter_signed"] for s in document["standings"]}
    assert sum(unsigned.values()) == 2
    roster = {e["fingerprint"]: e for e in document["roster"]}
    assert set(roster) == set(event.players)
    assert {k: e["names"] for k, e in roster.items()} == {
        p: ["petra"],
        q: ["quinn"],
        r: ["rosa", "rose"],
    }
    assert {k: e["games"] for k, e in roster.items()} == {p: 3, q: 2, r: 3}
    assert document["notes"] == []  # every file is of protocol version 3: all names signed
    assert {s["fingerprint"]: s["names"] for s in document["standings"]}[q] == ["quinn"]


def test_the_text_says_the_same(event: Event) -> None:
    done = dbnet(event.folder, "event", ".")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(".: 6 replay files hold 4 games (the copies of a game count once); ")
    assert "3 counted, 1 listed apart." in out
    for player, played, wins, losses, points in expected_standings(event.counted):
        assert any(
            line.split()[1:7] == [player, str(played), str(wins), "0", str(losses), str(points)]
            for line in out.splitlines()
        ), player
    assert "win not counter-signed: game " in out
    assert "unfinished game: game " in out
    _, q, r = event.players
    assert f"one key under several names: key {r} signed as 'rosa', 'rose'" in out
    assert f"  {q}  'quinn'; 2 games in 4 files;" in out
    assert "record no player names" not in out


def test_files_before_version_3_are_counted_in_a_note(tmp_path: Path) -> None:
    fixtures = Path(__file__).parents[1] / "replay" / "fixtures" / "v2"
    for path in sorted(fixtures.glob("*.dbnr"))[:3]:
        (tmp_path / path.name).write_bytes(path.read_bytes())
    done = dbnet(tmp_path, "event", ".", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["notes"] == [
        "3 files record no player names (replays before protocol version 3): their players "
        "are known by key fingerprint alone."
    ]
    assert all(e["names"] == [] for e in document["roster"])
    assert document["flags"] == []


def test_other_points_and_an_html_page(event: Event) -> None:
    done = dbnet(event.folder, "event", ".", "--json", "--points", "2,1,0")
    assert done.returncode == 0, done.stderr
    points = {
        s["fingerprint"]: (s["wins"], s["points"]) for s in json.loads(done.stdout)["standings"]
    }
    assert all(total == 2 * wins for wins, total in points.values())
    page = dbnet(event.folder, "event", ".", "--html")
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>")
    assert "script-src 'none'" in page.stdout
    for player in event.players:
        assert player in page.stdout


def test_a_damaged_copy_and_two_games_under_one_id_are_flagged(
    event: Event, tmp_path: Path
) -> None:
    """Two games under one game id: A signed two OFFERs and B two ACCEPTs for one game
    (both equivocated: it counts for nobody); a damaged copy beside a good one."""
    p, q = Identity.generate(), Identity.generate()
    nonces = (b"\x01" * 32, b"\x02" * 32)
    first, second = play((p, q), 5, nonces=nonces), play((p, q), 6, nonces=nonces)
    assert first.header.game_id == second.header.game_id
    assert first.records != second.records
    first.write(tmp_path / "fork-1.dbnr")
    second.write(tmp_path / "fork-2.dbnr")
    good = play((p, q), 7)
    data = bytearray(good.write(tmp_path / "bad.dbnr").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.dbnr").write_bytes(bytes(data))
    good.write(tmp_path / "good.dbnr")  # a good copy of the same game: still counts
    done = dbnet(tmp_path, "event", ".", "--json")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    kinds = sorted(f["kind"] for f in document["flags"])
    assert kinds == ["equivocation", "invalid"]
    same = next(f for f in document["flags"] if f["kind"] == "equivocation")
    assert sorted(Path(f).name for f in same["files"]) == ["fork-1.dbnr", "fork-2.dbnr"]
    forked = next(g for g in document["games"] if g["equivocations"])
    assert [(c["player"], c["seq"]) for c in forked["equivocations"]] == [("A", 0), ("B", 1)]
    assert not forked["counted"]
    bad = next(f for f in document["flags"] if f["kind"] == "invalid")
    assert [Path(f).name for f in bad["files"]] == ["bad.dbnr"]
    assert sum(s["played"] for s in document["standings"]) == 2  # only the good game


def test_usage_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = dbnet(tmp_path, "event", "empty")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "dbnet event: empty: no *.dbnr replay files in this folder\n"
    missing = dbnet(tmp_path, "event", "nowhere")
    assert missing.returncode == 2
    assert missing.stderr == "dbnet event: nowhere: no such file or folder\n"
    bad = dbnet(tmp_path, "event", "empty", "--points", "3,x,0")
    assert bad.returncode == 2
    assert "three whole numbers of points" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_files_that_are_no_replays_are_not_games(tmp_path: Path) -> None:
    """Two copies of a game, a copy with one flipped byte, an empty file and random bytes:
    one game (three copies, one damaged) and two unreadable files, not five games."""
    p, q = Identity.generate(), Identity.generate()
    game = play((p, q), 8)
    game.write(tmp_path / "a.dbnr")
    game.write(tmp_path / "b.dbnr")
    data = bytearray(game.write(tmp_path / "c-flipped.dbnr").read_bytes())
    data[len(data) // 2] ^= 0x01
    (tmp_path / "c-flipped.dbnr").write_bytes(bytes(data))
    (tmp_path / "d-empty.dbnr").write_bytes(b"")
    (tmp_path / "e-random.dbnr").write_bytes(bytes(range(7, 250, 3)) * 5)
    done = dbnet(tmp_path, "event", ".")
    assert done.returncode == 1, done.stderr  # unreadable and damaged files are flagged
    first = done.stdout.splitlines()[0]
    assert first == (
        ".: 3 replay files hold 1 game (the copies of a game count once; 1 copy is damaged); "
        "2 files are unreadable (not replays); 1 counted, 0 listed apart."
    )
    assert f"  {p.fingerprint}  'A'; 1 game in 3 files;" in done.stdout
    assert "1 games" not in done.stdout
    assert "1 files" not in done.stdout
    document = json.loads(dbnet(tmp_path, "event", ".", "--json").stdout)
    [only] = document["games"]
    assert sorted(Path(f).name for f in only["files"]) == ["a.dbnr", "b.dbnr", "c-flipped.dbnr"]
    assert only["bad_copies"] == [os.path.join(".", "c-flipped.dbnr")]
    assert only["counted"]
    assert [(Path(u["file"]).name) for u in document["unreadable"]] == [
        "d-empty.dbnr",
        "e-random.dbnr",
    ]
    assert sorted(f["kind"] for f in document["flags"]) == ["invalid", "unreadable", "unreadable"]
    assert [e["games"] for e in document["roster"]] == [1, 1]


def test_one_file_holds_one_game(tmp_path: Path) -> None:
    play((Identity.generate(), Identity.generate()), 9).write(tmp_path / "a.dbnr")
    done = dbnet(tmp_path, "event", ".")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(".: 1 replay file holds 1 game; 1 counted, 0 listed apart.\n")
