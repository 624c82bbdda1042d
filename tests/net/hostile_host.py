"""A hostile host for spectators, as a process of its own (issue 29, item 2).

    python tests/net/hostile_host.py KEY_HEX REPLAY GAME_ID_HEX [WATCH_SECRET_HEX]

It speaks the real channel (``dbnet.net.stream.open_channel``) with the identity whose
32-byte Ed25519 private key is ``KEY_HEX``, on 127.0.0.1 (a free port, printed as
``listening on port N``), to one spectator: it reads its WATCH, greets it with a HELLO
that names the game ``GAME_ID_HEX`` (and proves ``WATCH_SECRET_HEX``, the secret of the
spectator invite it made, when given), streams every record of ``REPLAY`` (a genuine
replay file, whoever played it) and ends with BYE (done). So it shows a spectator any
game it holds as its own, under any game id. With ``HOSTILE_CHAT=1`` in the environment it
also sends, before BYE, a chat line of its own (seat A) and one it forged in B's name
(signed with its own key)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import trio

from dbnet.engine import Player
from dbnet.net.messages import Bye, Chat, Entry, Hello, Watch, decode_message, encode_message
from dbnet.net.proof import proof
from dbnet.net.stream import open_channel
from dbnet.protocol.chat import sign_line
from dbnet.protocol.identity import Identity
from dbnet.replay.file import load_replay

LIMIT = 60.0  # seconds: the whole show, bounded


async def serve(
    identity: Identity, records: list[bytes], game_id: bytes, secret: bytes | None
) -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    print(f"listening on port {listeners[0].socket.getsockname()[1]}", flush=True)
    stream = await listeners[0].accept()
    secure = await open_channel(stream, identity, initiator=False)
    first = decode_message(await secure.receive())
    assert isinstance(first, Watch), first
    created = load_created()
    hello = Hello(
        "mallory",
        game_id,
        len(records),
        created=created,
        proof=None if secret is None else proof(secret, secure.transcript, joiner=False),
    )
    await secure.send(encode_message(hello))
    for record in records:
        await secure.send(encode_message(Entry(record)))
    if os.environ.get("HOSTILE_CHAT") == "1":
        said = sign_line(identity, game_id, Player.A, 1, 2, "my own line")
        forged = sign_line(identity, game_id, Player.B, 1, 2, "I, B, admit I cheated")
        await secure.send(encode_message(Chat(said)))
        await secure.send(encode_message(Chat(forged)))
    await secure.send(encode_message(Bye(True, "the game's log is complete")))
    print("shown", flush=True)
    with trio.move_on_after(10):
        while True:  # until the spectator closes
            await secure.receive()


def load_created() -> str:
    return load_replay(Path(sys.argv[2])).header.created


def main() -> None:
    identity = Identity.from_private_bytes(bytes.fromhex(sys.argv[1]))
    records = list(load_replay(Path(sys.argv[2])).records)
    game_id = bytes.fromhex(sys.argv[3])
    secret = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else None

    async def run() -> None:
        with trio.fail_after(LIMIT):
            try:
                await serve(identity, records, game_id, secret)
            except Exception as exc:  # the spectator closed: the show is over
                print(f"ended: {type(exc).__name__}", flush=True)

    trio.run(run)


if __name__ == "__main__":
    main()
