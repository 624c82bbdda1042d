"""False clock claims against an honest ``dbnet host`` on loopback (issue 29, item 4).

The honest side is a real process; the cheat is a joiner written here with dbnet's own
library (a real TCP connection, the real handshake, validly signed entries):

- it claims that the host's flag fell while the host owes an entry with most of its
  clock left: the host answers with a signed dispute, and its replay (and the cheat's
  copy) verifies as a disputed clock claim, never as a win on time;
- it withholds two of its entries and sends a clock claim after them: the host does not
  stop, its own clock of the cheat runs on, and it claims on time when that runs out.

Waits are bounded; nothing asserts on time beyond what the clocks' own arithmetic says.
"""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import trio

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog
from dbnet.engine import Player, format_choice
from dbnet.net.clocks import CLAIM_SUFFIX
from dbnet.net.messages import (
    Bye,
    Entry,
    Hello,
    Message,
    Ping,
    Pong,
    decode_message,
    encode_message,
)
from dbnet.net.stream import SecureStream, open_channel
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.identity import fingerprint
from dbnet.protocol.log import Status
from dbnet.protocol.remote import RemoteGame
from dbnet.replay.file import load_replay
from dbnet.wire.bodies import ClaimBody, DisputeBody, EntryKind
from dbnet.wire.entries import decode_signed_entry

from .helpers import BOB
from .processes import Dbnet, verify_command

LIMIT = 90.0  # seconds: a hang guard only
_, B_WARBAND = default_warbands(load_catalog())


async def until_listening(process: Dbnet) -> int:
    while process.port is None:
        if process.finished.is_set():
            raise AssertionError(f"{process.name} ended before listening:\n{process.output()}")
        await trio.sleep(0.02)
    return process.port


def host_args(replay: Path, clock: str, *more: str) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--clock", clock, "--plain",
        "--name", "alice", "--expect", fingerprint(BOB.public_key), "--replay", str(replay),
        *more,
    ]  # fmt: skip


class Cheat:
    """Bob, joining over a real connection, who signs whatever readings he likes."""

    def __init__(self, secure: SecureStream, game: RemoteGame) -> None:
        self.secure = secure
        self.game = game
        self.bot = make_bot("random", random.Random(29))
        self.byes: list[Bye] = []

    @classmethod
    async def join(cls, port: int) -> Cheat:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        secure = await open_channel(stream, BOB, initiator=True)
        await secure.send(
            encode_message(Hello("bob", None, 0, B_WARBAND, nonce=secrets.token_bytes(32)))
        )
        while not isinstance(message := decode_message(await secure.receive()), Entry):
            pass
        game = RemoteGame.accept(BOB, message.record, lambda record: None, name="bob")
        clock = game.log.clock
        assert clock is not None
        game.peer.reading = lambda: (clock[0], clock[0])  # nobody checks his own time
        cheat = cls(secure, game)
        await cheat.send(game.records[1])
        return cheat

    async def send(self, record: bytes) -> None:
        await self.secure.send(encode_message(Entry(record)))

    async def receive(self) -> Message:
        """The host's next message; PINGs answered on the way."""
        while True:
            message = decode_message(await self.secure.receive())
            if isinstance(message, Ping):
                await self.secure.send(encode_message(Pong(message.token)))
                continue
            if isinstance(message, Bye):
                self.byes.append(message)
            return message

    def write(self) -> bytes:
        view = self.game.decision_view()
        decision = None if view is None else format_choice(view, self.bot.choose(view))
        return self.game.write(decision)

    async def play_until(self, stop: Callable[[], bool]) -> None:
        """Play B's side honestly until ``stop()`` holds."""
        for _ in range(2_000):
            if stop():
                return
            if self.game.my_turn:
                await self.send(self.write())
                continue
            message = await self.receive()
            if isinstance(message, Entry):
                self.game.receive(message.record)
        raise AssertionError("not reached")

    async def until_the_host_thinks(self) -> None:
        """Play B's side honestly until the host owes the next entry and sends nothing for
        a second (a person at its prompt: its own dice are known to it, so the entry it owes
        may carry a link and its decision at once)."""
        for _ in range(2_000):
            if self.game.my_turn:
                await self.send(self.write())
                continue
            with trio.move_on_after(1.0):
                message = await self.receive()
                if isinstance(message, Entry):
                    self.game.receive(message.record)
                continue
            if self.game.log.expected_author() is Player.A:
                return
        raise AssertionError("not reached")

    async def until_bye(self) -> None:
        """Take the host's entries until its BYE (done), answer it, and close (an entry
        of the host's that does not fit the cheat's own log is not taken)."""
        while not self.byes:
            message = await self.receive()
            if isinstance(message, Entry):
                with suppress(InvalidEntryError):
                    self.game.receive(message.record)
        await self.secure.send(encode_message(Bye(True, "the game's log is complete")))
        await self.secure.aclose()


