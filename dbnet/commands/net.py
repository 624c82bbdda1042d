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
import functools
import os
import random
import socket
import sys
import textwrap
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_warband
from dbnet.commands.keyboard import Keyboard, chat_text
from dbnet.commands.rematch_terms import TERMS_HINT, RematchTerms
from dbnet.commands.series import Series, check_rematch
from dbnet.commands.stopping import say_safely, stopping
from dbnet.engine import Game, Options, Player, Warband, format_choice, read_choice
from dbnet.engine.choices import DecisionKind
from dbnet.engine.limited import auto_build
from dbnet.errors import DbnetError, InvalidChoiceError
from dbnet.files import replace_atomically
from dbnet.match.building import (
    Builder,
    Builders,
    build_decision,
    missing_warband,
    pick_from_pool,
    pool_of,
    reveal_needs_file,
    warband_path,
)
from dbnet.match.decision_help import choice_lines, explain_pending, pending_help, pool_lines
from dbnet.match.keys import derive, login_name
from dbnet.match.render import WIDTH, describe_result, render_position
from dbnet.match.seats import BotSeat, PersonSeat, Seat
from dbnet.match.story import Event, minis_words
from dbnet.net.chat import ChatRoom
from dbnet.net.clocks import SessionClocks, now_ms
from dbnet.net.hosting import (
    ListenError,
    check_port,
    listener_port,
    listening,
    reachable_addresses,
    with_port,
)
from dbnet.net.invite import Candidate, Invite, InviteError
from dbnet.net.played import PlayedGames
from dbnet.net.portmap import port_mapping, port_mapping_enabled
from dbnet.net.relay import relay_setting
from dbnet.net.rematch import Ask
from dbnet.net.rendezvous import (
    Door,
    host_candidates,
    invite_connector,
    invite_routes,
    relay_door,
)
from dbnet.net.reverse import joiner_door
from dbnet.net.session import (
    RESIGN,
    Chooser,
    GameSession,
    GameSessionError,
    LocalPlayer,
    NewGame,
    Outcome,
    Timing,
    clock_claim_result,
    disk_full_advice,
    restore_game,
    resume_command,
    withheld_result,
)
from dbnet.net.spectators import Spectating
from dbnet.net.stream import SecureStream
from dbnet.net.stun import learn_endpoint, stun_setting
from dbnet.protocol.clock import ClockSetting, format_clock, paused_reading
from dbnet.protocol.identity import (
    Identity,
    KnownPeers,
    config_dir,
    fingerprint,
    same_fingerprint,
)
from dbnet.replay.errors import DiskFullError, ReplayError
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.text import counted, printable

EXIT_COMPLETE = 0
EXIT_FAILED = 1
EXIT_ADJOURNED = 3
INVITE_FILE = "invite.txt"
"""Where the host's last invite is saved in its dbnet folder."""


def _say(text: str) -> None:
    """A status line, escaped: it may quote the peer's names or reasons."""
    print(printable(text), flush=True)


def _show_events(events: list[Event]) -> None:
    for event in events:
        print(f"  {printable(str(event))}", flush=True)


# --- choosers ----------------------------------------------------------------------------


def bot_chooser(seat: BotSeat) -> Chooser:
    """The bot of ``seat`` deciding in a worker thread; cancelled (the game ends, the
    connection fails, Ctrl-C), it stops searching at once and its choice is dropped. (In a
    Limited game the seat itself commits to the automatic build and reveals it.)"""

    async def choose(view: Game) -> str:
        stopped = threading.Event()

        def decide() -> str:
            return format_choice(view, seat.think(view, stop=stopped.is_set))

        try:
            return await trio.to_thread.run_sync(decide, abandon_on_cancel=True)
        finally:
            stopped.set()

    return choose


_ABANDONED_READ = threading.Event()
"""Set when a read of the person's line was abandoned (the game ended, by a claim say,
while they were at the prompt): its thread still holds stdin's lock."""


async def _read(read_line: Callable[[str], str], prompt: str) -> str:
    """The person's next line, read in a worker thread. abandon_on_cancel: a game that
    ends (or fails) while the person is at the prompt must not wait for them to press
    Enter; the thread is left reading (see ``_finish``)."""
    try:
        return await trio.to_thread.run_sync(read_line, prompt, abandon_on_cancel=True)
    except trio.Cancelled:
        _ABANDONED_READ.set()
        raise


Read = Callable[[str], Awaitable[str]]
"""The person's next line, after the prompt given."""


def line_reader(read_line: Callable[[str], str] = input, chat: ChatRoom | None = None) -> Read:
    """The person's lines: with ``chat``, through one keyboard thread (``say TEXT`` goes
    to the opponent at once, ``dbnet.commands.keyboard``), else one worker thread a line."""
    keyboard = None if chat is None else Keyboard(read_line, chat, _ABANDONED_READ)

    async def read(prompt: str) -> str:
        if keyboard is None:
            return await _read(read_line, prompt)
        return await keyboard.line(prompt)

    return read


