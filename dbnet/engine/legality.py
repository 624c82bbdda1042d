"""Legal choices: listing them for the pending decision, and checking one.

``make_choices`` lists every legal choice of the pending decision in a fixed
order (``Game.legal_choices`` caches it). ``checked`` validates one choice
without building the list where the list is long (spawn, shift, strike, and
the places of combat step 7), and for a damage split, which has no list; an
illegal choice raises with what was wrong and what is legal. The ``may_still_*``
questions tell the turn flow when a step has nothing left to offer but DONE.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Final

from dbnet.engine import board, stack
from dbnet.engine.abilities import (
    Stat,
    apply_minimum,
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
    ChanceRequest,
    Choice,
    DamageChoice,
    DeathblowChoice,
    Decision,
    DecisionKind,
    Done,
    FateChoice,
    MoveChoice,
    OrderChoice,
    PlaceChoice,
    RerollChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
    TargetChoice,
    moves_of,
    spawns_of,
)
from dbnet.engine.combat import Fate, Stage
from dbnet.engine.enums import Step, Zone
from dbnet.engine.model import PLAYERS, AbilityDef, Activation, Player
from dbnet.engine.rules import CREATURES_PER_PLAYER_PER_CELL
from dbnet.engine.state import Mini
from dbnet.engine.targets import options
from dbnet.errors import GameOverError, IllegalChoiceError, InvalidChoiceError

if TYPE_CHECKING:
    from dbnet.engine.game import Game

_NO_XS: Final = range(0)
_NO_X: Final = range(1)
"""The values of X of a spawn ability that can't be activated, and of one without an X
cost that can (``_activation_xs``)."""


# --- the legal choices of the pending decision -----------------------------------------


def make_choices(game: Game) -> list[Choice] | None:
    """Every legal choice of the pending decision, in a fixed order (see
    ``Game.legal_choices``)."""
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
        return _spawn_choices(game)
    if step is Step.ACTION:
        return [SHIFT, STRIKE]
    if step is Step.SHIFT:
        return shift_choices(game) or [DONE]
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
            if _may_attack_together(game, subset)
        ]
    if step is Step.RESOLVE:
        return resolve_choices(game)
    if step is Step.BLADE:
        return blade_choices(game)
    return None


def spawn_choices(game: Game) -> list[Choice] | None:
    """The choices of a spawn decision now (each spawn and activation, then DONE), or None
    when nothing may be spawned or activated: the spawn phase is over (asked after every
    spawn)."""
    choices = _spawn_choices(game)
    return choices if len(choices) > 1 else None


def _spawn_choices(game: Game) -> list[Choice]:
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
        if m.cell >= 0 or not _spawnable(game, m):
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
    for mini, index, ability in game.rules.statics.spawn_abilities:
        m = game.minis[mini]
        if m.owner is player and m.cell >= 0:
            out.extend(_activations(game, m, index, ability))
    out.append(DONE)
    return out


def _spawnable(game: Game, m: Mini) -> bool:
    """In the reserves (or, with Respawn, the graveyard), and not barred by Unique or
    Vengeance."""
    if m.zone is not Zone.RESERVES and not (
        m.zone is Zone.GRAVEYARD and _respawn(game, m) is not None
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


def _controls_unique(game: Game, player: Player, name: str | None) -> bool:
    for mini, _, ability in game.rules.statics.of("Unique"):
        other = game.minis[mini]
        if other.owner is player and other.cell >= 0 and ability.modifier == name:
            return True
    return False


def _activations(game: Game, m: Mini, index: int, ability: AbilityDef) -> list[ActivateChoice]:
    """801.8: the ways to activate spawn ability ``index`` of ``m`` now."""
    return [ActivateChoice(m.id, index, x) for x in _activation_xs(game, m, index, ability)]


def _activation_xs(game: Game, m: Mini, index: int, ability: AbilityDef) -> range:
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


def _spawn_cells(game: Game, m: Mini) -> list[int]:
    """Where ``m`` may be spawned, if it may be spawned now."""
    if m.defn.is_location:
        return board.cells_of(_location_cells_for(game, m.owner))
    return _reinforced(game, m, _creature_spawn_cells(game, m.owner))


def _creature_spawn_cells(game: Game, player: Player) -> list[int]:
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


def _reinforced(game: Game, m: Mini, cells: list[int]) -> list[int]:
    """``cells``, and for a creature with Reinforce the cells that ability adds."""
    for ability in m.abilities:
        if ability.keyword == "Reinforce":
            cells = cells + _reinforce_cells(game, m, ability.modifier, cells)
    return cells


def _location_cells_for(game: Game, player: Player) -> int:
    """801.7: where ``player`` may spawn a location, as a bitmask: any cell where they
    control a creature, one location per cell."""
    return game.creature_cells[player] & ~game.location_cells


def _reinforce_cells(game: Game, m: Mini, kind: str | None, taken: list[int]) -> list[int]:
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


def _move_choices(game: Game) -> list[Choice]:
    """Every move of the shift (``_shift_cells`` of each creature, written out as one loop:
    listed after every move)."""
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
    return out


_NO_CELLS: Final[list[int]] = []
_NO_HOLDERS: Final[frozenset[int]] = frozenset()


def _shift_cells(game: Game, m: Mini) -> list[int]:
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


def _attack_choices(game: Game) -> list[Choice]:
    player = game.active
    out: list[Choice] = []
    for cell in board.cells_of(_attackable_cells(game)):
        ids = game.creature_ids(cell, player)
        for size in range(len(ids), 0, -1):
            out.extend(
                AttackChoice(cell, subset)
                for subset in combinations(ids, size)
                if _may_attack_together(game, subset)
            )
    return out


def _may_attack_together(game: Game, attackers: Sequence[int]) -> bool:
    """Loner: a creature with it can't attack alongside others, deathblows included."""
    if len(attackers) < 2 or not game.rules.statics.of("Loner"):
        return True
    return not any(has_active(game, game.minis[i], "Loner") is not None for i in attackers)


