"""A series of network games over one connection: the rematches of ``dbnet host`` and
``dbnet join`` (``--rematch N``; ``dbnet.net.rematch`` says how both sides agree).

Each game of the series is a game of its own: fresh nonces (a new game id), its own
replay file next to the last one, the same terms (warbands, map, clock, format), the
same opponent (its key is pinned: the next game's HELLO comes on the channel that key
authenticated, and a reconnection must bring the same key).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path

from dbnet.errors import InvalidChoiceError
from dbnet.match.render import describe_result
from dbnet.net.rematch import SEEDED, Rematch, RematchPolicy
from dbnet.net.session import GameSession, clock_claim_result
from dbnet.net.session_values import LocalPlayer, Outcome
from dbnet.net.stream import SecureStream
from dbnet.protocol.identity import fingerprint
from dbnet.replay.file import EXTENSION

__all__ = ["Series", "check_rematch", "rematch_policy"]

Make = Callable[[LocalPlayer], GameSession]
PlayOne = Callable[[GameSession, SecureStream | None], Awaitable[Outcome]]


def rematch_policy(args: argparse.Namespace) -> RematchPolicy:
    """``--rematch N``: N more games after this one; a ``--seed`` game never (its next
    game would repeat its game id)."""
    games = getattr(args, "rematch", 0) or 0
    return RematchPolicy(games, SEEDED if getattr(args, "seed", None) is not None else None)


def check_rematch(args: argparse.Namespace, full_screen: bool) -> None:
    """``--rematch`` is for bots and the line interface (``--plain``).

    Raises:
        InvalidChoiceError: ``--rematch`` in the full-screen client.
    """
    if getattr(args, "rematch", 0) and full_screen:
        raise InvalidChoiceError(
            "--rematch is for --bot and --plain (scripts): in the full-screen client, type "
            "'rematch' when the game ends"
        )


def next_replay(path: Path | None) -> Path | None:
    """The next game's replay: beside ``path`` (``NAME-2.dbnr``, ``NAME-3.dbnr``... the
    first name not taken), or the default one (None) when no path was given."""
    if path is None:
        return None
    stem = path.name.removesuffix(path.suffix) if path.suffix else path.name
    base = stem.rsplit("-", 1)[0] if stem.rsplit("-", 1)[-1].isdigit() else stem
    suffix = path.suffix or EXTENSION
    n = 2
    while (candidate := path.with_name(f"{base}-{n}{suffix}")).exists():
        n += 1
    return candidate


class Series:
    """The games played so far (the last is ``current``) and how to play the next."""

    def __init__(self, args: argparse.Namespace, make: Make, first: GameSession) -> None:
        self.args = args
        self.make = make
        self.current = first
        first.rematch = Rematch(rematch_policy(args), person=first.player.ask_rematch is not None)

    async def play(self, play_one: PlayOne) -> Outcome:
        """Play the first game with ``play_one``, then each rematch agreed, on the same
        connection; the outcome of the last."""
        outcome = await play_one(self.current, None)
        while outcome is Outcome.COMPLETE and self.current.rematch_stream is not None:
            stream = self.current.rematch_stream
            self._report(self.current)
            self.current = self._next(self.current, stream)
            outcome = await play_one(self.current, stream)
        return outcome

    def _next(self, last: GameSession, stream: SecureStream) -> GameSession:
        """The next game's session: the same player and terms, the opponent's key pinned
        (no invite: the connection is authenticated already), one game fewer to allow."""
        self.args.replay = next_replay(self.args.replay)
        player = dataclasses.replace(last.player, expect=fingerprint(stream.peer_key))
        session = self.make(player)
        session.invite_secret = None
        session.spectating = last.spectating
        if last.spectators is not None:  # those that stay watch the next game
            session.kept_spectators = last.spectators.kept
        session.rematch = Rematch(last.rematch.policy.next(), person=last.rematch.person)
        if player.on_rematch is not None:
            player.on_rematch(session)
        return session

    @staticmethod
    def _report(session: GameSession) -> None:
        """The finished game's result and replay, as the last game's are said at the end."""
        game = session.game
        if session.writer is not None:
            session.writer.close()
        if game is not None:
            say = session.player.say
            say(clock_claim_result(game) or describe_result(game.log.game))
            say(f"replay: {session.replay_path}")
