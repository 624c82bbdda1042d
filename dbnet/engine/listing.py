"""The legal choices of the pending decision, listed in a fixed order.

``make_choices`` lists every legal choice of the pending decision; ``legal_choices``
keeps the list in the state until the state changes (``Game.legal_choices``). The
conditions of each kind of choice are here too, one function each, so that
``checking`` can test one choice against the same conditions without building the
list where it is long. ``may_spawn``, ``may_move`` and ``may_still_strike`` tell the
turn flow when a step has nothing left to offer but DONE, without the list; the places and
burials of combat step 7 (``resolve_choices``, ``bury_order_matters``) are asked by
``resolution`` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Final

from dbnet.engine import board, stack
from dbnet.engine.abilities import (
    blade_abilities,
    channel_reductions,
    has_active,
    is_active,
    matches,
)
from dbnet.engine.choices import (
    DONE,
    MOVES_BY_MINI,
    SHIFT,
    STRIKE,
    ActivateChoice,
    AttackChoice,
    BladeChoice,
    BuryChoice,
    Choice,
    DeathblowChoice,
    FateChoice,
    OrderChoice,
    PlaceChoice,
    RerollChoice,
    TargetChoice,
    moves_of,
    spawns_of,
)
from dbnet.engine.combat import Fate, Stage
from dbnet.engine.costs import respawn, spawn_cost
from dbnet.engine.enums import Step, Zone
from dbnet.engine.model import PLAYERS, AbilityDef, Activation, Player
from dbnet.engine.rules import CREATURES_PER_PLAYER_PER_CELL
from dbnet.engine.targets import options

if TYPE_CHECKING:
    from dbnet.engine.state import Mini, State

_NO_XS: Final = range(0)
_NO_X: Final = range(1)
"""The values of X of a spawn ability that can't be activated, and of one without an X
cost that can (``activation_xs``)."""


# --- the legal choices of the pending decision -----------------------------------------


def legal_choices(game: State) -> list[Choice] | None:
    """Every legal choice for the pending decision, in a fixed order, kept in the state
    until it changes (``Game.legal_choices``).

    None when the game waits for dice or is over, and for DAMAGE, whose
    choices are the many splits of ``Decision.total`` among its targets
    (use ``check_choice`` to validate one). None in a Limited game's build phase:
    commitments and warbands are not listed.
    """
    if game.build is not None:
        return None
    if game._choices is None:
        game._choices = make_choices(game)
    return game._choices


def make_choices(game: State) -> list[Choice] | None:
    """Every legal choice of the pending decision, in a fixed order (see
    ``legal_choices``)."""
    rolling = game.rolling
    if rolling is not None:
        return _reroll_choices(game) if rolling.stage is Stage.DECIDE else None
    if game.choosing is not None:
        return [TargetChoice(o) for o in options(game, game.choosing)]
    if stack.trigger_frame(game) is not None:
        waiting = stack.waiting_triggers(game, stack.trigger_player(game))
        return [OrderChoice(i) for i in range(len(waiting))]
    step = game.step
    if step is Step.SPAWN:
        return spawn_choices(game)
    if step is Step.ACTION:
        return [SHIFT, STRIKE]
    if step is Step.SHIFT:
        return shift_choices(game)
    if step is Step.STRIKE:
        return [*_attack_choices(game), DONE]
    if step is Step.FATE:
        mini = game.ongoing_combat().fate_queue[0]
        return [FateChoice(mini, False), FateChoice(mini, True)]
    if step is Step.DEATHBLOW:
        cell = game.ongoing_combat().deathblow_queue[0]
        dying = dying_in(game, cell)
        return [
            DeathblowChoice(cell, subset)
            for size in range(len(dying), -1, -1)
            for subset in combinations(dying, size)
            if may_attack_together(game, subset)
        ]
    if step is Step.RESOLVE:
        return resolve_choices(game)
    if step is Step.BLADE:
        return blade_choices(game)
    return None


def may_spawn(game: State) -> bool:
    """Whether the spawn decision offers anything but DONE: a spawn or an activation (the
    spawn phase ends when it does not: asked after every spawn), without listing them all."""
    return bool(_spawn_choices(game, first=True))


def spawn_choices(game: State) -> list[Choice]:
    """The choices of a spawn decision: each spawn and activation, then DONE."""
    choices = _spawn_choices(game)
    choices.append(DONE)
    return choices


def _spawn_choices(game: State, *, first: bool = False) -> list[Choice]:
    """Each spawn and activation of the spawn decision; with ``first``, those of the first
    miniature (or ability) that offers any (none: nothing may be spawned or activated)."""
    player = game.active
    out: list[Choice] = []
    counts = game.aspect_counts[player]
    points = game.spawn_points
    statics = game.rules.statics
    channels = channel_reductions(game, player) if statics.channels else None
    # the cost is at least the spawn cost less every reduction: most of the reserves are
    # out of reach after a spawn or two
    reach = points + sum(x for _, x in channels) if channels else points
    reinforcing = statics.holders.get("Reinforce", _NO_HOLDERS)
    creature_cells: list[int] | None = None  # the same for each creature (but Reinforce)
    for m in game.warband_minis[player]:
        if m.defn.spawn_cost > reach and m.zone is Zone.RESERVES:
            continue
        if m.cell >= 0 or not spawnable(game, m):
            continue
        if spawn_cost(game, m, counts, channels) > points:
            continue
        if m.is_creature:
            if creature_cells is None:
                creature_cells = _creature_spawn_cells(game, player)
            cells = _reinforced(game, m, creature_cells) if m.id in reinforcing else creature_cells
        else:
            cells = board.cells_of(_location_cells_for(game, player))
        row = spawns_of(m.id)
        out += [row[cell] for cell in cells]
        if first and out:
            return out
    for mini, index, ability in game.rules.statics.spawn_abilities:
        m = game.minis[mini]
        if m.owner is player and m.cell >= 0:
            out += _activations(game, m, index, ability)
            if first and out:
                return out
    return out


def spawnable(game: State, m: Mini) -> bool:
    """In the reserves (or, with Respawn, the graveyard), and not barred by Unique or
    Vengeance."""
    if m.zone is not Zone.RESERVES and not (
        m.zone is Zone.GRAVEYARD and respawn(game, m) is not None
    ):
        return False
    if m.id not in game.rules.statics.spawn_limited:
        return True
    for ability in m.abilities:
        keyword = ability.keyword
        if keyword == "Vengeance" and game.turns_won[m.owner.other] < (ability.x or 0):
            return False
        if keyword == "Unique" and _controls_unique(game, m.owner, ability.modifier):
            return False
    return True


def _controls_unique(game: State, player: Player, name: str | None) -> bool:
    for mini, _, ability in game.rules.statics.of("Unique"):
        other = game.minis[mini]
        if other.owner is player and other.cell >= 0 and ability.modifier == name:
            return True
    return False


def _activations(game: State, m: Mini, index: int, ability: AbilityDef) -> list[ActivateChoice]:
    """801.8: the ways to activate spawn ability ``index`` of ``m`` now."""
    return [ActivateChoice(m.id, index, x) for x in activation_xs(game, m, index, ability)]


def activation_xs(game: State, m: Mini, index: int, ability: AbilityDef) -> range:
    """The values of X (0 for an ability without an X cost) with which spawn ability
    ``index`` of ``m`` can be activated now (801.8); empty when it can't."""
    if ability.activation is not Activation.SPAWN or (m.id, index) in game.spawn_uses:
        return _NO_XS
    if not is_active(game, m, ability):  # the score condition (303.2b)
        return _NO_XS
    if ability.cost_x:
        return range(1, game.spawn_points + 1)
    if (ability.spawn_cost or 0) > game.spawn_points:
        return _NO_XS
    return _NO_X


