"""Copies of one game that disagree, read in the worker processes: what ``dbnet event``
and ``dbnet verify`` (``replay.forks.games_of``) must read again of such copies, the
entry hashes of a copy that is longer than another and the comparison of two branches,
is read by ``map_files``'s workers, not by this process after them.

Without this, an event's files are verified in the workers, and then this process alone
verifies again every copy ``replay.forks`` asks about (a copy saved before the last
entries came, a damaged copy, the copies of a forked game), one after the other: a part
of the work that no worker shares. Here the same functions (``gamefile.entry_hashes``,
``forks.fork_proof``) run in the workers, and what they found is handed to the same
``games_of``: the games, the proofs and the event are the very same as in one process.

``run(hashes, fork)`` is the work that asks (``report`` of an event, ``games_of`` of
``dbnet verify``): cheap given the answers. It runs once to learn which pairs of copies
are compared (a dry run: ``fork`` is asked, and told nothing), their comparisons are made
in the workers, and it runs again with them. A question not answered in the workers (none
should be) is answered here, as in one process; so are a few (fewer than
``PARALLEL_FROM``: a pool would cost more than it saves), and all with one job.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TypeVar

from dbnet.commands.workers import map_files
from dbnet.replay.errors import ReplayError
from dbnet.replay.forks import Comparison, Fork, Hashes, fork_proof
from dbnet.replay.gamefile import GameFile, entry_hashes

__all__ = ["read_in_workers"]

R = TypeVar("R")


def read_in_workers(
    run: Callable[[Hashes, Fork | None], R], facts: Sequence[GameFile], jobs: int
) -> R:
    """``run(hashes, fork)``, its copies read in ``jobs`` workers (see the module)."""
    uneven = _uneven_copies(facts) if jobs > 1 else []
    if not uneven:  # one process, or every game's copies agree: as ``games_of`` reads
        return run(entry_hashes, None)
    found = dict(zip(uneven, map_files(_hashes_of, uneven, jobs), strict=True))

    def hashes(path: str) -> list[str]:
        if path not in found:
            return entry_hashes(path)
        known = found[path]
        if known is None:
            raise ReplayError(path, "the file can no longer be read")
        return known

    pairs: list[tuple[str, str]] = []

    def ask(one: str, other: str) -> Comparison:
        pairs.append((one, other))
        return Comparison()

    run(hashes, ask)
    if not pairs:
        return run(hashes, None)
    pairs = list(dict.fromkeys(pairs))
    compared = dict(zip(pairs, map_files(_compare, pairs, jobs), strict=True))

    def fork(one: str, other: str) -> Comparison:
        known = compared.get((one, other))
        return fork_proof(one, other) if known is None else known

    return run(hashes, fork)


def _uneven_copies(facts: Sequence[GameFile]) -> list[str]:
    """The copies of each game whose copies do not all hold the same entries (the same
    number, the same last one): the only ones ``games_of`` may ask the entry hashes of."""
    by_game: dict[tuple[str, int | None], list[GameFile]] = defaultdict(list)
    for f in facts:
        if f.is_copy and f.entries and f.game is not None:
            by_game[f.game].append(f)
    return [
        f.where
        for copies in by_game.values()
        if len({(f.head, f.entries) for f in copies}) > 1
        for f in copies
    ]


def _hashes_of(path: str) -> list[str] | None:
    """``entry_hashes``, in a worker: None when the file cannot be read."""
    try:
        return entry_hashes(path)
    except ReplayError:
        return None


def _compare(pair: tuple[str, str]) -> Comparison:
    """``fork_proof`` of two copies, in a worker (it never raises for a bad file)."""
    return fork_proof(*pair)
