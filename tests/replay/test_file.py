"""The replay file: framing, the writer's create/append/resume discipline, the reader."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet import files
from dbnet.replay import file
from dbnet.replay.errors import DiskFullError, ReplayError
from dbnet.replay.file import (
    MAGIC,
    MAX_RECORD_SIZE,
    ReplayWriter,
    iter_records,
    load_replay,
    read_replay,
)
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.replay_header import ReplayHeader, encode_replay_header
from dbnet.wire.values import encode

from .helpers import RecordedGame, write_replay


def framed(record: bytes) -> bytes:
    return len(record).to_bytes(4, "big") + record


def test_write_then_read_gives_back_every_record_exactly(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    path = tmp_path / "game.dbnr"
    data = write_replay(path, short_game.header, short_game.records)
    assert data.startswith(MAGIC)
    header_record = encode_replay_header(short_game.header)
    assert data == MAGIC + framed(header_record) + b"".join(map(framed, short_game.records))
    replay = load_replay(path)
    assert replay.header == short_game.header
    assert replay.records == short_game.records
    assert replay.torn_tail is False


def test_each_append_is_in_the_file_before_append_returns(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    path = tmp_path / "game.dbnr"
    with ReplayWriter.create(path, short_game.header) as writer:
        assert load_replay(path).records == ()
        for n, record in enumerate(short_game.records[:5], start=1):
            writer.append(record)
            assert writer.entries == n
            # another reader sees the record at once: nothing is buffered in the writer
            assert load_replay(path).records == short_game.records[:n]
    assert writer.closed


def test_an_unsynced_append_is_written_at_once_and_synced_by_the_next(
    tmp_path: Path, short_game: RecordedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sync=False`` (for a peer's records, which it can send again) skips the fsync,
    not the write: another reader sees the record at once; a synced append syncs it."""
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    path = tmp_path / "game.dbnr"
    with ReplayWriter.create(path, short_game.header) as writer:
        monkeypatch.setattr(os, "fsync", fsync)
        writer.append(short_game.records[0], sync=False)
        assert synced == []
        assert load_replay(path).records == short_game.records[:1]
        writer.append(short_game.records[1])
        assert len(synced) == 1
        assert load_replay(path).records == short_game.records[:2]


def test_a_killed_writer_loses_no_appended_record(tmp_path: Path, short_game: RecordedGame) -> None:
    """A process killed right after its appends (no close, no exit handlers) leaves them all."""
    path = tmp_path / "killed.dbnr"
    records = short_game.records[:6]
    (tmp_path / "records").write_bytes(b"".join(map(framed, records)))
    header = encode_replay_header(short_game.header)
    (tmp_path / "header").write_bytes(header)
    script = f"""
import os, signal
from pathlib import Path
from dbnet.replay.file import ReplayWriter, iter_records
from dbnet.wire.replay_header import decode_replay_header
folder = Path({str(tmp_path)!r})
header = decode_replay_header((folder / "header").read_bytes())
writer = ReplayWriter.create(folder / "killed.dbnr", header)
data = b"DBNRPLY1" + (folder / "records").read_bytes()
for _i, _offset, record in iter_records(data, where="records"):
    writer.append(record)
os.kill(os.getpid(), signal.SIGKILL)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == -9, result.stderr
    assert load_replay(path).records == records
    assert verify_replay(path.read_bytes(), where="killed").status is VerdictStatus.UNFINISHED


def test_create_refuses_an_existing_file_and_leaves_it_alone(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    path = tmp_path / "game.dbnr"
    path.write_bytes(b"precious")
    with pytest.raises(ReplayError, match="already exists"):
        ReplayWriter.create(path, short_game.header)
    assert path.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.dbnr"]  # no temp file left


def test_create_leaves_only_the_replay_in_the_folder(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    with ReplayWriter.create(tmp_path / "game.dbnr", short_game.header):
        pass
    assert [p.name for p in tmp_path.iterdir()] == ["game.dbnr"]
    replay = load_replay(tmp_path / "game.dbnr")
    assert (replay.header, replay.records) == (short_game.header, ())


def test_create_in_a_missing_folder_names_the_path(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    path = tmp_path / "nowhere" / "game.dbnr"
    with pytest.raises(ReplayError, match=re.escape(str(path)) + ".*cannot create"):
        ReplayWriter.create(path, short_game.header)


def test_the_writer_refuses_oversized_records_and_writing_after_close(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    path = tmp_path / "game.dbnr"
    writer = ReplayWriter.create(path, short_game.header)
    with pytest.raises(ReplayError, match="cannot be written"):
        writer.append(bytes(MAX_RECORD_SIZE + 1))
    with pytest.raises(ReplayError, match="cannot be written"):
        writer.append(b"")
    writer.close()
    with pytest.raises(ReplayError, match="closed"):
        writer.append(short_game.records[0])
    assert load_replay(path).records == ()  # nothing was written by the refused appends


@pytest.mark.parametrize("kept", [1, 2, 3, 4, 40])
def test_a_torn_tail_is_reported_and_resume_repairs_it(
    tmp_path: Path, short_game: RecordedGame, kept: int
) -> None:
    """A crash mid-append leaves ``kept`` bytes of the next record's frame."""
    path = tmp_path / "torn.dbnr"
    complete = write_replay(path, short_game.header, short_game.records[:7])
    with path.open("ab") as handle:
        handle.write(framed(short_game.records[7])[:kept])
    data = path.read_bytes()

    replay = read_replay(data, where="torn")
    assert replay.torn_tail is True
    assert replay.records == short_game.records[:7]
    verdict = verify_replay(data, where="torn")
    assert verdict.status is VerdictStatus.INVALID
    assert (verdict.record, verdict.seq, verdict.offset) == (8, 7, len(complete))
    assert verdict.reason is not None
    assert verdict.reason.startswith("truncated record (torn write)")

    with ReplayWriter.resume(path) as writer:
        assert writer.repaired is True
        assert writer.entries == 7
        assert path.read_bytes() == complete
        for record in short_game.records[7:]:
            writer.append(record)
    repaired = verify_replay(path.read_bytes(), where="repaired")
    assert repaired.status is VerdictStatus.COMPLETE
    assert repaired.entries == len(short_game.records)


