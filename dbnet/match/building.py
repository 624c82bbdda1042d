"""One player's side of a Limited game's build phase (docs/limited.md): the warband it
commits to and the salt that hides it, kept from the commitment to the reveal.

A bot, and a person whose build time runs out, commit the automatic build of their pool
(``engine.limited.auto_build``) or the last legal warband they saved. In a network game
the salt is derived from the player's identity and the game id (``warband_salt``), and the
warband committed to is saved beside the replay (``warband_path``) before the commitment
is sent, so a game resumed between the commitment and the reveal still reveals it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from dbnet.engine import Game
from dbnet.engine.choices import CommitChoice, Decision, DecisionKind, RevealChoice
from dbnet.engine.limited import SALT_SIZE, auto_build, limited_breaches, warband_commitment
from dbnet.engine.model import MiniatureDef, Player
from dbnet.errors import DbnetError, IllegalChoiceError
from dbnet.files import replace_atomically
from dbnet.protocol.identity import Identity

BUILD_KINDS = (DecisionKind.COMMIT, DecisionKind.REVEAL)

_SALT_TAG: Final = b"dbnet/limited/salt/v1\x00"
WARBAND_SUFFIX: Final = ".warband"
_FILE_MAGIC: Final = "dbnet-limited-warband 1"


class WarbandFileError(DbnetError):
    """The file of the warband this side committed to is missing or unreadable: the
    commitment cannot be opened."""


def warband_salt(identity: Identity, game_id: bytes) -> bytes:
    """This player's salt for ``game_id`` (docs/limited.md): SHA-256 of the identity's
    Ed25519 signature over a tag of its own and the game id. Ed25519 signatures are
    deterministic and only the key's holder can make them: the same salt after a resume,
    and one the opponent cannot foresee."""
    signature = identity.sign(_SALT_TAG + game_id)
    return hashlib.sha256(_SALT_TAG + signature).digest()


def warband_path(replay: Path) -> Path:
    """Where the warband committed to in the game of ``replay`` is kept: beside it."""
    return replay.with_name(replay.name + WARBAND_SUFFIX)


def save_warband(path: Path, game_id: bytes, slugs: Sequence[str]) -> None:
    """Write the committed warband's file (atomically, mode 0600: it is secret until the
    reveal)."""
    text = f"{_FILE_MAGIC}\ngame {game_id.hex()}\nwarband {' '.join(slugs)}\n"
    replace_atomically(path, text.encode(), mode=0o600)


def missing_warband(path: Path) -> WarbandFileError:
    return WarbandFileError(
        f"{path} is missing: it held the warband this side committed to, so the commitment "
        "cannot be opened; the game can only be lost (resign, or let the opponent claim it)"
    )


def load_warband(path: Path, game_id: bytes) -> tuple[str, ...]:
    """The slugs saved in ``path`` for ``game_id``; WarbandFileError if it is missing or
    is not this game's."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise missing_warband(path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WarbandFileError(
            f"{path} cannot be read ({exc}): the commitment cannot be opened"
        ) from exc
    if len(lines) != 3 or lines[0] != _FILE_MAGIC or lines[1] != f"game {game_id.hex()}":
        raise WarbandFileError(
            f"{path} is not this game's committed warband: the commitment cannot be opened"
        )
    word, _, rest = lines[2].partition(" ")
    if word != "warband":
        raise WarbandFileError(f"{path} is damaged: the commitment cannot be opened")
    return tuple(rest.split())


def reveal_needs_file(view: Game, player: Player) -> bool:
    """Whether ``player`` has committed in ``view``'s build phase and not revealed yet."""
    build = view.build
    if build is None:
        return False
    return len(build.commits) > int(player) and len(build.warbands) <= int(player)


def build_decision(view: Game) -> Decision | None:
    """The pending commitment or reveal of a Limited game's build phase, else None."""
    pending = view.pending
    if isinstance(pending, Decision) and pending.kind in BUILD_KINDS:
        return pending
    return None


def pool_of(view: Game, player: Player) -> tuple[MiniatureDef, ...]:
    """``player``'s pool (the pack dice must be rolled)."""
    build = view.build
    if build is None or build.pools is None:
        raise IllegalChoiceError("the pools are drawn once the pack dice are rolled")
    return build.pools[player]


