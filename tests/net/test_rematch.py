"""The rematch offer and answer (``dbnet.net.rematch``): the state machine alone, then two
sessions over memory streams, one of them an older peer (channel version 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from trio.testing import MockClock as Clock

from dbnet.net.messages import RematchMessage, encode_message
from dbnet.net.rematch import (
    ASK_SECONDS,
    NO_REMATCH,
    PLAYER_DECLINES,
    REMATCH_VERSION,
    SEEDED,
    Rematch,
    RematchError,
    RematchPolicy,
    RematchState,
    ask_player,
)
from dbnet.net.session_values import Outcome
from dbnet.net.stream import SecureStream, open_channel

from .helpers import ALICE, BOB, ENTRY_FRAME_MIN
from .sessions import Network, Side, make_side, play

YES = RematchMessage(True, "")
V = REMATCH_VERSION


def test_the_policy_says_yes_while_games_are_left_and_never_when_seeded() -> None:
    assert RematchPolicy().message() == RematchMessage(False, NO_REMATCH)
    assert RematchPolicy(2).message() == YES
    assert RematchPolicy(2).next() == RematchPolicy(1)
    assert RematchPolicy(1).next().message() == RematchMessage(False, NO_REMATCH)
    assert RematchPolicy(0).next() == RematchPolicy(0)
    assert RematchPolicy(3, SEEDED).message() == RematchMessage(False, SEEDED)
    # dbnet's own reasons fit a REMATCH, and its frame stays below an entry's
    for reason in (SEEDED, NO_REMATCH, PLAYER_DECLINES):
        frame = len(encode_message(RematchMessage(False, reason))) + 16
        assert frame < ENTRY_FRAME_MIN


def test_this_side_offers_first_and_the_peer_accepts() -> None:
    rematch = Rematch(RematchPolicy(1))
    assert rematch.state.name == "OPEN"
    assert rematch.answer(V) == YES
    assert rematch.state is RematchState.OFFERED
    assert not rematch.settled
    assert rematch.answer(V) is None  # said once
    rematch.receive(YES, V)
    assert rematch.state.name == "AGREED"
    assert rematch.agreed
    assert rematch.settled
    assert rematch.said == ["rematch: both players want another game; it starts now"]


def test_the_peer_offers_first_and_this_side_accepts() -> None:
    rematch = Rematch(RematchPolicy(1))
    rematch.receive(YES, V)
    assert rematch.state is RematchState.ASKED
    assert not rematch.settled
    assert rematch.answer(V) == YES
    assert rematch.agreed


def test_a_decline_says_why_on_the_side_that_offered() -> None:
    rematch = Rematch(RematchPolicy(1))
    rematch.answer(V)
    rematch.receive(RematchMessage(False, NO_REMATCH), V)
    assert rematch.state is RematchState.DECLINED
    assert rematch.settled
    assert not rematch.agreed
    assert rematch.said == [f"no rematch: the opponent declines: {NO_REMATCH}"]


def test_a_person_is_told_of_an_offer_before_answering() -> None:
    rematch = Rematch(person=True)
    assert rematch.asks(V)
    rematch.receive(YES, V)
    assert rematch.said == ["the opponent offers a rematch"]
    assert rematch.asks(V)
    assert rematch.answer(V, want=True) == YES
    assert rematch.agreed
    declined = Rematch(person=True)
    declined.receive(RematchMessage(False, NO_REMATCH), V)
    assert not declined.asks(V)  # no point asking
    declined.answer(V, want=False)
    assert declined.said == [f"no rematch: the opponent declines: {NO_REMATCH}"]
    assert not Rematch(RematchPolicy(1), person=True).asks(V)  # --rematch answers alone
    assert not Rematch(person=True).asks(3)


def test_a_person_who_declines_says_so() -> None:
    rematch = Rematch(person=True)
    assert rematch.answer(V, want=False) == RematchMessage(False, "the player declines")


def test_declining_an_offer_says_so_and_why() -> None:
    rematch = Rematch()
    rematch.receive(YES, V)
    assert rematch.answer(V) == RematchMessage(False, NO_REMATCH)
    assert rematch.state is RematchState.DECLINED
    assert rematch.said == [
        f"no rematch: the opponent offers one, and this side declines: {NO_REMATCH}"
    ]


def test_both_declining_is_silent_unless_this_side_asked_but_is_seeded() -> None:
    quiet = Rematch()
    quiet.answer(V)
    quiet.receive(RematchMessage(False, NO_REMATCH), V)
    assert quiet.settled
    assert quiet.said == []
    seeded = Rematch(RematchPolicy(1, SEEDED))
    seeded.answer(V)
    seeded.receive(RematchMessage(False, NO_REMATCH), V)
    assert seeded.said == [f"no rematch: {SEEDED}"]


def test_an_older_peer_is_told_in_one_line_only_to_a_side_that_wanted_one() -> None:
    wanting = Rematch(RematchPolicy(1))
    assert wanting.answer(3) is None  # nothing is sent on an older channel
    assert wanting.settled
    assert wanting.state is RematchState.DECLINED
    assert wanting.said == [
        "no rematch: the opponent's dbnet is older (channel version 3, REMATCH needs 4): it "
        "cannot rematch; start a new game with a new invite"
    ]
    assert wanting.answer(3) is None
    assert len(wanting.said) == 1
    content = Rematch()
    content.answer(3)
    assert content.settled
    assert content.said == []


def test_a_second_rematch_or_one_on_an_older_channel_breaks_the_protocol() -> None:
    rematch = Rematch()
    rematch.receive(YES, V)
    with pytest.raises(RematchError, match="the peer sent REMATCH twice after one game"):
        rematch.receive(YES, V)
    with pytest.raises(RematchError, match="on a channel of version 3; it exists from version 4"):
        Rematch().receive(YES, 3)


# --- sessions -------------------------------------------------------------------------------


async def test_sessions_agree_and_leave_the_connection_open_for_the_next_game(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = make_side(tmp_path, "alice", identity=ALICE, host=True)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    for side in (host, joiner):
        side.session.rematch = Rematch(RematchPolicy(1))
    await play(host, joiner, Network())
    assert host.outcome is Outcome.COMPLETE
    assert joiner.outcome is Outcome.COMPLETE
    assert host.verdict().status.name == "COMPLETE"
    for side in (host, joiner):
        assert side.saw("rematch: both players want another game; it starts now")
        assert isinstance(side.session.rematch_stream, SecureStream)
    # the next HELLO would come on it: both ends are the same connection
    assert host.session.rematch_stream is not None
    assert joiner.session.rematch_stream is not None
    assert host.session.rematch_stream.peer_key == BOB.public_key
    assert joiner.session.rematch_stream.peer_key == ALICE.public_key


async def test_an_older_joiner_plays_and_the_host_is_told_it_cannot_rematch(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = make_side(tmp_path, "alice", identity=ALICE, host=True)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    host.session.rematch = Rematch(RematchPolicy(1))
    network = Network()

    async def connect_as_version_3() -> SecureStream:
        stream = await network.connect()
        return await open_channel(stream, BOB, initiator=True, versions=(3,))

    with trio.fail_after(10_000):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: _serve(host, network))
            joiner.outcome = await joiner.session.join(connect_as_version_3)
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    assert host.outcome is Outcome.COMPLETE
    assert joiner.outcome is Outcome.COMPLETE
    lines = [line for line in host.said if "rematch" in line]
    assert lines == [
        "no rematch: the opponent's dbnet is older (channel version 3, REMATCH needs 4): it "
        "cannot rematch; start a new game with a new invite"
    ]
    assert not joiner.saw("rematch")
    assert host.session.rematch_stream is None
    assert host.verdict().status.name == "COMPLETE"


async def _serve(host: Side, network: Network) -> None:
    host.outcome = await host.session.serve(network.arrivals)


# --- the person's answer ----------------------------------------------------------------------


class Changes:
    """The session's "something changed" event, as ``ask_player`` takes it."""

    def __init__(self) -> None:
        self.event = trio.Event()

    def notify(self) -> None:
        self.event.set()
        self.event = trio.Event()