def test_resume_of_an_intact_file_changes_nothing(tmp_path: Path, short_game: RecordedGame) -> None:
    path = tmp_path / "game.dbnr"
    data = write_replay(path, short_game.header, short_game.records[:3])
    with ReplayWriter.resume(path) as writer:
        assert (writer.repaired, writer.entries, writer.header) == (False, 3, short_game.header)
        assert path.read_bytes() == data
        writer.append(short_game.records[3])
    assert load_replay(path).records == short_game.records[:4]


def test_resume_refuses_what_is_not_a_torn_replay(tmp_path: Path, short_game: RecordedGame) -> None:
    missing = tmp_path / "missing.dbnr"
    with pytest.raises(ReplayError, match=r"missing\.dbnr: cannot open"):
        ReplayWriter.resume(missing)
    bad = tmp_path / "bad.dbnr"
    data = write_replay(bad, short_game.header, short_game.records[:3])
    corrupt = data + (MAX_RECORD_SIZE + 1).to_bytes(4, "big") + b"x" * 10
    bad.write_bytes(corrupt)
    with pytest.raises(ReplayError, match=r"record 4 .*outside 1 to 65536"):
        ReplayWriter.resume(bad)
    assert bad.read_bytes() == corrupt  # refused means untouched


def test_two_writers_cannot_append_to_one_file(tmp_path: Path, short_game: RecordedGame) -> None:
    path = tmp_path / "game.dbnr"
    with (
        ReplayWriter.create(path, short_game.header),
        pytest.raises(ReplayError, match="another process is writing"),
    ):
        ReplayWriter.resume(path)
    with ReplayWriter.resume(path) as writer:  # free again once closed
        assert writer.entries == 0


# --- the reader's strict framing -------------------------------------------------------------


@pytest.fixture
def two_records(short_game: RecordedGame, tmp_path: Path) -> bytes:
    return write_replay(tmp_path / "two.dbnr", short_game.header, short_game.records[:2])


def test_bad_magic(two_records: bytes) -> None:
    with pytest.raises(ReplayError, match=r"^f: byte 0: not a dbnet replay"):
        read_replay(b"DBNRPLY2" + two_records[8:], where="f")
    with pytest.raises(ReplayError, match="not a dbnet replay"):
        read_replay(b"", where="f")


def test_a_file_with_only_the_magic_has_no_header() -> None:
    with pytest.raises(ReplayError, match=r"record 0 \(byte 8\): no header"):
        read_replay(MAGIC, where="f")
    verdict = verify_replay(MAGIC, where="f")
    assert (verdict.status, verdict.record, verdict.offset) == (VerdictStatus.INVALID, 0, 8)


def test_a_torn_header_is_an_error_not_a_torn_tail(two_records: bytes) -> None:
    with pytest.raises(ReplayError, match=r"record 0 \(byte 8\): the header is incomplete"):
        read_replay(two_records[:20], where="f")


