"""A Limited game's build phase in the engine (docs/limited.md): the pack roll, both
commitments, both reveals (checked against the pools and rule 600), then a normal game."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dbnet.catalog.packs import limited_setup
from dbnet.engine.canonical import setup_bytes
from dbnet.engine.choices import ChanceKind, ChanceRequest, Decision, DecisionKind
from dbnet.engine.game import Game
from dbnet.engine.limited import PACK_DICE, auto_build, warband_commitment
from dbnet.engine.model import MiniatureDef, Player, Warband
from dbnet.engine.notation import format_choice, parse_choice
from dbnet.errors import DataError, IllegalChoiceError, InvalidChoiceError

A, B = Player.A, Player.B
DICE = [(i * 5) % 6 + 1 for i in range(PACK_DICE)]
SALTS = (bytes([1]) * 32, bytes([2]) * 32)


def _rolled(fmt: str = "3-boosters") -> Game:
    game = Game(limited_setup(fmt))
    pending = game.pending
    assert pending == ChanceRequest(ChanceKind.PACKS, PACK_DICE)
    game.roll(DICE)
    return game


def _pools(game: Game) -> tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]]:
    assert game.build is not None
    assert game.build.pools is not None
    return game.build.pools


def _play(game: Game, text: str) -> None:
    game.apply(parse_choice(game, text))


def _commit_text(minis: tuple[MiniatureDef, ...], salt: bytes) -> str:
    return f"commit {warband_commitment(minis, salt).hex()}"


def _reveal_text(minis: tuple[MiniatureDef, ...], salt: bytes) -> str:
    return " ".join(["reveal", *(m.slug for m in minis), "salt", salt.hex()])


def _committed(game: Game) -> tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]]:
    pools = _pools(game)
    built = (auto_build(pools[0]), auto_build(pools[1]))
    for player in (A, B):
        assert game.pending == Decision(player, DecisionKind.COMMIT)
        _play(game, _commit_text(built[player], SALTS[player]))
    return built


def test_a_limited_game_builds_then_plays_with_the_revealed_warbands() -> None:
    game = _rolled()
    hashes = {game.state_hash()}
    built = _committed(game)
    hashes.add(game.state_hash())
    assert game.pending == Decision(A, DecisionKind.REVEAL)
    _play(game, _reveal_text(built[A], SALTS[A]))
    hashes.add(game.state_hash())
    assert game.pending == Decision(B, DecisionKind.REVEAL)
    _play(game, _reveal_text(built[B], SALTS[B]))
    assert game.build is None
    assert game.setup.warbands[A].minis == built[A]
    assert game.setup.warbands[B].minis == built[B]  # 600.7: both are in the setup, seen by both
    assert game.setup.limited is not None
    assert game.setup.limited.pools == _pools(_rolled())
    pending = game.pending
    assert isinstance(pending, ChanceRequest)
    assert pending.kind is ChanceKind.INITIATIVE
    hashes.add(game.state_hash())
    assert len(hashes) == 4


def test_the_pools_are_drawn_from_the_setup_and_the_dice_alone() -> None:
    first, second = _rolled(), _rolled()
    assert _pools(first) == _pools(second)
    assert first.state_hash() == second.state_hash()
    other = Game(limited_setup("3-boosters", names=("x", "y")))
    other.roll(DICE)
    assert _pools(other) == _pools(first)  # names are not in the canonical setup
    assert len(_pools(first)[0]) == 21
    assert len(_pools(_rolled("starter+booster"))[1]) == 23


def test_a_copy_of_a_game_in_its_build_phase_is_independent() -> None:
    game = _rolled()
    copy = game.copy()
    _committed(game)
    assert copy.pending == Decision(A, DecisionKind.COMMIT)
    assert copy.state_hash() != game.state_hash()


def test_a_reveal_naming_a_miniature_outside_the_pool_is_refused_naming_it() -> None:
    game = _rolled()
    built = _committed(game)
    pool = _pools(game)[A]
    assert game.setup.limited is not None
    outsider = next(m for m in game.setup.limited.packs.common if m not in pool)
    bad = (*built[A][:-1], outsider)
    with pytest.raises(IllegalChoiceError, match=f"{outsider.name!r} is not in the pool"):
        _play(game, _reveal_text(bad, SALTS[A]))
    assert game.pending == Decision(A, DecisionKind.REVEAL)  # nothing changed


def test_copies_beyond_the_pool_and_rule_600_are_refused() -> None:
    game = _rolled()
    _committed(game)
    pool = _pools(game)[A]
    once = next(m for m in pool if pool.count(m) == 1)
    with pytest.raises(
        IllegalChoiceError, match=f"2 copies of {once.name!r}, but the pool holds 1"
    ):
        _play(game, _reveal_text((once, once), SALTS[A]))


def test_a_reveal_that_does_not_match_the_commitment_is_refused() -> None:
    game = _rolled()
    built = _committed(game)
    with pytest.raises(IllegalChoiceError, match="do not match A's commitment"):
        _play(game, _reveal_text(built[A][:-1], SALTS[A]))
    with pytest.raises(IllegalChoiceError, match="do not match A's commitment"):
        _play(game, _reveal_text(built[A], SALTS[B]))
    with pytest.raises(IllegalChoiceError, match="no miniature of the pack set"):
        _play(game, _reveal_text(built[A], SALTS[A]).replace("reveal ", "reveal nobody "))


def test_the_notation_of_commitments_and_reveals() -> None:
    game = _rolled()
    text = "commit " + "ab" * 32
    choice = parse_choice(game, text)
    assert format_choice(game, choice) == text
    with pytest.raises(InvalidChoiceError, match="64 lower-case hex digits"):
        parse_choice(game, "commit abc")
    with pytest.raises(InvalidChoiceError, match="does not fit a commit decision"):
        parse_choice(game, "done")
    assert game.legal_choices() is None


def test_an_offered_limited_setup_must_have_empty_warbands() -> None:
    setup = limited_setup("3-boosters")
    assert setup.limited is not None
    some = setup.limited.packs.common[0]
    bad = replace(setup, warbands=(Warband("x", (some,)), setup.warbands[1]))
    with pytest.raises(DataError, match="A's warband must be empty"):
        Game(bad)


def test_the_canonical_setup_of_a_normal_game_has_no_limited_key() -> None:
    setup = limited_setup("3-boosters")
    assert b'"limited":{"format":"3-boosters"' in setup_bytes(setup)
    assert b"limited" not in setup_bytes(replace(setup, limited=None))


def test_resigning_in_the_build_phase_ends_the_game() -> None:
    game = _rolled()
    game.resign(B)
    assert game.is_over
    assert game.winner is A
    assert game.pending is None
