"""Files written whole or not at all: a temporary file beside the target, flushed to
disk, then renamed over it, and the rename made durable. A crash leaves the old file or
the new one, never half of one. Every room may use it (``docs/architecture.md``).

The few calls that differ between systems are here too, each with its fallback
(README, "On Windows and macOS"): ``BINARY`` for every ``os.open`` of a file's bytes,
``set_mode`` (``os.fchmod`` is POSIX only before Python 3.13), ``lock`` and ``unlock``
(``flock`` on POSIX, ``msvcrt.locking`` on Windows) and ``OPEN_FILES_MOVE`` (whether a
file may be renamed or unlinked while it is open)."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import sys
from pathlib import Path
from typing import Final, Protocol

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

__all__ = [
    "BINARY",
    "OPEN_FILES_MOVE",
    "lock",
    "replace_atomically",
    "set_mode",
    "sync_folder",
    "unlock",
    "write_temp",
]

BINARY: Final = getattr(os, "O_BINARY", 0)
"""``os.open``'s flag for a file's bytes as they are: Windows opens in text mode
otherwise (line ends translated, reading stopped at a Ctrl-Z byte); 0 elsewhere."""

OPEN_FILES_MOVE: Final = sys.platform != "win32"
"""Whether a file may be renamed or unlinked while this process holds it open (not on
Windows, where ``os.open`` does not share deletion)."""


def set_mode(fd: int, path: str | os.PathLike[str], mode: int) -> None:
    """Give the open file ``fd`` (at ``path``) the permissions ``mode``: ``os.fchmod``
    where there is one, else ``os.chmod`` of its path (Windows keeps only the read-only
    flag of a mode).

    Raises:
        OSError: the mode cannot be set.
    """
    fchmod = getattr(os, "fchmod", None)
    if fchmod is not None:
        fchmod(fd, mode)
    else:
        os.chmod(path, mode)


class _Locks(Protocol):
    def lock(self, fd: int) -> bool: ...

    def unlock(self, fd: int) -> None: ...


if sys.platform != "win32":  # the type checker sees fcntl only where it is imported

    class _Flock:
        """POSIX: ``flock`` on the whole file; the lock goes with the last close."""

        def lock(self, fd: int) -> bool:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            except OSError:
                pass  # a file system without locks: go on unlocked
            return True

        def unlock(self, fd: int) -> None:
            pass  # closing the file releases it


class _ByteRange:
    """Windows: ``msvcrt.locking`` of one byte far past the end of any file that is
    locked (as SQLite does), so readers of the file's bytes are never blocked by the
    lock; the file position is put back where it was."""

    OFFSET: Final = 1 << 30

    def __init__(self, module: _Msvcrt) -> None:
        self.module = module

    def _at_offset(self, fd: int, mode: int) -> None:
        position = os.lseek(fd, 0, os.SEEK_CUR)
        os.lseek(fd, self.OFFSET, os.SEEK_SET)
        try:
            self.module.locking(fd, mode, 1)
        finally:
            os.lseek(fd, position, os.SEEK_SET)

    def lock(self, fd: int) -> bool:
        try:
            self._at_offset(fd, self.module.LK_NBLCK)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EDEADLK, errno.EAGAIN):
                return False
            # a file system without locks: go on unlocked
        return True

    def unlock(self, fd: int) -> None:
        with contextlib.suppress(OSError):  # not locked (a file system without locks)
            self._at_offset(fd, self.module.LK_UNLCK)


class _Msvcrt(Protocol):
    @property
    def LK_NBLCK(self) -> int: ...  # noqa: N802 (msvcrt's names)

    @property
    def LK_UNLCK(self) -> int: ...  # noqa: N802

    def locking(self, fd: int, mode: int, nbytes: int, /) -> None: ...


class _NoLocks:
    """A system with neither: files are not locked."""

    def lock(self, fd: int) -> bool:
        return True

    def unlock(self, fd: int) -> None:
        pass


def _system_locks() -> _Locks:
    if sys.platform == "win32":
        return _ByteRange(msvcrt)
    else:  # an else: the type checker reads only the branch of its --platform
        return _Flock()


_LOCKS: _Locks = _system_locks()


def lock(fd: int) -> bool:
    """Lock the open file ``fd`` for this process alone, without waiting: False when
    another process holds its lock. A file system without locks leaves it unlocked (True).
    Advisory: it keeps out only those who lock too (two writers of one replay)."""
    return _LOCKS.lock(fd)


def unlock(fd: int) -> None:
    """Release ``lock`` before ``fd`` is closed (Windows asks for it; POSIX closes it)."""
    _LOCKS.unlock(fd)


def write_temp(path: Path, data: bytes, mode: int) -> Path:
    """``data`` in a new temporary file (``mode``) beside ``path``, flushed to disk.

    Raises:
        OSError: it cannot be written (nothing is left behind).
    """
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | BINARY, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError:
        temp.unlink(missing_ok=True)
        raise
    return temp


def replace_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` (or create it) with a file of ``mode`` holding ``data``.

    Raises:
        OSError: it cannot be written; ``path`` is as it was.
    """
    temp = write_temp(path, data, mode)
    try:
        os.replace(temp, path)
    except OSError:
        temp.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable, where the system can open a folder."""
    with contextlib.suppress(OSError):
        fd = os.open(folder if str(folder) else Path("."), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