def line_chooser(
    read_line: Callable[[str], str] = input,
    build_seconds: float = 600.0,
    builder: Builder | None = None,
    clocks: Callable[[], list[str]] = list,
    chat: ChatRoom | None = None,
    read: Read | None = None,
) -> Chooser:
    """A person at this terminal: the position, the decision, both clocks in a timed
    game (``clocks``: the lines to show), one line of notation (or ``say TEXT`` to the
    opponent, through ``chat``); in a Limited game's build phase, a warband picked from
    the pool within ``build_seconds``. ``read`` (``line_reader``) is given when another
    question (a rematch) reads the same keyboard; else it is made from ``read_line`` and
    ``chat``."""
    builder = Builder() if builder is None else builder
    read = line_reader(read_line, chat) if read is None else read

    async def choose(view: Game) -> str:
        if build_decision(view) is not None:
            return await _build(view, builder, read, build_seconds)
        print(render_position(view), flush=True)
        for line in explain_pending(view) + clocks():
            print(line, flush=True)
        while True:
            line = await read("> ")
            text = line.strip()
            if text in ("help", "choices"):
                try:  # what is shown never changes the game: an error is one line
                    told = pending_help(view) if text == "help" else []
                    for paragraph in told:
                        print(textwrap.fill(paragraph, WIDTH, break_on_hyphens=False))
                    for line in choice_lines(view):
                        print(line, flush=True)
                except Exception as exc:
                    print(f"could not show the {text} ({type(exc).__name__}: {exc})", flush=True)
                if chat is not None and text == "help":
                    print("'say TEXT' sends the opponent a line, at any time.", flush=True)
                continue
            if text == "board":
                print(render_position(view), flush=True)
                continue
            if text == "resign":
                return RESIGN
            said = chat_text(text)
            if chat is not None and said is not None:
                chat.say(said)
                continue
            try:
                return format_choice(view, read_choice(view, text))
            except DbnetError as exc:
                print(f"illegal: {exc}", flush=True)

    return choose


LOW_CLOCK_MS = 60_000
"""A clock under this is warned of at the prompt (once a player, each session)."""


class ClockLines:
    """The clock lines of the prompt: both clocks, and a warning the first time one is
    under a minute."""

    def __init__(self, session: Callable[[], GameSession]) -> None:
        self.session = session  # the game being played (a rematch brings the next)
        self.clocks: SessionClocks | None = None
        self.warned: set[Player] = set()

    def __call__(self) -> list[str]:
        session = self.session()
        if session.clocks is not self.clocks:  # a new game: its own warnings
            self.clocks, self.warned = session.clocks, set()
        clocks = session.clocks
        line, view = clocks.line(), clocks.view
        if line is None or view is None:
            return []
        lines = [line]
        now = now_ms()
        me = None if session.game is None else session.game.me
        for player in (Player.A, Player.B):
            left = view.left(player, now)
            if left < LOW_CLOCK_MS and player not in self.warned:
                self.warned.add(player)
                whose = "your clock" if player is me else "the opponent's clock"
                lines.append(
                    f"warning: {whose} ({player.name}) is under a minute: {format_clock(left)} left"
                )
        return lines


def line_rematch(read: Read, terms: RematchTerms | None = None) -> Ask:
    """A person at this terminal asked, when a game ends, whether to play another with the
    same opponent: ``rematch`` for yes, anything else (an empty line, the end of input) no.
    ``read`` is the chooser's (``line_reader``): one thread reads the keyboard. The host
    (``terms``) may add new terms (``rematch --turns-to-win 4``): bad ones are said in
    one line and asked again."""

    async def ask(offered: bool) -> bool:
        if offered:
            print("the opponent offers a rematch: type rematch to play another game, or press "
                  "Enter to leave", flush=True)  # fmt: skip
        else:
            print("the game is over: type rematch to offer the opponent another game (over this "
                  "connection), or press Enter to leave", flush=True)  # fmt: skip
        if terms is not None:
            print(f"(the host may change the terms: rematch {TERMS_HINT})", flush=True)
        while True:
            try:
                words = (await read("> ")).split()
            except EOFError:
                return False
            if not words or words[0].lower() != "rematch":
                return False
            if len(words) == 1:
                return True
            if terms is None:
                print("rematch: only the host sets the terms: type rematch, or press Enter "
                      "to leave", flush=True)  # fmt: skip
                continue
            wrong = terms.change(words[1:])
            if wrong is None:
                return True
            print(wrong, flush=True)

    return ask


