"""Errors of the game log: a precise reason, the record it is about, and the evidence."""

from __future__ import annotations

from dbnet.errors import DbnetError


class ProtocolError(DbnetError):
    """The log broke a rule of the protocol."""


class InvalidEntryError(ProtocolError):
    """Entry ``seq`` (or record ``seq`` of a file) is invalid for ``reason``; nothing changed.

    ``evidence`` holds the offending record's bytes as received, which are signed
    by their author when the signature was valid: proof for a judge.
    """

    def __init__(self, seq: int, reason: str, evidence: bytes = b"") -> None:
        self.seq = seq
        self.reason = reason
        self.evidence = evidence
        super().__init__(f"entry {seq}: {reason}")


class LocalProtocolError(ProtocolError):
    """This side asked for something the protocol does not allow now (a bug or misuse)."""