def blade_choices(game: Game) -> list[Choice]:
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


def _reroll_choices(game: Game) -> list[Choice]:
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


def resolve_choices(game: Game) -> list[Choice]:
    resolver = PLAYERS[game.ongoing_combat().resolver]
    destroys = destroys_for(game, resolver)
    buries: list[Choice] = [BuryChoice(mini) for mini in destroys]
    if destroys and not bury_order_matters(game, resolver, destroys):
        return buries
    return buries + _disrupt_choices(game, resolver)


def _disrupt_choices(game: Game, resolver: Player) -> list[Choice]:
    """Combat step 7 for the miniatures ``resolver`` disrupts: each goes to an empty cell,
    or is destroyed when there is none (glossary: disrupt)."""
    disrupted = marked(game, Fate.DISRUPT, resolver)
    if not disrupted:
        return []
    empties = empty_cells_for(game, resolver)
    if not empties:
        return [BuryChoice(mini) for mini in disrupted]  # no empty cell: destroyed instead
    return [PlaceChoice(mini, cell) for mini in disrupted for cell in empties]


def bury_order_matters(game: Game, resolver: Player, destroys: list[int]) -> bool:
    """Combat step 7 goes in any order the resolver chooses (FAQ). Burying first only
    adds empty cells, which is best for the resolver unless a disrupted enemy would
    find none (and be destroyed, glossary: disrupt) and a burial empties a cell."""
    marks = game.ongoing_combat().marks
    disrupts = sum(
        1
        for mini, (fate, by) in marks.items()
        if by is resolver and fate is Fate.DISRUPT and game.minis[mini].cell >= 0
    )
    if disrupts <= _empty_cell_mask(game, resolver).bit_count():
        return False
    portal = board.PORTAL[resolver]
    return any(
        game.minis[d].cell not in (-1, portal) and len(game.in_cell(game.minis[d].cell)) == 1
        for d in destroys
    )


def destroys_for(game: Game, resolver: Player) -> list[int]:
    return marked(game, Fate.DESTROY, resolver)


def marked(game: Game, wanted: Fate, resolver: Player) -> list[int]:
    """The miniatures marked ``wanted`` for ``resolver`` to resolve, in id order (only
    those are sorted: usually none)."""
    marked = [
        mini
        for mini, (fate, by) in game.ongoing_combat().marks.items()
        if by is resolver and fate is wanted
    ]
    marked.sort()
    return marked


