"""The replay file: a magic number, then length-prefixed records (docs/replay-format.md).

::

    file   = MAGIC record*
    MAGIC  = b"DBNRPLY1"
    record = length (4 bytes, big-endian) || bytes (length bytes, 1 to 65536)

Record 0 is the header (``encode_replay_header``); every later record is
one signed entry record (``[signed, signature]``) exactly as signed and
received, entry ``k`` in record ``k + 1``. The file is only ever appended to,
one record per write, flushed and fsynced before the entry is sent, so a crash
loses nothing that was sent. A crash in the middle of an append can leave a
partial last record (a *torn tail*): ``read_replay`` reports it
(``ReplayFile.torn_tail``), the verifier calls the file invalid at that record,
and ``ReplayWriter.resume`` cuts it off before appending again.

Replay files are named ``*.dbnr``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final

from dbnet import files
from dbnet.errors import DbnetError
from dbnet.replay.errors import DiskFullError, ReplayError, TornRecordError
from dbnet.wire.replay_header import ReplayHeader, decode_replay_header, encode_replay_header
from dbnet.wire.values import MAX_MESSAGE_SIZE

__all__ = [
    "EXTENSION",
    "HEADER_OFFSET",
    "LENGTH_SIZE",
    "MAGIC",
    "MAX_FILE_SIZE",
    "MAX_RECORD_SIZE",
    "ReplayFile",
    "ReplayWriter",
    "create_file",
    "holds_no_entry",
    "iter_records",
    "load_bytes",
    "load_replay",
    "read_replay",
]

MAGIC: Final = b"DBNRPLY1"
EXTENSION: Final = ".dbnr"
LENGTH_SIZE: Final = 4
HEADER_OFFSET: Final = len(MAGIC)  # record 0 starts right after the magic
MAX_RECORD_SIZE: Final = MAX_MESSAGE_SIZE  # 64 KiB, checked before reading a record
# No real game comes near this (a long game is a few hundred KiB); it keeps a stray
# huge file from being read into memory.
MAX_FILE_SIZE: Final = 256 * 1024 * 1024
_FILE_MODE: Final = 0o644
_FULL: Final = frozenset({errno.ENOSPC, errno.EDQUOT})


# --- reading -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplayFile:
    """A replay file's header and entry records (entry ``k`` is ``records[k]``).

    ``torn_tail`` is true when the file ended inside one more record (a write cut off
    by a crash); that partial record is not in ``records``.
    """

    header: ReplayHeader
    records: tuple[bytes, ...]
    torn_tail: bool


def iter_records(
    data: bytes, *, where: str, offset: int = 0, index: int = 0, magic: bytes = MAGIC
) -> Iterator[tuple[int, int, bytes]]:
    """The records of ``data`` as ``(index, offset, record)``, ``offset`` being where the
    record's length prefix starts. Framing is checked as the records are read.

    Starting at ``offset`` 0 checks the magic first (``magic``: another framed file, such
    as equivocation evidence, has its own); a later ``offset`` must be the start of
    record number ``index`` (for resuming a check part way through a file).

    Raises:
        ReplayError: a bad magic, or a record length of 0 or above ``MAX_RECORD_SIZE``
            (naming the record and its offset).
        TornRecordError: the data ends inside a record.
    """
    if offset == 0:
        if data[: len(magic)] != magic:
            shown = bytes(data[: len(magic)])
            what = "dbnet replay" if magic == MAGIC else "dbnet file of this kind"
            raise ReplayError(
                where, f"not a {what}: the file starts {shown!r}, not {magic!r}", offset=0
            )
        offset = len(magic)
    end = len(data)
    while offset < end:
        if end - offset < LENGTH_SIZE:
            raise TornRecordError(
                where,
                f"truncated record (torn write): {end - offset} of the {LENGTH_SIZE} bytes "
                "of its length",
                record=index,
                offset=offset,
            )
        size = int.from_bytes(data[offset : offset + LENGTH_SIZE], "big")
        if not 0 < size <= MAX_RECORD_SIZE:
            raise ReplayError(
                where,
                f"record length {size} is outside 1 to {MAX_RECORD_SIZE} bytes",
                record=index,
                offset=offset,
            )
        start = offset + LENGTH_SIZE
        if end - start < size:
            raise TornRecordError(
                where,
                f"truncated record (torn write): {end - start} of its {size} bytes",
                record=index,
                offset=offset,
            )
        yield index, offset, data[start : start + size]
        offset = start + size
        index += 1


def decode_header(record: bytes, *, where: str) -> ReplayHeader:
    """The header in record 0.

    Raises:
        ReplayError: naming record 0, if the record is not a valid replay header.
    """
    try:
        return decode_replay_header(record)
    except DbnetError as exc:
        raise ReplayError(
            where, f"undecodable header: {exc}", record=0, offset=HEADER_OFFSET
        ) from exc


def read_replay(data: bytes, *, where: str) -> ReplayFile:
    """The replay in ``data`` (a whole file's bytes), its framing checked strictly.

    ``where`` names the file in error messages. A torn tail is not an error here
    (``ReplayFile.torn_tail``); the entries themselves are not checked (see
    ``dbnet.replay.verify``).

    Raises:
        ReplayError: a bad magic, a bad record length (0, above the 64 KiB cap), a
            missing, truncated or undecodable header; it names the record and offset.
    """
    header: ReplayHeader | None = None
    records: list[bytes] = []
    torn = False
    try:
        for index, _offset, record in iter_records(data, where=where):
            if index == 0:
                header = decode_header(record, where=where)
            else:
                records.append(record)
    except TornRecordError as exc:
        if exc.record == 0:
            raise ReplayError(
                where, f"the header is incomplete: {exc.problem}", record=0, offset=exc.offset
            ) from exc
        torn = True
    if header is None:
        raise ReplayError(
            where, "no header: the file ends right after the magic", record=0, offset=HEADER_OFFSET
        )
    return ReplayFile(header, tuple(records), torn)


def load_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the file at ``path``, for ``read_replay`` or ``verify_replay``.

    Raises:
        ReplayError: naming the path, if it is missing, not a regular file, larger than
            ``MAX_FILE_SIZE`` or unreadable.
    """
    where = os.fspath(path)
    try:
        # stat before opening: opening a FIFO or a device could block or never end
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ReplayError(where, "not a regular file")
        if info.st_size > MAX_FILE_SIZE:
            raise ReplayError(
                where, f"{info.st_size} bytes is more than any replay (limit {MAX_FILE_SIZE})"
            )
        with open(path, "rb") as handle:
            # the size stat gave, and one byte more to see a file that grew since: asking
            # for MAX_FILE_SIZE at once would have Python set that much memory aside first
            data = handle.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += handle.read(MAX_FILE_SIZE + 1 - len(data))
    except OSError as exc:
        raise ReplayError(where, f"cannot read the file: {_why(exc)}") from exc
    if len(data) > MAX_FILE_SIZE:
        raise ReplayError(where, f"more than any replay (limit {MAX_FILE_SIZE} bytes)")
    return data


def load_replay(path: str | os.PathLike[str]) -> ReplayFile:
    """The replay file at ``path`` (see ``read_replay``).

    Raises:
        ReplayError: naming the path, if the file is missing or unreadable or its
            framing or header is bad.
    """
    return read_replay(load_bytes(path), where=os.fspath(path))


def holds_no_entry(path: str | os.PathLike[str], key: bytes) -> bool:
    """Whether ``path`` is a replay of the player with public key ``key`` that holds no
    entry: its header and nothing more (a partial first record at most), and no writer
    has it open. Such a file may be replaced by a new game (``ReplayWriter.create``).
    """
    where = os.fspath(path)
    try:
        if os.path.islink(path):
            return False
        replay = read_replay(load_bytes(path), where=where)
        if replay.records or key not in replay.header.keys:
            return False
        fd = os.open(path, os.O_RDONLY | files.BINARY)
    except (DbnetError, OSError):
        return False
    try:
        _lock(fd, where)  # a writer of this file would hold the lock
    except ReplayError:
        return False
    else:
        files.unlock(fd)
    finally:
        os.close(fd)
    return True


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _write_error(
    exc: OSError, where: str, problem: str, *, record: int | None = None, offset: int | None = None
) -> ReplayError:
    """The error for a failed write: ``DiskFullError`` when the disk or quota is full."""
    kind = DiskFullError if exc.errno in _FULL else ReplayError
    return kind(where, f"{problem}: {_why(exc)}", record=record, offset=offset)


def _frame(record: bytes) -> bytes:
    return len(record).to_bytes(LENGTH_SIZE, "big") + record


# --- writing -------------------------------------------------------------------------------


def create_file(path: str | os.PathLike[str], contents: bytes) -> None:
    """A new file at ``path`` holding ``contents``, written whole: a temporary file in
    the same folder, fsynced, then linked into place (and the folder fsynced), so a
    crash leaves either nothing or the whole file. An existing ``path`` is never
    overwritten.

    Raises:
        ReplayError: ``path`` exists, or the file cannot be written (naming the path
            and the reason).
    """
    target = Path(path)
    where = str(target)
    if os.path.lexists(target):
        raise ReplayError(where, "already exists; it is never overwritten")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(exc, where, "cannot create the file") from exc
    try:
        try:
            _write_all(fd, contents)
            files.set_mode(fd, temp, _FILE_MODE)
            os.fsync(fd)
        finally:
            os.close(fd)  # closed before it is linked: Windows cannot unlink an open file
        _link_new(temp, target, where)
        _sync_dir(target.parent)
    except OSError as exc:
        raise _write_error(exc, where, "cannot create the file") from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)