def verify_json(path: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", "--json", str(path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    verdicts = json.loads(result.stdout)["verdicts"]
    assert isinstance(verdicts, list)
    verdict = verdicts[0]
    assert isinstance(verdict, dict)
    return verdict


async def test_a_false_claim_against_the_host_is_disputed(tmp_path: Path, homes: Path) -> None:
    """The host is a person who has not decided yet (a minute on its clock, stdin open):
    Bob claims its flag fell. The host disputes with its own reading; both copies of the
    game end with the claim and the dispute, and verify as a disputed clock claim."""
    replay = tmp_path / "alice.dbnr"
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice", host_args(replay, "1"), stdin=True
            )
            cheat = await Cheat.join(await until_listening(host))
            await cheat.until_the_host_thinks()
            claim = cheat.game.claim_on_time((0, 60_000))  # "A's clock ran out"
            await cheat.send(claim)
            await cheat.until_bye()
            with trio.move_on_after(20):
                await host.wait()
    assert host.code == 0, host.output()
    assert host.saw("the opponent claims the game on time, but by your clock 0:5"), host.output()
    assert host.saw("you dispute it; your signed dispute is sent and saved")
    assert host.saw(
        "the opponent (B) claimed the game on time: by its clock yours ran out; you disputed it"
    )
    assert not host.saw("won on time")
    records = load_replay(replay).records
    assert list(records) == cheat.game.records  # the cheat's own copy holds the dispute too
    assert records[-2] == claim
    assert cheat.game.log.status is Status.DISPUTED
    dispute = decode_signed_entry(records[-1])[1]
    assert dispute.kind is EntryKind.DISPUTE
    assert isinstance(dispute.body, DisputeBody)
    assert dispute.author == Player.A
    assert 50_000 < dispute.body.clock[Player.A] <= 60_000
    result = verify_command(replay)
    assert result.returncode == 1, result.stdout  # a claim, not a verified result
    assert f"{replay}: disputed clock claim (not a result): B says A's clock ran out" in (
        result.stdout
    )
    assert "won" not in result.stdout
    verdict = verify_json(replay)
    assert (verdict["status"], verdict["reason"], verdict["winner"]) == ("claim", "clock", None)
    assert verdict["claimant"] == "B"
    owed = verdict["owed"]
    assert isinstance(owed, dict)
    assert (owed["player"], owed["seq"]) == ("A", len(records) - 2)  # never the claimant
    assert verdict["readings"] == {
        "claim": {"A": 0, "B": 60_000},
        "dispute": {"A": dispute.body.clock[0], "B": dispute.body.clock[1]},
    }


async def test_withheld_entries_end_in_the_honest_sides_own_claim(
    tmp_path: Path, homes: Path
) -> None:
    """Bob withholds two entries in a row he owes (k and k+1), then claims the host's
    entry k+2 never came. The host keeps the claim beside its replay, does not stop, and
    claims on time when Bob's clock (6 s) runs out by its own measurement."""
    replay = tmp_path / "alice.dbnr"
    withheld: list[bytes] = []
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice", host_args(replay, "0.1", "--bot", "greedy")
            )
            cheat = await Cheat.join(await until_listening(host))
            game = cheat.game
            for _ in range(400):
                await cheat.play_until(lambda: game.my_turn)
                mine = []
                while game.my_turn:
                    mine.append(cheat.write())
                if len(mine) >= 2 and game.log.status is Status.PLAYING:
                    withheld.extend(mine)
                    break
                for record in mine:
                    await cheat.send(record)
            assert len(withheld) >= 2
            first = len(game.records) - len(withheld)
            claim = game.claim_on_time((0, 360_000))  # "A's entry never came"
            await cheat.send(claim)
            await cheat.until_bye()
            await host.wait()
    assert host.code == 0, host.output()
    last = first + len(withheld) - 1
    kept = replay.with_name(f"{replay.name}{CLAIM_SUFFIX}{last + 1}")
    assert host.saw(
        f"the opponent sent its clock claim without entries {first} to {last}: it withholds "
        f"entry {first}, and by your clock it owes it"
    ), host.output()
    assert host.saw(f"the claim is kept in {kept}")
    assert kept.read_bytes() == claim  # the signed record, as received
    assert host.saw("the opponent's clock ran out (B): you claim the game on time")
    records = load_replay(replay).records
    assert len(records) == first + 1
    assert list(records[:first]) == game.records[:first]
    own = decode_signed_entry(records[-1])[1]
    assert own.author == Player.A
    assert own.body == ClaimBody("clock", first, own.body.clock)
    verdict = verify_json(replay)
    assert (verdict["status"], verdict["claimant"], verdict["winner"]) == ("claim", "A", None)
    assert verdict["flagged_at"] == first
    result = verify_command(replay)
    assert "clock claim, not acknowledged by the flagged player (not a result): A says B's" in (
        result.stdout
    )