def spawn_cells(game: State, m: Mini) -> list[int]:
    """Where ``m`` may be spawned, if it may be spawned now."""
    if m.defn.is_location:
        return board.cells_of(_location_cells_for(game, m.owner))
    return _reinforced(game, m, _creature_spawn_cells(game, m.owner))


def _creature_spawn_cells(game: State, player: Player) -> list[int]:
    """Where ``player`` may spawn a creature (Reinforce aside): the portal (801.6), and a
    cell of the spawn row that had no ally when the phase began (801.5 (1)), in a column
    with a miniature of theirs (801.5 (2)), with room for it (802.1c), and not spawned
    into four times this phase (801.5)."""
    mine = game.creatures[player]
    portal = board.PORTAL[player]
    cells = [portal]  # 801.6: always allowed
    columns = 0
    for other in game.warband_minis[player]:
        if other.cell >= 0:
            columns |= 1 << board.column(other.cell)
    for cell in board.spawn_row_cells(player):
        if (
            cell != portal
            and not (game.allies_at_spawn_start >> cell) & 1  # 801.5 (1)
            and (columns >> board.column(cell)) & 1  # 801.5 (2)
            and mine[cell] < CREATURES_PER_PLAYER_PER_CELL  # stacking (802.1c)
            and game.spawned_into[cell] < CREATURES_PER_PLAYER_PER_CELL  # 801.5: four a phase
        ):
            cells.append(cell)
    return cells


def _reinforced(game: State, m: Mini, cells: list[int]) -> list[int]:
    """``cells``, and for a creature with Reinforce the cells that ability adds."""
    for ability in m.abilities:
        if ability.keyword == "Reinforce":
            cells = cells + _reinforce_cells(game, m, ability.modifier, cells)
    return cells