class ReplayWriter:
    """Appends records to a replay file, each one written whole, flushed and fsynced.

    Create a new file with ``create`` or continue an existing one with ``resume``;
    ``append`` each entry record before sending it; ``close`` at the end (or use the
    writer as a context manager). The file is locked (``dbnet.files.lock``: ``flock`` on
    POSIX, a byte range on Windows) while a writer has it open, so two processes cannot
    append to one replay.
    """

    def __init__(
        self, path: Path, fd: int, size: int, header: ReplayHeader, entries: int, *, repaired: bool
    ) -> None:
        self.path = path
        self.header = header
        self.entries = entries
        """Entry records in the file (those already there on resume, plus appended ones)."""
        self.repaired = repaired
        """Whether ``resume`` cut off a torn trailing record."""
        self._fd: int | None = fd
        self._size = size

    def __repr__(self) -> str:
        state = "closed" if self._fd is None else "open"
        return f"<ReplayWriter {str(self.path)!r} {self.entries} entries, {state}>"

    @property
    def closed(self) -> bool:
        return self._fd is None

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        header: ReplayHeader,
        *,
        replace_empty_for: bytes | None = None,
    ) -> ReplayWriter:
        """A new replay file at ``path`` holding the magic and ``header``, ready to append.

        The file is written to a temporary file in the same folder, fsynced and then
        linked into place, so a crash leaves either nothing or a valid replay with no
        entries. An existing ``path`` is never overwritten, but for one case: with
        ``replace_empty_for`` (a player's public key), a replay of that player's that
        holds no entry (``holds_no_entry``: a disk that filled before the OFFER fitted
        leaves one) is replaced, since nothing in it can be lost.

        Raises:
            ReplayError: ``path`` exists, the header is invalid, or the file cannot be
                written (naming the path and the reason; ``DiskFullError`` for a full
                disk).
        """
        target = Path(path)
        where = str(target)
        try:
            header_record = encode_replay_header(header)
        except DbnetError as exc:
            raise ReplayError(where, f"invalid replay header: {exc}") from exc
        replace = replace_empty_for is not None and holds_no_entry(target, replace_empty_for)
        if not replace and os.path.lexists(target):
            raise ReplayError(where, "already exists; a replay file is never overwritten")
        directory = target.parent
        try:
            fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise _write_error(exc, where, "cannot create the file") from exc
        held: int | None = fd  # the open file, locked once it is in place
        try:
            contents = MAGIC + _frame(header_record)
            _write_all(fd, contents)
            files.set_mode(fd, temp, _FILE_MODE)
            os.fsync(fd)
            if files.OPEN_FILES_MOVE:
                _lock(fd, where)  # locked before anyone can see it
            else:  # Windows: an open file is neither renamed nor unlinked
                held = None
                os.close(fd)
            if replace:
                os.replace(temp, target)
            elif _link_new(temp, target, where):
                with contextlib.suppress(OSError):
                    os.unlink(temp)  # before it is opened again (Windows)
            _sync_dir(directory)
            if held is None:
                held = os.open(target, os.O_RDWR | files.BINARY)
                _lock(held, where)
                os.lseek(held, len(contents), os.SEEK_SET)
        except BaseException as exc:
            if held is not None:
                os.close(held)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            if isinstance(exc, OSError):
                raise _write_error(exc, where, "cannot create the file") from exc
            raise
        return cls(target, held, len(contents), header, 0, repaired=False)

    @classmethod
    def resume(cls, path: str | os.PathLike[str]) -> ReplayWriter:
        """The writer of an existing replay file, to append more records.

        A torn trailing record (a partial write cut off by a crash) is cut off first
        (``repaired``). Nothing else is changed: a file with any other framing problem
        is refused. The entries themselves are not checked here.

        Raises:
            ReplayError: the file is missing, unreadable, locked by another writer, or
                not a replay file (bad magic, bad framing, bad header).
        """
        target = Path(path)
        where = str(target)
        try:
            fd = os.open(target, os.O_RDWR | files.BINARY)
        except OSError as exc:
            raise ReplayError(where, f"cannot open the file: {_why(exc)}") from exc
        try:
            _lock(fd, where)
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ReplayError(where, "not a regular file")
            if info.st_size > MAX_FILE_SIZE:
                raise ReplayError(where, f"more than any replay (limit {MAX_FILE_SIZE} bytes)")
            data = _read_all(fd)
            replay = read_replay(data, where=where)
            size = _complete_size(data, where)
            if replay.torn_tail:
                os.ftruncate(fd, size)
                os.fsync(fd)
            os.lseek(fd, size, os.SEEK_SET)
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, OSError):
                raise ReplayError(where, f"cannot resume the file: {_why(exc)}") from exc
            raise
        return cls(target, fd, size, replay.header, len(replay.records), repaired=replay.torn_tail)

    def append(self, record: bytes, *, sync: bool = True) -> None:
        """Append one record (its length and bytes in one write), flush and fsync it.

        With ``sync=False`` the record is written but not fsynced: a crash of the
        process loses nothing, a crash of the machine may lose it (and anything else not
        fsynced yet), never an earlier fsynced record. The next fsynced append makes it
        durable too. For records another copy exists of (a peer's entries, which it
        sends again on resume).

        If the write fails, the file is cut back to its previous end so that it never
        keeps a partial record, and the error is raised.

        Raises:
            ReplayError: the writer is closed, the record is empty or larger than 64 KiB,
                or the write failed.
        """
        where = str(self.path)
        fd = self._fd
        if fd is None:
            raise ReplayError(where, "the replay writer is closed")
        if not 0 < len(record) <= MAX_RECORD_SIZE:
            raise ReplayError(
                where,
                f"a record of {len(record)} bytes cannot be written (1 to {MAX_RECORD_SIZE})",
                record=self.entries + 1,
                offset=self._size,
            )
        framed = _frame(record)
        try:
            _write_all(fd, framed)
            if sync:
                os.fsync(fd)
        except OSError as exc:
            try:
                os.ftruncate(fd, self._size)
                os.lseek(fd, self._size, os.SEEK_SET)
                os.fsync(fd)
            except OSError:
                self.close()  # the file may now end in a torn record: stop writing to it
            raise _write_error(
                exc,
                where,
                "cannot append the record",
                record=self.entries + 1,
                offset=self._size,
            ) from exc
        self._size += len(framed)
        self.entries += 1

    def close(self) -> None:
        """Close the file (every record is already on disk). Closing twice is harmless."""
        fd, self._fd = self._fd, None
        if fd is not None:
            files.unlock(fd)
            os.close(fd)

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _complete_size(data: bytes, where: str) -> int:
    """The size of the complete records at the start of ``data`` (torn tail excluded)."""
    size = len(MAGIC)
    try:
        for _index, offset, record in iter_records(data, where=where):
            size = offset + LENGTH_SIZE + len(record)
    except TornRecordError:
        pass
    return size


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    os.lseek(fd, 0, os.SEEK_SET)
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _lock(fd: int, where: str) -> None:
    if not files.lock(fd):
        raise ReplayError(where, "another process is writing this replay file")


def _link_new(temp: str, target: Path, where: str) -> bool:
    """Put ``temp`` in place at ``target`` without ever replacing an existing file.

    True when ``temp`` was hard-linked (and must be unlinked); False when it was renamed.
    """
    try:
        os.link(temp, target)
    except FileExistsError as exc:
        raise ReplayError(where, "already exists; a replay file is never overwritten") from exc
    except OSError:
        # no hard links on this file system: check, then rename (a tiny race remains)
        if os.path.lexists(target):
            raise ReplayError(where, "already exists; a replay file is never overwritten") from None
        os.replace(temp, target)
        return False
    return True


def _sync_dir(directory: Path) -> None:
    """Make a new directory entry durable (POSIX); best effort elsewhere."""
    files.sync_folder(directory)