def test_an_undecodable_header_names_record_0(short_game: RecordedGame) -> None:
    bad_header = encode({"format": 1})
    with pytest.raises(ReplayError, match=r"record 0 \(byte 8\): undecodable header: .*missing"):
        read_replay(MAGIC + framed(bad_header), where="f")


@pytest.mark.parametrize("length", [0, MAX_RECORD_SIZE + 1, 2**32 - 1])
def test_record_lengths_outside_the_cap(two_records: bytes, length: int) -> None:
    bad = two_records + length.to_bytes(4, "big") + b"\x00" * 8
    with pytest.raises(ReplayError, match=rf"record 3 \(byte {len(two_records)}\): record length"):
        read_replay(bad, where="f")
    verdict = verify_replay(bad, where="f")
    assert (verdict.status, verdict.record, verdict.offset) == (
        VerdictStatus.INVALID,
        3,
        len(two_records),
    )


def test_a_length_beyond_the_end_is_a_torn_tail_at_that_record(two_records: bytes) -> None:
    bad = two_records + (500).to_bytes(4, "big") + b"\x00" * 10
    assert read_replay(bad, where="f").torn_tail is True
    with pytest.raises(ReplayError, match=r"record 3 \(byte \d+\): truncated record"):
        list(iter_records(bad, where="f"))


def test_load_replay_names_a_missing_or_unreadable_path(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=r"nope\.dbnr: cannot read the file: No such file"):
        load_replay(tmp_path / "nope.dbnr")
    with pytest.raises(ReplayError, match="not a regular file"):
        load_replay(tmp_path)
    fifo = tmp_path / "pipe.dbnr"
    os.mkfifo(fifo)
    with pytest.raises(ReplayError, match=r"pipe\.dbnr: not a regular file"):
        load_replay(fifo)  # refused without opening it (opening a FIFO would block)


def test_the_example_in_the_format_document() -> None:
    """docs/replay-format.md section 3 shows these bytes for this header."""
    header = ReplayHeader(
        rules="dbnet-rules-1",
        game_id=bytes([0x11]) * 32,
        keys=(bytes([0x22]) * 32, bytes([0x33]) * 32),
        created="2025-01-01T00:00:00Z",
    )
    documented = (
        "86 a6 666f726d6174 03 a8 70726f746f636f6c 03 a5 72756c6573 ad 64626e65742d72756c65732d31"
        f" a7 67616d655f6964 c4 20 {'11' * 32} a4 6b657973 92 c4 20 {'22' * 32} c4 20 {'33' * 32}"
        " a7 63726561746564 b4 323032352d30312d30315430303a30303a30305a"
    )
    record = encode_replay_header(header)
    assert record == bytes.fromhex(documented.replace(" ", ""))
    assert len(record) == 0xB8 == 184
    assert read_replay(MAGIC + framed(record), where="doc").header == header


# --- a full disk, and a replay that holds no entry -----------------------------------------


