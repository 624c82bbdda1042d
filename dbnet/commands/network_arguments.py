"""The arguments and help of ``dbnet host``, ``join``, ``resume`` and ``watch``, declared
with argparse alone (as ``commands.arguments``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from dbnet.commands.argument_types import (
    _AddressOrInvite,
    _clock,
    _count,
    _ip_address,
    _name,
    _port,
)
from dbnet.commands.common_arguments import (
    BOT_NAMES,
    DEFAULT_PORT,
    TURNS_TO_WIN,
    _add_budget,
    _add_limited,
    lazy,
)
from dbnet.commands.helptext import HOME_HELP


def _add_network(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    host = subparsers.add_parser(
        "host",
        help="host a game over the network (you play A)",
        description="Listen for an opponent on IPv4 and IPv6 and play a game as A. Prints "
        "the line to send the opponent (dbnet join INVITE: your key's fingerprint, a "
        "one-game secret and every way to reach you: this machine's addresses, a port "
        "mapping on your router, a relay); only its holder takes the seat, unless --expect "
        "names the joiner's key or --open seats anyone (then dbnet join HOST:PORT works). "
        "Exit codes: 0 complete, 1 the game could not go on, 2 bad arguments, 3 adjourned, "
        "130 Ctrl-C.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    host.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})"
    )
    host.add_argument(
        "--turns-to-win", type=int, default=TURNS_TO_WIN, metavar="N",
        help=f"turns a player must win (default {TURNS_TO_WIN})",
    )  # fmt: skip
    host.add_argument(
        "--clock",
        type=_clock,
        metavar="MINUTES[+SECONDS]",
        help="a chess clock for each player: MINUTES to start with, and SECONDS more for "
        "each move handed over, e.g. --clock 10 or --clock 25+10 (default: no clock). A "
        "player whose clock runs out may lose on time: the other claims it (docs/protocol.md)",
    )
    _hosting(host)
    _common(host)
    _rematch(host)
    _add_limited(host)
    host.set_defaults(func=lazy("dbnet.commands.net", "run_host"))

    join = subparsers.add_parser(
        "join",
        help="join a game hosted over the network (you play B)",
        description="Connect to a host and play a game as B: with the INVITE the host "
        "printed, every path it lists is tried at once (direct first, the relay after a "
        "moment) and the host's key is the one it names; or directly to HOST:PORT (a host "
        "seats you so only with --open, or with --expect naming your key). "
        "Reconnects by itself when the connection drops. Exit codes as for 'dbnet host'.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    join.add_argument(
        "address",
        nargs="+",
        action=_AddressOrInvite,
        metavar="INVITE|HOST:PORT",
        help="the host's invite (the line it printed; pasted wrapped over several lines "
        "is fine), or its address",
    )
    _no_port_mapping(join)
    _common(join)
    _rematch(join)
    _add_limited(join, joiner=True)
    join.set_defaults(func=lazy("dbnet.commands.net", "run_join"))

    resume = subparsers.add_parser(
        "resume",
        help="go on with an adjourned network game from its replay",
        description="Go on with a network game from this side's replay file: listen for the "
        "opponent, or connect to HOST:PORT if given. With --claim-timeout, append a signed "
        "claim that the opponent stopped answering instead (verifiers show it as unilateral).",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    resume.add_argument("file", type=Path, metavar="FILE", help="this side's replay file")
    resume.add_argument(
        "address",
        nargs="*",
        action=_AddressOrInvite,
        metavar="INVITE|HOST:PORT",
        help="connect through the host's invite (a fresh one: it prints one when it "
        "resumes), or to its address; without it, host again",
    )
    resume.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"listen here (default {DEFAULT_PORT})"
    )
    resume.add_argument(
        "--claim-timeout",
        action="store_true",
        help="record a signed timeout claim (only while waiting for the opponent's entry)",
    )
    _hosting(resume)
    _common(resume, new_game=False)
    resume.set_defaults(func=lazy("dbnet.commands.net", "run_resume"))

    watch = subparsers.add_parser(
        "watch",
        help="watch a game hosted over the network (read-only)",
        description="Follow a game live as a spectator of a host started with --spectators: "
        "with the spectator INVITE the host printed (dbnet watch INVITE: its direct paths and "
        "its relay are raced, as dbnet join does), or with HOST:PORT and --expect "
        "FINGERPRINT (a host admits that only with --open). Every entry is verified as it "
        "arrives with the checks of dbnet verify (signatures, hash chain, dice, "
        "re-simulation), full screen or in lines (--plain); joining in the middle of a game "
        "catches up from its start. A spectator never takes a seat. The players are called "
        "by the names they signed (alice (A)); the last line names the winner. Exit codes: "
        "0 the game was watched to its end, 1 refused (no place left, a wrong key, the game "
        "over) or the watch broke off, 2 bad arguments, 130 Ctrl-C.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    watch.add_argument(
        "address",
        nargs="+",
        action=_AddressOrInvite,
        metavar="INVITE|HOST:PORT",
        help="the host's spectator invite (the 'dbnet watch' line it printed), or its address "
        "(then give --expect)",
    )
    watch.add_argument(
        "--expect",
        metavar="FINGERPRINT",
        help="refuse to watch unless the host's key has this fingerprint (the invite names it)",
    )
    watch.add_argument(
        "--replay", type=Path, metavar="PATH", help="save the verified game here (a new file)"
    )
    watch.add_argument(
        "--stay",
        action="store_true",
        help="when the game ends, stay for the players' rematch if they agree on one (the next "
        "game is watched too, its replay beside the last: NAME-2.dbnr), full screen or --plain",
    )
    watch.add_argument(
        "--name",
        type=_name,
        default=None,
        help="your name as the host sees it (default: your login)",
    )
    watch.add_argument(
        "--relay",
        metavar="HOST:PORT|off",
        help="with an invite, also try the invite's relay when no direct path works "
        "(default: on, unless DBNET_RELAY or 'relay' in config.toml in your dbnet home says "
        "off); off: the direct paths only",
    )
    watch.add_argument(
        "--stun",
        metavar="HOST:PORT|off",
        help=_STUN_HELP,
    )
    watch.add_argument(
        "--verbose",
        action="store_true",
        help="say each path to the host that failed, and why",
    )
    _no_port_mapping(watch)
    watch.add_argument(
        "--plain",
        action="store_true",
        help="the line-based output (for scripts and screen readers) instead of the "
        "full-screen client; it is also used when stdin or stdout is not a terminal",
    )
    watch.set_defaults(func=lazy("dbnet.commands.watch", "run_watch"))


_STUN_HELP = (
    "the STUN server that tells this side its public address and port (default: "
    "DBNET_STUN, else 'stun' in config.toml in your dbnet home, else "
    "stun.l.google.com:19302); off: none. For now it is asked only with --verbose, which "
    "prints the answer"
)


def _rematch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rematch",
        type=_count,
        default=0,
        metavar="N",
        help="for --bot and --plain: accept or offer up to N more games with the same "
        "opponent over the same connection when a game ends (each a new game: fresh nonces, "
        "its own replay beside the last; the host's terms). Default 0: a bot or a script "
        "declines, a person is asked (type rematch). A --seed game cannot be rematched "
        "(docs/network.md)",
    )


def _no_port_mapping(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-port-mapping",
        action="store_true",
        help="do not ask the router for a port mapping (UPnP IGD, NAT-PMP, PCP): a host "
        "for its port, a joiner or spectator for the port where its host may connect to it "
        "when the relay is the only other way; also DBNET_PORT_MAPPING=off in the environment",
    )


def _hosting(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--address",
        dest="address_given",
        type=_ip_address,
        action="append",
        metavar="IP",
        help="put IP in the invite as a direct path instead of this machine's own addresses "
        "(repeat it for more): e.g. 127.0.0.1 to try dbnet on one machine",
    )
    _no_port_mapping(parser)
    parser.add_argument(
        "--open",
        action="store_true",
        help="seat the first joiner who reaches the port, invite or not (dbnet join "
        "HOST:PORT), and admit spectators without the spectator invite (dbnet watch "
        "HOST:PORT --expect FP): for a LAN party or a script. Without it, only the holder "
        "of the invite (or of a key named with --expect) takes the seat",
    )
    parser.add_argument(
        "--spectators",
        type=_count,
        default=0,
        metavar="N",
        help="admit up to N spectators (dbnet watch), apart from the opponent's place; "
        "prints a spectator invite (the same paths as the player's, relay included), which "
        "never takes a seat (default 0: none)",
    )
    parser.add_argument(
        "--spectator-delay",
        type=_count,
        default=0,
        metavar="N",
        help="spectators see the game N entries late, until it ends (default 0)",
    )


def _common(parser: argparse.ArgumentParser, *, new_game: bool = True) -> None:
    if new_game:
        parser.add_argument(
            "--warband", type=Path, metavar="FILE", help="your warband file (default: shipped)"
        )
        parser.add_argument(
            "--replay", type=Path, metavar="PATH", help="save the replay here (a new file)"
        )
        parser.add_argument(
            "--seed",
            type=int,
            metavar="N",
            help="testing only: derive the bot's choices and this side's game nonce from N; "
            "the same players and seed on both sides give the same game and dice (a game "
            "id played before is refused, so use a new seed for each game)",
        )
    parser.add_argument(
        "--bot", choices=BOT_NAMES, help="let a bot play this side (default: you, at the prompt)"
    )
    _add_budget(parser)
    parser.add_argument(
        "--plain",
        action="store_true",
        help="the line-based interface (for scripts and screen readers) instead of the "
        "full-screen client; it is also used when stdin or stdout is not a terminal",
    )
    parser.add_argument(
        "--name",
        type=_name,
        default=None,
        help="your name as the opponent's known-peers file records it (default: your login)",
    )
    parser.add_argument(
        "--expect",
        metavar="FINGERPRINT",
        help="refuse to play unless the opponent's key has this fingerprint (compare it by "
        "phone or in person first)",
    )
    parser.add_argument(
        "--relay",
        metavar="HOST:PORT|off",
        help="the relay to meet at when no direct path works (default: DBNET_RELAY, else "
        "'relay' in config.toml in your dbnet home, else the public magic-wormhole transit "
        "relay); off: none. A joiner uses the invite's relay unless this says off",
    )
    parser.add_argument(
        "--stun",
        metavar="HOST:PORT|off",
        help=_STUN_HELP,
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="say each path to the host that failed, and why",
    )
    parser.add_argument(
        "--adjourn-after",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="adjourn the game after this long without the opponent (default 300)",
    )
