"""Errors of replay files: framing, reading and writing."""

from __future__ import annotations

from dbnet.errors import DbnetError

__all__ = ["DiskFullError", "ReplayError", "TornRecordError"]


class ReplayError(DbnetError):
    """A replay file that cannot be read or written as one.

    ``where`` names the file; ``record`` (0 is the header) and ``offset`` (the
    byte offset in the file) locate the problem when it is inside the file.
    """

    def __init__(
        self, where: str, problem: str, *, record: int | None = None, offset: int | None = None
    ) -> None:
        self.where = where
        self.problem = problem
        self.record = record
        self.offset = offset
        place = where
        if record is not None:
            place += f": record {record}"
            if offset is not None:
                place += f" (byte {offset})"
        elif offset is not None:
            place += f": byte {offset}"
        super().__init__(f"{place}: {problem}")


class TornRecordError(ReplayError):
    """The file ends inside its last record: a write was cut off (a crash mid-append).

    ``ReplayWriter.resume`` repairs this by cutting the partial record off.
    """


class DiskFullError(ReplayError):
    """The disk (or the quota) holding the file is full: nothing was written, and the
    file still ends after its last whole record, so the game goes on once there is
    space (the command says how)."""
