"""``dbnet play``'s options as the terms of a game: the defaults of a new game, and for
``--resume FILE`` the terms kept beside the replay (``replay.terms``), each option given
on the command line overriding its term with one line that says so."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Final

from dbnet.engine import Player
from dbnet.errors import InvalidChoiceError
from dbnet.replay.file import load_replay
from dbnet.replay.terms import LocalTerms, load_terms, save_terms

DEFAULT_BOT: Final = "greedy"
DEFAULT_SIDE: Final = "A"
DEFAULT_BUILD_MINUTES: Final = 10.0


def new_game_terms(args: argparse.Namespace) -> LocalTerms:
    """The terms of a new game: the options given, the defaults for the others (also
    set on ``args``)."""
    _defaults(args)
    return LocalTerms(
        person=None if args.hotseat else Player[args.side],
        bot=None if args.hotseat else args.bot,
        think=args.think,
        playouts=args.playouts,
        seed=args.seed,
        build_minutes=args.build_minutes,
    )


def _defaults(args: argparse.Namespace) -> None:
    if args.bot is None:
        args.bot = DEFAULT_BOT
    if args.side is None:
        args.side = DEFAULT_SIDE
    if getattr(args, "build_minutes", None) is None:
        args.build_minutes = DEFAULT_BUILD_MINUTES


def resumed_terms(args: argparse.Namespace, say: Callable[[str], None]) -> LocalTerms | None:
    """For ``--resume FILE``: the game's terms kept beside the replay, set on ``args``;
    an option given overrides its term, said in one line by ``say``, and the terms kept
    are changed to match (the game goes on with them). None for a game saved without its
    terms (an older dbnet): the options given, else the defaults, as before.

    Raises:
        ReplayError: the replay or its terms cannot be read.
        InvalidChoiceError: an option that cannot change in a game under way (the seed,
            which made the keys; the seat of a game the owner's identity signs; a bot in
            a hotseat game).
    """
    path = args.resume
    game_id = load_replay(path).header.game_id
    kept = load_terms(path, game_id)
    if kept is None:
        _defaults(args)
        return None
    hotseat = kept.person is None
    given = {
        "--bot": (args.bot, kept.bot),
        "--think": (args.think, kept.think),
        "--playouts": (args.playouts, kept.playouts),
        "--side": (args.side, None if hotseat else kept.person.name),  # type: ignore[union-attr]
        "--seed": (args.seed, kept.seed),
        "--build-minutes": (getattr(args, "build_minutes", None), kept.build_minutes),
    }
    changed = {flag: new for flag, (new, old) in given.items() if new is not None and new != old}
    _refuse_changes(changed, kept)
    for flag, new in changed.items():
        old = given[flag][1]
        was = "the level's default" if old is None else f"{flag} {_shown(old)}"
        say(f"{flag} {_shown(new)}: given on the command line, it replaces {was} of this game")
    terms = LocalTerms(
        person=kept.person if args.side is None else Player[args.side],
        bot=kept.bot if args.bot is None else args.bot,
        think=kept.think if args.think is None else args.think,
        playouts=kept.playouts if args.playouts is None else args.playouts,
        seed=kept.seed,
        build_minutes=given["--build-minutes"][0] or kept.build_minutes,
    )
    if changed:
        save_terms(path, game_id, terms)
    args.bot = terms.bot if terms.bot is not None else DEFAULT_BOT  # unused in hotseat
    args.side = DEFAULT_SIDE if terms.person is None else terms.person.name
    args.think, args.playouts, args.seed = terms.think, terms.playouts, terms.seed
    args.build_minutes = terms.build_minutes
    return terms


def _refuse_changes(changed: dict[str, object], kept: LocalTerms) -> None:
    if "--seed" in changed:
        was = "without --seed" if kept.seed is None else f"with --seed {kept.seed}"
        raise InvalidChoiceError(
            f"this game was played {was}, which made its keys: drop --seed {changed['--seed']}"
        )
    if kept.person is None:
        given = [flag for flag in ("--bot", "--think", "--playouts", "--side") if flag in changed]
        if given:
            raise InvalidChoiceError(
                f"this is a hotseat game (two people, no bot): drop {', '.join(given)}"
            )
    elif "--side" in changed and kept.seed is None:
        raise InvalidChoiceError(
            f"your identity's key signs {kept.person.name}'s entries in this game: drop "
            f"--side {changed['--side']}"
        )


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
