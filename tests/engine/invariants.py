"""Invariants of a game in progress, checked from outside the engine.

``Tracker`` watches one game input by input. After every input it checks the
state on its own (zones, stacking, the engine's counts, damage, spawn points,
turns won) and against the previous state (damage cleared at each new phase,
turns won never decreasing, the turn order, spawn points and conquest scores
as the rules compute them). For shift, strike, spawn, fate, deathblow and
resolve decisions it compares ``legal_choices()`` with the set the rulebook
allows, computed here from the rules text and the miniatures' stats alone.

``illegal_inputs`` builds inputs the rules forbid in the current state; the
tests check that the engine rejects each and changes nothing.
"""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

from dbnet.engine.board import cell_name, parse_cell
from dbnet.engine.canonical import setup_bytes
from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    AttackChoice,
    BladeChoice,
    BuryChoice,
    ChanceKind,
    ChanceRequest,
    Choice,
    DamageChoice,
    DeathblowChoice,
    Decision,
    DecisionKind,
    Done,
    FateChoice,
    MoveChoice,
    PlaceChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
)
from dbnet.engine.game import EndReason, Game, Mini, Phase, Zone
from dbnet.engine.model import Player
from dbnet.errors import IllegalChoiceError, InvalidChoiceError

from .randomgame import Input

CELLS = range(25)


def _cell(name: str) -> int:
    cell = parse_cell(name)
    assert cell is not None
    return cell


def _cells(names: str) -> frozenset[int]:
    return frozenset(_cell(name) for name in names.split())


# 301.2, DESIGN.md section 2: A's portal is e1, B's is a5.
PORTAL = {Player.A: _cell("e1"), Player.B: _cell("a5")}
# 301.3: the spawn row is the row on the player's own edge.
SPAWN_ROW = {Player.A: _cells("a1 b1 c1 d1 e1"), Player.B: _cells("a5 b5 c5 d5 e5")}
# 301.4: the middle row of key cells scores for both, the opponent's side for you.
SCORING = {Player.A: _cells("b3 c3 d3 b4 c4 d4"), Player.B: _cells("b3 c3 d3 b2 c2 d2")}
STACKING_LIMIT = 4  # 301.1a


def _neighbours(cell: int) -> tuple[int, ...]:
    """802.1b: the cells forward, back, left and right of ``cell``, by name."""
    col, row = cell_name(cell)[0], int(cell_name(cell)[1:])
    out = []
    for dc, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        c, r = chr(ord(col) + dc), row + dr
        if "a" <= c <= "e" and 1 <= r <= 5:
            out.append(_cell(f"{c}{r}"))
    return tuple(sorted(out))


NEIGHBOURS = tuple(_neighbours(cell) for cell in CELLS)
# Cells a creature can't reach in one move: two or more cells away, or its own cell.
FAR = tuple(tuple(c for c in CELLS if c not in NEIGHBOURS[cell]) for cell in CELLS)


def column(cell: int) -> str:
    return cell_name(cell)[0]


def creature_cells(game: Game, player: Player) -> list[int]:
    """How many creatures ``player`` has in each cell, counted from the miniatures."""
    counts = [0] * 25
    for m in game.minis:
        if m.owner is player and m.zone is Zone.DREAMSCAPE and m.defn.is_creature:
            counts[m.cell] += 1
    return counts


def engaged(game: Game, player: Player) -> set[int]:
    """802.1a: the ids of ``player``'s creatures that share a cell with an enemy creature
    (an enemy location does not engage)."""
    enemy = {m.cell for m in game.minis if m.owner is not player and m.defn.is_creature}
    enemy.discard(-1)
    return {
        m.id for m in game.minis if m.owner is player and m.defn.is_creature and m.cell in enemy
    }


def aspects_in_play(game: Game, player: Player) -> list[int]:
    """801.4: how many of ``player``'s miniatures in the dreamscape or the graveyard have
    each aspect (indexed by aspect)."""
    have = [0, 0, 0, 0]
    for m in game.minis:
        if m.owner is player and m.zone in (Zone.DREAMSCAPE, Zone.GRAVEYARD):
            for aspect in set(m.defn.aspects):
                have[aspect] += 1
    return have


def spawn_cost(game: Game, m: Mini, have: list[int] | None = None) -> int:
    """801.4: spawn cost plus one point per aspect symbol not matched by a miniature of
    that aspect already in the dreamscape or the graveyard."""
    if have is None:
        have = aspects_in_play(game, m.owner)
    cost = m.defn.spawn_cost
    for aspect in set(m.defn.aspects):
        cost += max(0, m.defn.aspects.count(aspect) - have[aspect])
    return cost


