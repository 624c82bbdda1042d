"""The one way a replay file is read to be shown: ``dbnet verify``, ``replay`` and
``export`` (and the replay viewer) all read through here.

``read_checked`` loads the file with ``load_bytes`` (a regular file of at most
``MAX_FILE_SIZE`` bytes), verifies it as ``verify_replay`` does and keeps only the
records the verifier accepted, as the verifier framed them: those before the first
invalid one. So a hostile file costs the commands what verifying it costs: a file of
millions of tiny records after a bad one is never framed past that one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from dbnet.protocol.log import GameLog
from dbnet.replay.evidence import EVIDENCE_MAGIC, check_evidence
from dbnet.replay.file import load_bytes
from dbnet.replay.verify import ReplayVerifier, Verdict, VerdictStatus

__all__ = ["CheckedReplay", "check_bytes", "read_checked"]


@dataclass(frozen=True, slots=True)
class CheckedReplay:
    """A replay file's verdict and its valid records (the header first, then entry ``k``
    in ``records[k + 1]``), those before the invalid record if the file is invalid."""

    verdict: Verdict
    records: tuple[bytes, ...]


def check_bytes(
    data: bytes, *, where: str, attach: Callable[[GameLog], None] | None = None
) -> CheckedReplay:
    """Verify ``data`` (a whole file's bytes, named ``where``) and keep its valid records;
    ``attach`` is ``verify_replay``'s (to tell the story as the file is verified); the
    records are those the verifier read, kept as it read them (``ReplayVerifier.kept``).

    Equivocation evidence (``dbnet.replay.evidence``) is checked as such: its verdict,
    and no records (it is not a game to tell)."""
    if data.startswith(EVIDENCE_MAGIC):
        return CheckedReplay(check_evidence(data, where=where), ())
    verifier = ReplayVerifier(where, attach=attach, keep=True)
    verdict = verifier.run(data)
    read = verifier.kept
    assert read is not None
    if verdict.status is VerdictStatus.INVALID:
        stop = verdict.record or 0  # None: a bad magic, nothing is valid
        return CheckedReplay(verdict, tuple(read[:stop]))
    return CheckedReplay(verdict, tuple(read))


def read_checked(path: str | os.PathLike[str]) -> CheckedReplay:
    """The file at ``path``, read with ``load_bytes``'s limits, verified.

    Raises:
        ReplayError: the file cannot be read, is not a regular file or is larger than
            ``MAX_FILE_SIZE`` (naming the path and the reason).
    """
    return check_bytes(load_bytes(path), where=os.fspath(path))
