"""``dbnet host``, ``dbnet join`` and ``dbnet resume``: a game with a player on another machine.

The host listens (IPv4 and IPv6), prints the addresses to give the opponent and
its key fingerprint, and plays A; the joiner connects to ``HOST:PORT`` and plays
B. Either side may let a bot play (``--bot``), so two processes can play
unattended. The replay is saved as the game goes, to the path printed at the
start. When the connection drops, the joiner reconnects and the host waits;
the game resumes where it was. After ``--adjourn-after`` seconds without the
peer the game is adjourned; ``dbnet resume FILE`` goes on with it later (it
listens, or connects to ``HOST:PORT`` if given), or ``--claim-timeout``
records a signed claim that the peer stopped answering.

Exit codes: 0 the game is complete; 1 the game could not go on (the peer
misbehaved, left, or its key was refused; or the host was never reached; or
the disk filled before the game started); 2 bad arguments or files, or a port this
side cannot listen on (in use: one line says so, before any game starts); 3 the
game was adjourned, or stopped on a full disk (free space, then ``dbnet resume
FILE``); 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Awaitable, Callable

import trio

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_warband
from dbnet.commands.net_choosers import (
    _ABANDONED_READ,
    ClockLines,
    bot_in_a_thread,
    line_chooser,
    line_reader,
    line_rematch,
)
from dbnet.commands.net_connect import _dialer, _host, _join, _seat_invite, _target
from dbnet.commands.rematch_terms import RematchTerms
from dbnet.commands.series import Series, check_rematch
from dbnet.commands.stopping import say_safely, stopping
from dbnet.engine import Game, Options, Warband
from dbnet.errors import DbnetError, InvalidChoiceError
from dbnet.match.building import (
    Builder,
    Builders,
    missing_warband,
    reveal_needs_file,
    warband_path,
)
from dbnet.match.keys import derive, login_name
from dbnet.match.render import describe_result
from dbnet.match.seats import BotSeat, PersonSeat, Seat
from dbnet.match.story import Event
from dbnet.net.chat import ChatRoom
from dbnet.net.hosting import (
    ListenError,
    check_port,
)
from dbnet.net.invite import Invite, InviteError
from dbnet.net.played import PlayedGames
from dbnet.net.relay import relay_setting
from dbnet.net.session import GameSession, Timing, clock_claim_result
from dbnet.net.session_values import (
    GameSessionError,
    LocalPlayer,
    NewGame,
    Outcome,
    disk_full_advice,
    restore_game,
    resume_command,
    withheld_result,
)
from dbnet.net.stun import learn_endpoint, stun_setting
from dbnet.protocol.clock import ClockSetting, paused_reading
from dbnet.protocol.identity import (
    Identity,
    KnownPeers,
    fingerprint,
    same_fingerprint,
)
from dbnet.replay.errors import DiskFullError, ReplayError
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.text import counted, printable

EXIT_COMPLETE = 0
EXIT_FAILED = 1
EXIT_ADJOURNED = 3


def _say(text: str) -> None:
    """A status line, escaped: it may quote the peer's names or reasons."""
    print(printable(text), flush=True)


def _show_events(events: list[Event]) -> None:
    for event in events:
        print(f"  {printable(str(event))}", flush=True)


# --- running -----------------------------------------------------------------------------


def _player(
    args: argparse.Namespace, identity: Identity, invite: Invite | None = None
) -> LocalPlayer:
    """The player at this end: a person at this terminal, or the ``--bot``; an invite pins
    the host's key (``--expect``, if given too, must name the same)."""
    expect = args.expect
    if invite is not None:
        if expect is not None and not same_fingerprint(expect, invite.fingerprint):
            raise InviteError(
                f"--expect {expect} and the invite's host key {invite.fingerprint} differ: "
                "which one is your opponent?"
            )
        expect = invite.fingerprint
    seed = getattr(args, "seed", None)
    builder = Builder()
    chat = ChatRoom(_say)
    if args.bot is not None:
        rng = random.Random() if seed is None else random.Random(f"dbnet-net-bot:{seed}")
        bot = make_bot(
            args.bot,
            rng,
            seconds=getattr(args, "think", None),
            playouts=getattr(args, "playouts", None),
        )
        bot_seat = BotSeat(bot, in_place=False, builders=Builders.one(builder))
        seat: Seat = bot_seat
        choose = bot_in_a_thread(bot_seat)
    else:
        seat = PersonSeat()
        choose = _chosen_by_the_front_end
    return LocalPlayer(
        identity=identity,
        name=_own_name(args),
        choose=choose,
        say=_say,
        seat=seat,
        known_peers=KnownPeers.in_dir(),
        expect=expect,
        on_events=_show_events,
        played=PlayedGames.in_dir(),
        builder=builder,
        chat=chat,
    )