async def _build(
    view: Game, builder: Builder, read: Callable[[str], Awaitable[str]], seconds: float
) -> str:
    """The person's commitment (a warband picked from the pool with 'pick', 'auto',
    'pool', 'done', until they commit or ``seconds`` pass: then the last warband saved,
    else the automatic build) or their reveal (at once)."""
    pending = build_decision(view)
    assert pending is not None
    if pending.kind is DecisionKind.REVEAL:
        return format_choice(view, builder.choice(view))
    me = pending.player
    pool = pool_of(view, me)
    for line in pool_lines(view, me):
        print(line, flush=True)
    print(
        f"Build your warband within {seconds / 60:g} minutes: 'pick NAME ...' saves one, "
        "'auto' shows the automatic build, 'pool' lists your pool, 'done' commits the "
        "saved warband (else the automatic build).",
        flush=True,
    )
    with trio.move_on_after(seconds) as scope:
        while True:
            line = await read("build> ")
            word, _, rest = line.strip().partition(" ")
            command = word.lower()
            if command == "done":
                break
            if command == "pool":
                for text in pool_lines(view, me):
                    print(text, flush=True)
            elif command == "auto":
                print(f"Automatic build: {minis_words(auto_build(pool))}", flush=True)
            elif command == "pick":
                try:
                    builder.save(view, me, pick_from_pool(pool, rest.split()))
                except DbnetError as exc:
                    print(f"not saved: {exc}", flush=True)
                    continue
                saved = builder.saved or ()
                print(f"Saved ({len(saved)}): {minis_words(saved)}", flush=True)
            else:
                print("Type 'pick NAME ...', 'auto', 'pool' or 'done'.", flush=True)
    if scope.cancelled_caught:
        print("build time is up: committing the warband saved, else the automatic build")
    return format_choice(view, builder.choice(view))


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
        choose = bot_chooser(bot_seat)
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


async def _join(
    args: argparse.Namespace,
    session: GameSession,
    invite: Invite | None,
    use_relay: bool,
    connect: Callable[[], Awaitable[trio.abc.Stream | SecureStream]],
    first: SecureStream | None = None,
) -> Outcome:
    """Join with ``connect`` (``first``: a rematch's connection, played first); with an
    invite that has a relay, also keep a door where the host may connect to this side
    (its router's port mapping, ``dbnet.net.reverse``), unless --no-port-mapping or
    DBNET_PORT_MAPPING=off."""
    if invite is None or invite.relay is None or not use_relay:
        return await session.join(connect, first)
    if not port_mapping_enabled(args.no_port_mapping):
        return await session.join(connect, first)
    async with trio.open_nursery() as nursery:
        door = functools.partial(
            joiner_door,
            session.player.identity,
            invite.fingerprint,
            session.player.say,
            session.switch_to,
            handshake_timeout=session.timing.handshake_timeout,
            frame_timeout=session.timing.frame_timeout,
        )
        session.own_candidates = await nursery.start(door)
        outcome = await session.join(connect, first)
        nursery.cancel_scope.cancel()
    return outcome


def _seat_invite(address: object) -> Invite | None:
    """The invite given to join with, if any; a spectator invite never takes a seat."""
    if not isinstance(address, Invite):
        return None
    if address.watch:
        raise InviteError(
            "this is a spectator invite (for dbnet watch): it never takes a seat; ask the "
            "host for the line it printed for its opponent (dbnet join INVITE)"
        )
    return address


async def _host(args: argparse.Namespace, series: Series, relay: tuple[str, int] | None) -> Outcome:
    """Listen, map a port on the router, print an invite (this machine's paths now; the
    game's secret, the same when it is resumed) and serve the game on every door (and the
    rematches agreed, on the same doors)."""
    session = series.current
    say = session.player.say
    enabled = port_mapping_enabled(args.no_port_mapping)
    async with listening(args.port) as listeners:
        port = listener_port(listeners[0])
        async with port_mapping(port, say=say, enabled=enabled) as mapping:
            if mapping is not None:
                say(f"your router forwards {mapping} here ({mapping.method}) while you play")
            external = (
                None if mapping is None else (mapping.external_address, mapping.external_port)
            )
            addresses = args.address_given or _own_addresses(listeners)
            secret = session.invite_secret = session.own_invite_secret()
            candidates = host_candidates(addresses, port, external)
            invite = Invite(session.player.identity.fingerprint, secret, candidates, relay)
            say("send your opponent this line (it names your key and carries a one-game secret):")
            say(f"  dbnet join {invite.text()}")
            saved = _save_invite(f"dbnet join {invite.text()}\n")
            if saved is not None:
                say(f"  (it is also in {saved}, to copy whole)")
            doors = [] if relay is None else [relay_door(relay, secret, say)]
            if args.spectators:
                doors += _admit_spectators(args, session, candidates, relay)
            _show_addresses(say, listeners, args.open, session.player.expect)
            if relay is not None:
                say(f"also waiting at the relay {with_port(*relay)}")
            return await series.play(lambda game, first: game.host(listeners, doors, first))


