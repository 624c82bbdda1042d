"""Files written whole or not at all: a temporary file beside the target, flushed to
disk, then renamed over it, and the rename made durable. A crash leaves the old file or
the new one, never half of one. Every room may use it (``docs/architecture.md``)."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["replace_atomically", "sync_folder", "write_temp"]


def write_temp(path: Path, data: bytes, mode: int) -> Path:
    """``data`` in a new temporary file (``mode``) beside ``path``, flushed to disk.

    Raises:
        OSError: it cannot be written (nothing is left behind).
    """
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
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
