"""The players' chat lines: signed by their sender, checked against the game's keys, kept
beside the replay (docs/network.md section 12), sans-IO.

A chat line is outside the game's log (it never changes a replay's bytes) but signed by
its sender's identity key, over the game id, so that the host cannot forge its opponent's
lines to spectators, and a line of one game cannot pass for one of another. Each sender
numbers its lines 1, 2, 3, ... (``seq``); ``at`` is how many entries the sender's log held
when it was said (spectators see it once they see that many entries). The signed bytes::

    "dbnet chat 1\\0" || game id (32) || seat ("A" or "B") || u32 BE seq || u32 BE at
    || the text in UTF-8

The chat file beside a replay (``REPLAY.chat``) holds one JSON object per line, appended
and flushed as each line is said or received::

    {"seat": "A", "seq": 1, "at": 12, "text": "good luck", "sig": "<128 hex digits>"}

Anyone holding the replay checks it with ``read_chat`` (``dbnet verify`` does).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dbnet.engine import Player
from dbnet.protocol.errors import ProtocolError
from dbnet.protocol.identity import Identity, verify

__all__ = [
    "CHAT_CONTEXT",
    "CHAT_SUFFIX",
    "MAX_CHAT_CHARS",
    "MAX_SEQ",
    "ChatError",
    "ChatLine",
    "append_chat",
    "chat_path",
    "check_text",
    "read_chat",
    "sign_line",
    "signed_bytes",
    "verify_line",
]

CHAT_CONTEXT: Final = b"dbnet chat 1\x00"
CHAT_SUFFIX: Final = ".chat"
MAX_CHAT_CHARS: Final = 200
"""The longest chat line, in characters."""
MAX_SEQ: Final = 2**32 - 1
SIGNATURE_SIZE: Final = 64


class ChatError(ProtocolError):
    """A chat line that is too long, empty, badly signed or out of order; says which."""


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One signed chat line of a game."""

    seat: Player
    """Who said it (A, the host, or B)."""
    seq: int
    """Its number among its sender's lines, from 1."""
    at: int
    """How many entries its sender's log held when it was said."""
    text: str
    signature: bytes


def check_text(text: str) -> str:
    """``text`` as a chat line may hold it: stripped, 1 to ``MAX_CHAT_CHARS`` characters,
    on one line.

    Raises:
        ChatError: empty, too long, or holding a line break or other control character.
    """
    line = text.strip()
    if not line:
        raise ChatError("a chat line needs some text: say TEXT")
    if len(line) > MAX_CHAT_CHARS:
        raise ChatError(
            f"a chat line is at most {MAX_CHAT_CHARS} characters; this one is {len(line)}"
        )
    if not line.isprintable():
        raise ChatError("a chat line is one line of printable text (no control characters)")
    return line


def signed_bytes(game_id: bytes, seat: Player, seq: int, at: int, text: str) -> bytes:
    """The bytes a chat line's signature covers (the module docstring)."""
    return (
        CHAT_CONTEXT
        + game_id
        + seat.name.encode()
        + seq.to_bytes(4, "big")
        + at.to_bytes(4, "big")
        + text.encode("utf-8")
    )


def sign_line(
    identity: Identity, game_id: bytes, seat: Player, seq: int, at: int, text: str
) -> ChatLine:
    """This player's signed line ``text`` (checked by ``check_text``).

    Raises:
        ChatError: the text breaks the bounds, or ``seq``/``at`` are out of range.
    """
    line = check_text(text)
    if not 1 <= seq <= MAX_SEQ or not 0 <= at <= MAX_SEQ:
        raise ChatError(f"a chat line's number is from 1 to {MAX_SEQ}, not {seq}")
    signature = identity.sign(signed_bytes(game_id, seat, seq, at, line))
    return ChatLine(seat, seq, at, line, signature)