def claimed_points(game: Game, player: Player) -> int:
    """803.1: scoring cells with a creature of ``player`` and no enemy creature."""
    mine, theirs = creature_cells(game, player), creature_cells(game, player.other)
    return sum(game.setup.map.values[c] for c in SCORING[player] if mine[c] and not theirs[c])


def empty_cells(game: Game, disrupter: Player) -> list[int]:
    """Glossary, disrupt: any empty cell, but not the disrupter's own portal."""
    occupied = {m.cell for m in game.minis if m.zone is Zone.DREAMSCAPE}
    return [c for c in CELLS if c not in occupied and c != PORTAL[disrupter]]


PhaseKey = tuple[int, Phase, int, int]


def phase_key(game: Game) -> PhaseKey:
    """Which phase the game is in; it changes exactly when a new phase starts."""
    if game.phase is Phase.SPAWN:
        return (game.turn, game.phase, -1, int(game.active))
    if game.phase is Phase.ACTION:
        return (game.turn, game.phase, game.action_index, int(game.active))
    return (game.turn, game.phase, -1, -1)


def check_roster(game: Game) -> None:
    """Both warbands are in the game, in order, 16 miniatures each (600.1); the engine's
    list of each player's miniatures holds the very same objects."""
    for player in (Player.A, Player.B):
        mine = [m for m in game.minis if m.owner is player]
        assert [m.defn for m in mine] == list(game.setup.warbands[player].minis)
        assert len(mine) == 16
    assert [m.id for m in game.minis] == list(range(32))
    for player in (Player.A, Player.B):
        objects = [id(m) for m in game.minis if m.owner is player]
        kept = [id(m) for m in game.warband_minis[player]]
        assert kept == objects, "engine warband lists disagree"
    assert len({(m.owner, m.handle) for m in game.minis}) == 32, "handles are unique"


def check_zones(game: Game) -> None:
    """304: every miniature is in exactly one zone, and has a cell iff in the dreamscape."""
    for m in game.minis:
        assert m.zone in (Zone.RESERVES, Zone.DREAMSCAPE, Zone.GRAVEYARD, Zone.REMOVED)
        if m.zone is Zone.DREAMSCAPE:
            assert 0 <= m.cell < 25, m
        else:
            assert m.cell == -1, m


def check_stacking(game: Game) -> None:
    """301.1a, 801.6: four creatures per player per cell (more only in one's own portal),
    one location per cell; the engine's counts (creatures, locations, and the aspects
    that count towards aspect costs, 801.4) and cell masks agree with the miniatures."""
    for player in (Player.A, Player.B):
        counts = creature_cells(game, player)
        assert list(game.creatures[player]) == counts, "engine creature counts disagree"
        mask = sum(1 << cell for cell, n in enumerate(counts) if n)
        assert game.creature_cells[player] == mask, "engine creature cell mask disagrees"
        for cell, n in enumerate(counts):
            if cell != PORTAL[player]:
                assert n <= STACKING_LIMIT, f"{player.name} has {n} creatures in {cell_name(cell)}"
    locations = [-1] * 25
    for m in game.minis:
        if m.zone is Zone.DREAMSCAPE and m.defn.is_location:
            assert locations[m.cell] == -1, f"two locations in {cell_name(m.cell)}"
            locations[m.cell] = m.id
    assert list(game.location_at) == locations, "engine location index disagrees"
    mask = sum(1 << cell for cell, mini in enumerate(locations) if mini >= 0)
    assert game.location_cells == mask, "engine location cell mask disagrees"
    for player in (Player.A, Player.B):
        aspects = [0, 0, 0, 0]  # each aspect a miniature in play or in the graveyard shows, once
        for m in game.minis:
            if m.owner is player and m.zone in (Zone.DREAMSCAPE, Zone.GRAVEYARD):
                for aspect in sorted(set(m.defn.aspects)):
                    aspects[aspect] += 1
        assert game.aspect_counts[player] == aspects, "engine aspect counts disagree"


def check_hash(game: Game) -> None:
    """The state hash is SHA-256 over the setup digest and the packed encoding
    (docs/state-hash.md), and the engine's copy of the miniatures' hashed fields is theirs."""
    hashed = [w for m in game.minis for w in (m.zone, m.cell, m.damage, m.moved)]
    assert list(game.mini_words) == hashed, "the hashed fields disagree with the miniatures"
    encoding = game.encode()
    packed = struct.pack(f"<{len(encoding)}q", *encoding)
    setup_digest = hashlib.sha256(setup_bytes(game.setup)).digest()
    assert game.state_hash() == hashlib.sha256(setup_digest + packed).digest()