def _location_cells_for(game: State, player: Player) -> int:
    """801.7: where ``player`` may spawn a location, as a bitmask: any cell where they
    control a creature, one location per cell."""
    return game.creature_cells[player] & ~game.location_cells


def _reinforce_cells(game: State, m: Mini, kind: str | None, taken: list[int]) -> list[int]:
    """Reinforce [type]: any cell with an ally of that type (a creature: FAQ), within the
    stacking limit."""
    allies = 0  # bitmask of the cells with such an ally
    for a in game.minis:
        if a.cell >= 0 and a.owner is m.owner and a.is_creature and matches(kind, a.defn):
            allies |= 1 << a.cell
    mine = game.creatures[m.owner]
    return [
        cell
        for cell in range(board.CELL_COUNT)
        if (allies >> cell) & 1
        and cell not in taken
        and mine[cell] < CREATURES_PER_PLAYER_PER_CELL
        and game.spawned_into[cell] < CREATURES_PER_PLAYER_PER_CELL
    ]


def may_move(game: State) -> bool:
    """Whether the shift decision offers a move (else only DONE, and the shift ends: asked
    after every move), without listing them all."""
    return bool(_move_choices(game, first=True))


def _move_choices(game: State, *, first: bool = False) -> list[Choice]:
    """Every move of the shift (``shift_cells`` of each creature, written out as one loop:
    a bot lists them after every move); with ``first``, those of the first creature that
    may move (none: no creature may)."""
    active = game.active
    mine = game.creatures[active]
    theirs = game.creatures[active.other]
    locked = game.locked_cells
    limit = CREATURES_PER_PLAYER_PER_CELL
    defenders = game.rules.statics.holders.get("Defender", _NO_HOLDERS)
    rows = MOVES_BY_MINI
    out: list[Choice] = []
    for m in game.warband_minis[active]:
        cell = m.cell
        if cell < 0 or m.moved or not m.is_creature or theirs[cell] or (locked >> cell) & 1:
            continue
        row = rows.get(m.id) or moves_of(m.id)
        if m.id not in defenders or has_active(game, m, "Defender") is None:
            out += [row[c] for c in board.ADJACENT[cell] if mine[c] < limit]
        else:
            out += [row[c] for c in board.ADJACENT[cell] if mine[c] < limit and not theirs[c]]
        if first and out:
            break
    return out


_NO_CELLS: Final[list[int]] = []
_NO_HOLDERS: Final[frozenset[int]] = frozenset()


def shift_cells(game: State, m: Mini) -> list[int]:
    """Where ``m`` may move when shifting, none if it may not move (802.1): a creature of
    the shifting player in the dreamscape, not moved yet this shift, not engaged
    (802.1a), not in a locked-down cell (Lockdown); to an adjacent cell (802.1b) with
    room for it (802.1c), and for a Defender with no enemy creature."""
    cell = m.cell
    active = game.active
    if cell < 0 or m.moved or not m.is_creature or m.owner is not active:
        return _NO_CELLS
    theirs = game.creatures[active.other]
    if theirs[cell] or (game.locked_cells >> cell) & 1:
        return _NO_CELLS
    mine = game.creatures[active]
    if has_active(game, m, "Defender") is None:
        return [c for c in board.ADJACENT[cell] if mine[c] < CREATURES_PER_PLAYER_PER_CELL]
    return [
        c for c in board.ADJACENT[cell] if mine[c] < CREATURES_PER_PLAYER_PER_CELL and not theirs[c]
    ]


def _attack_choices(game: State) -> list[Choice]:
    player = game.active
    out: list[Choice] = []
    for cell in board.cells_of(attackable_cells(game)):
        ids = game.creature_ids(cell, player)
        for size in range(len(ids), 0, -1):
            out.extend(
                AttackChoice(cell, subset)
                for subset in combinations(ids, size)
                if may_attack_together(game, subset)
            )
    return out


def may_attack_together(game: State, attackers: Sequence[int]) -> bool:
    """Loner: a creature with it can't attack alongside others, deathblows included."""
    if len(attackers) < 2 or not game.rules.statics.of("Loner"):
        return True
    return not any(has_active(game, game.minis[i], "Loner") is not None for i in attackers)


