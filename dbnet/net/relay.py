"""Meeting the opponent at a magic-wormhole transit relay, and the relay setting.

Two players who cannot reach each other directly both connect to a transit relay
(the unchanged ``magic-wormhole-transit-relay`` server) and each sends one line,
``please relay TOKEN for side SIDE\\n``. The relay pairs two connections with the
same token and different sides, answers ``ok\\n`` to both and from then on copies
every byte of one to the other. The encrypted channel (``docs/channel.md``) runs
over that glued connection as over a direct one: the relay sees the token, the side
ids and encrypted frames, nothing else.

The sans-IO part: ``relay_token`` (a one-way hash of the invite secret),
``relay_side`` (a fixed side id per role), ``relay_request`` (the line to send) and
``AnswerReader`` (the relay's answer, read exactly up to its newline). The trio
part: ``open_relayed``. The setting: ``parse_relay`` and ``relay_setting`` (the
``--relay`` flag, ``DBNET_RELAY``, ``config.toml``, ``DEFAULT_RELAY``).
See ``docs/network.md`` section 10.
"""

from __future__ import annotations

import hashlib
import re
import socket
from typing import Final, Literal, NoReturn

import trio

from dbnet.net.errors import LocalNetError, NetError
from dbnet.net.hosting import with_port
from dbnet.net.setting import (
    CONFIG_FILE,
    Address,
    AddressSettingError,
    address_setting,
    parse_address,
)
from dbnet.text import os_error_words

__all__ = [
    "ANSWER_LIMIT",
    "CONFIG_FILE",
    "DEFAULT_RELAY",
    "RELAY_ENV",
    "AnswerReader",
    "NoPeerError",
    "RelayError",
    "RelayRole",
    "RelaySettingError",
    "RelayTimeoutError",
    "open_relayed",
    "parse_relay",
    "receive_ok",
    "relay_request",
    "relay_setting",
    "relay_side",
    "relay_token",
]

RelayRole = Literal["host", "joiner"]

DEFAULT_RELAY: Final[Address] = ("transit.magic-wormhole.io", 4001)
"""The public transit relay of the magic-wormhole project (its ``TRANSIT_RELAY``,
``tcp:transit.magic-wormhole.io:4001``, in ``src/wormhole/cli/public_relay.py``)."""

RELAY_ENV: Final = "DBNET_RELAY"

ANSWER_LIMIT: Final = 64
"""The longest answer line read from a relay, newline included."""

OK: Final = b"ok\n"

_TOKEN_LABEL: Final = b"dbnet relay token v1\x00"
_SIDE_LABEL: Final = b"dbnet relay side v1\x00"
_TOKEN = re.compile(r"[0-9a-f]{64}")
_SIDE = re.compile(r"[0-9a-f]{16}")

# What the relay means by the answers it has besides ok (wormhole_transit_relay's
# server_state.py: _send_bad, _send_impatient).
_KNOWN_ANSWERS: Final = {
    b"bad handshake": "it did not accept the request line",
    b"impatient": "this side sent data before the peer arrived",
}


class RelayError(NetError):
    """The relay could not be reached, refused the request or broke its protocol; or no
    peer came in time. ``relay`` names it (``HOST:PORT``), ``problem`` says why."""

    def __init__(self, relay: str, problem: str) -> None:
        self.relay = relay
        self.problem = problem
        super().__init__(f"relay {relay}: {problem}")


class RelayTimeoutError(RelayError):
    """The relay did not answer in time: while connecting, or no peer with the same token
    came within the wait."""


class NoPeerError(RelayTimeoutError):
    """The relay answered, but no peer came with the same token in time (not a fault of
    the relay: a host waiting there simply waits anew)."""


class RelaySettingError(AddressSettingError):
    """A relay setting that is not ``HOST:PORT``, ``[IPv6]:PORT`` or ``off``, or a config
    file that cannot be read. ``where`` names the flag, variable or file (and line)."""


