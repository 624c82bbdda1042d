"""The argparse types of the ``dbnet`` commands: each reads one argument's text into its
value, or says in one line why it cannot (a usage error, exit code 2). The address of
``dbnet join``, ``resume`` and ``watch`` is an action (``_AddressOrInvite``): an invite,
pasted whole or in pieces, or one HOST:PORT. Like ``commands.arguments``, nothing heavy
is imported (an invite is parsed by ``dbnet.net.invite`` only when one is given).

``NAME_PATTERN`` and ``CLOCK_MS`` repeat values of the modules that use them
(``tests/test_cli.py`` checks that they still agree)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from dbnet.net.invite import Invite

NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")  # dbnet.net.messages


def _number(text: str, unit: str) -> float:
    """``text`` as a number of ``unit`` (an argparse type's first step)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of {unit}") from None


def _minutes(text: str) -> float:
    """An argparse type: a positive number of minutes, fractions allowed."""
    value = _number(text, "minutes")
    if not 0 < value <= 1440:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most 1440")
    return value


def _whole_number(low: int, what: str, too_low: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``low``; the errors say the text is
    not ``what``, or append ``too_low`` to it."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{text!r}{too_low}")
        return value

    return parse


_positive = _whole_number(1, "a whole number", " must be 1 or more")
_count = _whole_number(0, "a whole number", " must be 0 or more")
_entry = _whole_number(0, "an entry number", ": entries are numbered from 0")
_turn = _whole_number(1, "a turn number", ": turns are numbered from 1")


CLOCK_EXAMPLE: Final = "--clock 10 (10 minutes each) or --clock 25+10 (25 minutes, +10 s a move)"
"""As ``dbnet.protocol.clock.CLOCK_EXAMPLE``, repeated so as not to import it."""
CLOCK_MS: Final = (1_000, 100 * 3_600_000, 3_600_000)
"""The least and the most base time and the most increment of a clock, in ms (as
``dbnet.wire.setup``'s)."""
_CLOCK_TEXT: Final = re.compile(r"(\d{1,9})(?:\.(\d{1,3}))?(?:\+(\d{1,9})(?:\.(\d{1,3}))?)?")


def _clock(text: str) -> tuple[int, int]:
    """``--clock MINUTES[+SECONDS]``: ``(base, increment)`` in ms, as ``ClockSetting.parse``
    reads it; a malformed one is a usage error with an example."""
    match = _CLOCK_TEXT.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"expected MINUTES[+SECONDS], got {text!r}; e.g. {CLOCK_EXAMPLE}"
        )
    minutes, minute_part, seconds, second_part = match.groups()
    base = int(minutes) * 60_000 + int((minute_part or "0").ljust(3, "0")) * 60
    increment = int(seconds or "0") * 1000 + int((second_part or "0").ljust(3, "0"))
    least, most, most_increment = CLOCK_MS
    if not least <= base <= most:
        raise argparse.ArgumentTypeError(
            f"the base time must be from 1 second to {most // 60_000} minutes, got {text!r}; "
            f"e.g. {CLOCK_EXAMPLE}"
        )
    if increment > most_increment:
        raise argparse.ArgumentTypeError(
            f"the increment must be at most {most_increment // 1000} seconds, got {text!r}; "
            f"e.g. {CLOCK_EXAMPLE}"
        )
    return base, increment


def _seconds(text: str) -> float:
    value = _number(text, "seconds")
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 to 60 seconds")
    return value


def _think(text: str) -> float:
    value = _number(text, "seconds")
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"{text!r}: give more than 0 and at most 600 seconds")
    return value


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0-65535)")
    return port


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"{text!r}: expected HOST:PORT, e.g. 192.0.2.7:7117")
    return host.strip("[]"), _port(port)


def _looks_like_invite(text: str) -> bool:
    """``dbnet.net.invite.looks_like_invite``, here so that parsing imports no network."""
    plain = text.strip()
    return plain[:2].upper() == "DB" and ":" not in plain and "." not in plain


def _ip_address(text: str) -> str:
    import ipaddress

    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IPv4 or IPv6 address") from None


_PRINTED_COMMANDS = (["dbnet", "join"], ["dbnet", "watch"])
"""The words before the invite on the lines a host prints (and saves in ``invite.txt``)."""


class _AddressOrInvite(argparse.Action):
    """The host's INVITE, its words joined (an invite copied from a wrapped line comes
    as several), or one HOST:PORT; None when no word is given. The whole line the host
    printed reads too: its leading ``dbnet join`` (or ``dbnet watch``) is left out."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        words = [word for value in values or () for word in str(value).split()]
        if words[:2] in _PRINTED_COMMANDS:
            printed, words = " ".join(words[:2]), words[2:]
            if not words:
                raise argparse.ArgumentError(self, f"the line holds no invite after {printed!r}")
        value: tuple[str, int] | Invite | None = None
        if len(words) > 1 and not _looks_like_invite(words[0]):
            raise argparse.ArgumentError(
                self, f"expected one HOST:PORT or an invite, got {len(words)} words"
            )
        if words:
            try:
                value = _address_or_invite("".join(words))
            except argparse.ArgumentTypeError as exc:
                raise argparse.ArgumentError(self, str(exc)) from None
        setattr(namespace, self.dest, value)


def _address_or_invite(text: str) -> tuple[str, int] | Invite:
    """An invite (``dbnet.net.invite``) if ``text`` looks like one, else HOST:PORT (which
    is told apart without importing the network: a usage error stays light)."""
    if not _looks_like_invite(text):
        return _address(text)
    from dbnet.net.invite import Invite, InviteError

    try:
        return Invite.parse(text)
    except InviteError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _name(text: str) -> str:
    if not NAME_PATTERN.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a name is 1-32 letters, digits, '_', '.' or '-', starting with a "
            "letter or digit"
        )
    return text
