"""The seats of a game behind one interface (``match.seats``): each kind on its own, and a
``LocalGame`` driving every pairing of people and bots through that interface alone."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.catalog.packs import limited_setup
from dbnet.engine import Decision, Game, GameSetup, Player, format_choice
from dbnet.engine.choices import DecisionKind
from dbnet.match.keys import MatchKeys, login_name
from dbnet.match.local import LocalGame
from dbnet.match.seats import (
    HOTSEAT,
    BotSeat,
    PeerSeat,
    PersonSeat,
    Seat,
    SeatKind,
    facing,
    seats_with,
)
from dbnet.wire.bodies import AcceptBody, OfferBody


@pytest.fixture(scope="module")
def setup() -> GameSetup:
    return GameSetup(load_map(), default_warbands(load_catalog()))


def keys(seed: int) -> MatchKeys:
    return MatchKeys.from_seed(f"test-seats:{seed}".encode())


def first_decision(setup: GameSetup) -> Game:
    """The game at its first decision (A's spawn), as A sees it."""
    local = LocalGame(setup, (PersonSeat(), PersonSeat()), keys(0))
    local.advance()
    assert isinstance(local.game.pending, Decision)
    return local.game.copy()


# --- each kind ------------------------------------------------------------------------------


def test_a_person_never_answers_at_once_and_signs_their_login_or_their_place(
    setup: GameSetup,
) -> None:
    view = first_decision(setup)
    you, a, named = PersonSeat(), HOTSEAT[0], PersonSeat("alice", signs="alice")
    assert [s.kind for s in (you, a, named)] == [SeatKind.PERSON] * 3
    assert (you.name, you.label, a.label) == ("you", "you", "player A")
    assert you.ask(view) is None
    assert named.ask(view) is None
    assert you.signed_name(Player.B) == login_name()
    assert (a.signed_name(Player.A), a.signed_name(Player.B)) == ("player-A", "player-B")
    assert named.signed_name(Player.B) == "alice"


def test_a_bot_in_place_answers_as_its_bot_would_and_one_elsewhere_waits(
    setup: GameSetup,
) -> None:
    view = first_decision(setup)
    seat = BotSeat(GreedyBot(random.Random(5)))
    assert (seat.kind, seat.name, seat.label) == (SeatKind.BOT, "greedy", "greedy bot")
    assert seat.signed_name(Player.A) == seat.signed_name(Player.B) == "greedy-bot"
    assert BotSeat(GreedyBot(random.Random(5)), signs="robo").signed_name(Player.A) == "robo"
    before = view.state_hash()
    choice = seat.ask(view)
    assert choice is not None
    assert choice == GreedyBot(random.Random(5)).choose(view)
    assert choice in (view.legal_choices() or [])
    assert view.state_hash() == before  # asked on a view, the seat changes nothing
    away = BotSeat(GreedyBot(random.Random(5)), in_place=False)
    assert away.ask(view) is None  # it thinks elsewhere: ...
    assert away.think(view) == choice  # ... and there decides as in place


def test_a_bot_builds_and_reveals_at_once_even_when_it_thinks_elsewhere() -> None:
    """In a Limited game both bots (thinking in worker threads) commit and reveal their
    automatic builds in ``advance``; the game stops at the first real decision."""
    seats = (
        BotSeat(RandomBot(random.Random(1)), in_place=False),
        BotSeat(RandomBot(random.Random(2)), in_place=False),
    )
    local = LocalGame(limited_setup("3-boosters"), seats, keys(1))
    local.advance()
    assert local.game.build is None  # over: both warbands revealed
    assert all(warband.minis for warband in local.game.setup.warbands)
    kinds = [line.split()[0] for line in local.notation()]
    assert kinds.count("commit") == kinds.count("reveal") == 2
    due = local.seat_to_decide()
    assert due is not None
    seat, view = due
    pending = view.pending
    assert isinstance(pending, Decision)
    assert seat is seats[pending.player]
    assert pending.kind not in (DecisionKind.COMMIT, DecisionKind.REVEAL)


def test_one_bot_seat_builds_for_both_players() -> None:
    """The same seat in both places keeps a build per player: each reveals the warband it
    committed to (a shared build would reveal the other's, and the log would refuse it)."""
    seat = BotSeat(GreedyBot(random.Random(3)))
    local = LocalGame(limited_setup("3-boosters"), (seat, seat), keys(2))
    local.advance()
    assert local.is_closed
    assert all(warband.minis for warband in local.match.log.game.setup.warbands)
    assert seat.builders[Player.A] is not seat.builders[Player.B]
    assert seat.builders[Player.A].committed != seat.builders[Player.B].committed


def test_the_peer_never_decides_here(setup: GameSetup) -> None:
    view = first_decision(setup)
    peer = PeerSeat("bob")
    assert (peer.kind, peer.name, peer.label, peer.signed_name(Player.B)) == (
        SeatKind.PEER,
        "bob",
        "bob",
        "bob",
    )
    assert peer.ask(view) is None


def test_seats_of_a_new_and_a_resumed_game() -> None:
    bot = BotSeat(RandomBot(random.Random(0)))
    assert facing(Player.A, bot) == (PersonSeat(), bot)
    assert facing(Player.B, bot) == (bot, PersonSeat())
    seats = seats_with(bot)
    assert seats(Player.B) == (bot, PersonSeat())
    assert seats(None) == HOTSEAT


# --- a local game over every pairing ---------------------------------------------------------


def greedy(seed: int, *, in_place: bool = True) -> BotSeat:
    return BotSeat(GreedyBot(random.Random(seed)), in_place=in_place)


PAIRINGS: dict[str, Callable[[], tuple[Seat, Seat]]] = {
    "hotseat": lambda: HOTSEAT,
    "person-bot": lambda: (PersonSeat(), greedy(1)),
    "bot-person": lambda: (greedy(1), PersonSeat()),
    "bot-bot": lambda: (greedy(1), greedy(2)),
    "bots-elsewhere": lambda: (greedy(1, in_place=False), greedy(2, in_place=False)),
}


@pytest.mark.parametrize("pairing", sorted(PAIRINGS))
def test_a_local_game_drives_any_pairing_to_its_end(setup: GameSetup, pairing: str) -> None:
    """Whoever sits where, the game goes on through the one interface: people play at
    the prompt (``play``), bots that think elsewhere through ``step``, the rest in
    ``advance``; each seat signs its own name, and the game ends with the log closed."""
    seats = PAIRINGS[pairing]()
    local = LocalGame(setup, seats, keys(3))
    offer, accept = (local.match.log.decoded[i].body for i in (0, 1))
    assert isinstance(offer, OfferBody)
    assert isinstance(accept, AcceptBody)
    assert (offer.name, accept.name) == (
        seats[0].signed_name(Player.A),
        seats[1].signed_name(Player.B),
    )
    assert local.hotseat is (pairing == "hotseat")
    rng = random.Random(4)
    asked = {Player.A: 0, Player.B: 0}
    local.advance()
    while not local.is_closed:
        person = local.person_to_decide()
        if person is not None:
            assert seats[person].kind is SeatKind.PERSON
            assert local.seat_to_decide() is None
            asked[person] += 1
            legal = local.game.legal_choices()
            assert legal is not None
            local.play(format_choice(local.game, rng.choice(legal)))
        else:
            due = local.seat_to_decide()
            assert due is not None, "advance stops only for a person or a seat thinking elsewhere"
            seat, view = due
            assert seat.kind is SeatKind.BOT
            assert isinstance(seat, BotSeat)
            local.step(format_choice(view, seat.think(view)))
        local.advance()
    assert local.game.is_over
    assert local.match.log.game.is_over
    people = {p for p in Player if seats[p].kind is SeatKind.PERSON}
    assert {p for p, n in asked.items() if n} == people


def test_bots_thinking_elsewhere_play_the_game_they_play_in_place(setup: GameSetup) -> None:
    in_place = LocalGame(setup, (greedy(1), greedy(2)), keys(6))
    in_place.advance()
    assert in_place.is_closed
    elsewhere = LocalGame(setup, (greedy(1, in_place=False), greedy(2, in_place=False)), keys(6))
    while not elsewhere.is_closed:
        elsewhere.advance()
        due = elsewhere.seat_to_decide()
        if due is not None:
            seat, view = due
            assert isinstance(seat, BotSeat)
            elsewhere.step(format_choice(view, seat.think(view)))
    assert elsewhere.match.records == in_place.match.records


def _decision(local: LocalGame) -> str:
    due = local.seat_to_decide()
    assert due is not None
    seat, view = due
    choice = seat.ask(view)
    assert choice is not None
    return format_choice(view, choice)