# --- sans-IO ---------------------------------------------------------------------------


def relay_token(secret: bytes) -> str:
    """The relay token of an invite ``secret``: 64 lowercase hex digits, the SHA-256 of a
    label of dbnet's and the secret. Nobody who learns the token (the relay, an
    eavesdropper) can work back to the secret, and no other protocol hashes to it."""
    return hashlib.sha256(_TOKEN_LABEL + secret).hexdigest()


def relay_side(token: str, role: RelayRole) -> str:
    """The side id (16 lowercase hex digits) of ``role`` for ``token``: the same every time,
    so that a side that reconnects after a drop pairs again, and different for the host
    and the joiner, so that the two pair with each other and never with themselves."""
    _check_token(token)
    if role not in ("host", "joiner"):
        raise LocalNetError(f"relay side: role {role!r} is neither 'host' nor 'joiner'")
    data = _SIDE_LABEL + role.encode("ascii") + b"\x00" + token.encode("ascii")
    return hashlib.sha256(data).hexdigest()[:16]


def relay_request(token: str, side: str) -> bytes:
    """The line that asks the relay to pair this connection: ``please relay TOKEN for side
    SIDE\\n``."""
    _check_token(token)
    if not _SIDE.fullmatch(side):
        raise LocalNetError(f"relay side id {side!r} is not 16 lowercase hex digits")
    return f"please relay {token} for side {side}\n".encode("ascii")


def _check_token(token: str) -> None:
    if not _TOKEN.fullmatch(token):
        raise LocalNetError(f"relay token {token!r} is not 64 lowercase hex digits")


class AnswerReader:
    """The relay's answer to the request, fed as it comes; only ``ok\\n`` is accepted.

    ``wanted()`` is how many bytes to read next: while the bytes so far begin ``ok\\n``
    it is what is left of ``ok\\n``, so the reader never takes a byte of the peer's
    data that may follow at once (feeding more is a ``LocalNetError``). ``feed``
    returns True on ``ok\\n``, False while more is needed, and raises ``RelayError`` on
    any other answer (the relay's line quoted) and on a line longer than
    ``ANSWER_LIMIT``; ``end`` (the connection closed first) always raises it. A reader
    that raised stays failed.
    """

    def __init__(self, relay: str) -> None:
        self.relay = relay
        self._line = bytearray()
        self._failed: RelayError | None = None
        self._done = False

    def wanted(self) -> int:
        if OK.startswith(self._line):
            return len(OK) - len(self._line)
        return ANSWER_LIMIT - len(self._line)

    def feed(self, data: bytes | bytearray) -> bool:
        if self._failed is not None:
            raise self._failed
        if self._done:
            raise LocalNetError("relay answer: fed after ok")
        if len(data) > self.wanted():
            raise LocalNetError(f"relay answer: fed {len(data)} bytes, wanted {self.wanted()}")
        self._line += data
        if self._line == OK:
            self._done = True
            return True
        newline = self._line.find(b"\n")
        if newline >= 0:
            line = bytes(self._line[:newline])
            meaning = _KNOWN_ANSWERS.get(line)
            why = f": {meaning}" if meaning else " instead of ok"
            self._fail(f"answered {line!r}{why}")
        if len(self._line) >= ANSWER_LIMIT:
            self._fail(
                f"answered more than {ANSWER_LIMIT - 1} bytes without a newline "
                f"({bytes(self._line[:24])!r}...), not ok"
            )
        return False

    def end(self) -> NoReturn:
        """The relay closed the connection: always a ``RelayError``."""
        if self._failed is not None:
            raise self._failed
        if not self._line:
            self._fail("closed the connection without answering")
        self._fail(f"closed the connection in the middle of its answer {bytes(self._line)!r}")

    def _fail(self, problem: str) -> NoReturn:
        self._failed = RelayError(self.relay, problem)
        raise self._failed


