"""One player's side of a Limited game's build phase (docs/limited.md): the warband it
commits to and the salt that hides it, kept from the commitment to the reveal.

A bot, and a person whose build time runs out, commit the automatic build of their pool
(``engine.limited.auto_build``) or the last legal warband they saved. The salt is 32 fresh
random bytes, known to this process alone until the reveal: a game resumed from its
replay between a player's commitment and reveal cannot reveal (a known limit).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from dbnet.engine import Game
from dbnet.engine.choices import CommitChoice, Decision, DecisionKind, RevealChoice
from dbnet.engine.limited import SALT_SIZE, auto_build, limited_breaches, warband_commitment
from dbnet.engine.model import MiniatureDef, Player
from dbnet.errors import IllegalChoiceError

BUILD_KINDS = (DecisionKind.COMMIT, DecisionKind.REVEAL)


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
        self.committed: tuple[MiniatureDef, ...] | None = None

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
            self.committed = minis
            return CommitChoice(warband_commitment(minis, self.salt))
        if self.committed is None:
            raise IllegalChoiceError(
                "this process holds no committed warband to reveal (the game was resumed "
                "between the commitment and the reveal)"
            )
        return RevealChoice(tuple(m.slug for m in self.committed), self.salt)


class Builders:
    """A ``Builder`` per player, made on first use."""

    def __init__(self) -> None:
        self._by_player: dict[Player, Builder] = {}

    def __getitem__(self, player: Player) -> Builder:
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