def check_damage(game: Game) -> None:
    """Damage is never negative, only on creatures in the dreamscape, and outside a
    combat below every creature's defense and life (802.2d, 900.2: it must disrupt or
    destroy)."""
    pending = game.pending
    between_combats = (
        isinstance(pending, Decision)
        and pending.kind
        in (DecisionKind.SPAWN, DecisionKind.ACTION, DecisionKind.SHIFT, DecisionKind.STRIKE)
    ) or (isinstance(pending, ChanceRequest) and pending.kind is ChanceKind.INITIATIVE)
    for m in game.minis:
        assert m.damage >= 0, m
        if m.zone is not Zone.DREAMSCAPE or m.defn.is_location:
            assert m.damage == 0, f"damage on {m!r}"
        elif between_combats:
            assert m.damage < m.defn.defense, m
            assert m.damage < m.defn.life, m


def check_counters(game: Game) -> None:
    """Spawn points are never negative; turns won stay within 0..turns_to_win."""
    assert game.spawn_points >= 0
    limit = game.setup.options.turns_to_win
    assert all(0 <= w <= limit for w in game.turns_won), game.turns_won


def check_pending(game: Game) -> None:
    """The pending item fits the state, and forced decisions never wait for input."""
    limit = game.setup.options.turns_to_win
    pending = game.pending
    if game.is_over:
        assert pending is None
        assert game.legal_choices() is None
        assert game.winner is not None
        assert game.end_reason is not None
        if game.end_reason is EndReason.VICTORY:
            assert game.turns_won[game.winner] == limit  # 803.3
            assert game.turns_won[game.winner.other] < limit
        return
    assert pending is not None
    assert game.winner is None
    assert all(w < limit for w in game.turns_won)
    if isinstance(pending, ChanceRequest):
        assert pending.count >= 1
        assert game.legal_choices() is None
    elif pending.kind is DecisionKind.DAMAGE:
        assert game.legal_choices() is None
        assert pending.total >= 1
        assert len(pending.targets) >= 2, "a single target takes the damage automatically"
    else:
        legal = game.legal_choices()
        assert legal is not None
        assert len(legal) == len(set(legal)), "duplicate legal choices"
        assert len(legal) >= 2, f"forced decision {pending!r} was not applied automatically"


def check_state(game: Game) -> None:
    """Every invariant of a single state."""
    check_roster(game)
    check_zones(game)
    check_stacking(game)
    check_damage(game)
    check_counters(game)
    check_pending(game)
    check_hash(game)


def _cells_where(game: Game, player: Player) -> set[int]:
    return {c for c, n in enumerate(creature_cells(game, player)) if n}