def empty_cells_for(game: Game, disrupter: Player) -> list[int]:
    """Cells a disrupted enemy may go to: no miniature at all, not the disrupter's portal."""
    return board.cells_of(_empty_cell_mask(game, disrupter))


def _empty_cell_mask(game: Game, disrupter: Player) -> int:
    """``empty_cells_for`` as a bitmask."""
    cells = game.creature_cells
    taken = cells[0] | cells[1] | game.location_cells | 1 << board.PORTAL[disrupter]
    return board.ALL_CELLS & ~taken


def dying_in(game: Game, cell: int) -> tuple[int, ...]:
    combat = game.ongoing_combat()
    return tuple(
        mini
        for mini, (fate, _) in sorted(combat.marks.items())
        if fate is Fate.DESTROY and game.minis[mini].cell == cell
        and mini in combat.deathblown
    )  # fmt: skip


# --- checking one choice -----------------------------------------------------------------


_CHOICE_TYPES: dict[DecisionKind, tuple[type, ...]] = {
    DecisionKind.SPAWN: (SpawnChoice, ActivateChoice, Done),
    DecisionKind.ACTION: (ShiftChoice, StrikeChoice),
    DecisionKind.SHIFT: (MoveChoice, Done),
    DecisionKind.STRIKE: (AttackChoice, Done),
    DecisionKind.BLADE: (BladeChoice,),
    DecisionKind.ORDER: (OrderChoice,),
    DecisionKind.DAMAGE: (DamageChoice,),
    DecisionKind.FATE: (FateChoice,),
    DecisionKind.DEATHBLOW: (DeathblowChoice,),
    DecisionKind.RESOLVE: (PlaceChoice, BuryChoice),
    DecisionKind.TARGET: (TargetChoice,),
    DecisionKind.REROLL: (RerollChoice,),
}

_ANSWERS: Final[dict[type, tuple[DecisionKind, ...]]] = {
    choice_type: tuple(kind for kind, types in _CHOICE_TYPES.items() if choice_type in types)
    for types in _CHOICE_TYPES.values()
    for choice_type in types
}
"""The kinds of decision each type of choice answers: ``_CHOICE_TYPES`` the other way round,
for ``is_legal`` (a type is a faster key than a ``DecisionKind``)."""


def checked(game: Game, choice: Choice) -> Decision:
    """``Game.check_choice``, giving the decision that ``choice`` answers."""
    pending = game.pending
    if pending is None:
        raise GameOverError(f"the game is over; {choice!r} cannot be played")
    if isinstance(pending, ChanceRequest):
        raise IllegalChoiceError(
            f"the game is waiting for {pending.count} {pending.kind.value} dice, not a choice"
        )
    _check_field_types(choice)
    if is_legal(game, choice, pending):
        return pending
    if pending.kind is DecisionKind.DAMAGE:
        _check_damage(game, choice, pending)  # not a DamageChoice: says what it expects
    expected = _CHOICE_TYPES[pending.kind]
    if not isinstance(choice, expected):
        names = " or ".join(t.__name__ for t in expected)
        raise InvalidChoiceError(
            f"{pending.kind.value} decision of {pending.player.name} expects {names}, "
            f"got {choice!r}"
        )
    raise IllegalChoiceError(f"{choice!r} is not legal now: {_why_illegal(game, choice)}")


def is_legal(game: Game, choice: Choice, pending: Decision) -> bool:
    """Whether ``choice`` is among ``legal_choices()``, without building the list for
    the decisions whose lists are long (spawn, shift, strike, and the places of combat
    step 7: one per decision). A
    damage split, which has no list, is checked in full: it raises when illegal."""
    kind = type(choice)
    if pending.kind not in _ANSWERS.get(kind, ()):
        return False
    if kind is Done or kind is ShiftChoice or kind is StrikeChoice:
        return True  # always legal in the decisions that take them
    if kind is DamageChoice:
        _check_damage(game, choice, pending)
        return True
    if kind is SpawnChoice:
        return _can_spawn(game, choice)  # type: ignore[arg-type]
    if kind is ActivateChoice:
        return _can_activate(game, choice)  # type: ignore[arg-type]
    if kind is MoveChoice:
        return _can_move(game, choice)  # type: ignore[arg-type]
    if kind is AttackChoice:
        return _can_attack(game, choice)  # type: ignore[arg-type]
    if kind is PlaceChoice:
        return _can_place(game, choice)  # type: ignore[arg-type]
    legal = game.legal_choices()
    assert legal is not None
    return choice in legal


