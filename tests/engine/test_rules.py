"""Rules that random games reach rarely or never, set up directly with ``game_at``."""

from __future__ import annotations

import dataclasses

from dbnet.engine.board import PORTAL, parse_cell
from dbnet.engine.choices import AttackChoice, DamageChoice, Decision, DecisionKind, SpawnChoice
from dbnet.engine.game import Game, Zone
from dbnet.engine.model import Player
from dbnet.engine.position import Placement, Position, Stage, game_at

from .conftest import VANILLA_SETUP


def cell(name: str) -> int:
    c = parse_cell(name)
    assert c is not None
    return c


def mini_id(player: Player, handle: str) -> int:
    game = Game(VANILLA_SETUP)
    return next(m.id for m in game.minis if m.owner is player and m.handle == handle)


def placements(where: dict[int, Placement]) -> tuple[Placement, ...]:
    return tuple(where.get(i, Placement()) for i in range(32))


def test_spawn_row_cell_takes_four_creatures_besides_a_location() -> None:
    """801.5: up to four creatures are spawned into a spawn-row cell each spawn phase;
    301.1a: a cell holds four creatures of a player *and* one location. A location
    spawned there does not use up one of the four."""
    warden = mini_id(Player.B, "grim-warden")
    position = Position(
        stage=Stage.SPAWN,
        turn=2,
        first=Player.B,
        active=Player.B,
        initiative=(4, 6),
        spawn_points=12,
        placements=placements({warden: Placement(Zone.DREAMSCAPE, cell("b4"))}),
    )
    game = game_at(VANILLA_SETUP, position)
    b5 = cell("b5")  # no ally at the start of the phase, and B controls the warden in column b
    for handle in ("cinder-hound#1", "mirror-pool", "ash-sentinel#1", "cinder-hound#2"):
        game.apply(SpawnChoice(mini_id(Player.B, handle), b5))
    assert game.creatures[Player.B][b5] == 3
    assert game.location_at[b5] == mini_id(Player.B, "mirror-pool")
    fourth = SpawnChoice(mini_id(Player.B, "ash-sentinel#2"), b5)
    assert fourth in (game.legal_choices() or [])
    game.apply(fourth)
    assert game.creatures[Player.B][b5] == 4
    fifth = mini_id(Player.B, "cinder-hound#3")
    legal = game.legal_choices() or []
    assert SpawnChoice(fifth, b5) not in legal  # four creatures now (301.1a, 801.5)
    assert SpawnChoice(fifth, PORTAL[Player.B]) in legal  # 801.6


def crowded_position(free: str | None) -> Position:
    """A strikes in c3 with a cinder hound (power 2) against B's two cinder hounds
    (defense 1, life 2); every other cell but A's portal (and ``free``) holds one
    miniature."""
    fight = {mini_id(Player.A, "cinder-hound#1"), mini_id(Player.B, "cinder-hound#1")}
    fight.add(mini_id(Player.B, "cinder-hound#2"))
    where = {i: Placement(Zone.DREAMSCAPE, cell("c3")) for i in fight}
    others = [i for i in range(32) if i not in fight]
    taken = {cell("c3"), PORTAL[Player.A]} | ({cell(free)} if free else set())
    cells = [c for c in range(25) if c not in taken]
    for i, c in zip(others, cells, strict=False):
        where[i] = Placement(Zone.DREAMSCAPE, c)
    return Position(stage=Stage.STRIKE, placements=placements(where))


def test_a_disrupted_creature_with_nowhere_to_go_is_destroyed() -> None:
    """Glossary, disrupt: a disrupted creature goes to an empty cell, never into the
    disrupting player's own portal; if there is no empty cell, it is destroyed."""
    for free in (None, "b4"):
        game = game_at(VANILLA_SETUP, crowded_position(free))
        hound = mini_id(Player.B, "cinder-hound#1")
        game.apply(AttackChoice(cell("c3"), (mini_id(Player.A, "cinder-hound#1"),)))
        game.roll((1, 5))  # 1 damage, two local enemies
        pending = game.pending
        assert isinstance(pending, Decision)
        assert pending.kind is DecisionKind.DAMAGE
        game.apply(DamageChoice(((hound, 1),)))  # disrupts (defense 1, life 2)
        # With one place (or none) to go, nothing more is asked.
        m = game.minis[hound]
        if free is None:
            assert m.zone is Zone.GRAVEYARD
        else:
            assert m.zone is Zone.DREAMSCAPE
            assert m.cell == cell(free)
            assert m.damage == 0  # 802.2f


def test_games_of_one_setup_share_its_rules() -> None:
    """``Rules.from_setup`` keeps the rules of the last 16 setups (by identity): games of
    one setup share them; an equal setup that is another object gets its own; and past
    16 other setups they are made again, the same."""
    first, second = Game(VANILLA_SETUP), Game(VANILLA_SETUP)
    assert first.rules is second.rules
    other = dataclasses.replace(VANILLA_SETUP)
    assert Game(other).rules is not first.rules
    assert Game(other).rules.setup is other
    for _ in range(16):
        Game(dataclasses.replace(VANILLA_SETUP))
    again = Game(VANILLA_SETUP)
    assert again.rules is not first.rules
    assert again.state_hash() == first.state_hash()
    assert again.rules.pieces == first.rules.pieces
