"""One player's chat room (issue 30, item 14; ``dbnet.net.chat``): the rate limit, a peer's
flood dropped with one line, a forged line refused with one line, an older channel told
in one line, and the lines kept beside the replay. Real keys and signatures; the lines
the room sends are collected from its ``serve``."""

from __future__ import annotations

from pathlib import Path

import trio

from dbnet.engine import Player
from dbnet.net.chat import RATE_LINES, ChatRoom, RateLimit
from dbnet.net.messages import Chat
from dbnet.protocol.chat import chat_path, read_chat, sign_line

from .helpers import ALICE, BOB

GAME = bytes(range(100, 132))
KEYS = (ALICE.public_key, BOB.public_key)


def test_the_rate_limit_allows_a_burst_then_refills() -> None:
    rate = RateLimit(lines=5, seconds=10.0)
    assert [rate.allow(0.0) for _ in range(7)] == [True] * 5 + [False] * 2
    assert not rate.allow(1.9)  # 0.95 of a line back
    assert rate.allow(2.1)  # one line back every 2 s
    assert not rate.allow(2.2)
    assert [rate.allow(100.0) for _ in range(6)] == [True] * 5 + [False]  # never more than 5


class Room:
    """Alice's room in a game with Bob, bound and serving a version-``version`` channel."""

    def __init__(self, tmp_path: Path) -> None:
        self.shown: list[str] = []
        self.sent: list[Chat] = []
        self.room = ChatRoom(self.shown.append)
        self.replay = tmp_path / "game.dbnr"
        self.room.bind(ALICE, GAME, Player.A, KEYS, ("alice", "bob\x1b[31m"), self.replay)

    async def send(self, message: Chat) -> None:
        self.sent.append(message)


async def test_lines_are_sent_kept_and_shown(tmp_path: Path) -> None:
    room = Room(tmp_path)
    room.room.say("not yet")
    assert room.shown == ["chat: not sent, the opponent is not connected"]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room.room.serve, room.send, 4, lambda: 12)
        await trio.testing.wait_all_tasks_blocked()
        room.room.say("good luck")
        room.room.receive(sign_line(BOB, GAME, Player.B, 1, 11, "you too"))
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert room.shown[1:] == ["alice (you) says: good luck", "bob\\x1b[31m says: you too"]
    [sent] = room.sent
    assert (sent.line.seat, sent.line.seq, sent.line.at, sent.line.text) == (
        Player.A, 1, 12, "good luck"
    )  # fmt: skip
    kept = read_chat(chat_path(room.replay), GAME, KEYS)
    assert [(line.seat, line.text) for line in kept] == [
        (Player.A, "good luck"), (Player.B, "you too")
    ]  # fmt: skip


async def test_a_forged_or_repeated_line_is_refused_with_one_line(tmp_path: Path) -> None:
    room = Room(tmp_path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room.room.serve, room.send, 4, lambda: 2)
        await trio.testing.wait_all_tasks_blocked()
        forged = sign_line(ALICE, GAME, Player.B, 1, 2, "B resigns")  # not B's key
        room.room.receive(forged)
        genuine = sign_line(BOB, GAME, Player.B, 1, 2, "hi")
        room.room.receive(genuine)
        room.room.receive(genuine)  # the same line again
        mine = sign_line(BOB, GAME, Player.A, 2, 2, "in alice's seat")
        room.room.receive(mine)
        nursery.cancel_scope.cancel()
    assert room.shown == [
        "chat: a line is refused: chat line 1 of B is not signed by B's key for this game: "
        "forged or altered",
        "bob\\x1b[31m says: hi",
        "chat: line 1 came twice or out of order: dropped",
        "chat: a line from the opponent in this player's name is dropped",
    ]
    assert len(read_chat(chat_path(room.replay), GAME, KEYS)) == 1


async def test_a_flood_is_dropped_with_one_line(tmp_path: Path) -> None:
    room = Room(tmp_path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room.room.serve, room.send, 4, lambda: 2)
        await trio.testing.wait_all_tasks_blocked()
        for seq in range(1, 41):
            room.room.receive(sign_line(BOB, GAME, Player.B, seq, 2, f"spam {seq}"))
        for n in range(20):
            room.room.say(f"mine {n}")
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    said = [line for line in room.shown if " says: spam" in line]
    assert len(said) == RATE_LINES
    dropped = [line for line in room.shown if "lines beyond are dropped" in line]
    assert dropped == [
        "chat: bob\\x1b[31m sends more than 5 lines in 10 s; the lines beyond are dropped",
        "chat: not sent, at most 5 lines in 10 s; lines beyond are dropped until then",
    ]
    assert len(room.sent) == RATE_LINES


async def test_an_older_channel_turns_chat_off_with_one_line(tmp_path: Path) -> None:
    room = Room(tmp_path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room.room.serve, room.send, 3, lambda: 2)
        await trio.testing.wait_all_tasks_blocked()
        room.room.say("hello?")
        room.room.receive(sign_line(BOB, GAME, Player.B, 1, 2, "hi"))  # not on version 3
        nursery.cancel_scope.cancel()
    assert room.shown == [
        "chat: off for this game, the opponent's dbnet is older (channel version 3, chat "
        "needs 4): the game goes on without chat",
        "chat: not sent, the opponent's dbnet is older (channel version 3, chat needs 4): "
        "the game goes on without chat",
    ]
    assert room.sent == []
    assert not chat_path(room.replay).exists()


async def test_a_resumed_game_goes_on_numbering_from_the_chat_file(tmp_path: Path) -> None:
    room = Room(tmp_path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room.room.serve, room.send, 4, lambda: 2)
        await trio.testing.wait_all_tasks_blocked()
        room.room.say("one")
        room.room.say("two")
        room.room.receive(sign_line(BOB, GAME, Player.B, 1, 2, "hi"))
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    again = Room(tmp_path)  # the same replay, after a restart
    async with trio.open_nursery() as nursery:
        nursery.start_soon(again.room.serve, again.send, 4, lambda: 5)
        await trio.testing.wait_all_tasks_blocked()
        again.room.say("three")
        again.room.receive(sign_line(BOB, GAME, Player.B, 1, 2, "hi"))  # an old line again
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert [m.line.seq for m in again.sent] == [3]
    assert again.shown[-1] == "chat: line 1 came twice or out of order: dropped"
    kept = read_chat(chat_path(again.replay), GAME, KEYS)
    assert [(line.seat, line.seq) for line in kept] == [
        (Player.A, 1), (Player.A, 2), (Player.B, 1), (Player.A, 3)
    ]  # fmt: skip