def _can_place(game: Game, choice: PlaceChoice) -> bool:
    """The conditions of ``resolve_choices`` for one PlaceChoice, without making the
    choice for every disrupted creature and empty cell: no burial comes first, and the
    creature is one the resolver disrupts, the cell one of ``empty_cells_for``."""
    resolver = PLAYERS[game.ongoing_combat().resolver]
    destroys = destroys_for(game, resolver)
    if destroys and not bury_order_matters(game, resolver, destroys):
        return False
    cell = choice.cell
    return (
        0 <= cell < board.CELL_COUNT
        and (_empty_cell_mask(game, resolver) >> cell) & 1 == 1
        and choice.mini in marked(game, Fate.DISRUPT, resolver)
    )


def _can_spawn(game: Game, choice: SpawnChoice) -> bool:
    """The conditions of ``_spawn_choices``, for one choice."""
    if not 0 <= choice.mini < len(game.minis):
        return False
    m = game.minis[choice.mini]
    return (
        m.owner is game.active
        and _spawnable(game, m)
        and game.spawn_cost(m) <= game.spawn_points
        and choice.cell in _spawn_cells(game, m)
    )


def _can_activate(game: Game, choice: ActivateChoice) -> bool:
    if not 0 <= choice.mini < len(game.minis):
        return False
    m = game.minis[choice.mini]
    if m.owner is not game.active or m.cell < 0 or not 0 <= choice.index < len(m.abilities):
        return False
    return choice.x in _activation_xs(game, m, choice.index, m.abilities[choice.index])


def _can_move(game: Game, choice: MoveChoice) -> bool:
    """The conditions of ``_move_choices``, for one choice."""
    if not 0 <= choice.mini < len(game.minis):
        return False
    return choice.cell in _shift_cells(game, game.minis[choice.mini])


def _can_attack(game: Game, choice: AttackChoice) -> bool:
    """The conditions of ``_attack_choices``, for one choice: a cell not yet attacked
    with enemy creatures in it, and a non-empty set of the striker's creatures there
    in increasing id order (a Loner alone)."""
    cell = choice.cell
    if not _may_attack(game, cell) or not choice.attackers:
        return False
    previous = -1
    for mini in choice.attackers:
        if mini <= previous or mini >= len(game.minis):
            return False
        m = game.minis[mini]
        if m.cell != cell or m.owner is not game.active or not m.is_creature:
            return False
        previous = mini
    return _may_attack_together(game, choice.attackers)


def _may_attack(game: Game, cell: int) -> bool:
    """Whether the striking player may attack ``cell`` (802.2a)."""
    return 0 <= cell < board.CELL_COUNT and (_attackable_cells(game) >> cell) & 1 == 1


def _attackable_cells(game: Game) -> int:
    """The cells the striking player may attack, as a bitmask: both players have
    creatures there, and it has not been attacked this strike (802.2a)."""
    cells = game.creature_cells
    return cells[game.active] & cells[game.active.other] & ~game.attacked_cells


