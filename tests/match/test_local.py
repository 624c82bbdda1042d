"""The local game driver: seats, the signed log underneath, and a narration that replays."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import (
    ChanceRequest,
    Decision,
    Game,
    GameSetup,
    Player,
    format_choice,
    parse_choice,
    parse_dice,
)
from dbnet.errors import DbnetError, IllegalChoiceError
from dbnet.match.keys import MatchKeys, replay_header
from dbnet.match.local import LocalGame
from dbnet.match.seats import BotSeat, PersonSeat
from dbnet.match.story import EventKind, faces_in_words
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog, Status
from dbnet.replay.file import ReplayWriter
from dbnet.replay.paths import now_utc
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.bodies import AcceptBody, PlayBody


@pytest.fixture(scope="module")
def setup() -> GameSetup:
    return GameSetup(load_map(), default_warbands(load_catalog()))


def keys(seed: int) -> MatchKeys:
    return MatchKeys.from_seed(f"test-localplay:{seed}".encode())


def bot_game(setup: GameSetup, seed: int) -> LocalGame:
    seats = (BotSeat(GreedyBot(random.Random(seed))), BotSeat(RandomBot(random.Random(seed + 1))))
    local = LocalGame(setup, seats, keys(seed))
    assert local.advance()  # bots only: runs to the end
    assert local.game.is_over
    assert local.is_closed
    return local


def replay(setup: GameSetup, lines: list[str]) -> Game:
    game = Game(setup)
    for line in lines:
        if line.startswith("roll"):
            game.roll(parse_dice(line))
        else:
            game.apply(parse_choice(game, line))
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_notation_log_replays_to_the_same_game(setup: GameSetup, seed: int) -> None:
    local = bot_game(setup, seed)
    again = replay(setup, local.notation())
    assert again.state_hash() == local.game.state_hash()
    assert again.winner is local.game.winner
    # the narration is the signed log's game: the same state, the same dice
    log = local.match.log
    assert log.status is Status.COMPLETE
    assert log.game.state_hash() == local.game.state_hash()
    told = [e.dice for e in local.log if e.kind is EventKind.ROLL]
    assert told == [r.dice for r in log.rolls]


def test_same_seeds_give_the_same_log(setup: GameSetup) -> None:
    assert bot_game(setup, 5).notation() == bot_game(setup, 5).notation()
    assert bot_game(setup, 5).notation() != bot_game(setup, 6).notation()
    assert bot_game(setup, 5).match.records == bot_game(setup, 5).match.records


def test_attack_rolls_show_faces_and_turns_are_reported(setup: GameSetup) -> None:
    local = bot_game(setup, 3)  # seed 3: the first from 2 whose game has combat
    attack_rolls = [e for e in local.log if e.kind is EventKind.ROLL and e.faces]
    assert attack_rolls, "this game has combat"
    for event in attack_rolls:
        values = parse_dice(event.notation)
        assert event.faces == faces_in_words(values)
        assert event.faces in event.words
    transcript = "\n".join(local.transcript())
    assert all(e.faces in transcript for e in attack_rolls)
    turns = [e for e in local.log if e.kind is EventKind.TURN]
    assert len(turns) == len(local.game.conquest_history)
    a, b = local.game.conquest_history[-1]
    assert f"A {a}, B {b} conquest points" in turns[-1].words


def test_a_person_is_asked_and_illegal_entries_change_nothing(setup: GameSetup) -> None:
    local = LocalGame(setup, (PersonSeat(), BotSeat(RandomBot(random.Random(0)))), keys(0))
    local.advance()
    assert local.person_to_decide() is Player.A
    pending = local.game.pending
    assert isinstance(pending, Decision)
    assert pending.player is Player.A
    # what the person is shown is exactly their peer's view of the log
    assert local.game.state_hash() == local.match.peers[Player.A].view().state_hash()
    before, logged = local.game.state_hash(), len(local.log)
    records = list(local.match.records)
    for bad in ("spawn nobody e1", "move x c3", "", "attack z9"):
        with pytest.raises(DbnetError):
            local.play(bad)
    # an illegal choice is named as it was written, in notation (not the engine's repr)
    with pytest.raises(IllegalChoiceError) as illegal:
        local.play("spawn lantern-page a1")
    assert str(illegal.value).startswith("you cannot spawn lantern-page a1: ")
    assert "; legal: spawn lantern-page e1" in str(illegal.value)
    assert "SpawnChoice(" not in str(illegal.value)
    assert local.game.state_hash() == before
    assert len(local.log) == logged
    assert local.match.records == records
    legal = local.game.legal_choices()
    assert legal is not None
    text = format_choice(local.game, legal[0])
    events = local.play(text)
    assert events[0].notation == text
    assert events[0].player is Player.A
    assert local.log[logged] == events[0]
    assert len(local.match.records) == len(records) + 1


def test_play_refuses_when_no_person_is_to_decide(setup: GameSetup) -> None:
    local = LocalGame(setup, (PersonSeat(), PersonSeat()), keys(0))
    assert isinstance(local.game.pending, ChanceRequest)
    with pytest.raises(IllegalChoiceError, match="no decision is waiting for a person"):
        local.play("done")


def test_resigning_ends_the_game_and_closes_the_log(setup: GameSetup) -> None:
    local = LocalGame(setup, (PersonSeat(), BotSeat(RandomBot(random.Random(0)))), keys(0))
    local.advance()
    seen = [e.dice for e in local.log if e.kind is EventKind.ROLL]
    event = local.resign(Player.A)
    assert local.game.winner is Player.B
    assert local.notation()[-1] == event.notation == "resign"
    log = local.match.log
    assert log.status is Status.COMPLETE
    assert log.game.winner is Player.B
    assert [r.dice for r in log.rolls] == seen  # every roll the person saw is in the log


def test_every_local_game_leaves_a_replay_that_verifies(setup: GameSetup, tmp_path: Path) -> None:
    game_keys = keys(8)
    path = tmp_path / "game.dbnr"
    seats = (BotSeat(RandomBot(random.Random(1))), BotSeat(GreedyBot(random.Random(2))))
    with ReplayWriter.create(path, replay_header(game_keys, setup, now_utc())) as writer:
        local = LocalGame(setup, seats, game_keys, chain_length=4, on_record=writer.append)
        local.advance()
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert verdict.winner == local.game.winner.name  # type: ignore[union-attr]
    assert verdict.entries == len(local.match.records)


def test_keys_come_from_the_seed_or_from_the_system(setup: GameSetup) -> None:
    assert keys(1).game_id(setup) == keys(1).game_id(setup)
    assert keys(1).secrets == keys(1).secrets
    assert keys(1).game_id(setup) != keys(2).game_id(setup)
    owner = Identity.generate()
    fresh = [MatchKeys.for_owner(owner, None), MatchKeys.for_owner(owner, None)]
    assert fresh[0].chain_secrets(setup) != fresh[1].chain_secrets(setup)
    assert fresh[0].nonce != fresh[1].nonce
    assert fresh[0].identities[0].public_key != fresh[1].identities[0].public_key
    assert all(len(s) == 32 for k in fresh for s in k.chain_secrets(setup))
    local = LocalGame(setup, (PersonSeat(), PersonSeat()))
    assert local.match.log.game_id == local.keys.game_id(setup)


def test_a_player_s_name_is_told_escaped(setup: GameSetup) -> None:
    """A seat's name (a network peer chooses its own) labels CHOICE events escaped: a
    newline or an escape sequence in it cannot forge a log line."""
    name = "X\n12. B resign\x1b[2J\u202e"
    local = LocalGame(setup, (PersonSeat(name), PersonSeat(name)), keys(0))
    local.advance()
    player = local.person_to_decide()
    assert player is not None
    legal = local.game.legal_choices()
    assert legal is not None
    event = local.play(format_choice(local.game, legal[0]))[0]
    assert event.words.isprintable()
    assert event.words.startswith(f"{player.name} (X\\n12. B resign\\x1b[2J\\u202e): ")


def test_the_default_replay_path_takes_the_place_of_a_replay_of_ours_with_no_entry(
    setup: GameSetup, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that filled before the OFFER fitted leaves a header-only file at the
    default path; the same game started again (``--seed``: the same name) goes there,
    not to ``-2``. A file that holds an entry, or another player's, keeps its name."""
    import datetime

    from dbnet.replay.paths import default_replay_path

    monkeypatch.setenv("DBNET_HOME", str(tmp_path))
    game_keys = keys(5)
    header = replay_header(game_keys, setup, now_utc())
    ours = game_keys.identities[0].public_key
    when = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    first = default_replay_path(header.game_id, when, reuse_for=ours)
    ReplayWriter.create(first, header).close()  # header only
    assert default_replay_path(header.game_id, when, reuse_for=ours) == first
    assert default_replay_path(header.game_id, when, reuse_for=bytes(32)) != first
    assert default_replay_path(header.game_id, when) != first  # no key: never reused


