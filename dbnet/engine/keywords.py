"""The ability keywords of the rulebook's glossary (and the FAQ's Dissipate), as data.

Each ``Keyword`` says what kind of ability it is, which activations it may be
printed with, whether it takes a number (900.15) and which modifiers (900.14),
and explains itself in one sentence for players. ``check_ability`` validates one
printed ability against this table; an ability that fails it is not played (a
game refuses the miniature). What each keyword does is in ``statics``,
``effects`` and the game itself; this module only describes.

Three official miniatures have abilities that are no glossary keyword; they are
named after their miniature or their printed name and listed in ``CUSTOM``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from dbnet.engine.model import AbilityDef, Activation, Aspect


class Kind(enum.Enum):
    """How a keyword works (glossary: "active", "triggered ability", activation costs)."""

    STATIC = "static"  # always on while active: changes stats or rules
    TRIGGERED = "triggered"  # always on: acts by itself when its event happens
    ACTIVATED = "activated"  # acts each time it is activated (blade, spawn, comes into play)


class Number(enum.Enum):
    NONE = "none"  # no number
    REQUIRED = "required"  # "Crit 3"
    TARGETS = "targets"  # optional: how many targets ("Skirmish 2"), default 1


class Modifiers(enum.Enum):
    NONE = "none"
    FILTER = "filter"  # Self, Enemies, an aspect or a lineage narrows what it affects (900.14)
    TYPE = "type"  # required: an aspect or a lineage (Reinforce, Fight)
    NAME = "name"  # required: a name (Unique)


BLADES: Final = frozenset(
    {Activation.BLADE, Activation.MULTIBLADE, Activation.DOUBLE_BLADE, Activation.DOUBLE_MULTIBLADE}
)
ACTIVATIONS: Final = BLADES | {Activation.SPAWN, Activation.COMES_INTO_PLAY}
ALWAYS: Final = frozenset({Activation.ALWAYS})

LINEAGES: Final = ("Janus", "Lost", "Hivelings", "Hellbred", "Bloodcut")  # rules 500-504
ASPECT_WORDS: Final = {a.name.capitalize(): a for a in Aspect}


@dataclass(frozen=True, slots=True)
class Keyword:
    name: str
    kind: Kind
    summary: str
    number: Number = Number.NONE
    modifiers: Modifiers = Modifiers.NONE
    may: bool = False  # "may": its controller may decline the effect (900.11)
    activations: frozenset[Activation] = ALWAYS


def _static(
    name: str, summary: str, number: Number = Number.NONE, modifiers: Modifiers = Modifiers.NONE
) -> Keyword:
    return Keyword(name, Kind.STATIC, summary, number, modifiers)


def _triggered(name: str, summary: str, number: Number = Number.NONE) -> Keyword:
    return Keyword(name, Kind.TRIGGERED, summary, number)


def _activated(
    name: str,
    summary: str,
    number: Number = Number.NONE,
    modifiers: Modifiers = Modifiers.NONE,
    may: bool = False,
) -> Keyword:
    return Keyword(name, Kind.ACTIVATED, summary, number, modifiers, may, ACTIVATIONS)


R, T = Number.REQUIRED, Number.TARGETS
F = Modifiers.FILTER

KEYWORDS: Final[dict[str, Keyword]] = {
    k.name: k
    for k in (
        _activated("Advance", "May move up to X target unengaged allies one cell each.",
                   number=T, modifiers=F, may=True),
        _triggered("Ambush", "Makes an X-power attack against each enemy creature that enters "
                   "its cell.", number=R),
        _activated("Appease", "Sacrifice a creature you control (it may be this one)."),
        _activated("Assault", "Makes an X-power attack against target local enemy.", number=R,
                   modifiers=F),
        _triggered("Bloodthirsty", "If it makes a regular attack and no enemy is destroyed by "
                   "the end of that combat, sacrifice it."),
        _static("Bodyguard", "Opponents may not assign damage to its local allies without "
                "Bodyguard until each local creature with Bodyguard has been assigned enough "
                "to disrupt or destroy it, in every kind of attack."),
        _static("Bolster", "Allies that are local or adjacent have +X defense.", number=R,
                modifiers=F),
        _activated("Bomb", "Sacrifice it and deal X damage to each local enemy.", number=R),
        _static("Channel", "Your miniatures cost X less to spawn (never below 0).", number=R,
                modifiers=F),
        _triggered("Charge", "Whenever it enters a cell with enemies, it makes an X-power "
                   "attack against target local enemy.", number=R),
        _static("Copy", "Has the blade abilities of each local creature (not their copies); "
                "using one does not use up the original."),
        _activated("Crit", "Deals +X damage this combat.", number=R),
        _static("Defender", "When you shift, it can't move into a cell with enemy creatures."),
        _activated("Demolish", "Destroy target local or adjacent location, an enemy's or your "
                   "own (FAQ: your own when no other is in reach)."),
        _triggered("Detonate", "If it attacks, sacrifice it at the end of the combat (unless "
                   "it was destroyed)."),
        _activated("Dissipate", "Target opponent disrupts this creature at the end of the "
                   "combat (FAQ)."),
        _static("Dominate", "Claims scoring cells even when they are contested."),
        _static("Drain", "Enemies in its cell have -X life (never below 1).", number=R,
                modifiers=F),
        _static("Energize", "You get X extra spawn points in your spawn phase.", number=R),
        _static("Enrage", "Allies that are local or adjacent have +X power.", number=R,
                modifiers=F),
        _activated("Expel", "May move up to X target engaged enemies into an adjacent cell "
                   "each.", number=T, modifiers=F, may=True),
        _triggered("Fade", "Whenever it attacks, banish it at the end of that combat (unless it "
                   "was destroyed)."),
        _activated("Ferocity", "Targets a local enemy: if that enemy is disrupted this combat, "
                   "it is destroyed instead.", modifiers=F),
        _static("Fight", "Has +X power while an enemy of the given type is in its cell.",
                number=R, modifiers=Modifiers.TYPE),
        _activated("Flanking", "Deals +X damage this combat if you control more creatures in "
                   "the combat cell than your opponent.", number=R),
        _static("Fortunate", "When it attacks, you may reroll up to X dice (decided before "
                "rerolling; several Fortunate abilities reroll one after another).", number=R),
        _activated("Fumble", "Deals -X damage this combat (the total never below 0).", number=R),
        _static("Geomancy", "Has +X power, defense and life for each location you control in "
                "its column.", number=R),
        _static("Hell's Fury", "Local and adjacent Hellbred allies have the blade ability "
                "Crit 2."),
        _activated("Heroics", "Deals +X damage this combat if you control fewer creatures in "
                   "the combat cell than your opponent.", number=R),
        _static("Inciter", "Enemies in its cell have +X power.", number=R, modifiers=F),
        _static("Invigorate", "Allies that are local or adjacent have +X life.", number=R,
                modifiers=F),
        _static("Loner", "Can't attack together with other creatures, not even in a deathblow."),
        _activated("Lure", "May pull up to X target unengaged enemies one cell closer to it "
                   "each.", number=T, modifiers=F, may=True),
        _static("Nullify", "Negates the blade abilities of local creatures (not locations).",
                modifiers=F),
        _activated("Pack", "Deals +X damage this combat, X being its local and adjacent "
                   "allies."),
        _static("Panic", "Enemies in its cell have -X defense (never below 1).", number=R,
                modifiers=F),
        _activated("Payback", "Deals +X damage this combat, X being the power of target local "
                   "enemy.", modifiers=F),
        _activated("Purge", "Your opponent puts a miniature of your choice from their reserves "
                   "into their graveyard."),
        _activated("Raise", "Put a creature from your graveyard into your reserves."),
        _static("Regenerate", "If it would be destroyed, banish it instead: no deathblow, no "
                "conquest point, no bonus spawn points."),
        _triggered("Reincarnate", "When it is destroyed, put a different creature from your "
                   "graveyard into your reserves."),
        _static("Reinforce", "May be spawned in any cell that contains an ally of the given "
                "type (stacking limits still apply).", modifiers=Modifiers.TYPE),
        _static("Relentless", "Enemy creatures damaged by its attacks can't be disrupted."),
        _static("Respawn", "While it is in your graveyard you may spawn it for X, as if it "
                "were in your reserves.", number=R),
        _activated("Scare", "May push up to X target unengaged enemies one cell farther from "
                   "it each.", number=T, modifiers=F, may=True),
        _activated("Skirmish", "May move up to X target engaged allies one cell each.",
                   number=T, modifiers=F, may=True),
        _activated("Stalwart", "Deals +X damage this combat, X being the number of local "
                   "enemies."),
        _triggered("Strikeback", "During an opponent's action phase, if local enemies attack "
                   "and disrupt or destroy nothing, it makes an X-power attack against target "
                   "local enemy.", number=R),
        _activated("Swap", "May exchange places with target nonlocal ally.", modifiers=F,
                   may=True),
        _activated("Teleport", "Move target creature into any nonportal cell.", modifiers=F),
        _static("Thanatomancy", "Its power is the number of creatures in your graveyard."),
        _static("Unique", "You can't spawn it while you control a miniature with the same "
                "Unique ability.", modifiers=Modifiers.NAME),
        _static("Vengeance", "Can't be spawned unless your opponent has won X or more turns.",
                number=R),
        _static("Vessel", "When it is destroyed you get X bonus spawn points for it instead "
                "of 2.", number=R),
        _activated("Wail", "Roll two initiative dice and banish each creature in the "
                   "dreamscape whose spawn cost equals their total."),
        _activated("Warpstrike", "Makes an X-power attack against target nonlocal enemy.",
                   number=R, modifiers=F),
        _static("Weaken", "Enemies in its cell have -X power (never below 0).", number=R,
                modifiers=F),
    )
}  # fmt: skip

# Abilities of official miniatures that are no glossary keyword: the project's own
# small effects, named after the printed name (Lockdown) or the miniature.
CUSTOM: Final[dict[str, Keyword]] = {
    k.name: k
    for k in (
        Keyword("Lockdown", Kind.ACTIVATED, "Choose a cell: no creature can shift out of it "
                "this turn.", activations=frozenset({Activation.COMES_INTO_PLAY})),
        Keyword("Darkheart Cottage", Kind.STATIC, "Each attack your creatures make in this "
                "cell has +1 power for each unengaged creature you control."),
        Keyword("Pearlthorn Castle", Kind.ACTIVATED, "Move target ally from an adjacent cell "
                "into this cell.", activations=frozenset({Activation.SPAWN})),
    )
}  # fmt: skip

_MOVES: Final = frozenset({"Advance", "Skirmish", "Teleport"})  # Self moves the holder

# Keywords whose number an X spawn cost may supply ({oX}: Assault X).
_X_FROM_COST: Final = frozenset(
    k.name for k in KEYWORDS.values() if k.kind is Kind.ACTIVATED and k.number is Number.REQUIRED
)


def lookup(name: str) -> Keyword | None:
    """The keyword (or custom effect) called ``name``, or None."""
    return KEYWORDS.get(name) or CUSTOM.get(name)


# Keywords that only a creature can use: they attack, move, defend or are destroyed as
# creatures do (a location never attacks, moves or contests; glossary "location").
CREATURE_ONLY: Final = frozenset({
    "Ambush", "Bloodthirsty", "Bodyguard", "Charge", "Defender", "Detonate", "Dissipate",
    "Dominate", "Fade", "Fight", "Fortunate", "Geomancy", "Loner", "Regenerate", "Reinforce",
    "Relentless", "Strikeback", "Swap", "Thanatomancy",
})  # fmt: skip


def check_ability(ability: AbilityDef, *, location: bool = False) -> str | None:
    """Why ``ability`` can't be played as printed (None if it can): an unknown keyword,
    an activation, number or modifier the keyword does not take, or (on a ``location``)
    a keyword only a creature can use."""
    keyword = lookup(ability.keyword)
    if keyword is None:
        return f"{ability.keyword!r} is not an ability keyword the engine knows"
    name = keyword.name
    if location and (name in CREATURE_ONLY or (ability.modifier == "Self" and name in _MOVES)):
        return f"{name} is a creature's ability; a location can't use it"
    activation = ability.activation
    if activation not in keyword.activations:
        allowed = ", ".join(sorted(a.value for a in keyword.activations))
        return f"{name} is never a {activation.value} ability (it can be: {allowed})"
    if ability.cost_x:
        if activation is not Activation.SPAWN or name not in _X_FROM_COST:
            return f"{name} can't take its number from an X spawn cost"
        if ability.x is not None:
            return f"{name} with an X spawn cost takes X from the cost, not from 'x'"
    elif keyword.number is Number.REQUIRED and ability.x is None:
        return f"{name} needs a number (900.15)"
    elif keyword.number is Number.NONE and ability.x is not None:
        return f"{name} takes no number, got {ability.x}"
    elif keyword.number is Number.TARGETS and ability.x is not None and ability.x < 1:
        return f"{name} needs at least one target, got {ability.x}"
    return _check_modifier(keyword, ability.modifier)


def _check_modifier(keyword: Keyword, modifier: str | None) -> str | None:
    rule = keyword.modifiers
    if rule is Modifiers.NONE:
        return None if modifier is None else f"{keyword.name} takes no modifier, got {modifier!r}"
    if rule is Modifiers.NAME:
        return None if modifier else f"{keyword.name} needs a name (Unique NAME)"
    type_words = (*ASPECT_WORDS, *LINEAGES)
    if rule is Modifiers.TYPE:
        # The glossary's plain Reinforce takes any ally; the FAQ's Reinforce [Type] narrows it.
        if modifier in type_words or (modifier is None and keyword.name == "Reinforce"):
            return None
        return f"{keyword.name} needs an aspect or lineage, one of {', '.join(type_words)}"
    if modifier is None or modifier in ("Self", "Enemies") or modifier in type_words:
        return None
    return (
        f"{keyword.name}'s modifier must be Self, Enemies, an aspect or a lineage, got {modifier!r}"
    )


def explain(ability: AbilityDef) -> str:
    """One line for players: what the ability does, with its number and modifier."""
    keyword = lookup(ability.keyword)
    if keyword is None:
        return "Not played by dbnet: " + (ability.text or "its effect is not known.")
    summary = keyword.summary
    modifier = ability.modifier
    if ability.cost_x:
        summary = summary.replace("an X-power attack", "an X-power attack (X: the points paid)")
    elif keyword.number is Number.TARGETS:
        summary = _targets(summary, ability.x or 1)
    elif ability.x is not None:
        summary = _numbered(summary, ability.x)
    if keyword.modifiers is Modifiers.TYPE:
        summary = summary.replace(" of the given type", f" of type {modifier}" if modifier else "")
    elif keyword.modifiers is Modifiers.NAME and modifier:
        summary += f" (Unique {modifier}.)"
    elif modifier == "Self":
        summary += " (Self: only this miniature.)"
    elif modifier == "Enemies":
        summary += " (Enemies: only enemy creatures.)"
    elif modifier is not None:
        what = "miniatures" if keyword.name == "Channel" else "creatures"
        summary += f" ({modifier}: only {modifier} {what}.)"
    if ability.score:
        summary += " Only while it is on one of your scoring cells."
    return summary


def _numbered(summary: str, x: int) -> str:
    """The summary with its X written out, in good English (a/an, singular/plural)."""
    article = "an" if str(abs(x)).startswith("8") or abs(x) in (11, 18) else "a"
    summary = summary.replace("an X-power attack", f"{article} {x}-power attack")
    summary = summary.replace("up to X dice", "up to 1 die" if x == 1 else f"up to {x} dice")
    for noun in ("extra spawn point", "bonus spawn point"):
        summary = summary.replace(f"X {noun}s", f"1 {noun}" if x == 1 else f"{x} {noun}s")
    if x == 1:
        summary = summary.replace("won X or more turns", "won at least 1 turn")
    summary = summary.replace("+X", f"{x:+d}").replace("-X", f"{-x:+d}")
    return summary.replace(" X", f" {x}")


_SINGULAR: Final = {"allies": "ally", "enemies": "enemy"}


def _targets(summary: str, n: int) -> str:
    """ "up to X target engaged allies one cell each": one target reads in the singular."""
    if n != 1:
        return summary.replace("up to X", f"up to {n}")
    words = summary.replace("up to X target", "target").replace(" each", "").split(" ")
    return " ".join(_SINGULAR.get(w, w) for w in words)
