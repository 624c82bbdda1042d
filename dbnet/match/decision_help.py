"""Helping a player decide, in words: the legal choices of the pending decision in
notation with what each does where the notation does not say it, the rules of the
decision (``help``), a Limited player's pool, and a miniature's card (``show NAME``).
Nothing here changes the game; what a warband brings is shown escaped
(``dbnet.text.printable``).
"""

from __future__ import annotations

import textwrap

from dbnet.engine import (
    AbilityDef,
    ActivateChoice,
    Activation,
    BladeChoice,
    Choice,
    Decision,
    DecisionKind,
    Game,
    Mini,
    OrderChoice,
    Player,
    RerollChoice,
    StrikeChoice,
    TargetChoice,
    Zone,
    format_choice,
)
from dbnet.engine.abilities import blade_abilities
from dbnet.engine.board import cell_name
from dbnet.engine.notation import format_attack_dice
from dbnet.engine.targets import Slot, slots
from dbnet.match.ability_words import (
    MOVES,
    ability_heading,
    ability_name,
    explained,
    owned_ability,
    waiting_effects,
)
from dbnet.match.render import WIDTH, describe_pending, fit, wrap_items
from dbnet.text import printable

MEANINGS_LISTED = 12  # more choices than this are listed without what each does

DECISION_HELP: dict[DecisionKind, str] = {
    DecisionKind.SPAWN: (
        "Spawn phase: spend spawn points to put miniatures from your reserves into the "
        "dreamscape, one at a time: 'spawn NAME CELL'. A creature goes to your portal, or "
        "to a cell of your spawn row that had no ally at the start of the phase, in a "
        "column where you have a miniature. Each aspect your warband is missing costs one "
        "extra point. A miniature in the dreamscape with a spawn ability can use it for its "
        "cost in spawn points: 'activate NAME ABILITY', or 'activate NAME ABILITY X' when "
        "the cost is X; its targets are chosen next. Points you do not spend are lost. "
        "'done' ends the phase. (Rules 801, 801.4-801.9, 303.2a.)"
    ),
    DecisionKind.ACTION: (
        "Action phase: choose 'shift' to move your creatures that are not engaged, or "
        "'strike' to attack with your engaged ones. The choice holds for all your "
        "creatures this phase. (Rules 802, 802.1, 802.2.)"
    ),
    DecisionKind.SHIFT: (
        "Shift: move creatures that are not engaged one cell forward, back, left or right, "
        "never diagonally, each at most once: 'move NAME CELL'. Engaged creatures cannot "
        "move, and you cannot have more than four creatures in a cell. 'done' ends the "
        "shift. (Rules 802.1, 802.1a-802.1c.)"
    ),
    DecisionKind.STRIKE: (
        "Strike: attack in a cell where your creatures share the cell with enemy "
        "creatures: 'attack CELL' attacks with all of them, 'attack CELL NAME ...' with "
        "some. Each cell can be attacked once per strike. Every attacker rolls as many dice "
        "as its power; faces 1-3 deal that much damage, 4-5 miss, 6 is a blade. 'done' ends "
        "the strike. (Rules 802.2, 802.2a, 302.)"
    ),
    DecisionKind.DAMAGE: (
        "Assign damage: split all of it among the enemy creatures in the cell however you "
        "like: 'damage NAME=N NAME=N'. At the end of the combat, damage at least equal to a "
        "creature's defense disrupts it; at least equal to its life destroys it. (Rules "
        "802.2d, 802.2e; combat step 4.)"
    ),
    DecisionKind.FATE: (
        "Disrupt or destroy: the damage reached both this creature's defense and its life, "
        "so you choose: 'destroy NAME' (it goes to the graveyard and you score a conquest "
        "point) or 'disrupt NAME' (you move it to an empty cell). When only one creature "
        "waits, 'destroy' or 'disrupt' alone is enough. (Rules 802.2d, 802.2f, 803.2.)"
    ),
    DecisionKind.DEATHBLOW: (
        "Deathblow: creatures of the second player destroyed in the first player's action "
        "phase may attack local enemies before they go to the graveyard. 'deathblow CELL' "
        "strikes with all of them, 'deathblow CELL NAME ...' with some, 'deathblow CELL "
        "none' with none. Blades count as misses. (Rule 802.2g.)"
    ),
    DecisionKind.RESOLVE: (
        "After the combat: deal with the enemy creatures marked in this combat, one at a "
        "time. Put a disrupted creature in an empty cell: 'place NAME CELL'; if no cell is "
        "empty it is destroyed instead: 'bury NAME'. Marked miniatures are destroyed with "
        "'bury NAME' when their order matters. (Rule 802.2f; combat step 7 in the FAQ.)"
    ),
    DecisionKind.BLADE: (
        "Blades: each blade rolled must go to a blade ability of an attacker (or of your "
        "location in the cell) while one can take it, even a harmful one; a 'may' ability "
        "can take a blade and do nothing. 'blade NAME ABILITY'. A blade or double blade "
        "ability takes blades once per attack, a multiblade ability any number of times; a "
        "double blade ability takes two at once. An ability a creature has from another "
        "miniature names that miniature last: 'blade imp crit herald' is the Crit 2 the "
        "herald's Hell's Fury grants the imp, 'blade mimic crit ogre' the ogre's Crit that "
        "the mimic copies (Copy). (Rules 303.1, 802.2c, 900.10, 900.11; combat step 3.)"
    ),
    DecisionKind.TARGET: (
        "Targets: an ability chooses all its targets when it is activated, in the order it "
        "takes them: a creature and then the cell it moves to for a move (Advance, "
        "Skirmish, Expel, Scare, Lure, Teleport: 'target NAME CELL'), a miniature for most "
        "others ('target NAME'), a cell for Lockdown and Teleport Self; an ability with a "
        "number of targets takes up to that many, each creature followed by its cell "
        "('target NAME CELL NAME CELL'). A 'may' ability can be used without effect: "
        "'target none'. A target that is no longer legal when the effect happens is "
        "skipped. (Rules 900.9, 900.1c; FAQ.)"
    ),
    DecisionKind.REROLL: (
        "Fortunate: before the dice count, you may reroll up to X of them, naming one die "
        "of each face to reroll: 'reroll - B' rerolls a miss and a blade, 'reroll 1 1' two "
        "1s; faces are 1, 2, 3 (damage), - (a 4 or 5: a miss) and B (a 6: a blade). "
        "'reroll none' keeps them all. The new results stand. Each Fortunate ability "
        "rerolls separately, one after another. (Combat step 2; FAQ.)"
    ),
    DecisionKind.ORDER: (
        "Simultaneous effects: several of your triggered abilities happen at the same "
        "time; you choose the order. 'order N' resolves the N-th waiting effect, as listed, "
        "next; you are asked again while more than one waits. The player whose phase it is "
        "resolves all theirs first, then the other player. (Rule 900.7a.)"
    ),
    DecisionKind.COMMIT: (
        "Limited play: build a warband from your pool (at most 16 miniatures, at most three "
        "copies of one, no more copies than the pool holds). 'pick NAME ...' saves one; "
        "'auto' shows the automatic build; 'done' commits to the saved warband, or to the "
        "automatic build if none is saved. Only a hash is sent now, so neither player sees "
        "the other's warband before both are fixed; when your build time runs out, the "
        "saved warband (or the automatic build) is committed. (Rules 600, 600.6.)"
    ),
    DecisionKind.REVEAL: (
        "Limited play: both players have committed; the warband committed to is revealed "
        "with its salt, and checked against the commitment and the pool. Each player sees "
        "the other's warband. (Rules 600.6, 600.7.)"
    ),
}


