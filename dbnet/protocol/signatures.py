"""An entry's signature set aside to be checked later: a verifier checks a file's
signatures in one tight loop after the rules (``first_invalid``), which reaches the same
verdict faster (``GameLog.append`` with ``unchecked``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from dbnet.engine import Player
from dbnet.protocol.errors import InvalidEntryError
from dbnet.wire.entries import SignedEntry, signing_message

Verifier = Callable[[bytes, bytes], bool]
"""``identity.verifier(key)``: whether a signature by that key signs a message."""


class UncheckedSignature(NamedTuple):
    """An entry's signature, to be checked by ``check`` (see ``log.GameLog.append``).

    A named tuple rather than a frozen dataclass: one is made for every entry a
    verifier reads, and a tuple is several times faster to make."""

    seq: int
    author: Player
    verify: Verifier
    """The author's key's ``identity.verifier``, which the log set up once."""
    signed: SignedEntry
    record: bytes

    def valid(self) -> bool:
        """Whether the author's key signed the entry's exact bytes."""
        return self.verify(self.signed.signature, signing_message(self.signed.signed))

    def problem(self) -> str:
        """Why an invalid signature is refused."""
        return bad_signature(self.author)

    def check(self) -> None:
        """Raise InvalidEntryError unless the signature is valid."""
        if not self.valid():
            raise InvalidEntryError(self.seq, self.problem(), self.record)


def bad_signature(author: Player) -> str:
    """Why an entry whose signature is not its author's is refused."""
    return f"bad signature: not signed by {author.name}'s key"


def first_invalid(unchecked: Sequence[UncheckedSignature]) -> UncheckedSignature | None:
    """The first of ``unchecked``, in order, whose signature is not valid; None when every
    one is."""
    for signature in unchecked:
        if not signature.valid():
            return signature
    return None