def blade_choices(game: State) -> list[Choice]:
    """Combat step 3 (303.1, 802.2c, 900.10): the abilities the next blade(s) can go to.

    Attackers keep their blade abilities even after moving away; locations take
    blades only from their own player's regular attacks in their cell.
    """
    combat = game.ongoing_combat()
    if combat.blades <= 0:
        return []
    holders = list(combat.attackers)
    location = game.location_at[combat.cell]
    if location >= 0 and game.minis[location].owner is game.active:
        holders.append(location)
    out: list[Choice] = []
    for holder in sorted(holders):
        m = game.minis[holder]
        for source, index, ability in blade_abilities(game, m):
            if ability.is_double_blade and combat.blades < 2:
                continue
            if ability.is_single_use_blade and combat.uses(holder, source, index):
                continue
            out.append(BladeChoice(holder, index, -1 if source == holder else source))
    return out


def _reroll_choices(game: State) -> list[Choice]:
    """Fortunate: every set of at most X of the dice (as values) to reroll, none first."""
    rolling = game.rolling
    assert rolling is not None
    limit = rolling.fortunes[0][2]
    dice = sorted(rolling.dice)
    found: list[tuple[int, ...]] = []
    for size in range(min(limit, len(dice)) + 1):
        for combo in combinations(dice, size):
            if combo not in found:
                found.append(combo)
    return [RerollChoice(c) for c in found]


def resolve_choices(game: State) -> list[Choice]:
    resolver = PLAYERS[game.ongoing_combat().resolver]
    destroys = destroys_for(game, resolver)
    buries: list[Choice] = [BuryChoice(mini) for mini in destroys]
    if destroys and not bury_order_matters(game, resolver, destroys):
        return buries
    return buries + _disrupt_choices(game, resolver)


def _disrupt_choices(game: State, resolver: Player) -> list[Choice]:
    """Combat step 7 for the miniatures ``resolver`` disrupts: each goes to an empty cell,
    or is destroyed when there is none (glossary: disrupt)."""
    disrupted = marked(game, Fate.DISRUPT, resolver)
    if not disrupted:
        return []
    empties = empty_cells_for(game, resolver)
    if not empties:
        return [BuryChoice(mini) for mini in disrupted]  # no empty cell: destroyed instead
    return [PlaceChoice(mini, cell) for mini in disrupted for cell in empties]


def bury_order_matters(game: State, resolver: Player, destroys: list[int]) -> bool:
    """Combat step 7 goes in any order the resolver chooses (FAQ). Burying first only
    adds empty cells, which is best for the resolver unless a disrupted enemy would
    find none (and be destroyed, glossary: disrupt) and a burial empties a cell."""
    marks = game.ongoing_combat().marks
    disrupts = sum(
        1
        for mini, (fate, by) in marks.items()
        if by is resolver and fate is Fate.DISRUPT and game.minis[mini].cell >= 0
    )
    if disrupts <= empty_cell_mask(game, resolver).bit_count():
        return False
    portal = board.PORTAL[resolver]
    return any(
        game.minis[d].cell not in (-1, portal) and len(game.in_cell(game.minis[d].cell)) == 1
        for d in destroys
    )


def destroys_for(game: State, resolver: Player) -> list[int]:
    return marked(game, Fate.DESTROY, resolver)


def marked(game: State, wanted: Fate, resolver: Player) -> list[int]:
    """The miniatures marked ``wanted`` for ``resolver`` to resolve, in id order (only
    those are sorted: usually none)."""
    marked = [
        mini
        for mini, (fate, by) in game.ongoing_combat().marks.items()
        if by is resolver and fate is wanted
    ]
    marked.sort()
    return marked


def empty_cells_for(game: State, disrupter: Player) -> list[int]:
    """Cells a disrupted enemy may go to: no miniature at all, not the disrupter's portal."""
    return board.cells_of(empty_cell_mask(game, disrupter))


def empty_cell_mask(game: State, disrupter: Player) -> int:
    """``empty_cells_for`` as a bitmask."""
    cells = game.creature_cells
    taken = cells[0] | cells[1] | game.location_cells | 1 << board.PORTAL[disrupter]
    return board.ALL_CELLS & ~taken


def dying_in(game: State, cell: int) -> tuple[int, ...]:
    combat = game.ongoing_combat()
    return tuple(
        mini
        for mini, (fate, _) in sorted(combat.marks.items())
        if fate is Fate.DESTROY and game.minis[mini].cell == cell
        and mini in combat.deathblown
    )  # fmt: skip


def attackable_cells(game: State) -> int:
    """The cells the striking player may attack, as a bitmask: both players have
    creatures there, and it has not been attacked this strike (802.2a)."""
    cells = game.creature_cells
    return cells[game.active] & cells[game.active.other] & ~game.attacked_cells


def shift_choices(game: State) -> list[Choice]:
    """The choices of a shift decision: every move, then DONE."""
    moves = _move_choices(game)
    moves.append(DONE)
    return moves


def may_still_strike(game: State) -> bool:
    """Whether a cell may still be attacked this strike."""
    return attackable_cells(game) != 0