def _check_damage(game: Game, choice: Choice, pending: Decision) -> None:
    if not isinstance(choice, DamageChoice):
        raise InvalidChoiceError(f"damage decision expects DamageChoice, got {choice!r}")
    total = 0
    previous = -1
    for mini, amount in choice.assignments:
        if not isinstance(mini, int) or not isinstance(amount, int):
            raise InvalidChoiceError(f"damage assignment {(mini, amount)!r} is not two ints")
        if mini <= previous:
            raise InvalidChoiceError(
                "damage assignments must name each target once, in increasing order"
            )
        previous = mini
        if mini not in pending.targets:
            raise IllegalChoiceError(
                f"miniature {mini} is not a local enemy here; targets are {pending.targets}"
            )
        if amount <= 0:
            raise IllegalChoiceError(f"damage to miniature {mini} must be positive")
        total += amount
    if total != pending.total:
        raise IllegalChoiceError(
            f"all {pending.total} damage must be assigned (900.2); this assigns {total}"
        )
    short = bodyguards_short(game, pending.targets, dict(choice.assignments))
    if short:
        raise IllegalChoiceError(
            "Bodyguard: no damage may go to "
            + ", ".join(game.minis[i].label for i in sorted(_unguarded(choice, short)))
            + " until "
            + ", ".join(f"{game.minis[g].label} has {need}" for g, need in short)
            + " (enough to disrupt or destroy it)"
        )


def bodyguards_short(
    game: Game, targets: Sequence[int], assigned: dict[int, int]
) -> list[tuple[int, int]]:
    """Bodyguards still short of their need when others take damage: (id, need)."""
    guards = game.bodyguards(targets)
    if not guards or all(i in guards for i in assigned):
        return []
    return [
        (g, game.bodyguard_need(g))
        for g in guards
        if game.minis[g].damage + assigned.get(g, 0) < game.bodyguard_need(g)
    ]


def _why_illegal(game: Game, choice: Choice) -> str:
    """A short reason for an illegal choice of the right type (best effort, for people)."""
    step = game.step
    if isinstance(choice, SpawnChoice) and step is Step.SPAWN:
        if not 0 <= choice.mini < len(game.minis):
            return f"there is no miniature {choice.mini}"
        m = game.minis[choice.mini]
        if m.owner is not game.active:
            return f"{m.label} is not {game.active.name}'s"
        if not _spawnable(game, m):
            if m.zone is not Zone.RESERVES:
                return f"{m.label} is not in reserves"
            return f"{m.label} can't be spawned now (Unique or Vengeance)"
        cost = game.spawn_cost(m)
        if cost > game.spawn_points:
            return f"{m.label} costs {cost} and only {game.spawn_points} spawn points are left"
        if not 0 <= choice.cell < board.CELL_COUNT:
            return f"there is no cell {choice.cell}"
        cell = board.cell_name(choice.cell)
        if m.defn.is_location:
            return (
                f"{m.label} can't be spawned in {cell}: a location goes to a cell with a "
                "creature of yours and no location (801.7)"
            )
        return (
            f"{m.label} can't be spawned in {cell}: a creature goes to your portal, or to a "
            "cell of your spawn row that had no ally at the start of the phase, in a "
            "column where you have a miniature, four at most (801.5, 801.6)"
        )
    if isinstance(choice, ActivateChoice) and step is Step.SPAWN:
        return (
            "that spawn ability can't be used now: it was used already, costs more than the "
            "spawn points left, or its miniature is not on a scoring cell"
        )
    if isinstance(choice, MoveChoice) and step is Step.SHIFT:
        if not 0 <= choice.mini < len(game.minis):
            return f"there is no miniature {choice.mini}"
        m = game.minis[choice.mini]
        if m.owner is not game.active or m.cell < 0:
            return f"{m.label} is not a creature {game.active.name} controls"
        if m.moved:
            return f"{m.label} has already moved this shift"
        if game.is_engaged(m):
            return f"{m.label} is engaged and can't move (802.1a)"
        if (game.locked_cells >> m.cell) & 1:
            return f"{m.label} is in a locked-down cell (Lockdown)"
        if not 0 <= choice.cell < board.CELL_COUNT or choice.cell not in board.ADJACENT[m.cell]:
            return "creatures move one cell forward, back, left or right (802.1b)"
        if game.creatures[m.owner.other][choice.cell] and has_active(game, m, "Defender"):
            return f"{m.label} has Defender: it can't shift into a cell with enemies"
        return f"{game.active.name} already has four creatures there (802.1c)"
    pending = game.pending
    if isinstance(choice, OrderChoice) and isinstance(pending, Decision):
        waiting = len(pending.minis)
        return f"{waiting} effects wait; choose one of 'order 1' to 'order {waiting}'"
    if isinstance(choice, AttackChoice) and step is Step.STRIKE:
        if (game.attacked_cells >> choice.cell) & 1 if 0 <= choice.cell < 25 else False:
            return "that cell has already been attacked this strike (802.2a)"
        if not _may_attack_together(game, choice.attackers):
            return "a creature with Loner can't attack with others"
        return "only your creatures that share the cell with enemy creatures can attack it (802.2)"
    return "it is not among the legal choices"


