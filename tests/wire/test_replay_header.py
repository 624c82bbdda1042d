"""The replay header (``wire.replay_header``, docs/replay-format.md)."""

from __future__ import annotations

import pytest

from dbnet.wire.replay_header import ReplayHeader, decode_replay_header, encode_replay_header
from dbnet.wire.values import decode, encode

from .helpers import NAMES, decode_error, h


def test_replay_header_round_trips() -> None:
    header = ReplayHeader(
        rules="dbnet-0.1", game_id=h(1), keys=(h(2), h(3)), created="2025-01-02T03:04:05Z"
    )
    data = encode_replay_header(header)
    assert decode(data) == {
        "format": 3,
        "protocol": 3,
        "rules": "dbnet-0.1",
        "game_id": h(1),
        "keys": [h(2), h(3)],
        "created": "2025-01-02T03:04:05Z",
    }
    assert decode_replay_header(data) == header
    assert eval(repr(header), NAMES) == header


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 5}, "header.format: unsupported replay format 5 (this dbnet reads 1, 2, 3, 4)"),
        (
            {"protocol": 2},
            "header.protocol: replay format 3 holds protocol version 3 entries, not 2",
        ),
        ({"format": 1}, "header.protocol: replay format 1 holds protocol version 1 entries, not 3"),
        ({"keys": [h(2)]}, "header.keys: expected an array of 2 items, got 1"),
        ({"game_id": b"x"}, "header.game_id: expected 32 bytes, got 1"),
        ({"created": 5}, "header.created: expected a string, got 5"),
        ({"players": 2}, "header: unknown key 'players'"),
    ],
)
def test_replay_header_errors(change: dict[str, object], message: str) -> None:
    wire: dict[str, object] = {
        "format": 3, "protocol": 3, "rules": "r", "game_id": h(1), "keys": [h(2), h(3)],
        "created": "",
    }  # fmt: skip
    wire.update(change)
    assert message in decode_error(encode(wire), decode_replay_header)
