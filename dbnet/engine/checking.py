"""Checking one choice against the pending decision, and saying why it is illegal.

``checked`` validates one choice (``Game.check_choice``, ``Game.apply``) without
building the list of legal choices where it is long (spawn, shift, strike, and the
places of combat step 7: ``is_legal`` tests the conditions ``listing`` lists by), and
for a damage split, which has no list; an illegal choice raises with what was wrong
and, for people, why (``_why_illegal``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from dbnet.engine import board
from dbnet.engine.abilities import bodyguards_short, has_active
from dbnet.engine.choices import (
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
    Pending,
    PlaceChoice,
    RerollChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
    TargetChoice,
)
from dbnet.engine.combat import Fate
from dbnet.engine.costs import spawn_cost
from dbnet.engine.enums import Step, Zone
from dbnet.engine.listing import (
    activation_xs,
    attackable_cells,
    bury_order_matters,
    destroys_for,
    empty_cell_mask,
    legal_choices,
    marked,
    may_attack_together,
    shift_cells,
    spawn_cells,
    spawnable,
)
from dbnet.engine.model import PLAYERS
from dbnet.errors import GameOverError, IllegalChoiceError, InvalidChoiceError

if TYPE_CHECKING:
    from dbnet.engine.state import State

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


def checked(game: State, pending: Pending | None, choice: Choice) -> Decision:
    """``Game.check_choice``, giving the decision that ``choice`` answers; ``pending`` is
    what the game waits for now (``Game.pending``)."""
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
    raise IllegalChoiceError(f"{choice!r} is not legal now: {_why_illegal(game, pending, choice)}")


def is_legal(game: State, choice: Choice, pending: Decision) -> bool:
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
    legal = legal_choices(game)
    assert legal is not None
    return choice in legal


def _can_place(game: State, choice: PlaceChoice) -> bool:
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
        and (empty_cell_mask(game, resolver) >> cell) & 1 == 1
        and choice.mini in marked(game, Fate.DISRUPT, resolver)
    )


def _can_spawn(game: State, choice: SpawnChoice) -> bool:
    """The conditions of ``_spawn_choices``, for one choice."""
    if not 0 <= choice.mini < len(game.minis):
        return False
    m = game.minis[choice.mini]
    return (
        m.owner is game.active
        and spawnable(game, m)
        and spawn_cost(game, m, game.aspect_counts[m.owner]) <= game.spawn_points
        and choice.cell in spawn_cells(game, m)
    )


def _can_activate(game: State, choice: ActivateChoice) -> bool:
    if not 0 <= choice.mini < len(game.minis):
        return False
    m = game.minis[choice.mini]
    if m.owner is not game.active or m.cell < 0 or not 0 <= choice.index < len(m.abilities):
        return False
    return choice.x in activation_xs(game, m, choice.index, m.abilities[choice.index])


def _can_move(game: State, choice: MoveChoice) -> bool:
    """The conditions of ``_move_choices``, for one choice."""
    if not 0 <= choice.mini < len(game.minis):
        return False
    return choice.cell in shift_cells(game, game.minis[choice.mini])


def _can_attack(game: State, choice: AttackChoice) -> bool:
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
    return may_attack_together(game, choice.attackers)


def _may_attack(game: State, cell: int) -> bool:
    """Whether the striking player may attack ``cell`` (802.2a)."""
    return 0 <= cell < board.CELL_COUNT and (attackable_cells(game) >> cell) & 1 == 1


def _check_damage(game: State, choice: Choice, pending: Decision) -> None:
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


def _why_illegal(game: State, pending: Decision, choice: Choice) -> str:
    """A short reason for an illegal choice of the right type (best effort, for people)."""
    step = game.step
    if isinstance(choice, SpawnChoice) and step is Step.SPAWN:
        if not 0 <= choice.mini < len(game.minis):
            return f"there is no miniature {choice.mini}"
        m = game.minis[choice.mini]
        if m.owner is not game.active:
            return f"{m.label} is not {game.active.name}'s"
        if not spawnable(game, m):
            if m.zone is not Zone.RESERVES:
                return f"{m.label} is not in reserves"
            return f"{m.label} can't be spawned now (Unique or Vengeance)"
        cost = spawn_cost(game, m, game.aspect_counts[m.owner])
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
    if isinstance(choice, OrderChoice):
        waiting = len(pending.minis)
        return f"{waiting} effects wait; choose one of 'order 1' to 'order {waiting}'"
    if isinstance(choice, AttackChoice) and step is Step.STRIKE:
        if (game.attacked_cells >> choice.cell) & 1 if 0 <= choice.cell < 25 else False:
            return "that cell has already been attacked this strike (802.2a)"
        if not may_attack_together(game, choice.attackers):
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