@dataclass
class Tracker:
    """Watches one game from its start; call ``after`` after every input."""

    game: Game
    inputs: int = 0
    key: PhaseKey = (0, Phase.INITIATIVE, -1, -1)
    pending: Decision | ChanceRequest | None = None
    spawn_points: int = 0
    costs: dict[int, int] = field(default_factory=dict)
    zones: list[Zone] = field(default_factory=list)
    turns_won: tuple[int, int] = (0, 0)
    turn: int = 1
    kills: list[int] = field(default_factory=lambda: [0, 0])
    bonus: list[int] = field(default_factory=lambda: [0, 0])
    dice: list[int] = field(default_factory=lambda: [0, 0])
    first: Player | None = None
    skipped: bool = False
    skipped_last_turn: bool = False
    expected_points: list[int] = field(default_factory=lambda: [0, 0])
    spawn_phases: list[Player] = field(default_factory=list)
    action_phases: int = 0
    moved: set[int] = field(default_factory=set)
    attacked: set[int] = field(default_factory=set)
    allies_at_start: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        game = self.game
        assert game.turn == 1
        assert game.turns_won == [0, 0]
        assert all(m.zone is Zone.RESERVES and m.damage == 0 for m in game.minis)
        pending = game.pending
        # 700.1: the game starts with both initiative dice.
        assert pending == ChanceRequest(ChanceKind.INITIATIVE, 2, players=(Player.A, Player.B))
        check_state(game)
        self._remember()

    def _remember(self) -> None:
        game = self.game
        self.key = phase_key(game)
        self.pending = game.pending
        self.spawn_points = game.spawn_points
        self.zones = [m.zone for m in game.minis]
        self.turns_won = (game.turns_won[0], game.turns_won[1])
        self.turn = game.turn
        self.costs = {}
        if isinstance(self.pending, Decision) and self.pending.kind is DecisionKind.SPAWN:
            have = aspects_in_play(game, game.active)
            self.costs = {
                m.id: spawn_cost(game, m, have) for m in game.minis if m.owner is game.active
            }

    def after(self, given: Input) -> None:
        """Check the game after ``given`` was applied to the state seen last time."""
        game = self.game
        self.inputs += 1
        check_state(game)
        before = self.pending
        self._zone_changes(given)
        if isinstance(before, ChanceRequest) and before.kind is ChanceKind.INITIATIVE:
            assert given.dice is not None
            for player, value in zip(before.players, given.dice, strict=True):
                self.dice[player] = value
        assert all(new >= old for new, old in zip(game.turns_won, self.turns_won, strict=True)), (
            "turns won decreased"
        )
        if game.turn != self.turn or game.is_over:
            self._conquest()
        elif sum(game.turns_won) != sum(self.turns_won):
            raise AssertionError("turns won changed outside the conquest phase")
        key = phase_key(game)
        if key != self.key:
            self._new_phase(key)
        self._same_phase(given)
        self._check_choices()
        self._remember()

    # --- transitions ----------------------------------------------------------

    def _zone_changes(self, given: Input) -> None:
        game = self.game
        for m, old in zip(game.minis, self.zones, strict=True):
            if m.zone is old:
                continue
            if old is Zone.RESERVES:
                # 304.1: miniatures leave the reserves only when spawned.
                assert m.zone is Zone.DREAMSCAPE
                assert given.choice == SpawnChoice(m.id, m.cell), (given, m)
            elif old is Zone.DREAMSCAPE:
                # 304.3: destroyed creatures go to the graveyard and stay there.
                assert m.zone is Zone.GRAVEYARD, m
                assert m.defn.is_creature, "nothing destroys locations without abilities"
                self.kills[m.owner.other] += 1  # 803.2
                self.bonus[m.owner] += 2  # 801.2
            else:
                raise AssertionError(f"{m!r} left the {old.name.lower()}")

    def _conquest(self) -> None:
        """803: compare the turn's result with claimed cells plus enemies destroyed."""
        game = self.game
        points = [claimed_points(game, p) + self.kills[p] for p in (Player.A, Player.B)]
        expected = list(self.turns_won)
        if points[0] != points[1]:  # 803.3: a tie wins nobody the turn
            expected[0 if points[0] > points[1] else 1] += 1
        assert list(game.turns_won) == expected, (points, self.turns_won, game.turns_won)
        assert self.action_phases == 4, "802: four action phases a turn"
        if game.is_over:
            assert game.end_reason is EndReason.VICTORY
            assert max(expected) == game.setup.options.turns_to_win
        else:
            assert game.turn == self.turn + 1
            assert max(expected) < game.setup.options.turns_to_win
        self.kills = [0, 0]
        self.first = None
        self.skipped_last_turn = self.skipped
        self.skipped = False
        self.spawn_phases = []
        self.action_phases = 0

    def _new_phase(self, key: PhaseKey) -> None:
        game = self.game
        # 802.2h, 802.2i: damage never carries over from one phase to the next.
        assert all(m.damage == 0 for m in game.minis), "damage survived the end of a phase"
        self.moved = set()
        self.attacked = set()
        turn, phase = key[0], key[1]
        previous_phase = self.key[1] if self.key[0] == turn else Phase.INITIATIVE
        if previous_phase is Phase.INITIATIVE and phase is not Phase.INITIATIVE:
            self._initiative_result()
        if phase is Phase.SPAWN:
            player = game.active
            assert not self.skipped, "800.1: spawn phases are skipped after a 1"
            assert self.action_phases == 0, "801: spawn phases come before action phases"
            assert player not in self.spawn_phases
            first = self.first
            assert first is not None
            if player is not first:
                assert first in self.spawn_phases or not self._could_spawn(first)
            self.spawn_phases.append(player)
            # 801.1, 801.2: both initiative dice plus 2 per destroyed miniature.
            assert game.spawn_points == self.expected_points[player]
            self.allies_at_start = _cells_where(game, player)
        elif phase is Phase.ACTION:
            self.action_phases += 1
            assert self.first is not None
            # 802: the first player takes two action phases, then the second two.
            expected = self.first if self.action_phases <= 2 else self.first.other
            assert game.active is expected, (self.action_phases, game.active)
            assert game.action_index == self.action_phases - 1
            assert self.action_phases <= 4

    def _could_spawn(self, player: Player) -> bool:
        """Whether ``player`` could spawn anything (else its spawn phase ends at once)."""
        game = self.game
        room = {m.cell for m in game.minis if m.owner is player and m.defn.is_creature}
        room -= {m.cell for m in game.minis if m.defn.is_location}
        room.discard(-1)
        for m in game.minis:
            if (
                m.owner is player
                and m.zone is Zone.RESERVES
                and spawn_cost(game, m) <= self.expected_points[player]
                and (m.defn.is_creature or room)  # 801.6, 801.7
            ):
                return True
        return False

    def _initiative_result(self) -> None:
        """700.1, 800, 800.1, FAQ 430: who goes first and whether spawn phases are skipped."""
        game = self.game
        a, b = self.dice
        reroll_ones = game.turn == 1 or (
            game.setup.options.tournament_initiative and self.skipped_last_turn
        )
        if reroll_ones:
            assert 1 not in (a, b), "a 1 should have been rerolled"
        if a != b:
            self.first = Player.A if a > b else Player.B
        else:
            wa, wb = self.turns_won
            assert wa != wb, "a tie with equal turns won should have been rerolled"
            self.first = Player.A if wa > wb else Player.B
        self.skipped = 1 in (a, b)
        for player in (Player.A, Player.B):
            if self.skipped:
                self.expected_points[player] = 0
            else:
                self.expected_points[player] = a + b + self.bonus[player]
                self.bonus[player] = 0
        if self.skipped:
            assert game.phase is Phase.ACTION

    def _same_phase(self, given: Input) -> None:
        game = self.game
        before = self.pending
        key = phase_key(game)
        if (
            isinstance(before, ChanceRequest)
            and before.kind is ChanceKind.INITIATIVE
            and game.phase is Phase.INITIATIVE
            and game.turn == self.turn
        ):
            self._check_reroll()
        choice = given.choice
        if key != self.key:
            return
        if isinstance(choice, SpawnChoice):
            # 801.3, 801.4: each spawn costs its spawn cost plus the aspect shortfall.
            assert game.spawn_points == self.spawn_points - self.costs[choice.mini]
        elif isinstance(choice, MoveChoice):
            self.moved.add(choice.mini)
            assert game.minis[choice.mini].cell == choice.cell
        elif isinstance(choice, AttackChoice):
            self.attacked.add(choice.cell)
        elif isinstance(choice, PlaceChoice):
            m = game.minis[choice.mini]
            assert m.cell == choice.cell
            assert m.damage == 0, "802.2f: disrupting clears damage"

    def _check_reroll(self) -> None:
        game = self.game
        pending = game.pending
        assert isinstance(pending, ChanceRequest)
        assert pending.kind is ChanceKind.INITIATIVE
        a, b = self.dice
        ones = tuple(p for p in (Player.A, Player.B) if self.dice[p] == 1)
        reroll_ones = game.turn == 1 or (
            game.setup.options.tournament_initiative and self.skipped_last_turn
        )
        if ones and reroll_ones:
            assert pending.players == ones  # 700.1, FAQ 430: reroll the 1s only
        else:
            assert a == b
            assert game.turn == 1 or game.turns_won[0] == game.turns_won[1]
            assert pending.players == (Player.A, Player.B)  # 700.1, 800: reroll ties

    # --- legal choices against the rules ---------------------------------------

    def _check_choices(self) -> None:
        game = self.game
        pending = game.pending
        if not isinstance(pending, Decision):
            return
        legal = game.legal_choices()
        expected: set[Choice] | None = None
        if pending.kind is DecisionKind.SHIFT:
            expected = {*self.legal_moves(), DONE}
        elif pending.kind is DecisionKind.STRIKE:
            expected = {*self.legal_attacks(), DONE}
        elif pending.kind is DecisionKind.SPAWN:
            expected = {*self.legal_spawns(), DONE}
        elif pending.kind is DecisionKind.ACTION:
            expected = {SHIFT, STRIKE}  # 802
        elif pending.kind is DecisionKind.FATE:
            # 802.2d: the damaging player chooses for a creature that reached both.
            (mini,) = pending.minis
            m = game.minis[mini]
            assert pending.player is not m.owner
            assert m.damage >= m.defn.defense
            assert m.damage >= m.defn.life
            expected = {FateChoice(mini, False), FateChoice(mini, True)}
        elif pending.kind is DecisionKind.DEATHBLOW:
            # 802.2g: only the second player's creatures, only in the first player's phases.
            assert game.active is self.first
            assert pending.player is not self.first
            for mini in pending.minis:
                m = game.minis[mini]
                assert m.owner is pending.player
                assert m.cell == pending.cell
                assert m.damage >= m.defn.life
            expected = {
                DeathblowChoice(pending.cell, subset)
                for n in range(len(pending.minis) + 1)
                for subset in combinations(pending.minis, n)
            }
        elif pending.kind is DecisionKind.RESOLVE:
            # Combat step 7 and the glossary's "disrupt": to an empty cell, else destroyed.
            empties = empty_cells(game, pending.player)
            for mini in pending.minis:
                m = game.minis[mini]
                assert m.owner is not pending.player
                assert m.zone is Zone.DREAMSCAPE
                assert m.damage >= m.defn.defense
            if empties:
                expected = {PlaceChoice(i, c) for i in pending.minis for c in empties}
            else:
                expected = {BuryChoice(i) for i in pending.minis}
        if expected is not None:
            assert legal is not None
            assert set(legal) == expected, (pending, set(legal) ^ expected)

    def legal_moves(self) -> set[Choice]:
        """802.1: each unengaged creature may move once to an adjacent cell with room."""
        game = self.game
        player = game.active
        counts = creature_cells(game, player)
        stuck = engaged(game, player)
        out: set[Choice] = set()
        for m in game.minis:
            if (
                m.owner is player
                and m.zone is Zone.DREAMSCAPE
                and m.defn.is_creature
                and m.id not in self.moved
                and m.id not in stuck  # 802.1a
            ):
                out.update(
                    MoveChoice(m.id, c)
                    for c in NEIGHBOURS[m.cell]  # 802.1b
                    if counts[c] < STACKING_LIMIT  # 802.1c
                )
        return out

    def legal_attacks(self) -> set[Choice]:
        """802.2, 802.2a, 802.2b: any non-empty group of engaged allies, each cell once."""
        game = self.game
        player = game.active
        out: set[Choice] = set()
        enemies = creature_cells(game, player.other)
        for cell in CELLS:
            if cell in self.attacked or not enemies[cell]:
                continue
            mine = [
                m.id
                for m in game.minis
                if m.owner is player and m.cell == cell and m.defn.is_creature
            ]
            for n in range(1, len(mine) + 1):
                out.update(AttackChoice(cell, subset) for subset in combinations(mine, n))
        return out

    def legal_spawns(self) -> set[Choice]:
        """801.3-801.7: what the active player can spawn where."""
        game = self.game
        player = game.active
        counts = creature_cells(game, player)
        have = aspects_in_play(game, player)
        columns = {column(m.cell) for m in game.minis if m.owner is player and m.cell >= 0}
        locations = {m.cell for m in game.minis if m.cell >= 0 and m.defn.is_location}
        out: set[Choice] = set()
        for m in game.minis:
            if m.owner is not player or m.zone is not Zone.RESERVES:
                continue
            if spawn_cost(game, m, have) > game.spawn_points:
                continue
            if m.defn.is_location:  # 801.7
                cells = [c for c in CELLS if counts[c] and c not in locations]
            else:
                cells = [PORTAL[player]]  # 801.6
                cells += [
                    c
                    for c in SPAWN_ROW[player]
                    if c != PORTAL[player]
                    and c not in self.allies_at_start  # 801.5 (1)
                    and column(c) in columns  # 801.5 (2)
                    and counts[c] < STACKING_LIMIT  # 801.5, 301.1a
                ]
            out.update(SpawnChoice(m.id, c) for c in cells)
        return out