async def test_the_person_answers_and_the_answer_is_theirs(autojump_clock: Clock) -> None:
    rematch, changes, asked = Rematch(person=True), Changes(), []

    async def ask(offered: bool) -> bool:
        asked.append(offered)
        await trio.sleep(5)
        return True

    assert await ask_player(rematch, ask, lambda: changes.event)
    assert asked == [False]
    rematch.receive(YES, V)
    assert await ask_player(rematch, ask, lambda: changes.event)
    assert asked == [False, True]  # told that the opponent offers one


async def test_a_person_who_does_not_answer_declines_after_a_minute(
    autojump_clock: Clock,
) -> None:
    async def never(offered: bool) -> bool:
        await trio.sleep_forever()
        raise AssertionError

    changes = Changes()
    start = trio.current_time()
    assert not await ask_player(Rematch(person=True), never, lambda: changes.event)
    assert trio.current_time() - start == ASK_SECONDS


async def test_the_question_ends_when_the_peer_declines(autojump_clock: Clock) -> None:
    rematch, changes = Rematch(person=True), Changes()

    async def never(offered: bool) -> bool:
        await trio.sleep_forever()
        raise AssertionError

    async def peer_declines() -> None:
        await trio.sleep(3)
        rematch.receive(RematchMessage(False, NO_REMATCH), V)
        changes.notify()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(peer_declines)
        assert not await ask_player(rematch, never, lambda: changes.event)
    assert trio.current_time() == 3