IDLE_STRIKE_HELP = (
    "None of your creatures shares a cell with an enemy creature now: 'strike' would "
    "attack nothing and end this action phase (802.2)."
)


def engaged(game: Game, player: Player) -> bool:
    """Whether a creature of ``player``'s shares a cell with an enemy creature."""
    cells = game.creature_cells
    return bool(cells[player] & cells[player.other])


def choice_meaning(game: Game, choice: Choice) -> str:
    """What a choice does, in words, where its notation does not say it plainly (spawn
    abilities, blades, targets, the order of effects, rerolls, a strike that would find
    nothing); else empty."""
    if isinstance(choice, StrikeChoice):
        pending = game.pending
        idle = isinstance(pending, Decision) and not engaged(game, pending.player)
        return "attacks nothing: no creature of yours shares a cell with an enemy" if idle else ""
    if isinstance(choice, ActivateChoice):
        ability = game.minis[choice.mini].abilities[choice.index]
        cost = choice.x if ability.cost_x else (ability.spawn_cost or 0)
        name = (
            ability_name(ability).replace(" X", f" {choice.x}")
            if ability.cost_x
            else (ability_name(ability))
        )
        points = "1 spawn point" if cost == 1 else f"{cost} spawn points"
        return f"{name} for {points}"
    if isinstance(choice, BladeChoice):  # the holder is in the notation already
        said = owned_ability(game, choice.mini, choice.source, choice.index)
        return said.removeprefix(f"{game.minis[choice.mini].label}'s ")
    if isinstance(choice, OrderChoice):
        pending = game.pending
        if isinstance(pending, Decision):
            effects = waiting_effects(game, pending)
            if 0 <= choice.position < len(effects):
                return effects[choice.position]
        return ""
    if isinstance(choice, RerollChoice):
        if not choice.dice:
            return "keep every die"
        return f"reroll {format_attack_dice(choice.dice)}"
    if isinstance(choice, TargetChoice):
        return _target_meaning(game, choice)
    return ""