def verify_line(line: ChatLine, game_id: bytes, keys: tuple[bytes, bytes]) -> None:
    """Check ``line`` against the game's id and players' keys (A's, B's).

    Raises:
        ChatError: its text breaks the bounds, its numbers are out of range, or its
            signature is not its seat's over this game.
    """
    if check_text(line.text) != line.text:
        raise ChatError("a chat line's text must not start or end with spaces")
    if not 1 <= line.seq <= MAX_SEQ or not 0 <= line.at <= MAX_SEQ:
        raise ChatError(f"chat line number {line.seq} (at entry {line.at}) is out of range")
    key = keys[line.seat.value] if line.seat.value in (0, 1) else b""
    message = signed_bytes(game_id, line.seat, line.seq, line.at, line.text)
    if len(line.signature) != SIGNATURE_SIZE or not verify(key, line.signature, message):
        raise ChatError(
            f"chat line {line.seq} of {line.seat.name} is not signed by {line.seat.name}'s "
            "key for this game: forged or altered"
        )


def chat_path(replay: Path) -> Path:
    """The chat file beside ``replay``: ``REPLAY.chat``."""
    return replay.with_name(replay.name + CHAT_SUFFIX)


def _encode(line: ChatLine) -> str:
    fields = {
        "seat": line.seat.name,
        "seq": line.seq,
        "at": line.at,
        "text": line.text,
        "sig": line.signature.hex(),
    }
    return json.dumps(fields, ensure_ascii=True, separators=(", ", ": ")) + "\n"


def append_chat(path: Path, line: ChatLine) -> None:
    """Append ``line`` to the chat file ``path`` (created if missing) as one whole line,
    flushed to the disk: a crash leaves at most the last line cut off."""
    data = _encode(line).encode("ascii")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _decode(text: str, where: str) -> ChatLine:
    try:
        fields = json.loads(text)
    except ValueError:
        raise ChatError(f"{where}: not a JSON object") from None
    if not isinstance(fields, dict) or set(fields) != {"seat", "seq", "at", "text", "sig"}:
        raise ChatError(f"{where}: expected the fields seat, seq, at, text and sig")
    seat, seq, at, said, sig = (fields[k] for k in ("seat", "seq", "at", "text", "sig"))
    if seat not in ("A", "B"):
        raise ChatError(f"{where}: seat must be A or B, not {seat!r}")
    if type(seq) is not int or type(at) is not int or not isinstance(said, str):
        raise ChatError(f"{where}: seq and at must be integers and text a string")
    try:
        signature = bytes.fromhex(sig) if isinstance(sig, str) else b""
    except ValueError:
        signature = b""
    if len(signature) != SIGNATURE_SIZE:
        raise ChatError(f"{where}: sig must be {SIGNATURE_SIZE * 2} hex digits")
    return ChatLine(Player[seat], seq, at, said, signature)


def read_chat(path: Path, game_id: bytes, keys: tuple[bytes, bytes]) -> list[ChatLine]:
    """Every line of the chat file ``path``, each checked (``verify_line``) and in order
    (each sender's numbers going up). A last line cut off by a crash is left out.

    Raises:
        ChatError: a line is malformed, badly signed or out of order (names the line).
        OSError: the file cannot be read.
    """
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1]:
        lines = lines[:-1]  # cut off by a crash: never counted
    chat: list[ChatLine] = []
    last = {Player.A: 0, Player.B: 0}
    for number, raw in enumerate(lines, start=1):
        if not raw:
            continue
        where = f"{path.name} line {number}"
        try:
            line = _decode(raw.decode("utf-8"), where)
        except UnicodeDecodeError:
            raise ChatError(f"{where}: not UTF-8") from None
        try:
            verify_line(line, game_id, keys)
        except ChatError as exc:
            raise ChatError(f"{where}: {exc}") from None
        if line.seq <= last[line.seat]:
            raise ChatError(
                f"{where}: {line.seat.name}'s line {line.seq} comes after its line "
                f"{last[line.seat]}: out of order or repeated"
            )
        last[line.seat] = line.seq
        chat.append(line)
    return chat
