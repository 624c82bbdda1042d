"""Opening the full-screen play client: over any session (``run_session``: a local game,
a network game, a spectator's watch), or a local game made here (``run_local``, against a
bot or hotseat, new or resumed, a Limited game's builder first: ``build_limited``)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.console.app import ConsoleApp
from dbnet.console.builder import run_pool_builder
from dbnet.console.session import DEFAULT_BOT_DELAY, LocalSession, Session
from dbnet.engine import DecisionKind, GameSetup, Player, format_choice
from dbnet.match.building import build_decision, pool_of
from dbnet.text import printable


def default_setup(side: Player = Player.A) -> GameSetup:
    """The standard map; the first shipped warband in ``side``'s seat, the second opposite."""
    first, second = default_warbands(load_catalog())
    pair = (first, second) if side is Player.A else (second, first)
    return GameSetup(load_map(), pair)


def run_local(
    setup: GameSetup | None = None,
    *,
    bot: str = "greedy",
    think: float | None = None,
    playouts: int | None = None,
    side: Player | None = Player.A,
    seed: int | None = None,
    hotseat: bool = False,
    bot_delay: float = DEFAULT_BOT_DELAY,
    replay: Path | None = None,
    resume: Path | None = None,
    build_seconds: float = 600.0,
    notes: Sequence[str] = (),
) -> int:
    """Play a local game full screen: a person in ``side``'s seat against ``bot``, or two
    people at this keyboard (``hotseat``; ``side`` and ``bot`` are then unused). ``think``
    and ``playouts`` are a search bot's budget per decision (``dbnet.bots.make_bot``).

    ``setup`` defaults to the standard map and the shipped warbands (the first in
    ``side``'s seat). ``seed`` makes the keys, dice and bot repeatable. The game is saved
    as it is played at ``replay`` (a new file), by default in ``<config dir>/replays/``;
    where it went is printed on exit. With ``resume`` (a replay file), the unfinished game
    saved there goes on instead (``setup``, ``hotseat`` and ``replay`` are then unused;
    ``side`` only says the person's seat in a ``seed`` game, None for people in both).
    Returns the exit code: 0 when the game ended or the person quit, 1 after an internal
    error (reported on stderr), 130 on Ctrl-C. A Limited ``setup`` opens the builder on
    the person's pool first, for ``build_seconds`` (``build_limited``). ``notes`` go to
    the log first (what a resumed game's options changed).

    Raises:
        DbnetError: the replay file cannot be created or resumed (before the screen opens).
    """
    if resume is not None:
        session = LocalSession.resume(
            resume,
            bot=bot,
            think=think,
            playouts=playouts,
            seed=seed,
            side=side,
            bot_delay=bot_delay,
        )
        for note in notes:
            session.note(note)
        return run_session(session)
    side = Player.A if side is None else side  # None: a resumed hotseat game
    if setup is None:
        setup = default_setup(side)
    if hotseat:
        session = LocalSession.hotseat_game(setup, seed=seed, replay=replay)
    else:
        session = LocalSession.against_bot(
            setup,
            bot=bot,
            think=think,
            playouts=playouts,
            side=side,
            seed=seed,
            bot_delay=bot_delay,
            replay=replay,
            build_minutes=build_seconds / 60,
        )
    if setup.limited is not None:
        try:
            build_limited(session, build_seconds)
        except KeyboardInterrupt:  # SIGTERM or SIGHUP in the builder (commands.stopping)
            session.close()
            _say_after(["Stopped; the game is saved and can be resumed.", *session.farewell()])
            raise
        except BaseException:
            session.close()
            raise
    return run_session(session)


def _say_after(lines: Sequence[str]) -> None:
    """Print ``lines`` once the screen is gone (after SIGHUP the terminal may be gone too:
    nothing is lost but the words)."""
    try:
        for line in lines:
            print(printable(line), flush=True)  # a failure's words may quote the peer
    except (OSError, ValueError):
        pass


def build_limited(session: LocalSession, seconds: float) -> None:
    """A Limited game's build before the game's screen: the pack roll (and the bot's
    commitment if it builds first), then the full-screen builder on the person's pool for
    ``seconds``; what it returns is committed (the last legal warband, else the automatic
    build, when the time runs out). The reveals follow in the game (``LocalSession``)."""
    asyncio.run(session.advance(lambda: None))
    player = session.local_player()
    pending = build_decision(session.game)
    if player is None or pending is None or pending.kind is not DecisionKind.COMMIT:
        return
    game = session.game
    fmt = game.setup.limited.format if game.setup.limited is not None else "Limited"
    minis, said = run_pool_builder(
        pool_of(game, player),
        load_catalog(),
        seconds=seconds,
        label=f"Limited {fmt}, you are {player.name}",
    )
    builder = session.local.builders[player]
    if minis is not None:
        builder.save(game, player, minis)
    session.note(said)
    session.submit(format_choice(game, builder.choice(game)))


def run_session(session: Session) -> int:
    """Run the client over ``session`` until it closes; print its closing words (and an
    internal error's traceback) on the restored terminal; return the exit code."""
    try:
        console = ConsoleApp(session)
    except BaseException:
        session.close()
        raise
    code = console.run()
    _say_after(console.closing_words)
    if console.error is not None:
        with contextlib.suppress(OSError, ValueError):
            print("dbnet: internal error, the game was stopped:", file=sys.stderr)
            print(console.error, file=sys.stderr, end="")
    return code
