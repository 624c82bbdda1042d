"""``dbnet play``: a person against a bot, full screen or in a plain line-based interface.

On a terminal (stdin and stdout both terminals) ``dbnet play`` opens the
full-screen client (``dbnet.console``; ``--hotseat`` seats two people there
instead of a bot). ``--plain``, or a stdin or stdout that is not a terminal
(a pipe, a file), gives the line-based interface this module implements, for
scripts and screen readers. ``--tui`` insists on the full screen. Both play
through the signed log and save the same replay file.

In the line-based interface, each time the person owes a decision the command
shows the position, the decision and its legal choices, and reads one line: a
choice in notation (handles may be abbreviated) or a command (``help``,
``board``, ``choices``, ``show NAME``, ``log``, ``resign``, ``quit``). An
illegal entry is answered with one line saying why, and the question is asked
again.

The game runs through the signed log of two in-process peers (the person's
with their identity key, the bot's with a key of its own; ``--seed`` derives
both keys, the dice chains and the nonce from the seed instead), so the dice
come from the peers' hash chains and every entry is appended to a replay file
as it is written: ``<config dir>/replays/YYYYMMDD-HHMMSS-<game id>.dbnr`` (UTC)
unless ``--replay PATH`` says where. The path is shown at the start and the end.

Exit codes: 0 when the game ended (won, lost or resigned) or the player typed
``quit``; 1 when input ended (EOF) before the game was over (line interface)
or an internal error stopped the full screen; 2 for bad arguments or files;
130 when interrupted with Ctrl-C, 143 when stopped by SIGTERM, 129 by SIGHUP (a closed
terminal): the game is saved and the line that resumes it printed, as on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import IO

from dbnet.bots import make_bot
from dbnet.catalog.packs import limited_setup
from dbnet.commands.stopping import Stop, say_safely, stopping
from dbnet.commands.terms import new_game_terms, resumed_terms
from dbnet.engine import Choice, Player, find_minis, format_choice
from dbnet.engine.choices import DecisionKind
from dbnet.engine.limited import auto_build
from dbnet.errors import DbnetError, InvalidChoiceError
from dbnet.match.building import build_decision, pick_from_pool, pool_of
from dbnet.match.decision_help import (
    DECISION_HELP,
    choice_lines,
    describe_mini,
    explain_pending,
    pending_help,
    pool_lines,
)
from dbnet.match.keys import bot_random, local_keys
from dbnet.match.local import LocalGame, load_setup
from dbnet.match.render import WIDTH, render_position, render_score_by_turn
from dbnet.match.seats import BotSeat, SeatKind, facing, seats_with
from dbnet.match.story import EventKind, minis_words
from dbnet.replay.file import ReplayWriter
from dbnet.replay.saved import resume_play_command, resume_saved, start_saved
from dbnet.text import counted

EXIT_DONE = 0
EXIT_EOF = 1

COMMANDS_HELP = (
    "Commands: help (this), board (the position), choices (the legal choices), "
    "show NAME (a miniature's card, its abilities in words), log (the game so far), "
    "resign, quit. Anything else is read as a choice in notation, e.g. 'spawn lantern e1', "
    "'activate rallying advance', 'target lant d1'."
)


def is_terminal(stream: IO[str] | None) -> bool:
    """Whether ``stream`` is an open terminal."""
    try:
        return stream is not None and stream.isatty()
    except ValueError:  # closed
        return False


def wants_full_screen(
    args: argparse.Namespace, stdin: IO[str] | None, stdout: IO[str] | None
) -> bool:
    """Full screen unless ``--plain`` or a stdin or stdout that is not a terminal.

    Raises:
        InvalidChoiceError: ``--tui`` or ``--hotseat`` without a terminal, or ``--hotseat``
            with ``--plain``.
    """
    terminal = is_terminal(stdin) and is_terminal(stdout)
    if args.plain:
        if args.hotseat:
            raise InvalidChoiceError("--hotseat needs the full-screen client: drop --plain")
        return False
    if not terminal and (args.tui or args.hotseat):
        option = "--tui" if args.tui else "--hotseat"
        raise InvalidChoiceError(
            f"{option} needs the full-screen client, and stdin or stdout is not a terminal"
        )
    return terminal


def run(args: argparse.Namespace) -> int:
    _check_resume(args)
    _check_limited(args)
    with stopping() as stop:
        return _run(args, stop)


def _run(args: argparse.Namespace, stop: Stop) -> int:
    if wants_full_screen(args, sys.stdin, sys.stdout):
        # prompt-toolkit only when the full screen is wanted
        from dbnet.console import run_local
        from dbnet.console.session import DEFAULT_BOT_DELAY

        notes: list[str] = []
        if args.resume:
            terms = resumed_terms(args, notes.append)
        else:
            terms = new_game_terms(args)
        hotseat = terms is not None and terms.person is None
        side = None if hotseat and args.resume else Player[args.side]
        limited = getattr(args, "limited", None)
        if args.resume:
            setup = None
        elif limited is not None:
            setup = limited_setup(limited)
        else:
            setup = load_setup(args.warband, args.opponent, Player[args.side])
        try:
            return run_local(
                setup,
                build_seconds=60.0 * args.build_minutes,
                bot=args.bot,
                think=args.think,
                playouts=args.playouts,
                side=side,
                seed=args.seed,
                hotseat=args.hotseat,
                replay=args.replay,
                resume=args.resume,
                bot_delay=DEFAULT_BOT_DELAY if args.bot_delay is None else args.bot_delay,
                notes=notes,
            )
        except KeyboardInterrupt:  # in the Limited builder: saved, and said (run_local)
            if stop.signal is None:
                raise
            return stop.exit_code

    session: Session | None = None
    try:
        session = Session.start(args, _read_line, _write)
        return session.loop()
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP (commands.stopping)
        if session is None:
            raise
        say_safely(f"\n{stop.words}: game adjourned")
        if not session.local.is_closed:
            say_safely(f"Go on with it: {session.resume_command()}")
        return stop.exit_code
    except DbnetError:
        raise  # one line from the command line (dbnet.cli)
    except Exception as exc:  # an internal error: the game so far is saved all the same
        if session is None:
            raise
        print(f"dbnet play: internal error ({one_line(exc)}): game adjourned", file=sys.stderr)
        if not session.local.is_closed:
            _write(f"Go on with it: {session.resume_command()}")
        return EXIT_EOF
    finally:
        if session is not None:
            session.replay.close()


def _check_resume(args: argparse.Namespace) -> None:
    """``--resume`` takes the game from its file: options that make a new game are refused."""
    if args.resume is not None:
        _refuse(
            args,
            ("--warband", "--opponent", "--replay", "--hotseat"),
            "--resume goes on with the game in its file, which fixes the warbands, the seats "
            "and where it is saved",
        )


def _check_limited(args: argparse.Namespace) -> None:
    """``--limited`` is a new game against a bot (full screen: the builder on the pool;
    ``--plain``: lines)."""
    if getattr(args, "limited", None) is not None:
        _refuse(
            args,
            ("--warband", "--opponent", "--resume", "--hotseat"),
            "--limited builds both warbands from packs in a new game against the bot",
        )


def _refuse(args: argparse.Namespace, options: tuple[str, ...], why: str) -> None:
    """Refuse the ``options`` given (each ``--name`` read as ``args.name``), saying ``why``."""
    given = [option for option in options if getattr(args, option[2:].replace("-", "_"))]
    if given:
        raise InvalidChoiceError(f"{why}: drop {', '.join(given)}")


def one_line(exc: BaseException) -> str:
    """An exception in one line: its type, and the first line of its words."""
    words = str(exc).splitlines()
    return type(exc).__name__ + (f": {words[0]}" if words and words[0] else "")


def _read_line(prompt: str) -> str:
    return input(prompt)


def _write(text: str) -> None:
    print(text, flush=True)


@dataclass(slots=True)
class Session:
    """One terminal game: the driver, the person's seat, and how to read and write lines."""

    local: LocalGame
    me: Player
    read_line: Callable[[str], str]
    write: Callable[[str], None]
    replay: ReplayWriter
    seed: int | None = None
    build_seconds: float = 600.0
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def start(
        cls,
        args: argparse.Namespace,
        read_line: Callable[[str], str],
        write: Callable[[str], None],
    ) -> Session:
        if args.resume is not None:
            terms = resumed_terms(args, write)
            if terms is not None and terms.person is None:
                raise InvalidChoiceError(
                    f"{args.resume} is a hotseat game: it resumes full screen (drop --plain)"
                )
        else:
            terms = new_game_terms(args)
        side = Player[args.side]
        if args.resume is not None:
            make_seats = seats_with(
                BotSeat(
                    make_bot(
                        args.bot, bot_random(args.seed), seconds=args.think, playouts=args.playouts
                    )
                )
            )
            saved = resume_saved(args.resume, make_seats, seed=args.seed, seat=side)
            if saved.local.hotseat:
                saved.writer.close()
                raise InvalidChoiceError(
                    f"{args.resume} is a hotseat game: it resumes full screen (drop --plain)"
                )
        else:
            keys, bot_rng = local_keys(args.seed, side)
            limited = getattr(args, "limited", None)
            setup = (
                load_setup(args.warband, args.opponent, side)
                if limited is None
                else limited_setup(limited)
            )
            bot = make_bot(args.bot, bot_rng, seconds=args.think, playouts=args.playouts)
            seats = facing(side, BotSeat(bot))
            saved = start_saved(setup, seats, keys, args.replay, terms)
        local, replay, path = saved.local, saved.writer, saved.path
        me = next(p for p in (Player.A, Player.B) if local.seats[p].kind is SeatKind.PERSON)
        opponent = local.seats[me.other]
        setup = local.narrator.game.setup
        session = cls(local, me, read_line, write, replay, args.seed)
        session.build_seconds = 60.0 * args.build_minutes
        mine, theirs = setup.warbands[me], setup.warbands[me.other]
        write(
            f"You are {me.name} ({mine.name!r}, portal "
            f"{'e1' if me is Player.A else 'a5'}) against the {opponent.label} as "
            f"{me.other.name} ({theirs.name!r}). First to win "
            f"{counted(setup.options.turns_to_win, 'turn')} wins."
        )
        if setup.map.reconstructed:
            write(f"Map {setup.map.name!r}: its key-cell values are a reconstruction.")
        write(f"Replay: {path}")
        write("Type 'help' at any prompt.")
        return session

    def loop(self) -> int:
        """Play until the game ends or the person stops; returns the exit code."""
        local = self.local
        while True:
            for event in local.advance():
                self.write(str(event))
            if local.is_closed:
                self._finish()
                return EXIT_DONE
            if build_decision(local.game) is not None:
                outcome = self._build()
                if outcome is not None:
                    return outcome
                continue
            self._shown("the position", lambda: self.write(render_position(local.game)))
            self._shown("the choices", lambda: self.write("\n".join(choice_lines(local.game))))
            outcome = self._ask()
            if outcome is not None:
                return outcome

    def _ask(self) -> int | None:
        """Read lines until one plays a choice (None) or ends the session (an exit code)."""
        local = self.local
        while True:
            try:
                line = self.read_line(f"{self.me.name}> ").strip()
            except EOFError:
                self.write("\ninput ended before the game was over: game adjourned")
                self.write(f"Go on with it: {self.resume_command()}")
                return EXIT_EOF
            word, _, rest = line.partition(" ")
            command = word.lower()
            if not line:
                self.write("Type a choice, or 'help'.")
            elif command == "help":
                self._shown("the help", self._help)
            elif command == "board":
                self._shown("the board", lambda: self.write(render_position(local.game)))
            elif command == "choices":
                self._shown(
                    "the choices", lambda: self.write("\n".join(explain_pending(local.game)))
                )
            elif command == "show":
                self._shown("the card", partial(self._show, rest.strip()))
            elif command == "log":
                self._shown(
                    "the log",
                    lambda: self.write("\n".join(local.transcript() or ["(nothing played yet)"])),
                )
            elif command == "resign":
                self.write(str(local.resign(self.me)))
                self._finish()
                return EXIT_DONE
            elif command == "quit":
                self.write("quit: game adjourned")
                self.write(f"Go on with it: {self.resume_command()}")
                return EXIT_DONE
            else:
                try:
                    events = local.play(line)
                except DbnetError as exc:
                    self.write(f"not played: {exc}")
                    continue
                if events and events[0].kind is EventKind.CHOICE and events[0].outcome:
                    # the person's own choice needs no echo, but what it did does
                    self.write(events[0].outcome)
                for event in events[1:]:
                    self.write(str(event))
                return None

    def _build(self) -> int | None:
        """A Limited game's commitment or reveal: the reveal is played at once; for the
        commitment the person picks a warband from their pool (``pick``, ``auto``,
        ``done``) until they commit or their build time runs out (checked at each line:
        then the last legal warband saved, else the automatic build, is committed)."""
        local = self.local
        game = local.game
        builder = local.builders[self.me]
        pending = build_decision(game)
        assert pending is not None
        if pending.kind is DecisionKind.REVEAL:
            self._commit(builder.choice(game))
            return None
        pool = pool_of(game, self.me)
        self.write("\n".join(pool_lines(game, self.me)))
        minutes = self.build_seconds / 60
        self.write(
            f"Build your warband within {minutes:g} minutes: 'pick NAME ...' saves one "
            "(names or slugs, a name once per copy), 'auto' shows the automatic build, "
            "'pool' lists your pool, 'done' commits the saved warband (else the automatic "
            "build)."
        )
        deadline = self.clock() + self.build_seconds
        while True:
            try:
                line = self.read_line(f"{self.me.name} build> ").strip()
            except EOFError:
                self.write("\ninput ended before the game was over: game adjourned")
                return EXIT_EOF
            if self.clock() > deadline:
                self.write(
                    "build time is up: committing the warband saved, else the automatic build"
                )
                self._commit(builder.choice(game))
                return None
            word, _, rest = line.partition(" ")
            command = word.lower()
            if command == "done":
                self._commit(builder.choice(game))
                return None
            if command == "pool":
                self.write("\n".join(pool_lines(game, self.me)))
            elif command == "auto":
                self.write(f"Automatic build: {minis_words(auto_build(pool))}")
            elif command == "pick":
                try:
                    builder.save(game, self.me, pick_from_pool(pool, rest.split()))
                except DbnetError as exc:
                    self.write(f"not saved: {exc}")
                    continue
                assert builder.saved is not None
                self.write(f"Saved ({len(builder.saved)}): {minis_words(builder.saved)}")
            elif command == "help":
                self.write(textwrap.fill(DECISION_HELP[DecisionKind.COMMIT], WIDTH))
            elif command == "quit":
                self.write("quit: game adjourned")
                return EXIT_DONE
            else:
                self.write("Type 'pick NAME ...', 'auto', 'pool', 'done' or 'help'.")

    def _commit(self, choice: Choice) -> None:
        """Play a commitment or reveal of this person's builder."""
        game = self.local.game
        for event in self.local.play(format_choice(game, choice)):
            self.write(str(event))

    def resume_command(self) -> str:
        """The command that goes on with this game later."""
        return resume_play_command(self.replay.path, self.seed)

    def _shown(self, what: str, show: Callable[[], None]) -> None:
        """``show()``; an internal error in it is one line, and the game goes on (what
        is shown never changes the game)."""
        try:
            show()
        except Exception as exc:
            self.write(f"could not show {what} ({one_line(exc)}); the game goes on")

    def _help(self) -> None:
        text = pending_help(self.local.game)  # the step's rules, its abilities in words
        text += [COMMANDS_HELP, "Notation: see docs/playing.md and docs/notation.md."]
        for paragraph in text:
            self.write(textwrap.fill(paragraph, WIDTH, break_on_hyphens=False))

    def _show(self, name: str) -> None:
        if not name:
            self.write("show what? e.g. 'show lantern-page' or 'show B:ashmaw'")
            return
        found = find_minis(self.local.game, name)
        if not found:
            self.write(f"no miniature in this game is called {name!r}")
        for mini in found:
            self.write("\n".join(describe_mini(self.local.game, self.local.game.minis[mini])))

    def _finish(self) -> None:
        game = self.local.game
        self.write(render_position(game))
        verdict = "You win!" if game.winner is self.me else "The bot wins."
        self.write(verdict)
        self.write("Score by turn (conquest points):")
        self.write("\n".join(render_score_by_turn(game)))
        self.write(f"Replay saved: {self.replay.path} (dbnet replay, dbnet verify)")