def _target_meaning(game: Game, choice: TargetChoice) -> str:
    """``B:imp c3 to c2, B:ogre d3 to d2`` (moves); ``B:imp in c3``; ``c4``."""
    pending = game.pending
    if not isinstance(pending, Decision) or not choice.targets:
        return "no target: the ability does nothing"
    ability = game.ability_def(*pending.ability)
    parts: list[str] = []
    kinds = slots(ability, len(choice.targets))
    for kind, value in zip(kinds, choice.targets, strict=True):
        if kind is Slot.CELL and parts and ability.keyword in MOVES:
            # the creature before it, moving there: "A:imp c3 to c2"
            parts[-1] = parts[-1].replace(" in ", " ", 1) + f" to {cell_name(value)}"
        elif kind is Slot.CELL:
            parts.append(cell_name(value))
        else:
            m = game.minis[value]
            where = f" in {cell_name(m.cell)}" if m.cell >= 0 else f" ({m.zone.name.lower()})"
            parts.append(f"{m.label}{where}")
    return ", ".join(parts)


def pending_help(game: Game) -> list[str]:
    """For ``help``: the rules of the pending decision (``DECISION_HELP``), then what the
    abilities it is about do, in plain words (``keywords.explain``)."""
    pending = game.pending
    if not isinstance(pending, Decision):  # dice, or the end: what the game waits for
        return [waiting_help(game)]
    about: list[tuple[list[str], AbilityDef]] = []

    def add(named: str, ability: AbilityDef) -> None:
        for names, known in about:
            if known == ability:
                if named not in names:
                    names.append(named)
                return
        about.append(([named], ability))

    if pending.kind is DecisionKind.TARGET:
        source, index = pending.ability
        add(owned_ability(game, pending.minis[0], source, index), game.ability_def(source, index))
    elif pending.kind is DecisionKind.REROLL:
        mini, index = pending.ability
        add(owned_ability(game, mini, -1, index), game.minis[mini].abilities[index])
    else:
        # only an ORDER decision pairs its miniatures with abilities (a RESOLVE decision
        # lists the marked miniatures and no ability)
        waiting = (
            list(zip(pending.minis, pending.ability, strict=True))
            if pending.kind is DecisionKind.ORDER
            else []
        )
        for choice in game.legal_choices() or []:
            if isinstance(choice, BladeChoice):
                source = choice.mini if choice.source < 0 else choice.source
                named = owned_ability(game, choice.mini, choice.source, choice.index)
                add(named, game.ability_def(source, choice.index))
            elif isinstance(choice, ActivateChoice):
                ability = game.minis[choice.mini].abilities[choice.index]
                add(f"{game.minis[choice.mini].label}'s {ability_name(ability)}", ability)
            elif isinstance(choice, OrderChoice) and choice.position < len(waiting):
                mini, index = waiting[choice.position]
                add(choice_meaning(game, choice), game.ability_def(mini, index))
    out = [DECISION_HELP[pending.kind]]
    if pending.kind is DecisionKind.ACTION and not engaged(game, pending.player):
        out.append(IDLE_STRIKE_HELP)
    for names, ability in about:
        how = ability_heading(ability).partition(" (")[2].rstrip(")")
        out.append(f"{', '.join(names)} ({how}): {explained(ability)}")
    return out


def waiting_help(game: Game) -> str:
    """For ``help`` when no decision is pending: what the game waits for, in words."""
    if game.pending is None:
        return (
            f"{describe_pending(game)} Nothing is left to decide: the log shows how it "
            "went, the score by turn who won each turn."
        )
    return (
        f"{describe_pending(game)} Dice are rolled from both players' hash chains, so "
        "neither player chooses them; the next decision follows."
    )


def explain_pending(game: Game) -> list[str]:
    """The pending decision in words, then its legal choices in notation (80 columns)."""
    return fit([describe_pending(game)]) + choice_lines(game)