def _unguarded(choice: DamageChoice, short: list[tuple[int, int]]) -> list[int]:
    guards = {g for g, _ in short}
    return [mini for mini, _ in choice.assignments if mini not in guards]


def _check_field_types(choice: Choice) -> None:
    """Fields are ints (bools only for ``destroy``): ``True == 1`` must not pass for a miniature."""
    for name in getattr(type(choice), "__slots__", ()):
        value = getattr(choice, name)
        if type(value) is not int or name == "destroy":  # a plain int is right but for destroy
            _check_value(choice, name, value)


def _check_value(choice: Choice, name: str, value: object) -> None:
    if isinstance(value, tuple):
        for item in value:
            _check_value(choice, name, item)
    elif (type(value) is not bool) if name == "destroy" else (type(value) is not int):
        raise InvalidChoiceError(f"{type(choice).__name__}.{name} holds {value!r}, not an int")


# --- whether a step has more than DONE to offer ------------------------------------------


def shift_choices(game: Game) -> list[Choice] | None:
    """The choices of a shift decision now (every move, then DONE), or None when no
    creature may move: the shift is over (asked after every move)."""
    moves = _move_choices(game)
    if not moves:
        return None
    moves.append(DONE)
    return moves


def may_still_strike(game: Game) -> bool:
    """Whether a cell may still be attacked this strike."""
    return _attackable_cells(game) != 0


# --- spawn costs ---------------------------------------------------------------------------


def spawn_cost(
    game: Game, m: Mini, counts: list[int], channels: list[tuple[str | None, int]] | None = None
) -> int:
    """What spawning ``m`` costs when its owner has ``counts`` miniatures of each aspect
    (``Game.spawn_cost``); ``channels``: the owner's ``channel_reductions``, if the
    caller has them.

    The glossary's *cost* is "the spawn cost plus the aspect cost", one extra point for
    each miniature an aspect is short (801.4); Channel makes miniatures "cost X less to
    spawn", so it reduces that whole amount, and 900.8 floors the result at 0 after all
    modifiers: a 1VV miniature with both Valor short under Channel 2 costs 1 + 2 - 2 = 1.
    """
    base, shortfall, reduction = spawn_cost_parts(game, m, counts, channels)
    return apply_minimum(Stat.COST, base + shortfall - reduction)


def spawn_cost_parts(
    game: Game, m: Mini, counts: list[int], channels: list[tuple[str | None, int]] | None = None
) -> tuple[int, int, int]:
    """The three parts of ``spawn_cost``: the spawn cost (Respawn's cost from the
    graveyard), the aspect shortfall (801.4) and Channel's reduction (``channels``: the
    owner's ``channel_reductions``, if the caller has them), before the 900.8 floor."""
    cost = m.defn.spawn_cost
    itself = 0  # a miniature in the graveyard counts towards its own aspects there
    if m.zone is Zone.GRAVEYARD:
        # Respawn: "as if it were in your reserves", so it does not count for itself.
        respawn = _respawn(game, m)
        if respawn is not None:
            cost = respawn.x or 0
        itself = 1
    shortfall = 0
    for aspect, needed in m.needs:
        have = counts[aspect] - itself
        if have < needed:
            shortfall += needed - have
    reduction = 0
    if game.rules.statics.channels:
        if channels is None:
            channels = channel_reductions(game, m.owner)
        if channels:  # no generator for the usual none
            reduction = sum(x for modifier, x in channels if matches(modifier, m.defn))
    return cost, shortfall, reduction


def _respawn(game: Game, m: Mini) -> AbilityDef | None:
    for ability in m.abilities:
        if ability.keyword == "Respawn":
            return ability
    return None