class Builder:
    """One player's warband in the build phase: the last legal one saved (``save``), the
    one committed to, and the salt."""

    def __init__(self, salt: bytes | None = None) -> None:
        self.salt = secrets.token_bytes(SALT_SIZE) if salt is None else salt
        self.saved: tuple[MiniatureDef, ...] | None = None
        self.committed: tuple[str, ...] | None = None  # the slugs committed to
        self.game_id: bytes | None = None
        self.store: Path | None = None

    def bind(self, identity: Identity, game_id: bytes, replay: Path | None) -> None:
        """Play ``game_id``: the salt derived from ``identity`` and the game id, and the
        committed warband kept beside ``replay`` (if given), so a resumed game reveals."""
        store = None if replay is None else warband_path(replay)
        if game_id != self.game_id:
            self.saved = self.committed = None
            self.salt = warband_salt(identity, game_id)
        self.game_id, self.store = game_id, store

    def save(self, view: Game, player: Player, minis: Sequence[MiniatureDef]) -> None:
        """Keep ``minis`` as the warband to commit, if it is legal from ``player``'s pool
        (600.6 and the rules of 600); IllegalChoiceError naming the first breach if not."""
        breaches = limited_breaches(tuple(minis), pool_of(view, player))
        if breaches:
            raise IllegalChoiceError(f"the warband breaks {breaches[0]}")
        self.saved = tuple(minis)

    def choice(self, view: Game) -> CommitChoice | RevealChoice:
        """The commitment (to the saved warband, else the automatic build) or the reveal
        due in ``view``."""
        pending = build_decision(view)
        if pending is None:
            raise IllegalChoiceError("no commitment or reveal is due")
        if pending.kind is DecisionKind.COMMIT:
            pool = pool_of(view, pending.player)
            minis = self.saved if self.saved is not None else auto_build(pool)
            self.committed = tuple(m.slug for m in minis)
            if self.store is not None and self.game_id is not None:
                save_warband(self.store, self.game_id, self.committed)  # before it is sent
            return CommitChoice(warband_commitment(minis, self.salt))
        if self.committed is None and self.store is not None and self.game_id is not None:
            self.committed = load_warband(self.store, self.game_id)
        if self.committed is None:
            raise IllegalChoiceError(
                "this process holds no committed warband to reveal (the game was resumed "
                "between the commitment and the reveal)"
            )
        return RevealChoice(self.committed, self.salt)


class Builders:
    """A ``Builder`` per player, made on first use; or, for a side that plays one player
    (``one``), that player's builder."""

    def __init__(self) -> None:
        self._by_player: dict[Player, Builder] = {}
        self._only: Builder | None = None

    @classmethod
    def one(cls, builder: Builder) -> Builders:
        """``builder`` for the one player a side plays (a network game's, bound to it)."""
        builders = cls()
        builders._only = builder
        return builders

    def __getitem__(self, player: Player) -> Builder:
        if self._only is not None:
            return self._only
        builder = self._by_player.get(player)
        if builder is None:
            builder = self._by_player[player] = Builder()
        return builder

    def automatic(self, view: Game) -> CommitChoice | RevealChoice | None:
        """The build choice due in ``view`` (a bot's: saved or automatic), or None when no
        commitment or reveal is due."""
        pending = build_decision(view)
        if pending is None:
            return None
        return self[pending.player].choice(view)


def pick_from_pool(pool: Sequence[MiniatureDef], words: Sequence[str]) -> list[MiniatureDef]:
    """The miniatures ``words`` name, each by its slug, or by the beginning of one slug or
    name of the pool (case and ``-`` or spaces ignored); IllegalChoiceError naming a word
    that names none or several."""
    kinds: dict[str, MiniatureDef] = {}
    for mini in pool:
        kinds.setdefault(mini.slug, mini)
    out = []
    for word in words:
        key = word.lower().replace(" ", "-")
        found = kinds.get(key)
        if found is None:
            fits = [
                m
                for m in kinds.values()
                if m.slug.startswith(key) or m.name.lower().replace(" ", "-").startswith(key)
            ]
            if len(fits) != 1:
                what = "no miniature" if not fits else "several miniatures"
                raise IllegalChoiceError(f"{word!r} names {what} of the pool")
            found = fits[0]
        out.append(found)
    return out