# --- trio ------------------------------------------------------------------------------


async def receive_ok(stream: trio.abc.ReceiveStream, relay: str) -> None:
    """Read the relay's answer from ``stream`` up to and including ``ok\\n`` and not a byte
    more; ``RelayError`` for any other answer or a closed connection."""
    reader = AnswerReader(relay)
    while True:
        try:
            data = await stream.receive_some(reader.wanted())
        except trio.BrokenResourceError as exc:
            cause = exc.__cause__ if exc.__cause__ is not None else exc
            raise RelayError(relay, f"the connection broke: {os_error_words(cause)}") from exc
        if not data:
            reader.end()
        if reader.feed(data):
            return


async def open_relayed(
    address: Address, token: str, side: str, *, timeout: float, wait: float | None = None
) -> trio.abc.Stream:
    """A connection to the peer through the relay at ``address``.

    Connects (within ``timeout`` seconds), asks the relay to pair this connection
    (``relay_request(token, side)``) and waits for its ``ok`` (within ``wait``
    seconds, by default ``timeout``; ``math.inf`` waits for as long as it takes). The
    stream returned is the TCP connection, positioned right after ``ok\\n``: what it
    receives next is the peer's, what is sent on it goes to the peer. Do not send
    before that: the relay drops a connection that sends early (``impatient``).
    ``RelayTimeoutError`` when the relay or the peer took too long, ``RelayError`` for
    everything else; either way the connection is closed, which also withdraws the
    request at the relay.
    """
    host, port = address
    name = with_port(host, port)
    request = relay_request(token, side)
    pairing = timeout if wait is None else wait
    if not (timeout > 0 and pairing > 0):  # also refuses NaN
        raise LocalNetError(f"relay {name}: timeout {timeout!r} and wait {pairing!r} must be > 0")
    stream: trio.SocketStream | None = None
    try:
        with trio.move_on_after(timeout) as connecting:
            try:
                stream = await trio.open_tcp_stream(host, port)
            except OSError as exc:
                raise RelayError(name, f"cannot connect: {os_error_words(exc)}") from exc
            stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            try:
                await stream.send_all(request)
            except trio.BrokenResourceError as exc:
                raise RelayError(name, "the connection broke while sending the request") from exc
        if connecting.cancelled_caught:
            raise RelayTimeoutError(name, f"could not connect within {timeout:g} s")
        assert stream is not None
        with trio.move_on_after(pairing) as pairing_scope:
            await receive_ok(stream, name)
        if pairing_scope.cancelled_caught:
            raise NoPeerError(name, f"no peer came with the same token within {pairing:g} s")
    except BaseException:
        if stream is not None:
            await trio.aclose_forcefully(stream)
        raise
    return stream


# --- the setting -----------------------------------------------------------------------


def parse_relay(text: str) -> Address | None:
    """The relay address in ``text``: ``HOST:PORT`` (a host name or IPv4 address),
    ``[IPv6]:PORT``, optionally after ``tcp:`` as magic-wormhole writes it; ``off`` (no
    relay) is None. Anything else is a ``RelaySettingError`` saying what is wrong."""
    return parse_address(text, what="a relay address", prefix="tcp:", error=RelaySettingError)


def relay_setting(flag: str | None) -> Address | None:
    """The relay to use (None: none). The first that is set wins: the ``--relay`` flag,
    the environment variable ``DBNET_RELAY`` (empty counts as not set), ``relay =
    "HOST:PORT"`` in ``config.toml`` in dbnet's configuration directory, and last
    ``DEFAULT_RELAY``. ``RelaySettingError`` names the flag, variable or file and line
    whose value is bad."""
    return address_setting(
        flag,
        option="--relay",
        env=RELAY_ENV,
        key="relay",
        default=DEFAULT_RELAY,
        what="a relay address",
        prefix="tcp:",
        error=RelaySettingError,
    )
