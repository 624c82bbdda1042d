"""Text for people: strings from elsewhere made safe to show, and system errors in words.

``printable(s)`` is applied wherever a string that the other peer or a replay file
chose (a player's or warband's name, the map's name, a miniature's name, an
ability's text, a BYE reason, a header's ``created``) becomes display text: a raw
control character could move the cursor, clear the screen or start a new line,
and so forge lines that seem to come from dbnet itself; a bidi override could
make text read differently from what it is. ``markup(s)`` is the same for the SVG
pictures and HTML pages, with ``& < > " '`` escaped too. ``os_error_words(exc)`` says
what an ``OSError`` means in words, without Python's class names or errno numbers.
``counted(n, noun)`` writes a number and its noun with the right number (``1 entry``).
"""

from __future__ import annotations

import errno
import html
import socket
from typing import Final

__all__ = ["markup", "os_error_words", "printable"]

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as a visible escape:
    ``\\n``, ``\\r``, ``\\t``, ``\\x1b``, ``\\x85``, ``\\u202e``, ``\\U000e0001``.

    Escaped are C0 and C1 controls, DEL, line and paragraph separators, spaces other than
    the plain space, and format characters (bidi embeddings, overrides and isolates,
    zero-width characters): everything ``str.isprintable`` refuses. Backslashes are kept
    as they are, so the result is one line and applying it twice changes nothing."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def markup(text: str) -> str:
    """``text`` safe in HTML or XML text and quoted attributes (the SVG pictures and HTML
    pages): ``printable`` first (XML 1.0 allows no control characters, even escaped),
    then ``& < > " '`` as character references."""
    return html.escape(printable(text), quote=True)


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


_WORDS: Final[dict[int, str]] = {
    errno.EPIPE: "the other side closed the connection",
    errno.ECONNRESET: "the other side dropped the connection",
    errno.ECONNABORTED: "the connection was dropped on this machine",
    errno.ECONNREFUSED: "the connection was refused: nothing listens at that address and port",
    errno.ETIMEDOUT: "no answer in time",
    errno.EHOSTUNREACH: "that machine cannot be reached",
    errno.EHOSTDOWN: "that machine is down",
    errno.ENETUNREACH: "no route to that network (is this machine online?)",
    errno.ENETDOWN: "this machine's network is down",
    errno.ENOTCONN: "not connected",
    errno.EADDRINUSE: "the port is already in use by another program",
    errno.EADDRNOTAVAIL: "that address does not belong to this machine",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the disk is read-only",
    errno.EIO: "the disk or device failed to read or write",
    errno.ENOENT: "no such file or folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EMFILE: "this program has too many files open",
    errno.ENFILE: "the system has too many files open",
}


def os_error_words(exc: BaseException) -> str:
    """What ``exc`` (usually an ``OSError``) means, in words: ``the other side closed the
    connection`` for a broken pipe, not ``BrokenPipeError: [Errno 32] Broken pipe``. A
    failed connection whose cause is a group of failures (trio tries each address of a
    name) is told by the first of them."""
    cause = exc.__cause__
    if isinstance(cause, BaseExceptionGroup) and isinstance(cause.exceptions[0], OSError):
        exc = cause.exceptions[0]
    if isinstance(exc, socket.gaierror):
        return "the host name could not be found"
    if isinstance(exc, TimeoutError) and exc.errno is None:
        return _WORDS[errno.ETIMEDOUT]
    if isinstance(exc, OSError):
        if exc.errno in _WORDS:
            return _WORDS[exc.errno]
        if exc.strerror:
            return exc.strerror[:1].lower() + exc.strerror[1:]
    text = str(exc)
    return text if text else "an error of the operating system"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun, singular for one: ``1 spawn point``, ``3 spawn points``,
    ``1 entry``, ``2 entries`` (``plural``: when it is not the noun and an s)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
