"""Copies of one game that disagree, what they prove, and the rule that decides the game.

Files with one game id are copies of one game (each player keeps one). A copy that holds
the start of another (saved before the last entries came, or damaged after them) is on
the same *branch*; copies that hold different entries at one place are on different
branches, and the game *forks* at the first entry where they differ: both entries follow
the same entries, so the rules name the same author for both, unless one is a claim
(which the player waiting may sign at any time). Two different entries signed by one key
with one sequence number of one game, at the fork or after it, are what only a cheat
signs (*equivocation*, docs/verifying.md: an honest client signs one entry for each
place of a game, and accepts only an OFFER made with its own fresh nonce): each pair is
checked as an evidence file is (``replay.evidence``), so the proof is the same wherever
it was found. A damaged copy proves nothing against anyone: its damaged entry is not
among its valid ones.

A fork between two authors is a claim (timeout or clock) crossing the other player's
entry. It proves no equivocation; but a claim whose author signed an entry after the
fork in the other copy is *refuted* (``RefutedClaim``): that entry follows the entry the
claim says never came, and an honest client writes nothing after its own claim. The
game is then told by the other copy. An unrefuted crossing leaves the copies in
conflict, unless they all give the game the same result (``replay.event``).

``forfeit_winner`` is the rule applied to a game with proven equivocation: the other
player wins by forfeit; when both players equivocated, nobody does. An event that would
decide otherwise passes its own rule where this one is taken (``replay.event.report``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from dbnet.errors import DbnetError
from dbnet.replay.checked import read_checked
from dbnet.replay.errors import ReplayError
from dbnet.replay.evidence import Proof, evidence_bytes, prove
from dbnet.replay.gamefile import GameFile, entry_hashes
from dbnet.wire.bodies import ClaimBody
from dbnet.wire.entries import Entry, decode_signed_entry

__all__ = [
    "Comparison",
    "Forfeit",
    "Fork",
    "GameCopies",
    "Hashes",
    "RefutedClaim",
    "copies_of",
    "forfeit_winner",
    "fork_proof",
    "games_of",
    "outcome",
]

Hashes = Callable[[str], list[str]]
"""The entry hashes of a file (``gamefile.entry_hashes``; a fake in tests)."""
Fork = Callable[[str, str], "Comparison"]
"""What two copies of one game that disagree prove (``fork_proof``; a fake in tests)."""
Forfeit = Callable[[frozenset[int]], int | None]
"""Given the seats proven to have equivocated in a game, the seat that wins it, or None:
the game counts for nobody (``forfeit_winner``)."""


def forfeit_winner(cheats: frozenset[int]) -> int | None:
    """The rule for a game in which the players in ``cheats`` (0 is A, 1 is B; not empty)
    signed two different entries for one place: the other player wins by forfeit,
    whatever the game's own result; when both did, nobody wins and the game counts for
    nobody. The equivocator never gains."""
    if len(cheats) != 1:
        return None
    (cheat,) = cheats
    return 1 - cheat


@dataclass(frozen=True, slots=True)
class RefutedClaim:
    """A claim that the player in ``seat`` signed as entry ``seq`` of the copy ``copy``
    (that the other player's entry ``seq`` never came), refuted by that player's own entry
    ``later`` in the copy ``by``: it follows the other player's entry ``seq``, so the
    claimant had it. An honest client never writes after its own claim (a claim closes
    the log), so only a false claim is refuted."""

    seat: int
    seq: int
    copy: str
    later: int
    by: str
    reason: str = "timeout"
    """The claim's reason: ``timeout`` or ``clock``."""

    def describe(self) -> str:
        """``signed a timeout claim as entry 8 (FILE), and also entry 10, which follows A's
        entry 8 (FILE): the claim does not count``."""
        other = "AB"[1 - self.seat]
        return (
            f"signed a {self.reason} claim as entry {self.seq} ({self.copy}), and also entry "
            f"{self.later}, which follows {other}'s entry {self.seq} ({self.by}): the claim "
            "does not count"
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    """What two copies of one game prove: equivocations, and claims refuted at their fork."""

    proofs: tuple[Proof, ...] = ()
    refuted: tuple[RefutedClaim, ...] = ()


def outcome(winner: int | None) -> str:
    """What ``forfeit_winner``'s answer means: ``A won by forfeit``, or nobody won."""
    if winner is None:
        return "the game counts for nobody (both players equivocated)"
    return f"{'AB'[winner]} won by forfeit"


@dataclass(frozen=True, slots=True)
class GameCopies:
    """One game's files: its copies in branches (each the most complete first; the
    branches by their most complete copy, the longest first), and the proofs of
    equivocation found in disagreeing copies and in evidence files."""

    game_id: str
    branches: tuple[tuple[GameFile, ...], ...]
    evidence: tuple[GameFile, ...]
    proofs: tuple[Proof, ...]
    refuted: tuple[RefutedClaim, ...] = ()

    @property
    def live(self) -> tuple[tuple[GameFile, ...], ...]:
        """The branches whose claim at a fork is not refuted."""
        gone = {r.copy for r in self.refuted}
        return tuple(b for b in self.branches if b[0].where not in gone)

    @property
    def copies(self) -> tuple[GameFile, ...]:
        """Every copy, branch by branch."""
        return tuple(f for branch in self.branches for f in branch)

    @property
    def cheats(self) -> frozenset[int]:
        """The seats proven to have equivocated."""
        return frozenset(p.seat for p in self.proofs)

    @property
    def players(self) -> tuple[str, str] | None:
        """A's and B's key fingerprints."""
        return next((f.players for f in (*self.copies, *self.evidence) if f.players), None)


def games_of(
    files: Iterable[GameFile], hashes: Hashes = entry_hashes, fork: Fork | None = None
) -> list[GameCopies]:
    """The games of ``files`` (copies and evidence files; other files are left out), in
    the order their first file comes: files of one game id and protocol version
    (``GameFile.game``)."""
    by_game: dict[tuple[str, int | None], list[GameFile]] = defaultdict(list)
    for f in files:
        if f.game is not None:
            by_game[f.game].append(f)
    return [copies_of(game[0], group, hashes, fork) for game, group in by_game.items()]


def copies_of(
    game_id: str, files: Sequence[GameFile], hashes: Hashes, fork: Fork | None = None
) -> GameCopies:
    """The branches of ``files`` (all of one game: ``game_id``, one protocol version) and
    the proofs they and its
    evidence files hold. ``hashes`` is asked only for the entries of a copy that is longer
    than another with another last entry; ``fork`` (default ``fork_proof``) only for two
    branches."""
    prover = fork or _reading_once()
    evidence = tuple(f for f in files if f.proof is not None)
    copies = sorted((f for f in files if f.is_copy), key=lambda f: -f.entries)  # stable
    branches: list[list[GameFile]] = []
    known: dict[str, list[str] | None] = {}
    for f in copies:
        for branch in branches:
            if _holds(branch[0], f, hashes, known):
                branch.append(f)
                break
        else:
            branches.append([f])
    proofs = [f.proof for f in evidence if f.proof is not None]
    refuted: list[RefutedClaim] = []
    for i, one in enumerate(branches):
        for other in branches[i + 1 :]:
            found = prover(one[0].where, other[0].where)
            proofs += found.proofs
            refuted += found.refuted
    return GameCopies(
        game_id, tuple(tuple(b) for b in branches), evidence, _merged(proofs), tuple(refuted)
    )


def _merged(proofs: Iterable[Proof]) -> tuple[Proof, ...]:
    """Each proof once: the same two entries found in several places are one proof, found
    in all their files (in order)."""
    merged: dict[tuple[int, int, frozenset[str]], Proof] = {}
    for proof in proofs:
        key = (proof.seat, proof.seq, frozenset(proof.entries))
        known = merged.get(key)
        if known is None:
            merged[key] = proof
        else:
            files = tuple(dict.fromkeys((*known.files, *proof.files)))
            merged[key] = replace(known, files=files)
    return tuple(merged.values())


def _holds(
    longest: GameFile, f: GameFile, hashes: Hashes, known: dict[str, list[str] | None]
) -> bool:
    """Whether ``f`` holds the start of ``longest`` (which has at least as many entries)."""
    if f.entries == 0 or (f.head == longest.head and f.entries == longest.entries):
        return True
    if longest.where not in known:
        try:
            known[longest.where] = hashes(longest.where)
        except ReplayError:
            known[longest.where] = None
    entries = known[longest.where]
    return (
        entries is not None and 0 < f.entries <= len(entries) and entries[f.entries - 1] == f.head
    )


def _reading_once() -> Fork:
    """``fork_proof``, reading (and verifying) each file once however many times it is
    compared."""
    known: dict[str, tuple[bytes, ...] | None] = {}

    def read(path: str) -> tuple[bytes, ...] | None:
        if path not in known:
            known[path] = _records(path)
        return known[path]

    return lambda one, other: fork_proof(one, other, read=read)


def _records(path: str) -> tuple[bytes, ...] | None:
    """The valid records of the file at ``path``; None when it can no longer be read."""
    try:
        return read_checked(path).records
    except ReplayError:
        return None


def fork_proof(
    one: str, other: str, *, read: Callable[[str], tuple[bytes, ...] | None] = _records
) -> Comparison:
    """What the copies of one game at ``one`` and ``other`` (their valid records read by
    ``read``) prove. Wherever their valid entries differ, two entries signed by one key
    with one sequence number are checked as an evidence file is: the first such proof
    against each key. At the fork, a claim whose author signed an entry after the fork in
    the other copy is refuted. Nothing when the copies no longer read, or do not differ.
    Never raises for a bad file."""
    first, second = read(one), read(other)
    if first is None or second is None:
        return Comparison()
    proofs: dict[int, Proof] = {}
    refuted: list[RefutedClaim] = []
    fork: int | None = None
    try:
        for index in range(1, min(len(first), len(second))):
            if first[index] == second[index]:
                continue
            a = decode_signed_entry(first[index])[1]
            b = decode_signed_entry(second[index])[1]
            if fork is None:
                fork = index
                refuted += _refuted(a, (one, first), (other, second), index)
                refuted += _refuted(b, (other, second), (one, first), index)
            if a.author != b.author or a.author in proofs:
                continue
            data = evidence_bytes(first[0], first[1], first[index], second[index])
            proof = prove(data, where=one, files=(one, other))[1]
            if proof is not None:
                proofs[proof.seat] = proof
                if len(proofs) == 2:
                    break  # both players: nothing more to find
    except DbnetError:  # cannot happen for records the verifier accepted
        pass
    return Comparison(tuple(proofs.values()), tuple(refuted))


def _refuted(
    entry: Entry,
    mine: tuple[str, tuple[bytes, ...]],
    theirs: tuple[str, tuple[bytes, ...]],
    at: int,
) -> list[RefutedClaim]:
    """``entry``, the first of the copy ``mine`` that the copy ``theirs`` does not hold (in
    record ``at``), refuted when it is a claim whose author signed an entry after record
    ``at`` in ``theirs``: that entry follows the other entry of the fork, which the claim
    says never came. (Raises DbnetError for an undecodable record.)"""
    body = entry.body
    if not isinstance(body, ClaimBody):
        return []
    for record in theirs[1][at + 1 :]:
        later = decode_signed_entry(record)[1]
        if later.author == entry.author:
            found = RefutedClaim(
                entry.author, entry.seq, mine[0], later.seq, theirs[0], body.reason
            )
            return [found]
    return []