# --- keys the owner can make again, and resuming -----------------------------------------


@pytest.mark.parametrize("seat", [Player.A, Player.B, None])
def test_the_owner_s_keys_are_found_again_from_the_offer(
    setup: GameSetup, seat: Player | None
) -> None:
    """A local game's keys: the owner's own key in their seat, keys derived from it for the
    bot (or both hotseat players); from the players' keys and nonces alone, the owner makes
    the same keys again (chain secrets included) and learns their seat. Nobody else can."""
    owner = Identity.generate()
    made = MatchKeys.for_owner(owner, seat)
    public = (made.identities[0].public_key, made.identities[1].public_key)
    owners = [p for p in (Player.A, Player.B) if public[p] == owner.public_key]
    assert owners == ([] if seat is None else [seat])
    found = MatchKeys.recover(owner, public, made.nonce, made.joiner_nonce)
    assert found is not None
    again, found_seat = found
    assert found_seat is seat
    assert again.game_id(setup) == made.game_id(setup)
    assert again.chain_secrets(setup) == made.chain_secrets(setup)
    assert MatchKeys.recover(Identity.generate(), public, made.nonce, made.joiner_nonce) is None
    other_nonce = bytes(32)
    assert MatchKeys.recover(owner, public, other_nonce, made.joiner_nonce) is None