async def _chosen_by_the_front_end(view: Game) -> str:
    """A person's chooser until ``_run`` gives the one of the front end it picks (the line
    interface, or the full screen's ``console.network``)."""
    raise AssertionError("a person's decisions come from the front end: _run sets it")


def _own_name(args: argparse.Namespace) -> str:
    """The name this player says in HELLO and signs in its OFFER or ACCEPT."""
    return str(args.name or login_name())


def _warband(args: argparse.Namespace, default: int) -> Warband:
    """This side's warband: its file, else a shipped one; in a Limited game an empty one
    (it is built from the pool in the game), and a file is refused."""
    if getattr(args, "limited", None) is not None:
        if args.warband is not None:
            raise InvalidChoiceError("--limited builds the warband from packs: drop --warband")
        return Warband("Limited warband", ())
    catalog = load_catalog()
    if args.warband is not None:
        return load_warband(args.warband, catalog)
    return default_warbands(catalog)[default]


def _nonce(args: argparse.Namespace, role: str) -> bytes | None:
    """This side's game nonce: derived from ``--seed`` and the ``role`` (testing), else
    None (fresh)."""
    if args.seed is None:
        return None
    return derive(f"{args.seed}".encode(), f"network {role} nonce")


def _timing(args: argparse.Namespace) -> Timing:
    if args.adjourn_after <= 0:
        raise InvalidChoiceError("--adjourn-after must be a positive number of seconds")
    return Timing(adjourn_after=args.adjourn_after)


Make = Callable[[LocalPlayer], GameSession]
Play = Callable[[Series], Awaitable[Outcome]]


class PortError(DbnetError):
    """This machine cannot listen on the port asked for: one line (exit code 2) that says
    what to do, before any game or screen starts."""

    def __init__(self, exc: ListenError) -> None:
        why = f"port {exc.port} is in use by another program" if exc.in_use else str(exc)
        super().__init__(f"{why}; choose another with --port PORT, or --port 0 for any free port")


def _check_port(port: int) -> None:
    """``PortError`` if this side cannot listen on ``port`` (see ``PortError``)."""
    try:
        check_port(port)
    except ListenError as exc:
        raise PortError(exc) from exc


def run_host(args: argparse.Namespace) -> int:
    _check_port(args.port)
    relay = relay_setting(args.relay)
    stun = _stun(args)
    identity = Identity.load_or_create()
    if not 1 <= args.turns_to_win <= 99:
        raise InvalidChoiceError("--turns-to-win must be from 1 to 99")
    new = NewGame(
        _warband(args, 0),
        options=Options(turns_to_win=args.turns_to_win),
        nonce=_nonce(args, "host"),
        clock=None if args.clock is None else ClockSetting(*args.clock),
        limited=args.limited,
    )
    timing = _timing(args)
    terms = args.rematch_terms = RematchTerms(new)  # the host may change them for a rematch

    def make(player: LocalPlayer) -> GameSession:
        return GameSession(
            player, new_game=terms.game, replay_path=args.replay, timing=timing, open_seat=args.open
        )

    async def play(series: Series) -> Outcome:
        series.current.player.say(f"hosting; your key fingerprint is {identity.fingerprint}")
        async with learn_endpoint(stun, series.current.player.say):
            return await _host(args, series, relay)

    return _run(args, _player(args, identity), make, play)