def no_space(*_args: object) -> None:
    """A write to a full disk."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_on_append_is_named_and_leaves_the_file_whole(
    tmp_path: Path, short_game: RecordedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.dbnr"
    writer = ReplayWriter.create(path, short_game.header)
    for record in short_game.records[:3]:
        writer.append(record)
    monkeypatch.setattr(file, "_write_all", no_space)
    with pytest.raises(DiskFullError) as caught:
        writer.append(short_game.records[3])
    assert str(caught.value) == (
        f"{path}: record 4 (byte {path.stat().st_size}): "
        "cannot append the record: No space left on device"
    )
    assert caught.value.where == str(path)
    monkeypatch.undo()
    writer.append(short_game.records[3])  # space again: the game goes on
    writer.close()
    assert load_replay(path).records == short_game.records[:4]


def test_a_full_disk_on_create_leaves_nothing(
    tmp_path: Path, short_game: RecordedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.dbnr"
    monkeypatch.setattr(file, "_write_all", no_space)
    with pytest.raises(DiskFullError, match="cannot create the file: No space left on device"):
        ReplayWriter.create(path, short_game.header)
    assert list(tmp_path.iterdir()) == []


def test_a_replay_of_ours_without_entries_may_be_replaced(
    tmp_path: Path, short_game: RecordedGame, sibling_game: RecordedGame
) -> None:
    """A disk that filled before the OFFER fitted leaves a header-only file: a new game
    of the same player may take its place; a file with an entry, or someone else's,
    never is."""
    ours = short_game.header.keys[1]
    path = tmp_path / "game.dbnr"
    write_replay(path, sibling_game.header, [])  # header only
    assert file.holds_no_entry(path, ours)
    with ReplayWriter.create(path, short_game.header, replace_empty_for=ours) as writer:
        writer.append(short_game.records[0])
    assert load_replay(path).header == short_game.header
    assert load_replay(path).records == short_game.records[:1]
    assert not file.holds_no_entry(path, ours)  # it holds the OFFER now
    with pytest.raises(ReplayError, match="already exists"):
        ReplayWriter.create(path, sibling_game.header, replace_empty_for=ours)

    torn = tmp_path / "torn.dbnr"  # torn before its first entry was whole
    torn.write_bytes(write_replay(tmp_path / "h.dbnr", sibling_game.header, []) + b"\x00\x00")
    assert file.holds_no_entry(torn, ours)
    ReplayWriter.create(torn, short_game.header, replace_empty_for=ours).close()
    assert load_replay(torn).header == short_game.header

    stranger = bytes(32)
    other = tmp_path / "other.dbnr"
    write_replay(other, sibling_game.header, [])
    assert not file.holds_no_entry(other, stranger)
    with pytest.raises(ReplayError, match="already exists"):
        ReplayWriter.create(other, short_game.header, replace_empty_for=stranger)
    with pytest.raises(ReplayError, match="already exists"):
        ReplayWriter.create(other, short_game.header)  # without a key: never replaced
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# --- the calls some systems lack (README, "On Windows and macOS") -----------------------------


class WindowsLocks:
    """``msvcrt``'s ``locking`` (the call dbnet makes on Windows), rebuilt on Linux's
    open-file-description locks, which behave as Windows' do: a byte range, held by one
    open file (two opens in one process exclude each other), the range starting at the
    file's position."""

    LK_UNLCK = 0
    LK_NBLCK = 2

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int]] = []  # (mode, offset, bytes)

    def locking(self, fd: int, mode: int, nbytes: int, /) -> None:
        start = os.lseek(fd, 0, os.SEEK_CUR)
        self.calls.append((mode, start, nbytes))
        reading = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        kind = (
            fcntl.F_UNLCK if mode == self.LK_UNLCK else fcntl.F_RDLCK if reading else fcntl.F_WRLCK
        )
        lock = struct.pack("hhqqi4x", kind, os.SEEK_SET, start, nbytes, 0)
        try:
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, lock)
        except OSError as exc:
            raise OSError(errno.EACCES, "Permission denied") from exc  # as msvcrt says it


class HeldOpen:
    """Windows' refusal to rename, replace or unlink a file some handle holds open
    (``os.open`` does not share deletion there), by the file (any of its names)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held: dict[int, int] = {}  # fd: inode
        self._open, self._close = os.open, os.close
        self._unlink, self._replace = os.unlink, os.replace
        monkeypatch.setattr(os, "open", self.open)
        monkeypatch.setattr(os, "close", self.close)
        monkeypatch.setattr(os, "unlink", self.unlink)
        monkeypatch.setattr(os, "replace", self.replace)

    def open(self, path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        fd = self._open(path, flags, mode)
        self.held[fd] = os.fstat(fd).st_ino
        return fd

    def close(self, fd: int) -> None:
        self.held.pop(fd, None)
        self._close(fd)

    def _refuse_held(self, *paths: str | os.PathLike[str]) -> None:
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                if os.lstat(path).st_ino in self.held.values():
                    raise PermissionError(errno.EACCES, "held open by a process", str(path))

    def unlink(self, path: str | os.PathLike[str]) -> None:
        self._refuse_held(path)
        self._unlink(path)

    def replace(self, source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        self._refuse_held(source, target)
        self._replace(source, target)


@pytest.fixture
def windows_files(monkeypatch: pytest.MonkeyPatch) -> WindowsLocks:
    """The replay writer as it runs on Windows (Python 3.11): no ``os.fchmod``, no
    ``flock`` but ``msvcrt.locking``, and no renaming or unlinking a file held open."""
    locks = WindowsLocks()
    monkeypatch.delattr(os, "fchmod")
    monkeypatch.setattr(files, "_LOCKS", files._ByteRange(locks))
    monkeypatch.setattr(files, "OPEN_FILES_MOVE", False)
    HeldOpen(monkeypatch)
    return locks


def test_without_fchmod_a_replay_is_written_read_back_and_verified(
    tmp_path: Path, short_game: RecordedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``os.fchmod`` is POSIX only before Python 3.13: the mode is set on the path."""
    monkeypatch.delattr(os, "fchmod")
    path = tmp_path / "game.dbnr"
    data = write_replay(path, short_game.header, short_game.records)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert load_replay(path).records == short_game.records
    assert verify_replay(data, where="game").status is VerdictStatus.COMPLETE
    file.create_file(tmp_path / "whole.bin", b"whole\r\n\x1a")
    assert (tmp_path / "whole.bin").read_bytes() == b"whole\r\n\x1a"
    assert stat.S_IMODE((tmp_path / "whole.bin").stat().st_mode) == 0o644
    with ReplayWriter.resume(path) as writer:
        assert writer.entries == len(short_game.records)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.dbnr", "whole.bin"]


