"""Turn flow: what the game waits for, the automatic work between inputs, the turn.

``make_pending`` says what the game waits for now. ``advance`` runs after every
input: a roll in progress and an ability's targets come first, then triggered
effects (resolved by ``activation``) and the queued parts of effects (done one at a
time by ``run_op``), both waiting on the stack (``stack``), then the check of damage
dealt outside combat (900.3), then the step's own work (``_STEP_WORK``), until
input is needed. ``PLAY`` applies a checked choice by its type. The turn's
phases (initiative, spawn, four action phases, conquest) start and end here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dbnet.engine import activation, board, effects, listing, procedure, resolution, stack, zones
from dbnet.engine.abilities import claimed_points, is_active
from dbnet.engine.choices import (
    ActivateChoice,
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
    OrderChoice,
    Pending,
    PlaceChoice,
    RerollChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
    TargetChoice,
)
from dbnet.engine.combat import Fate, Purpose, Rolling, Stage
from dbnet.engine.enums import EndReason, Mode, Phase, Step, Zone
from dbnet.engine.model import PLAYERS, Player
from dbnet.engine.rules import CREATURES_PER_PLAYER_PER_CELL
from dbnet.engine.state import sync
from dbnet.engine.targets import options
from dbnet.engine.waiting import EventKind, Op, OpKind

if TYPE_CHECKING:
    from dbnet.engine.state import State

_PLAIN_DECISIONS: Final[dict[Step, tuple[Decision, Decision]]] = {
    step: (Decision(Player.A, kind), Decision(Player.B, kind))
    for step, kind in (
        (Step.SPAWN, DecisionKind.SPAWN),
        (Step.ACTION, DecisionKind.ACTION),
        (Step.SHIFT, DecisionKind.SHIFT),
        (Step.STRIKE, DecisionKind.STRIKE),
    )
}
"""The decisions that name nothing but who owes them, by step and player (immutable, so
made once and shared)."""

_CHANCE_KINDS = {
    Purpose.ATTACK: ChanceKind.ATTACK,
    Purpose.DEATHBLOW: ChanceKind.DEATHBLOW,
    Purpose.SPECIAL: ChanceKind.SPECIAL,
    Purpose.WAIL: ChanceKind.WAIL,
}


@functools.cache
def _roll_request(purpose: Purpose, rerolled: bool, count: int, owner: Player) -> ChanceRequest:
    """The dice a roll in progress waits for: built once per purpose, stage, count and owner,
    then shared (a ChanceRequest is immutable, and building one costs about 0.5 us)."""
    kind = ChanceKind.REROLL if rerolled else _CHANCE_KINDS[purpose]
    return ChanceRequest(kind, count, owner=owner)


@functools.cache
def _initiative_request(players: tuple[Player, ...]) -> ChanceRequest:
    """The initiative dice of ``players`` (both, or those who reroll): built once per
    tuple of players, then shared, like ``_roll_request``."""
    return ChanceRequest(ChanceKind.INITIATIVE, len(players), players=players)


# --- pending and automatic flow --------------------------------------------------------


def make_pending(game: State) -> Pending | None:
    """What the game waits for now (``Game.pending`` keeps it until the state changes)."""
    rolling = game.rolling
    if rolling is not None:
        if rolling.stage is Stage.DECIDE:
            mini, index, x = rolling.fortunes[0]
            return Decision(
                rolling.owner,
                DecisionKind.REROLL,
                cell=game.minis[mini].cell,
                total=x,
                minis=(mini,),
                ability=(mini, index),
                dice=tuple(rolling.dice),
            )
        rerolled = rolling.stage is Stage.REROLL
        return _roll_request(rolling.purpose, rerolled, rolling.count, rolling.owner)
    targeting = game.choosing
    if targeting is not None:
        holder = game.minis[targeting.holder]
        return Decision(
            targeting.controller,
            DecisionKind.TARGET,
            cell=holder.cell,
            minis=(targeting.holder,),
            ability=(targeting.source, targeting.index),
        )
    frame = stack.trigger_frame(game) if game.stack else None  # the stack is mostly empty
    if frame is not None:
        player = stack.trigger_player(game)
        ordered = [frame[i] for i in stack.waiting_triggers(game, player)]
        return Decision(
            player,
            DecisionKind.ORDER,
            minis=tuple(t.mini for t in ordered),
            ability=tuple(t.index for t in ordered),
        )
    step = game.step
    plain = _PLAIN_DECISIONS.get(step)
    if plain is not None:
        return plain[game.active]
    if step is Step.OVER:
        return None
    if step is Step.ROLL_INITIATIVE:
        return _initiative_request(game.reroll)
    combat = game.ongoing_combat()
    if step is Step.BLADE:
        return Decision(game.active, DecisionKind.BLADE, cell=combat.cell, total=combat.blades)
    if step is Step.DAMAGE:
        owner = PLAYERS[combat.damage_owner]
        return Decision(
            owner,
            DecisionKind.DAMAGE,
            cell=combat.damage_cell,
            total=combat.damage_total,
            targets=game.creature_ids(combat.damage_cell, owner.other),
        )
    if step is Step.FATE:
        fated = game.minis[combat.fate_queue[0]]
        return Decision(fated.owner.other, DecisionKind.FATE, cell=fated.cell, minis=(fated.id,))
    if step is Step.DEATHBLOW:
        cell = combat.deathblow_queue[0]
        return Decision(
            game.first.other, DecisionKind.DEATHBLOW, cell=cell, minis=listing.dying_in(game, cell)
        )
    assert step is Step.RESOLVE, step
    resolver = PLAYERS[combat.resolver]
    destroys = listing.destroys_for(game, resolver)
    waiting = (
        tuple(destroys)
        if destroys and not listing.bury_order_matters(game, resolver, destroys)
        else tuple(mini for mini, (_, by) in sorted(combat.marks.items()) if by is resolver)
    )
    return Decision(resolver, DecisionKind.RESOLVE, minis=waiting)


def advance(game: State) -> None:
    """Run automatic work until a real decision or dice are needed.

    A roll in progress and an ability's targets come first; then triggered effects
    (nothing voluntary happens while any wait: glossary, triggered ability); then
    the rest of the effects in progress, one move or attack at a time; then the
    check of damage dealt outside combat (900.3, also before an effect's next move);
    then the step. Each pass of the loop does one thing, so what a thing triggers
    resolves before the next. The step's work comes from ``_STEP_WORK``; at the end
    of the game nothing is left to do (``finish`` clears it all).
    """
    while True:
        if game.rolling is not None:
            return
        targeting = game.choosing
        if targeting is not None:
            found = options(game, targeting)
            if len(found) > 1:
                game._choices = [TargetChoice(o) for o in found]
                return
            game.choosing = None  # one way to do it, or none (900.1c): no decision
            effects.resolve(game, targeting, found[0] if found else ())
            continue
        if game.stack and not stack.ops_wait(game):
            if stack.trigger_frame(game) is None:
                run_op(game)
            elif activation.resolve_next_trigger(game):
                return
            continue
        if game.damaged_outside_combat and game.combat is None:
            resolution.start_damage_check(game)
            continue
        work = _STEP_WORK.get(game.step)
        if work is None or work(game):
            return


def run_op(game: State) -> None:
    """Do the next queued part of the innermost effect."""
    frame = game.stack[-1]
    op = frame.pop(0)
    assert isinstance(op, Op)
    if not frame:
        game.stack.pop()
    m = game.minis[op.mini]
    if op.kind is OpKind.MOVE:
        # 900.1c, 900.13: a target that left, or a cell now full, is skipped.
        if (
            m.cell >= 0
            and m.is_creature
            and m.cell != op.arg
            and game.creatures[m.owner][op.arg] < CREATURES_PER_PLAYER_PER_CELL
        ):
            zones.move(game, m, op.arg)
    elif op.kind is OpKind.SWAP:
        other = game.minis[op.arg]
        if (
            m.cell >= 0
            and other.cell >= 0
            and m.cell != other.cell
            and m.is_creature
            and other.is_creature
        ):
            here, there = m.cell, other.cell
            zones.place(game, m, Zone.DREAMSCAPE, there)
            zones.place(game, other, Zone.DREAMSCAPE, here)
            stack.emit(game, EventKind.ENTERED, m.id, there)
            stack.emit(game, EventKind.ENTERED, other.id, here)
    elif op.kind is OpKind.ATTACK:
        procedure.start_special(game, op.mini, op.extra, op.arg)
    elif op.kind is OpKind.STRIKEBACK:
        # The attack is over and checked: it disrupted or destroyed its target, or nothing.
        if game.minis[op.arg].cell == op.extra:
            found = stack.strikebacks(game, m.owner.other, op.extra)
            if found:
                stack.push_triggers(game, found)
    else:
        assert op.kind is OpKind.WAIL
        game.rolling = Rolling(Purpose.WAIL, m.owner, 2, [], attacker=m.id)


# --- the automatic work of each step (advance): True when input is needed ---------


def _spawn_step(game: State) -> bool:
    if _offers(game, listing.spawn_choices, listing.may_spawn):
        return True
    end_spawn_phase(game)
    return False


def _shift_step(game: State) -> bool:
    if _offers(game, listing.shift_choices, listing.may_move):
        return True
    end_action_phase(game)
    return False


def _offers(
    game: State, choices: Callable[[State], list[Choice]], any_offered: Callable[[State], bool]
) -> bool:
    """Whether a spawn or a shift still offers anything but DONE. Listed at once where the
    last choice was picked from its list (``State._lists_ahead``), the list answers and is
    the pending decision's (kept, unless a triggered effect waits); else only asked."""
    if not game._lists_ahead:
        return any_offered(game)
    listed = choices(game)
    if len(listed) == 1:  # DONE alone
        return False
    if not game.stack:
        game._choices = listed
    return True


def _strike_step(game: State) -> bool:
    if listing.may_still_strike(game):
        return True
    end_action_phase(game)
    return False


_STEP_WORK: Final[dict[Step, Callable[[State], bool]]] = {
    Step.SPAWN: _spawn_step,
    Step.SHIFT: _shift_step,
    Step.STRIKE: _strike_step,
    Step.BLADE: procedure.blade_step,
    Step.RESOLVE: resolution.resolve_step,
    Step.COMBAT_END: resolution.combat_end_step,
}
"""What ``advance`` does at the steps with automatic work; the other steps (and the
game's end) only wait for input. Spawn, shift and strike end once their decision offers
nothing besides DONE."""

# --- playing each type of choice (``Game.apply`` has checked the choice) ----------------


def _play_reroll(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, RerollChoice)
    procedure.reroll(game, choice.dice)


def _play_target(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, TargetChoice)
    targeting = game.choosing
    assert targeting is not None
    game.choosing = None
    effects.resolve(game, targeting, choice.targets)


def _play_order(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, OrderChoice)
    chosen = stack.waiting_triggers(game, pending.player)[choice.position]
    activation.resolve_trigger(game, stack.pop_trigger(game, chosen))


def _play_done(game: State, choice: Choice, pending: Decision) -> None:
    if pending.kind is DecisionKind.SPAWN:
        end_spawn_phase(game)
    else:  # a shift or a strike
        end_action_phase(game)


def _play_spawn(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, SpawnChoice)
    zones.spawn(game, game.minis[choice.mini], choice.cell)


def _play_activate(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, ActivateChoice)
    activation.activate_spawn_ability(game, choice)


def _play_action(game: State, choice: Choice, pending: Decision) -> None:
    game.mode = Mode.SHIFT if isinstance(choice, ShiftChoice) else Mode.STRIKE
    game.step = Step.SHIFT if isinstance(choice, ShiftChoice) else Step.STRIKE


def _play_move(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, MoveChoice)
    m = game.minis[choice.mini]
    m.moved = True  # written with its new cell
    zones.move(game, m, choice.cell)


def _play_attack(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, AttackChoice)
    procedure.start_combat(game, choice.cell, choice.attackers)


def _play_blade(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, BladeChoice)
    source = choice.mini if choice.source < 0 else choice.source
    procedure.assign_blade(game, choice.mini, source, choice.index)


def _play_damage(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, DamageChoice)
    procedure.assign_damage(game, choice.assignments)


def _play_fate(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, FateChoice)
    combat = game.ongoing_combat()
    combat.fate_queue.pop(0)
    fate = Fate.DESTROY if choice.destroy else Fate.DISRUPT
    combat.marks[choice.mini] = (fate, game.minis[choice.mini].owner.other)
    resolution.after_fates(game)


def _play_deathblow(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, DeathblowChoice)
    procedure.declare_deathblow(game, choice.cell, choice.attackers)


def _play_resolve(game: State, choice: Choice, pending: Decision) -> None:
    assert isinstance(choice, BuryChoice | PlaceChoice)
    resolution.apply_resolution(game, choice)


PLAY: Final[dict[type, Callable[[State, Choice, Decision], None]]] = {
    RerollChoice: _play_reroll,
    TargetChoice: _play_target,
    OrderChoice: _play_order,
    Done: _play_done,
    SpawnChoice: _play_spawn,
    ActivateChoice: _play_activate,
    ShiftChoice: _play_action,
    StrikeChoice: _play_action,
    MoveChoice: _play_move,
    AttackChoice: _play_attack,
    BladeChoice: _play_blade,
    DamageChoice: _play_damage,
    FateChoice: _play_fate,
    DeathblowChoice: _play_deathblow,
    BuryChoice: _play_resolve,
    PlaceChoice: _play_resolve,
}
"""How ``Game.apply`` plays a legal choice, by its type (each type answers one kind of
decision, but DONE ends a spawn phase, a shift or a strike). A type is a faster key than
a ``DecisionKind``, whose hash is Python code."""

# --- turn structure ----------------------------------------------------------------------


def start_turn(game: State) -> None:
    game.turn += 1
    game.phase = Phase.INITIATIVE
    game.step = Step.ROLL_INITIATIVE
    game.initiative = [0, 0]
    game.reroll = (Player.A, Player.B)
    game.kills = [0, 0]
    game.locked_cells = 0  # Lockdown lasts the turn


def after_initiative(game: State) -> None:
    a, b = game.initiative
    ones = tuple(p for p in (Player.A, Player.B) if game.initiative[p] == 1)
    # 700.1 (first turn) and FAQ rule 430 (after a skipped spawn phase): reroll 1s.
    if ones and (
        game.turn == 1
        or (game.rules.setup.options.tournament_initiative and game.had_one_last_turn)
    ):
        game.reroll = ones
        return
    if a == b:
        wa, wb = game.turns_won
        if game.turn == 1 or wa == wb:  # 700.1, 800: reroll ties
            game.reroll = (Player.A, Player.B)
            return
        game.first = Player.A if wa > wb else Player.B
    else:
        game.first = Player.A if a > b else Player.B
    game.skip_spawn = 1 in (a, b)  # 800.1
    game.had_one_last_turn = game.skip_spawn
    if game.skip_spawn:
        start_action_phase(game, 0)
    else:
        start_spawn_phase(game, game.first)


def start_spawn_phase(game: State, player: Player) -> None:
    game.phase = Phase.SPAWN
    game.step = Step.SPAWN
    game.active = player
    # 801.1, 801.2, 801.10: unmodified initiative dice plus bonus points; Energize.
    game.spawn_points = game.initiative[0] + game.initiative[1] + game.bonus[player]
    game.bonus[player] = 0
    for mini, _, ability in game.rules.statics.of("Energize"):
        m = game.minis[mini]
        if m.owner is player and is_active(game, m, ability):
            game.spawn_points += ability.x or 0
    game.allies_at_spawn_start = game.creature_cells[player]
    game.spawned_into = [0] * board.CELL_COUNT
    game.spawn_uses = []


def end_spawn_phase(game: State) -> None:
    game.spawn_points = 0  # 801.9: leftover points are wasted
    game.spawn_uses = []
    _clear_damage(game)  # 802.2h: damage taken in another phase lasts until its end
    if game.active is game.first:
        start_spawn_phase(game, game.first.other)
    else:
        start_action_phase(game, 0)


def start_action_phase(game: State, index: int) -> None:
    game.phase = Phase.ACTION
    game.action_index = index
    game.active = game.first if index < 2 else game.first.other
    game.mode = Mode.NONE
    game.step = Step.ACTION
    game.attacked_cells = 0
    game.allies_at_spawn_start = 0
    game.spawned_into = [0] * board.CELL_COUNT


def end_action_phase(game: State) -> None:
    _clear_damage(game)  # 802.2i
    moved = [m for m in game.minis if m.moved]
    for m in moved:
        m.moved = False
        sync(game, m)
    game.mode = Mode.NONE
    game.attacked_cells = 0
    if game.action_index < 3:
        start_action_phase(game, game.action_index + 1)
    else:
        _conquest(game)


def _conquest(game: State) -> None:
    """803: claimed scoring cells plus one point per enemy destroyed this turn."""
    game.phase = Phase.CONQUEST
    points = [claimed_points(game, p) + game.kills[p] for p in (Player.A, Player.B)]
    game.conquest_history.append((points[0], points[1]))
    if points[0] != points[1]:  # 803.3: a tie wins nobody the turn
        winner = Player.A if points[0] > points[1] else Player.B
        game.turns_won[winner] += 1
        if game.turns_won[winner] >= game.rules.setup.options.turns_to_win:
            finish(game, winner, EndReason.VICTORY)
            return
    start_turn(game)


def finish(game: State, winner: Player, reason: EndReason) -> None:
    game.phase = Phase.OVER
    game.step = Step.OVER
    game.winner = winner
    game.end_reason = reason
    game.combat = None
    game.rolling = None
    game.choosing = None
    game.stack = []
    game.no_disrupt = []
    game.damaged_outside_combat = False


def _clear_damage(game: State) -> None:
    damaged = [m for m in game.minis if m.damage]
    for m in damaged:
        m.damage = 0
        sync(game, m)
    game.no_disrupt = []  # Relentless holds as long as the damage it dealt (802.2h)