# --- illegal inputs -------------------------------------------------------------

EXPECTED_TYPES: dict[DecisionKind, tuple[type, ...]] = {
    DecisionKind.SPAWN: (SpawnChoice, Done),
    DecisionKind.ACTION: (ShiftChoice, StrikeChoice),
    DecisionKind.SHIFT: (MoveChoice, Done),
    DecisionKind.STRIKE: (AttackChoice, Done),
    DecisionKind.BLADE: (BladeChoice,),
    DecisionKind.DAMAGE: (DamageChoice,),
    DecisionKind.FATE: (FateChoice,),
    DecisionKind.DEATHBLOW: (DeathblowChoice,),
    DecisionKind.RESOLVE: (PlaceChoice, BuryChoice),
}


def one_of_each_kind(game: Game) -> list[Choice]:
    """A well-formed choice of every type (legal or not), to play against the wrong decision."""
    some = game.minis[0].id
    c3 = _cell("c3")
    return [
        DONE,
        SHIFT,
        STRIKE,
        SpawnChoice(some, PORTAL[Player.A]),
        MoveChoice(some, c3),
        AttackChoice(c3, (some,)),
        BladeChoice(some, 0),
        DamageChoice(((some, 1),)),
        FateChoice(some, True),
        DeathblowChoice(c3, ()),
        PlaceChoice(some, c3),
        BuryChoice(some),
    ]