def test_as_on_windows_a_replay_is_written_locked_read_back_and_verified(
    tmp_path: Path, short_game: RecordedGame, windows_files: WindowsLocks
) -> None:
    """The Windows path: the new file closed before it is linked into place, then opened
    again and locked by one byte far past its end (readers are never blocked), the
    position put back; a second writer is refused; the lock is released at close."""
    path = tmp_path / "game.dbnr"
    with ReplayWriter.create(path, short_game.header) as writer:
        assert not file.holds_no_entry(path, short_game.header.keys[0])  # a writer holds it
        with pytest.raises(ReplayError, match="another process is writing"):
            ReplayWriter.resume(path)
        assert load_replay(path).records == ()  # readers read while it is locked
        for record in short_game.records:
            writer.append(record)
    far = files._ByteRange.OFFSET
    assert windows_files.calls[0] == (WindowsLocks.LK_NBLCK, far, 1)
    assert windows_files.calls[-1] == (WindowsLocks.LK_UNLCK, far, 1)  # released at close
    data = path.read_bytes()
    assert data == MAGIC + framed(encode_replay_header(short_game.header)) + b"".join(
        map(framed, short_game.records)
    )
    assert verify_replay(data, where="game").status is VerdictStatus.COMPLETE
    assert file.holds_no_entry(path, short_game.header.keys[0]) is False  # it holds entries
    with ReplayWriter.resume(path) as writer:  # free again once closed
        assert writer.entries == len(short_game.records)
    assert [p.name for p in tmp_path.iterdir()] == ["game.dbnr"]  # no temporary file left


def test_as_on_windows_an_empty_replay_of_ours_is_replaced(
    tmp_path: Path,
    short_game: RecordedGame,
    sibling_game: RecordedGame,
    windows_files: WindowsLocks,
) -> None:
    ours = short_game.header.keys[1]
    path = tmp_path / "game.dbnr"
    write_replay(path, sibling_game.header, [])
    assert file.holds_no_entry(path, ours)
    with ReplayWriter.create(path, short_game.header, replace_empty_for=ours) as writer:
        writer.append(short_game.records[0])
    assert load_replay(path).records == short_game.records[:1]
    with pytest.raises(ReplayError, match="already exists"):
        ReplayWriter.create(path, sibling_game.header)
    assert [p.name for p in tmp_path.iterdir()] == ["game.dbnr"]


def test_without_any_lock_a_replay_is_written_unlocked(
    tmp_path: Path, short_game: RecordedGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system with neither ``flock`` nor ``msvcrt``: the replay is written all the same."""
    monkeypatch.setattr(files, "_LOCKS", files._NoLocks())
    path = tmp_path / "game.dbnr"
    data = write_replay(path, short_game.header, short_game.records)
    assert load_replay(path).records == short_game.records
    assert verify_replay(data, where="game").status is VerdictStatus.COMPLETE


def test_a_file_that_grew_after_its_size_was_read_is_read_whole_within_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``load_bytes`` reads the size ``os.stat`` gave and one byte more; a file that grew in
    between (a writer still appending) is read to its end, and still refused past the
    limit."""
    path = tmp_path / "growing.dbnr"
    data = MAGIC + framed(b"x" * 500)
    path.write_bytes(data)
    real_stat = os.stat

    def stat_before_growth(target: object) -> os.stat_result:
        info = real_stat(target)  # type: ignore[arg-type]
        return os.stat_result((*info[:6], 100, *info[7:]))  # st_size as it was

    monkeypatch.setattr(os, "stat", stat_before_growth)
    assert file.load_bytes(path) == data
    monkeypatch.setattr(file, "MAX_FILE_SIZE", 300)
    with pytest.raises(ReplayError, match=r"more than any replay \(limit 300 bytes\)"):
        file.load_bytes(path)
