"""``dbnet verify`` as a real subprocess: exit codes, one-line verdicts, the table, JSON."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from dbnet.commands.verify import Progress

from .helpers import RecordedGame, write_replay

COMMAND = [sys.executable, "-m", "dbnet", "verify"]


def verify(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *map(str, args)], capture_output=True, text=True, timeout=120, check=False
    )


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stdout


def test_one_complete_game_exits_0(tmp_path: Path, short_game: RecordedGame) -> None:
    path = tmp_path / "game.dbnr"
    path.write_bytes(short_game.data)
    result = verify(path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{path}: complete: ")
    assert short_game.header.game_id.hex()[:16] in lines[1]
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


def test_an_unfinished_game_exits_1_and_says_who_owes_what(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    path = tmp_path / "cut.dbnr"
    write_replay(path, short_game.header, short_game.records[:5])
    result = verify(path)
    assert result.returncode == 1
    assert f"{path}: unfinished after 5 entries" in result.stdout
    assert "owes entry 5" in result.stdout


def test_an_invalid_game_exits_1_with_the_record(tmp_path: Path, short_game: RecordedGame) -> None:
    path = tmp_path / "bad.dbnr"
    data = bytearray(short_game.data)
    data[-10] ^= 1  # inside the COSIGN's signature
    path.write_bytes(bytes(data))
    result = verify(path)
    assert result.returncode == 1
    last = len(short_game.records)
    assert f"invalid at record {last} (entry {last - 1}, byte " in result.stdout
    assert "bad signature" in result.stdout
    assert_no_traceback(result)


def test_usage_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    missing = verify(tmp_path / "nope.dbnr")
    assert missing.returncode == 2
    assert missing.stderr == f"dbnet verify: {tmp_path / 'nope.dbnr'}: no such file or folder\n"
    assert missing.stdout == ""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a replay")
    result = verify(empty)
    assert result.returncode == 2
    assert result.stderr == f"dbnet verify: {empty}: no *.dbnr replay files in this folder\n"
    jobs = verify("--jobs", "0", empty)
    assert jobs.returncode == 2
    assert len(jobs.stderr.splitlines()) == 1
    no_args = verify()
    assert no_args.returncode == 2
    assert_no_traceback(no_args)


def _event(tmp_path: Path, short_game: RecordedGame, full_game: RecordedGame) -> Path:
    """A tournament folder: two complete games (one in a subfolder), a cut one, a
    corrupt one, a non-replay file that must be ignored."""
    event = tmp_path / "event"
    (event / "round2").mkdir(parents=True)
    (event / "a-short.dbnr").write_bytes(short_game.data)
    (event / "round2" / "b-full.dbnr").write_bytes(full_game.data)
    write_replay(event / "c-cut.dbnr", short_game.header, short_game.records[:3])
    (event / "d-junk.dbnr").write_bytes(b"DBNRPLY1\x00\x00")
    (event / "readme.txt").write_text("ignored")
    return event


def test_a_folder_gives_a_table_and_counts(
    tmp_path: Path, short_game: RecordedGame, full_game: RecordedGame
) -> None:
    event = _event(tmp_path, short_game, full_game)
    result = verify(event)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["file", "status", "result", "/", "reason", "entries"]
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert set(rows) == {
        str(event / "a-short.dbnr"),
        str(event / "c-cut.dbnr"),
        str(event / "d-junk.dbnr"),
        str(event / "round2" / "b-full.dbnr"),
    }
    short_row = rows[str(event / "a-short.dbnr")]
    assert short_row.split()[1] == "complete"
    assert short_row.split()[-1] == str(len(short_game.records))
    assert rows[str(event / "c-cut.dbnr")].split()[1] == "unfinished"
    assert "owes entry 3" in rows[str(event / "c-cut.dbnr")]
    assert rows[str(event / "d-junk.dbnr")].split()[1] == "invalid"
    assert lines[-1] == ("4 files: 2 complete, 1 unfinished, 0 claims, 1 invalid; NOT all verified")
    good = verify(event / "a-short.dbnr", event / "round2")
    assert good.returncode == 0
    assert good.stdout.splitlines()[-1].endswith("all verified")


def test_json_lists_every_verdict(
    tmp_path: Path, short_game: RecordedGame, full_game: RecordedGame
) -> None:
    event = _event(tmp_path, short_game, full_game)
    result = verify("--json", event)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["ok"] is False
    assert document["counts"] == {
        "complete": 2,
        "decided": 0,
        "unfinished": 1,
        "claim": 0,
        "invalid": 1,
        "equivocation": 0,
    }
    by_file = {Path(v["file"]).name: v for v in document["verdicts"]}
    assert by_file["a-short.dbnr"]["winner"] in ("A", "B")
    assert by_file["a-short.dbnr"]["entries"] == len(short_game.records)
    assert by_file["b-full.dbnr"]["turns"] == [list(t) for t in full_game.log.game.conquest_history]
    assert by_file["c-cut.dbnr"]["owed"]["seq"] == 3
    junk = by_file["d-junk.dbnr"]
    assert (junk["status"], junk["record"], junk["offset"]) == ("invalid", 0, 8)


def test_many_files_are_checked_in_parallel_with_the_same_verdicts(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(10):
        data = short_game.data if i % 3 else short_game.data[:-7]
        (folder / f"g{i:02}.dbnr").write_bytes(data)
    parallel = verify("--json", "--jobs", "2", folder)
    serial = verify("--json", "--jobs", "1", folder)
    assert parallel.returncode == serial.returncode == 1
    assert json.loads(parallel.stdout) == json.loads(serial.stdout)
    assert json.loads(serial.stdout)["counts"]["invalid"] == 4


def test_a_fifo_named_like_a_replay_is_invalid_not_a_hang(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "good.dbnr").write_bytes(short_game.data)
    os.mkfifo(folder / "pipe.dbnr")
    result = verify("--json", folder)
    verdicts = {Path(v["file"]).name: v for v in json.loads(result.stdout)["verdicts"]}
    assert verdicts["pipe.dbnr"]["status"] == "invalid"
    assert verdicts["pipe.dbnr"]["reason"] == "not a regular file"
    assert verdicts["good.dbnr"]["status"] == "complete"


class Terminal(io.StringIO):
    """A text stream that says it is a terminal (a fake, for the progress bar)."""

    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_on_terminals_only() -> None:
    screen = Terminal()
    bar = Progress(4, screen)
    bar.update(1)
    bar.update(4)
    assert screen.getvalue().split("\r")[1:] == [
        "[" + "#" * 7 + "." * 23 + "] 1/4",
        "[" + "#" * 30 + "] 4/4",
    ]
    bar.clear()
    assert screen.getvalue().endswith("\r" + " " * 36 + "\r")
    pipe = io.StringIO()
    quiet = Progress(4, pipe)
    quiet.update(2)
    quiet.clear()
    assert pipe.getvalue() == ""


def test_a_bad_signature_counts_only_the_entries_before_it(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    """Record k has a flipped signature byte: k - 1 valid entries (entries 0 to k - 2)."""
    k = 4
    path = tmp_path / "bad.dbnr"
    data = bytearray(short_game.data)
    # the last byte of record k is the last byte of its signature
    end = len(short_game.data) - sum(4 + len(r) for r in short_game.records[k:])
    data[end - 1] ^= 1
    path.write_bytes(bytes(data))
    result = verify(path)
    assert result.returncode == 1
    assert f"invalid at record {k} (entry {k - 1}, byte " in result.stdout
    assert "bad signature" in result.stdout
    assert f", {k - 1} valid entries;" in result.stdout
    assert_no_traceback(result)