@pytest.mark.parametrize("stop_after", [0, 7, 60])
def test_a_resumed_game_goes_on_exactly_where_it_stopped(setup: GameSetup, stop_after: int) -> None:
    """A bot game stopped after some entries (the process gone, only its records kept)
    and resumed from those records with the keys made again: the story so far is told
    again word for word, and the game played on to the end gives the same records as the
    game that never stopped (same bots, same dice)."""
    owner = Identity.generate()
    made = MatchKeys.for_owner(owner, Player.A)

    def seats() -> tuple[BotSeat, BotSeat]:
        return BotSeat(GreedyBot(random.Random(3))), BotSeat(RandomBot(random.Random(4)))

    whole = LocalGame(setup, seats(), made)
    whole.advance()
    assert whole.is_closed

    saved: list[bytes] = []
    first = LocalGame(setup, seats(), made, on_record=saved.append)
    while len(saved) < 2 + stop_after:
        first.step(_bot_decision(first))
    public = (made.identities[0].public_key, made.identities[1].public_key)
    found = MatchKeys.recover(owner, public, made.nonce, made.joiner_nonce)
    assert found is not None
    later: list[bytes] = []
    resumed = LocalGame.resume(first.seats, found[0], list(saved), on_record=later.append)
    assert [e.words for e in resumed.log] == [e.words for e in first.log]
    assert later == []  # nothing is written twice
    resumed.advance()
    assert saved + later == whole.match.records
    assert resumed.game.state_hash() == whole.game.state_hash()