def choice_lines(game: Game) -> list[str]:
    """The legal choices of the pending decision in notation, wrapped between choices.

    For DAMAGE, whose splits are too many to list: the total, every target with its
    defense, life and damage already taken, and one legal example.
    """
    pending = game.pending
    if not isinstance(pending, Decision):
        return []
    if pending.kind is DecisionKind.COMMIT or pending.kind is DecisionKind.REVEAL:
        return pool_lines(game, pending.player)
    if pending.kind is DecisionKind.DAMAGE:
        lines = [f"Assign exactly {pending.total} damage; targets:"]
        for i in pending.targets:
            m = game.minis[i]
            lines.append(
                f"  {m.handle} ({m.label}): defense {game.defense(m)}, life {game.life(m)}, "
                f"damage taken {m.damage}"
            )
        first = game.minis[pending.targets[0]].handle
        lines.append(f"Example: damage {first}={pending.total}")
        return fit(lines)
    choices = game.legal_choices() or []
    notations = [format_choice(game, c) for c in choices]
    told: list[str] = []
    meanings = [choice_meaning(game, c) for c in choices]
    if any(meanings) and len(choices) <= MEANINGS_LISTED:
        told.append("What they do:")
        for notation, meaning in zip(notations, meanings, strict=True):
            if meaning:
                told += textwrap.wrap(
                    f"{notation}: {meaning}",
                    WIDTH,
                    initial_indent="  ",
                    subsequent_indent="    ",
                    break_on_hyphens=False,
                )
    return [*told, f"Legal choices ({len(notations)}):", *wrap_items(notations)]


def pool_lines(game: Game, player: Player) -> list[str]:
    """A Limited player's pool: each miniature once, with its copies, cost and stats."""
    build = game.build
    if build is None or build.pools is None:
        return []
    pool = build.pools[player]
    counts: dict[str, int] = {}
    for mini in pool:
        counts[mini.slug] = counts.get(mini.slug, 0) + 1
    lines = [f"{player.name}'s pool ({len(pool)} miniatures):"]
    seen: set[str] = set()
    for mini in sorted(pool, key=lambda m: (m.spawn_cost, m.slug)):
        if mini.slug in seen:
            continue
        seen.add(mini.slug)
        copies = f"{counts[mini.slug]}x " if counts[mini.slug] > 1 else "   "
        stats = "location" if mini.is_location else f"{mini.power}/{mini.defense}/{mini.life}"
        aspects = "".join(a.name[0] for a in mini.aspects)
        lines.append(f"  {copies}{mini.slug} ({mini.spawn_cost} {aspects}, {stats})")
    return lines


def describe_mini(game: Game, m: Mini) -> list[str]:
    """A miniature's card and where it is now, for ``show NAME``."""
    d = m.defn
    aspects = ", ".join(a.name.capitalize() for a in d.aspects) or "none"
    kind = "creature" if d.is_creature else "location"
    origin = f", {printable(d.set_name)}" if d.set_name else ""
    origin += "" if d.official else ", designed for dbnet"
    lines = [f"{m.label}: {printable(d.name)} ({kind}{origin})"]
    lines.append(f"  spawn cost {d.spawn_cost}, aspects {aspects}")
    if d.is_creature:
        printed = f"power {d.power}, defense {d.defense}, life {d.life}"
        now = f"power {game.power(m)}, defense {game.defense(m)}, life {game.life(m)}"
        lines.append(f"  {printed}" + ("" if now == printed else f" (now {now})"))
    if m.zone is Zone.DREAMSCAPE:
        where = f"in {cell_name(m.cell)}" + (f", {m.damage} damage taken" if m.damage else "")
    elif m.zone is Zone.RESERVES:
        where = f"in reserves, spawn cost now {game.spawn_cost(m)}"
    else:
        where = f"in the {m.zone.name.lower()}"
    lines.append(f"  {where}")
    if not d.abilities:
        lines.append("  abilities: none")
    for ability in d.abilities:
        text = f"{ability_heading(ability)}: {explained(ability)}"
        if ability.activation is Activation.SPAWN:
            x = " X" if ability.cost_x else ""
            text += (
                f" Use it in your spawn phase while it is in the dreamscape: 'activate "
                f"{m.handle} {ability.keyword.lower()}{x}'."
            )
        lines += textwrap.wrap(text, WIDTH, initial_indent="  ", subsequent_indent="    ")
    if m.zone is Zone.DREAMSCAPE:
        for source, index, ability in blade_abilities(game, m):
            if source != m.id:
                given = owned_ability(game, m.id, source, index).split(", ", 1)[-1]
                lines += textwrap.wrap(
                    f"now also {ability_heading(ability)}: {explained(ability)} ({given})",
                    WIDTH,
                    initial_indent="  ",
                    subsequent_indent="    ",
                )
    return lines