def run_join(args: argparse.Namespace) -> int:
    use_relay = relay_setting(args.relay) is not None
    stun = _stun(args)
    identity = Identity.load_or_create()
    new = NewGame(_warband(args, 1), nonce=_nonce(args, "joiner"), limited=args.limited)
    timing = _timing(args)
    invite = _seat_invite(args.address)
    player = _player(args, identity, invite)

    def make(player: LocalPlayer) -> GameSession:
        return GameSession(
            player,
            new_game=new,
            replay_path=args.replay,
            timing=timing,
            invite_secret=None if invite is None else invite.secret,
        )

    async def play(series: Series) -> Outcome:
        session = series.current
        say = session.player.say
        connect = _dialer(args, session, identity, use_relay)
        say(f"joining {_target(args.address)}; your key fingerprint is {identity.fingerprint}")
        async with learn_endpoint(stun, say):
            return await series.play(
                lambda next_game, first: _join(args, next_game, invite, use_relay, connect, first)
            )

    return _run(args, player, make, play)


def run_resume(args: argparse.Namespace) -> int:
    stun = _stun(args)
    if args.address is None and not args.claim_timeout:
        _check_port(args.port)
    identity = Identity.load_or_create()
    writer = ReplayWriter.resume(args.file)
    try:
        records = list(load_replay(args.file).records)
        if not records:
            raise ReplayError(
                str(args.file),
                "the game never started (the file holds no entry, only its header): there is "
                "nothing to resume. Delete the file, or start a new game with --replay naming it",
            )
        game = restore_game(identity, records, writer.append, name=_own_name(args))
    except BaseException:
        writer.close()
        raise
    if args.claim_timeout:
        if game.log.clock is not None:  # the clocks stood still while the game was adjourned
            game.peer.reading = paused_reading(game.log, game.me)
        try:
            game.claim_timeout()
        finally:
            writer.close()
        _say(f"timeout claim signed and saved to {args.file}")
        return EXIT_COMPLETE
    if game.is_closed:
        writer.close()
        _say(f"{args.file}: this game's log is closed already; nothing to resume")
        return EXIT_COMPLETE
    if reveal_needs_file(game.log.game, game.me) and not warband_path(args.file).exists():
        writer.close()  # committed, not revealed, and the warband committed to is lost
        raise missing_warband(warband_path(args.file))
    peer_key = game.log.keys[game.me.other]
    timing = _timing(args)
    invite = _seat_invite(args.address)
    relay = relay_setting(args.relay)
    if invite is not None and invite.fingerprint != fingerprint(peer_key):
        raise InviteError(
            f"the invite is from the host {invite.fingerprint}, but this game's opponent is "
            f"{fingerprint(peer_key)}: ask the opponent for the invite it printed for this game"
        )

    def make(player: LocalPlayer) -> GameSession:
        return GameSession(
            player,
            game=game,
            writer=writer,
            replay_path=args.file,
            timing=timing,
            invite_secret=None if invite is None else invite.secret,
            open_seat=args.open,
        )

    async def play(series: Series) -> Outcome:
        session = series.current
        say = session.player.say
        held = counted(len(records), "entry", "entries")
        say(f"resuming as {game.me.name} against {fingerprint(peer_key)} ({held})")
        async with learn_endpoint(stun, say):
            if args.address is not None:
                connect = _dialer(args, session, identity, relay is not None)
                return await _join(args, session, invite, relay is not None, connect)
            say(f"your key fingerprint is {identity.fingerprint}")
            return await _host(args, series, relay)

    try:
        return _run(args, _player(args, identity, invite), make, play)
    finally:
        writer.close()


def _stun(args: argparse.Namespace) -> tuple[str, int] | None:
    """The STUN server to ask for this side's public endpoint, which only ``--verbose``
    prints for now (None: ask none): its setting is checked either way."""
    stun = stun_setting(args.stun)
    return stun if args.verbose else None


def _full_screen(args: argparse.Namespace) -> bool:
    """Whether a person plays here full screen (not ``--plain``, at a terminal)."""
    return args.bot is None and not args.plain and sys.stdin.isatty() and sys.stdout.isatty()