@dataclass(frozen=True, slots=True)
class Illegal:
    """An input the rules forbid now, why, and the error it must raise."""

    given: Input
    why: str
    error: type[Exception] | None = None  # None: either IllegalChoiceError or InvalidChoiceError


def illegal_inputs(tracker: Tracker) -> list[Illegal]:
    """Inputs the rules forbid in the tracked game's current state."""
    game = tracker.game
    pending = game.pending
    out: list[Illegal] = []
    if pending is None:
        return out
    if isinstance(pending, ChanceRequest):
        n = pending.count
        bad = InvalidChoiceError
        out += [
            Illegal(Input(dice=(3,) * (n + 1)), "one die too many", bad),
            Illegal(Input(dice=(3,) * (n - 1)), "one die too few", bad),
            Illegal(Input(dice=()), "no dice", bad),
        ]
        for value in (0, 7, -1, True, 2.0, "3"):
            dice = (value, *(4,) * (n - 1))
            out.append(Illegal(Input(dice=dice), f"die value {value!r}", bad))  # type: ignore[arg-type]
        out += [
            Illegal(Input(choice=c), "a choice while dice are expected", IllegalChoiceError)
            for c in (DONE, SHIFT)
        ]
        return out
    out.append(Illegal(Input(dice=(3, 4)), "dice while a decision is expected", IllegalChoiceError))
    out.append(Illegal(Input(dice=(3,)), "dice while a decision is expected", IllegalChoiceError))
    for choice in one_of_each_kind(game):
        if not isinstance(choice, EXPECTED_TYPES[pending.kind]):
            out.append(Illegal(Input(choice=choice), "wrong kind", InvalidChoiceError))
    if pending.kind is DecisionKind.DAMAGE:
        out += _illegal_damage(game, pending)
    elif pending.kind is DecisionKind.SHIFT:
        out += _illegal_moves(tracker)
    elif pending.kind is DecisionKind.SPAWN:
        out += _illegal_spawns(tracker)
    elif pending.kind is DecisionKind.STRIKE:
        out += _illegal_attacks(tracker)
    elif pending.kind is DecisionKind.FATE:
        others = [m.id for m in game.minis if m.id not in pending.minis and m.cell >= 0]
        out += [Illegal(Input(choice=FateChoice(i, True)), "fate of another") for i in others[:3]]
    elif pending.kind is DecisionKind.DEATHBLOW:
        others = [
            m.id
            for m in game.minis
            if m.cell >= 0 and m.id not in pending.minis and m.defn.is_creature
        ]
        out += [
            Illegal(Input(choice=DeathblowChoice(pending.cell, (i,))), "a creature not dying")
            for i in others[:3]
        ]
        wrong_cell = (pending.cell + 1) % 25
        out.append(
            Illegal(Input(choice=DeathblowChoice(wrong_cell, pending.minis)), "another cell")
        )
    elif pending.kind is DecisionKind.RESOLVE:
        occupied = sorted({m.cell for m in game.minis if m.cell >= 0})
        portal = PORTAL[pending.player]
        mini = pending.minis[0]
        out += [
            Illegal(Input(choice=PlaceChoice(mini, c)), "an occupied cell") for c in occupied[:3]
        ]
        if portal not in occupied:
            out.append(Illegal(Input(choice=PlaceChoice(mini, portal)), "own portal"))
        if empty_cells(game, pending.player):
            out.append(Illegal(Input(choice=BuryChoice(mini)), "bury with empty cells left"))
        own = [m.id for m in game.minis if m.owner is pending.player and m.cell >= 0]
        out += [Illegal(Input(choice=BuryChoice(i)), "own creature") for i in own[:2]]
    return out


