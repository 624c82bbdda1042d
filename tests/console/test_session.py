"""The full-screen client's local session: the signed log, the replay file, the bots' thread."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dbnet.bots import GreedyBot, SearchBot, make_bot
from dbnet.console.launch import default_setup
from dbnet.console.session import LocalSession, LogKind
from dbnet.console.view import choice_items, decision_text, log_text
from dbnet.engine import Choice, Game, Player, SpawnChoice
from dbnet.errors import IllegalChoiceError
from dbnet.match.keys import MatchKeys
from dbnet.match.local import LocalGame
from dbnet.match.seats import BotSeat, PersonSeat
from dbnet.protocol.identity import Identity
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import load_replay
from dbnet.replay.verify import Verdict, VerdictStatus, verify_replay


def verdict_of(path: Path) -> Verdict:
    return verify_replay(path.read_bytes(), where=str(path))


async def play_out(session: LocalSession, seed: int) -> int:
    """The person picks a random legal choice at every decision until the log closes;
    returns how many decisions they made."""
    rng = random.Random(seed)
    made = 0
    while True:
        await session.advance(lambda: None)
        if session.is_closed:
            return made
        assert session.local_player() is not None
        session.submit(rng.choice(choice_items(session.game)))
        made += 1


def test_the_bot_and_the_dice_play_until_the_person_decides(tmp_path: Path) -> None:
    path = tmp_path / "game.dbnr"
    session = LocalSession.against_bot(default_setup(), seed=3, bot_delay=0, replay=path)
    changes: list[int] = []
    asyncio.run(session.advance(lambda: changes.append(len(session.log))))
    assert session.local_player() is Player.A
    kinds = [line.kind for line in session.log]
    assert kinds[:2] == [LogKind.NOTE, LogKind.NOTE]
    assert session.log[2].words == f"Replay: {path}"
    assert LogKind.ROLL in kinds
    assert changes == sorted(changes)
    assert changes[-1] == len(session.log)
    numbers = [line.number for line in session.log if line.notation]
    assert numbers == list(range(1, len(numbers) + 1))
    assert session.notation()[0].startswith("roll ")
    # everything so far is in the file already, and it is a valid unfinished game
    verdict = verdict_of(path)
    assert verdict.status is VerdictStatus.UNFINISHED, verdict.summary()
    assert verdict.owed is not None
    assert (verdict.owed.player, verdict.owed.what) == ("A", "decision")
    session.close()


def test_entries_out_of_turn_and_illegal_ones_are_refused() -> None:
    session = LocalSession.against_bot(default_setup(), seed=3, bot_delay=0)
    with pytest.raises(IllegalChoiceError, match="no decision of yours is waiting"):
        session.submit("done")  # the initiative dice come first
    asyncio.run(session.advance(lambda: None))
    before = session.game.state_hash()
    records = len(session.local.match.records)
    with pytest.raises(IllegalChoiceError, match=r"you cannot spawn lantern-page a1: .*; legal: "):
        session.submit("spawn lantern-page a1")
    assert session.game.state_hash() == before
    assert len(session.local.match.records) == records
    choice = session.submit("spawn lant e1")  # a beginning of the handle is enough
    assert isinstance(choice, SpawnChoice)
    assert session.log[-1].notation == "spawn lantern-page e1"
    assert session.log[-1].player is Player.A
    assert len(session.local.match.records) == records + 1
    session.close()


def test_a_whole_game_leaves_a_complete_replay(tmp_path: Path) -> None:
    path = tmp_path / "whole.dbnr"
    session = LocalSession.against_bot(
        default_setup(), seed=5, bot="random", bot_delay=0, replay=path
    )
    made = asyncio.run(play_out(session, 5))
    assert made > 10
    game = session.game
    assert game.is_over
    assert session.log[-1].words == f"Replay saved, complete (both signed the result): {path}"
    session.close()
    verdict = verdict_of(path)
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert verdict.winner == game.winner.name  # type: ignore[union-attr]
    assert verdict.turns == tuple(tuple(t) for t in game.conquest_history)
    assert load_replay(path).records == tuple(session.local.match.records)
    assert session.farewell() == [
        f"Replay saved (complete): {path}",
        f"Check it: dbnet verify {path}",
    ]
    turns = [line for line in session.log if line.kind is LogKind.TURN]
    assert len(turns) == len(game.conquest_history)
    assert log_text(turns[0]).startswith("      End of turn 1: A ")
    attacks = [line for line in session.log if " attack di" in line.words]  # die or dice
    assert attacks
    assert all("[" in line.words and "damage." in line.words for line in attacks)


def test_leaving_mid_game_leaves_a_valid_unfinished_replay(tmp_path: Path) -> None:
    path = tmp_path / "left.dbnr"
    session = LocalSession.against_bot(default_setup(), seed=3, bot_delay=0, replay=path)
    asyncio.run(session.advance(lambda: None))
    session.submit("spawn lantern-page e1")
    session.close()
    session.close()  # twice is harmless
    assert session.is_closed
    assert session.replay is not None
    assert session.replay.closed
    verdict = verdict_of(path)
    assert verdict.status is VerdictStatus.UNFINISHED, verdict.summary()
    assert verdict.entries == len(session.local.match.records)
    assert session.farewell()[0] == f"Replay saved (unfinished): {path}"
    with pytest.raises(IllegalChoiceError):
        session.submit("done")


def test_resigning_at_your_decision_is_written_at_once(tmp_path: Path) -> None:
    path = tmp_path / "resigned.dbnr"
    session = LocalSession.against_bot(default_setup(), seed=4, bot_delay=0, replay=path)
    asyncio.run(session.advance(lambda: None))
    assert session.resign(Player.A)
    assert session.game.winner is Player.B
    assert session.is_closed  # RESIGN, FINAL and COSIGN are all written
    assert [line.kind for line in session.log if line.kind is LogKind.RESIGN] == [LogKind.RESIGN]
    session.close()
    verdict = verdict_of(path)
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert (verdict.winner, verdict.reason) == ("B", "resignation")


def test_resigning_while_the_bot_decides_waits_for_your_entry(tmp_path: Path) -> None:
    path = tmp_path / "later.dbnr"
    session = LocalSession.against_bot(default_setup(), seed=3, bot_delay=0, replay=path)
    asyncio.run(session.advance(lambda: None))
    session.submit("done")  # A ends its spawn phase; B (who went first) acts next
    assert session.local.match.next_author is Player.B
    assert not session.resign(Player.A)
    assert not session.game.is_over
    assert session.local_player() is None  # nothing more to decide: A is resigning
    asyncio.run(session.advance(lambda: None))
    assert session.game.winner is Player.B
    assert session.is_closed
    session.close()
    verdict = verdict_of(path)
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert (verdict.winner, verdict.reason) == ("B", "resignation")


def test_hotseat_seats_are_both_local_and_sign_with_keys_of_their_own(
    dbnet_home: Path,
) -> None:
    session = LocalSession.hotseat_game(default_setup(), seed=1)
    assert session.hotseat
    assert all(isinstance(seat, PersonSeat) for seat in session.seats)
    assert session.is_local(Player.A)
    assert session.is_local(Player.B)
    assert session.seat_label(Player.B) == "player B"
    path = session.replay_path
    assert path is not None
    assert path.parent == dbnet_home / "replays"
    assert not (dbnet_home / "identity.key").exists()
    asyncio.run(session.advance(lambda: None))
    first = session.local_player()
    assert first is not None
    session.submit("done")
    asyncio.run(session.advance(lambda: None))
    assert session.local_player() is first.other
    session.close()
    assert verdict_of(path).status is VerdictStatus.UNFINISHED


def test_without_a_seed_the_person_signs_with_their_identity(dbnet_home: Path) -> None:
    session = LocalSession.against_bot(default_setup(Player.B), side=Player.B, bot_delay=0)
    session.close()
    assert session.replay_path is not None
    header = load_replay(session.replay_path).header
    assert (dbnet_home / "identity.key").exists()
    assert header.keys[1] == Identity.load_or_create().public_key
    assert header.keys[0] != header.keys[1]


def test_the_same_seed_gives_the_same_game_as_the_line_interface(tmp_path: Path) -> None:
    plain = tmp_path / "plain.dbnr"
    subprocess.run(
        [sys.executable, "-m", "dbnet", "play", "--plain", "--seed", "3", "--replay", str(plain)],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    full = tmp_path / "full.dbnr"
    session = LocalSession.against_bot(default_setup(), seed=3, bot_delay=0, replay=full)
    asyncio.run(session.advance(lambda: None))
    session.close()
    # the same keys, nonce and dice; the same entries up to the person's first decision
    assert load_replay(full).header.game_id == load_replay(plain).header.game_id
    assert load_replay(full).records == load_replay(plain).records


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "taken.dbnr"
    path.write_bytes(b"precious")
    with pytest.raises(ReplayError, match="already exists"):
        LocalSession.against_bot(default_setup(), seed=1, replay=path)
    assert path.read_bytes() == b"precious"


class SlowBot(GreedyBot):
    """A greedy bot that takes its time and notes the thread it thinks on."""

    def __init__(self) -> None:
        super().__init__(random.Random(1))
        self.threads: set[int] = set()

    def choose(self, game: Game) -> Choice:
        self.threads.add(threading.get_ident())
        time.sleep(0.05)
        return super().choose(game)


def test_bots_think_off_the_screen_thread() -> None:
    slow = SlowBot()
    seats = (
        BotSeat(slow, in_place=False),
        BotSeat(make_bot("random", random.Random(2)), in_place=False),
    )
    local = LocalGame(default_setup(), seats, MatchKeys.from_seed(b"slow"))
    session = LocalSession(local, bot_delay=0)
    ticks = 0

    async def scenario() -> None:
        nonlocal ticks
        task = asyncio.create_task(session.advance(lambda: None))
        while not slow.threads:
            await asyncio.sleep(0.001)
        while not task.done() and ticks < 20:  # the loop runs while the bot thinks
            ticks += 1
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert ticks == 20
    assert threading.get_ident() not in slow.threads
    session.close()


def test_a_hotseat_game_left_mid_game_resumes_with_both_seats(dbnet_home: Path) -> None:
    """Hotseat without a seed: both seats sign with keys derived from the machine owner's
    identity, so the owner resumes the game from its replay; the session says how, then
    the resumed game (both seats people again) is played to a complete replay."""
    session = LocalSession.hotseat_game(default_setup())
    asyncio.run(session.advance(lambda: None))
    session.submit("done")
    path = session.replay_path
    assert path is not None
    assert session.resumable
    session.close()
    assert session.farewell() == [
        f"Replay saved (unfinished): {path}",
        f"Go on with it: DBNET_HOME={dbnet_home} dbnet play --resume {path}",
    ]
    told = [line.words for line in session.log if line.kind is not LogKind.NOTE]
    resumed = LocalSession.resume(path, bot="random")
    assert resumed.hotseat
    assert [line.words for line in resumed.log if line.kind is not LogKind.NOTE] == told
    assert asyncio.run(play_out(resumed, 8)) > 10
    resumed.close()
    assert not resumed.resumable
    verdict = verdict_of(path)
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()


def test_a_bot_game_resumes_with_the_person_in_their_seat(dbnet_home: Path) -> None:
    session = LocalSession.against_bot(default_setup(Player.B), side=Player.B, bot_delay=0)
    asyncio.run(session.advance(lambda: None))
    session.submit("done")
    path = session.replay_path
    assert path is not None
    session.close()
    resumed = LocalSession.resume(path, bot="random", side=Player.A, bot_delay=0)
    assert resumed.is_local(Player.B)  # the keys say the person's seat; --side is for seeds
    assert not resumed.is_local(Player.A)
    assert resumed.seat_label(Player.A) == "random bot"
    asyncio.run(play_out(resumed, 9))
    resumed.close()
    assert verdict_of(path).status is VerdictStatus.COMPLETE
    with pytest.raises(ReplayError, match="closed already"):
        LocalSession.resume(path)


def test_a_search_bot_shows_its_progress_and_stops_when_cancelled() -> None:
    """The search runs in a worker thread: the screen's loop hears its progress (the
    decision line says the computer is thinking), and cancelling the session's task stops
    the search at once instead of letting it spend its budget."""
    search = SearchBot(random.Random(1), "hard", playouts=5_000)
    seats = (
        BotSeat(search, in_place=False),
        BotSeat(make_bot("random", random.Random(2)), in_place=False),
    )
    local = LocalGame(default_setup(), seats, MatchKeys.from_seed(b"thinking"))
    session = LocalSession(local, bot_delay=0)
    seen: list[str] = []

    async def scenario() -> None:
        task = asyncio.create_task(session.advance(lambda: None))
        for _ in range(2000):
            thinking = session.thinking
            if thinking is not None and thinking > 0:
                seen.append(decision_text(session))
                break
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert session.thinking is None
        for _ in range(2000):  # the worker notices the stop within a few playouts
            if search.report.playouts:
                break
            await asyncio.sleep(0.005)

    asyncio.run(scenario())
    assert seen
    assert "computer thinking… " in seen[0]
    assert seen[0].count("%") == 1
    assert 0 < search.report.playouts < 5_000
    session.close()