def _run(args: argparse.Namespace, player: LocalPlayer, make: Make, play: Play) -> int:
    """Play full screen when a person plays at a terminal (not ``--plain``), else in lines."""
    check_rematch(args, _full_screen(args))
    if _full_screen(args):
        from dbnet.console.network import run_network

        async def play_one(session: GameSession) -> Outcome:
            return await play(Series(args, make, session))

        minutes = getattr(args, "build_minutes", 10)
        terms = getattr(args, "rematch_terms", None)
        change = None if terms is None else terms.change
        return run_network(
            make, play_one, player, build_seconds=60.0 * minutes, change_terms=change
        )
    if isinstance(player.seat, PersonSeat):  # a person in the line interface
        read = line_reader(chat=player.chat)  # one keyboard: the prompt, chat, the rematch
        player.choose = line_chooser(
            build_seconds=60.0 * getattr(args, "build_minutes", 10),
            builder=player.builder,
            clocks=ClockLines(lambda: series.current),  # both clocks in a timed game
            chat=player.chat,
            read=read,
        )
        if sys.stdin.isatty():  # (a script, its input not a terminal, is not asked)
            player.ask_rematch = line_rematch(read, getattr(args, "rematch_terms", None))
    series = Series(args, make, make(player))

    def run() -> Outcome:
        try:
            return trio.run(play, series)
        except ListenError as exc:  # the port was taken after _check_port
            raise PortError(exc) from exc

    with stopping() as stop:
        try:
            return _finish(series, run)
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: every entry is saved already
            session = series.current
            if session.game is None or session.game.is_closed:
                raise
            say_safely(
                f"dbnet: {stop.words}: the game is adjourned and saved in "
                f"{session.replay_path}. Go on later with: "
                f"{resume_command(session.replay_path, session.player.name)}",
                error=True,
            )
            return stop.exit_code


def _finish(series: Series, run: Callable[[], Outcome]) -> int:
    code = _finished(series, run)
    if _ABANDONED_READ.is_set():
        # A thread still reads stdin and holds its lock: a normal exit would abort
        # ("could not acquire lock for stdin at interpreter shutdown"). Everything is
        # saved and said: leave at once, with the game's exit status.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _finished(series: Series, run: Callable[[], Outcome]) -> int:
    session = series.current
    try:
        outcome = run()
    except DiskFullError as exc:
        session = series.current  # the game of the series it happened in
        # the file keeps every whole record: go on once there is space (exit 3, as an
        # adjourned game), or start again if it holds no entry (1: no game was started)
        entries = 0 if session.writer is None else session.writer.entries
        print(f"dbnet: {disk_full_advice(exc, entries)}", file=sys.stderr)
        return EXIT_ADJOURNED if entries else EXIT_FAILED
    except GameSessionError as exc:
        session = series.current
        print(f"dbnet: the game cannot go on: {printable(str(exc))}", file=sys.stderr)
        if session.game is not None:
            print(
                f"dbnet: the game so far is saved in {session.replay_path} (check it with "
                "dbnet verify)",
                file=sys.stderr,
            )
        return EXIT_FAILED
    finally:
        if series.current.writer is not None:
            series.current.writer.close()
    session = series.current
    where = session.replay_path
    withheld = withheld_result(session.game)
    if outcome is Outcome.ADJOURNED and withheld is not None:
        _say(f"dbnet: {withheld}")
        _say(f"replay: {where}")
        return EXIT_COMPLETE
    if outcome is Outcome.UNREACHED:
        print("dbnet: the host could not be reached; no game was started", file=sys.stderr)
        return EXIT_FAILED
    if outcome is Outcome.ADJOURNED:
        print(
            f"dbnet: the opponent has been away too long: the game is adjourned. Go on later "
            f"with: {resume_command(where, session.player.name)}, or record that the opponent "
            f"stopped answering with: {resume_command(where, session.player.name, claim=True)}",
            file=sys.stderr,
        )
        return EXIT_ADJOURNED
    game = session.game
    assert game is not None
    _say(clock_claim_result(game) or describe_result(game.log.game))
    _say(f"replay: {where}")
    return EXIT_COMPLETE
