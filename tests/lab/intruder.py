"""Mallory at the relay: she learned the relay token of a game (not the invite's secret)
and tries to take the joiner's seat through the relay. Run inside a lab namespace:

    python intruder.py RELAY_HOST RELAY_PORT TOKEN [PROOF_HEX]

She connects as the joiner's side, completes the channel's handshake with a key of her
own, sends a HELLO asking for a new game (with no proof of the secret, or with
PROOF_HEX as one), and prints what the host answers: ``offered`` if the host sent an
entry (the OFFER: she would have the seat), else ``bye: REASON``.
"""

from __future__ import annotations

import secrets
import sys

import trio

from dbnet.catalog import default_warbands, load_catalog
from dbnet.net.messages import Bye, Entry, Hello, decode_message, encode_message
from dbnet.net.relay import open_relayed, relay_side
from dbnet.net.stream import open_channel
from dbnet.protocol.identity import Identity

LIMIT = 30.0


async def main(host: str, port: int, token: str, proof: bytes | None) -> None:
    with trio.fail_after(LIMIT):
        stream = await open_relayed((host, port), token, relay_side(token, "joiner"), timeout=10)
        secure = await open_channel(stream, Identity.generate(), initiator=True)
        warband = default_warbands(load_catalog())[1]
        hello = Hello("mallory", None, 0, warband, nonce=secrets.token_bytes(32), proof=proof)
        await secure.send(encode_message(hello))
        while True:
            message = decode_message(await secure.receive())
            if isinstance(message, Entry):
                print("offered", flush=True)
                return
            if isinstance(message, Bye):
                print(f"bye: {message.reason}", flush=True)
                return


if __name__ == "__main__":
    relay_host, relay_port, relay_token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    forged = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else None
    trio.run(main, relay_host, relay_port, relay_token, forged)
