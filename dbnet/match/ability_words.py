"""Abilities in words: an ability's name and heading (how it is used), what it does
(``keywords.explain``), whose it is (printed, granted by Hell's Fury, copied by Copy), the
triggered abilities waiting to be ordered, and what a TARGET decision's targets are and
how to write them. The names and texts a warband brings may come from the other peer:
they are shown through ``dbnet.text.printable``.
"""

from __future__ import annotations

from dbnet.engine import AbilityDef, Activation, Decision, Game
from dbnet.engine.keywords import Kind, Number, explain, lookup
from dbnet.engine.targets import Slot, slots
from dbnet.text import printable


def ability_name(ability: AbilityDef) -> str:
    """``Crit 2``, ``Advance 2``, ``Fight Valor 2``, ``Assault X``: keyword, modifier, number
    (escaped: the warband, perhaps the other peer's, chose them)."""
    number = " X" if ability.cost_x else (f" {ability.x}" if ability.x is not None else "")
    modifier = f" {ability.modifier}" if ability.modifier else ""
    return printable(f"{ability.keyword}{modifier}{number}")


def explained(ability: AbilityDef) -> str:
    """``explain(ability)``, escaped: it quotes the ability's modifier, and its text when
    dbnet does not know the keyword, which the warband (perhaps the other peer's) chose."""
    return printable(explain(ability))


def owned_ability(game: Game, holder: int, source: int, index: int) -> str:
    """An ability by whose it is: ``A:imp's Bomb 3``; a copied or granted one says so:
    ``A:imp's Crit 2, granted by A:hellgate-herald's Hell's Fury``, ``A:mimic's copy (Copy)
    of B:ogre's Crit 3``."""
    owner = game.minis[holder]
    if source < 0 or source == holder:
        return f"{owner.label}'s {ability_name(game.ability_def(holder, index))}"
    printed = game.minis[source].abilities[index]
    given = game.minis[source]
    if printed.keyword == "Hell's Fury":
        granted = ability_name(game.ability_def(source, index))
        return f"{owner.label}'s {granted}, granted by {given.label}'s Hell's Fury"
    return f"{owner.label}'s copy (Copy) of {given.label}'s {ability_name(printed)}"


def waiting_effects(game: Game, decision: Decision) -> list[str]:
    """The triggered abilities waiting to resolve together (900.7a) that an ORDER decision
    orders, as ``order N`` counts them: ``A:pyreclaw-zealot#1's Detonate``."""
    return [
        f"{game.minis[mini].label}'s {ability_name(game.ability_def(mini, index))}"
        for mini, index in zip(decision.minis, decision.ability, strict=True)
    ]


# What each targeted keyword's targets are, in words: (for one target, for several).
_TARGET_WORDS: dict[str, str] = {
    "Advance": "an unengaged ally, then the adjacent cell it moves to",
    "Skirmish": "an engaged ally, then the adjacent cell it moves to",
    "Expel": "an engaged enemy creature, then the adjacent cell it is moved to",
    "Scare": "an unengaged enemy creature, then the cell it is pushed to (farther away)",
    "Lure": "an unengaged enemy creature, then the cell it is pulled to (closer)",
    "Teleport": "a creature, then the cell it teleports to",
    "Swap": "an ally in another cell to trade places with",
    "Assault": "a local enemy creature to attack",
    "Payback": "a local enemy creature",
    "Ferocity": "a local enemy creature",
    "Charge": "a local enemy creature to attack",
    "Strikeback": "a local enemy creature to attack",
    "Warpstrike": "an enemy creature in another cell to attack",
    "Demolish": "a local or adjacent location to destroy",
    "Purge": "a miniature in the opponent's reserves",
    "Raise": "a creature in your graveyard",
    "Reincarnate": "another creature in your graveyard",
    "Appease": "a creature you control to sacrifice (it may be this one)",
    "Lockdown": "a cell",
    "Pearlthorn Castle": "an ally in an adjacent cell to move into the castle's cell",
}
_SLOT_WORDS = {Slot.MINI: "NAME", Slot.CELL: "CELL"}


def describe_targeting(game: Game, d: Decision) -> str:
    """A TARGET decision: which ability of which miniature chooses, what each target is
    and how to write them."""
    p = d.player.name
    targeting = game.choosing
    holder = game.minis[d.minis[0]]
    source, index = d.ability
    ability = game.ability_def(source, index)
    named = owned_ability(game, holder.id, source, index)
    if targeting is None:  # not expected: the engine keeps what it is choosing for
        return f"{p} chooses the targets of {named}: 'target ...'."
    what = _TARGET_WORDS.get(ability.keyword, "its target")
    itself = ability.keyword == "Teleport" and ability.modifier == "Self"
    if itself:
        what = "the cell it teleports itself to"
    if ability.cost_x:  # Assault X: the X paid
        named = named.replace(f"{ability.keyword} X", f"{ability.keyword} {targeting.number}")
    pattern = slots(ability, 2 if ability.keyword in MOVES and not itself else 1)
    form = " ".join(_SLOT_WORDS[s] for s in pattern)
    keyword = lookup(ability.keyword)
    if keyword is not None and keyword.number is Number.TARGETS and targeting.number > 1:
        what = f"up to {targeting.number} targets, each {what}"
        form = f"{form} ..."
    may = keyword is not None and keyword.may
    none = ", or 'target none' for no effect" if may else ""
    return f"{p} chooses the targets of {named}: {what}. Write 'target {form}'{none}."


MOVES = frozenset({"Advance", "Skirmish", "Expel", "Scare", "Lure", "Teleport"})
"""The keywords whose targets are a creature and then the cell it moves to."""


ACTIVATION_WORDS: dict[Activation, str] = {
    Activation.BLADE: "blade ability: one blade, once per attack",
    Activation.MULTIBLADE: "multiblade ability: any number of blades",
    Activation.DOUBLE_BLADE: "double blade ability: two blades at once, once per attack",
    Activation.DOUBLE_MULTIBLADE: "double multiblade ability: two blades at a time, any number",
    Activation.COMES_INTO_PLAY: "when it comes into play",
}


def ability_heading(ability: AbilityDef) -> str:
    """``Crit 2 (blade ability: one blade, once per attack)``, ``Assault X (spawn ability: X
    spawn points, X chosen when used)``, ``Bolster 2 (always on)``: the ability and how it
    is used, in words."""
    if ability.activation is Activation.SPAWN:
        if ability.cost_x:
            how = "spawn ability: X spawn points, X chosen when used"
        else:
            cost = ability.spawn_cost or 0
            how = f"spawn ability: {cost} spawn point{'' if cost == 1 else 's'}"
    elif ability.activation is Activation.ALWAYS:
        keyword = lookup(ability.keyword)
        triggered = keyword is not None and keyword.kind is Kind.TRIGGERED
        how = "triggered: acts by itself" if triggered else "always on"
    else:
        how = ACTIVATION_WORDS.get(ability.activation, ability.activation.value)
    return f"{ability_name(ability)} ({how})"  # explain() says "only on a scoring cell"
