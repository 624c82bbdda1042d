"""Errors of an event's own files and of pairing a round."""

from __future__ import annotations

from dbnet.errors import DbnetError

__all__ = ["EventFileError", "PairingError"]


class EventFileError(DbnetError, ValueError):
    """An event or round file that cannot be read, or an edit it does not allow: the
    message names the file and says what is wrong, in one line."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


class PairingError(DbnetError):
    """A round that cannot be paired now (a result still pending, no pairing without a
    rematch, the event over): the message says why and what to do."""