def _illegal_damage(game: Game, pending: Decision) -> list[Illegal]:
    total, targets = pending.total, pending.targets
    t0, t1 = targets[0], targets[1]
    bad = InvalidChoiceError
    non_targets = [m.id for m in game.minis if m.id not in targets]
    out = [
        Illegal(Input(choice=DamageChoice(((t0, total + 1),))), "too much damage (900.2)"),
        Illegal(Input(choice=DamageChoice(((t0, total), (t1, 1)))), "too much damage (900.2)"),
        Illegal(Input(choice=DamageChoice(())), "no damage assigned (900.2)"),
        Illegal(Input(choice=DamageChoice(((t0, total + 1), (t1, -1)))), "negative damage"),
        Illegal(Input(choice=DamageChoice(((t0, total), (t1, 0)))), "zero damage"),
        Illegal(Input(choice=DamageChoice(((t1, total), (t0, total)))), "unsorted", bad),
        Illegal(Input(choice=DamageChoice(((t0, 1), (t0, total - 1)))), "a target twice", bad),
        Illegal(Input(choice=DamageChoice(((t0, str(total)),))), "a string amount", bad),  # type: ignore[arg-type]
        Illegal(Input(choice=DONE), "not a damage split", bad),
    ]
    if total >= 2:
        out.append(Illegal(Input(choice=DamageChoice(((t0, total - 1),))), "too little damage"))
    for other in non_targets[:: max(1, len(non_targets) // 4)]:
        out.append(Illegal(Input(choice=DamageChoice(((other, total),))), "not a local enemy"))
    return out


def _illegal_moves(tracker: Tracker) -> list[Illegal]:
    game = tracker.game
    player = game.active
    counts = creature_cells(game, player)
    stuck = engaged(game, player)
    out: list[Illegal] = []
    outside = [m for m in game.minis if m.zone is not Zone.DREAMSCAPE]
    out += [Illegal(Input(choice=MoveChoice(m.id, 12)), "not in play") for m in outside[:2]]
    enemies = [m for m in game.minis if m.owner is not player and m.zone is Zone.DREAMSCAPE]
    for m in [*(m for m in game.minis if m.owner is player), *enemies[:2]]:
        if m.zone is not Zone.DREAMSCAPE:
            continue
        adjacent = NEIGHBOURS[m.cell]
        far = FAR[m.cell]  # 802.1b
        out.append(Illegal(Input(choice=MoveChoice(m.id, far[m.id % len(far)])), "not adjacent"))
        out.append(Illegal(Input(choice=MoveChoice(m.id, 25)), "no such cell"))
        if m.owner is not player:
            out.append(Illegal(Input(choice=MoveChoice(m.id, adjacent[0])), "an enemy's creature"))
        elif m.defn.is_location:
            out.append(Illegal(Input(choice=MoveChoice(m.id, adjacent[0])), "locations don't move"))
        elif m.id in stuck:
            out += [
                Illegal(Input(choice=MoveChoice(m.id, c)), "engaged (802.1a)") for c in adjacent
            ]
        elif m.id in tracker.moved:
            out += [Illegal(Input(choice=MoveChoice(m.id, c)), "already moved") for c in adjacent]
        else:
            full = [c for c in adjacent if counts[c] >= STACKING_LIMIT]
            out += [
                Illegal(Input(choice=MoveChoice(m.id, c)), "a full cell (802.1c)") for c in full
            ]
    return out


def _illegal_spawns(tracker: Tracker) -> list[Illegal]:
    game = tracker.game
    player = game.active
    legal_cells = {
        choice.cell
        for choice in tracker.legal_spawns()
        if isinstance(choice, SpawnChoice) and game.minis[choice.mini].defn.is_creature
    }
    have = aspects_in_play(game, player)
    counts = creature_cells(game, player)
    out: list[Illegal] = []
    for m in game.minis:
        if m.owner is not player:
            out.append(Illegal(Input(choice=SpawnChoice(m.id, PORTAL[player])), "an enemy's"))
        elif m.zone is not Zone.RESERVES:
            out.append(Illegal(Input(choice=SpawnChoice(m.id, PORTAL[player])), "not in reserves"))
        elif spawn_cost(game, m, have) > game.spawn_points:
            out.append(Illegal(Input(choice=SpawnChoice(m.id, PORTAL[player])), "unaffordable"))
        elif m.defn.is_creature:
            outside = [c for c in CELLS if c not in legal_cells]  # 801.5, 801.6
            out.append(
                Illegal(Input(choice=SpawnChoice(m.id, outside[m.id % len(outside)])), "cell")
            )
        else:
            no_creature = [c for c in CELLS if not counts[c]]  # 801.7
            out.append(Illegal(Input(choice=SpawnChoice(m.id, no_creature[0])), "no creature"))
    out.append(Illegal(Input(choice=SpawnChoice(99, PORTAL[player])), "no such miniature"))
    return out


def _illegal_attacks(tracker: Tracker) -> list[Illegal]:
    game = tracker.game
    player = game.active
    enemies = creature_cells(game, player.other)
    out: list[Illegal] = []
    for cell in CELLS:
        mine = tuple(m.id for m in game.minis if m.owner is player and m.cell == cell)
        theirs = tuple(m.id for m in game.minis if m.owner is not player and m.cell == cell)
        if cell in tracker.attacked:  # 802.2a
            out.append(Illegal(Input(choice=AttackChoice(cell, mine)), "attacked cell"))
        elif mine and not enemies[cell]:  # 802.2: only engaged creatures attack
            out.append(Illegal(Input(choice=AttackChoice(cell, mine)), "no enemy creature"))
        elif mine:
            out.append(Illegal(Input(choice=AttackChoice(cell, ())), "no attackers"))
            out.append(Illegal(Input(choice=AttackChoice(cell, mine[::-1] + mine)), "twice"))
            places = [m.id for m in game.minis if m.id in mine and m.defn.is_location]
            creatures = tuple(i for i in mine if i not in places)
            out += [
                Illegal(
                    Input(choice=AttackChoice(cell, tuple(sorted((*creatures, i))))), "location"
                )
                for i in places  # locations don't attack
            ]
            elsewhere = [m.id for m in game.minis if m.owner is player and m.cell not in (-1, cell)]
            out += [
                Illegal(Input(choice=AttackChoice(cell, (i,))), "attacker elsewhere")
                for i in elsewhere[:2]
            ]
            out += [
                Illegal(Input(choice=AttackChoice(cell, (i,))), "enemy attacker") for i in theirs
            ]
    return out


def one_per_reason(rng: random.Random, items: Iterable[Illegal]) -> list[Illegal]:
    """One of ``items`` for each distinct reason, picked by ``rng``."""
    by_reason: dict[str, list[Illegal]] = {}
    for item in items:
        by_reason.setdefault(item.why, []).append(item)
    return [rng.choice(group) for group in by_reason.values()]