def test_a_game_resumed_from_its_offer_alone_signs_the_names_of_a_fresh_game(
    setup: GameSetup,
) -> None:
    """The file ended before B's ACCEPT: the resumed B writes the ACCEPT the game that never
    stopped wrote, with the name its seat signs (not a placeholder), and the game goes on
    to the same records."""
    made = MatchKeys.for_owner(Identity.generate(), Player.A)

    def seats() -> tuple[PersonSeat, BotSeat]:
        return PersonSeat(signs="alice"), BotSeat(GreedyBot(random.Random(4)))

    whole = LocalGame(setup, seats(), made)
    later: list[bytes] = []
    resumed = LocalGame.resume(seats(), made, whole.match.records[:1], on_record=later.append)
    assert later == whole.match.records[1:2]  # the very ACCEPT, saved once
    accept = resumed.match.log.decoded[1].body
    assert isinstance(accept, AcceptBody)
    assert accept.name == "greedy-bot"


def test_resuming_with_keys_that_did_not_make_the_game_is_refused(setup: GameSetup) -> None:
    made = MatchKeys.for_owner(Identity.generate(), Player.A)
    game = LocalGame(setup, (PersonSeat(), PersonSeat()), made)
    game.advance()
    records = list(game.match.records)
    stranger = MatchKeys.for_owner(Identity.generate(), Player.A)
    with pytest.raises(DbnetError, match="neither player"):
        LocalGame.resume((PersonSeat(), PersonSeat()), stranger, records)
    wrong_secrets = MatchKeys(
        made.identities, (bytes(32), bytes(32)), made.nonce, made.joiner_nonce
    )
    with pytest.raises(DbnetError, match="anchor"):
        LocalGame.resume((PersonSeat(), PersonSeat()), wrong_secrets, records)


def _bot_decision(game: LocalGame) -> str | None:
    due = game.seat_to_decide()
    if due is None:
        return None
    seat, view = due
    choice = seat.ask(view)  # a bot in place decides at once
    assert choice is not None
    return format_choice(view, choice)


def decisions_in(records: list[bytes]) -> int:
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return sum(1 for e in log.decoded if isinstance(e.body, PlayBody) and e.body.decision)


def test_a_decision_is_applied_once_by_each_side_s_log_and_told_from_a_s(
    setup: GameSetup, monkeypatch: pytest.MonkeyPatch, count_applies: Callable[[], list[int]]
) -> None:
    """A whole game with its story: each decision is applied by A's log and by B's, and by
    nothing else (the story is told from A's log as it applies it); a game resumed from
    its records is told the same way, again two applications per decision."""
    seats = (BotSeat(RandomBot(random.Random(5))), BotSeat(RandomBot(random.Random(6))))
    made = keys(5)
    records: list[bytes] = []
    calls = count_applies()
    local = LocalGame(setup, seats, made, on_record=records.append)
    local.advance()
    assert local.is_closed
    applied = calls[0]
    monkeypatch.undo()
    decisions = decisions_in(records)
    assert decisions > 50
    assert applied == 2 * decisions
    told = [e for e in local.log if e.kind is EventKind.CHOICE]
    assert len(told) == decisions
    assert [e.notation for e in told] == [
        e.body.decision
        for e in local.match.log.decoded
        if isinstance(e.body, PlayBody) and e.body.decision
    ]
    half = records[: len(records) // 2]
    past = decisions_in(half)
    calls = count_applies()
    resumed = LocalGame.resume(seats, made, half)
    assert calls[0] == 2 * past
    assert len([e for e in resumed.log if e.kind is EventKind.CHOICE]) == past
    assert resumed.log == local.log[: len(resumed.log)]