def _admit_spectators(
    args: argparse.Namespace,
    session: GameSession,
    candidates: tuple[Candidate, ...],
    relay: tuple[str, int] | None,
) -> list[Door]:
    """Admit ``--spectators`` (``--spectator-delay`` entries behind) and print their
    invite: its own secret, marked as a spectator's, with the same direct paths and
    relay as the player's. The door at the relay for spectators (none without a relay):
    its token is the watch secret's, so it never opens the seat's."""
    secret = session.own_watch_secret()
    session.spectating = Spectating(args.spectators, args.spectator_delay, secret, open=args.open)
    fp = session.player.identity.fingerprint
    invite = Invite(fp, secret, candidates, relay, watch=True)
    say = session.player.say
    behind = counted(args.spectator_delay, "entry", "entries")
    delay = f", {behind} behind" if args.spectator_delay else ""
    places = counted(args.spectators, "spectator")
    say(f"up to {places} may watch{delay} (this line never takes a seat):")
    say(f"  dbnet watch {invite.text()}")
    if args.open:  # else a place goes only to the holder of this invite
        say(f"  (or dbnet watch HOST:PORT --expect {fp}: this host is open)")
    if relay is None:
        return []

    def say_spectators(line: str) -> None:
        say(f"spectators' door: {line}")

    return [relay_door(relay, secret, say_spectators)]


def _save_invite(line: str) -> Path | None:
    """The invite's line in ``<config dir>/invite.txt`` (mode 0600: it holds the game's
    secret), where a long line is copied whole rather than off a wrapped screen; None if
    it cannot be written (the printed line is enough)."""
    path = config_dir() / INVITE_FILE
    try:
        replace_atomically(path, line.encode("ascii"), 0o600)
    except OSError:
        return None
    return path


def _dialer(
    args: argparse.Namespace, session: GameSession, identity: Identity, use_relay: bool
) -> Callable[[], Awaitable[trio.abc.Stream | SecureStream]]:
    """How the joiner reaches the host: the invite's paths raced, or HOST:PORT."""
    if not isinstance(args.address, Invite):
        host, port = args.address

        async def connect() -> trio.abc.Stream:
            return await trio.open_tcp_stream(host, port)

        return connect
    invite = args.address
    routes = invite_routes(invite, relay=use_relay)
    paths = ", ".join(f"{route.path} {route.where}" for route in routes) or "none"
    session.player.say(f"the invite lists {len(routes)} paths to the host: {paths}")
    report = (lambda line: session.player.say(f"path failed: {line}")) if args.verbose else None
    return invite_connector(
        invite,
        identity,
        relay=use_relay,
        handshake_timeout=session.timing.handshake_timeout,
        frame_timeout=session.timing.frame_timeout,
        report=report,
    )


def _target(address: tuple[str, int] | Invite) -> str:
    if isinstance(address, Invite):
        return f"the host {address.fingerprint} through its invite"
    return with_port(*address)


def _own_addresses(listeners: list[trio.SocketListener]) -> list[str]:
    """This machine's addresses (not loopback) in the families listened on."""
    families = {listener.socket.family for listener in listeners}
    wanted = {socket.AF_INET: ".", socket.AF_INET6: ":"}
    marks = tuple(mark for family, mark in wanted.items() if family in families)
    return [a for a in reachable_addresses() if any(m in a for m in marks)]


def _show_addresses(
    say: Callable[[str], None],
    listeners: list[trio.SocketListener],
    open_seat: bool,
    expect: str | None,
) -> None:
    """This machine's own addresses (not loopback) in the families listened on, and the
    port: for ``dbnet join HOST:PORT`` when that takes the seat (``--open``, or the key
    named by ``--expect``); else only as the invite's paths (only the invite seats)."""
    port = listener_port(listeners[0])
    families = {listener.socket.family for listener in listeners}
    addresses = [with_port(address, port) for address in _own_addresses(listeners)]
    if open_seat or expect is not None:
        who = "whoever comes first (--open)" if open_seat else f"only the key {expect}"
        if addresses:
            say(f"or, on the same network, one of these (with dbnet join HOST:PORT; {who}):")
            for address in addresses:
                say(f"  {address}")
        else:
            say(f"this machine's address could not be found: give the opponent it and port {port}")
    elif addresses:
        say(f"on the same network the invite reaches this machine at {', '.join(addresses)}")
    kinds = " and ".join(
        name for family, name in ((socket.AF_INET, "IPv4"), (socket.AF_INET6, "IPv6"))
        if family in families
    )  # fmt: skip
    say(f"listening on port {port} ({kinds}); waiting for the opponent...")


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
