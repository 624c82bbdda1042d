"""The position as plain text for an 80-column terminal, and the pending decision in words.

``render_position`` draws the 5x5 dreamscape from A's side (row 5 at the top),
each cell with its marks (key-cell value and who scores it, portals, spawn
rows), its location and one token per creature (``A:t-lion#2*3``: owner,
short name, copy number, damage taken), then the status, both reserves with
their spawn costs now, both graveyards and the pending decision.
``explain_pending`` says what the decision is and lists its legal choices in
notation. Nothing here changes the game. The names and texts a warband brings (a
miniature's name and set, an ability's modifier and text) may come from the other
peer: they are shown through ``dbnet.text.printable``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

from dbnet.engine import (
    AbilityDef,
    ActivateChoice,
    Activation,
    BladeChoice,
    ChanceKind,
    ChanceRequest,
    Choice,
    Decision,
    DecisionKind,
    EndReason,
    Game,
    Mini,
    OrderChoice,
    Phase,
    Player,
    RerollChoice,
    StrikeChoice,
    TargetChoice,
    Zone,
    format_choice,
)
from dbnet.engine.abilities import blade_abilities
from dbnet.engine.board import (
    COLUMNS,
    KEY_CELLS,
    PORTAL,
    SCORING_CELLS,
    SIZE,
    cell_name,
    spawn_row_cells,
)
from dbnet.engine.keywords import Kind, Number, explain, lookup
from dbnet.engine.notation import format_attack_dice
from dbnet.engine.targets import Slot, slots
from dbnet.text import counted, printable

WIDTH = 80
CELL_WIDTH = 14  # 5 cells of 14 plus 6 borders plus a 3-column row label: 79
SHORT_NAME = 8
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


# --- names and tokens ----------------------------------------------------------


def short_name(slug: str, width: int = SHORT_NAME) -> str:
    """A readable abbreviation of a slug: ``temple-lion`` -> ``t-lion``, at most ``width``."""
    if len(slug) <= width:
        return slug
    words = slug.split("-")
    short = "".join(w[0] for w in words[:-1]) + "-" + words[-1] if len(words) > 1 else slug
    return short[:width]


def short_names(game: Game) -> dict[int, str]:
    """A short name per miniature, unique among each player's different miniatures."""
    out: dict[int, str] = {}
    for player in (Player.A, Player.B):
        slugs = sorted({m.defn.slug for m in game.minis if m.owner is player})
        shorts = {slug: short_name(slug) for slug in slugs}
        taken: dict[str, int] = {}
        for short in shorts.values():
            taken[short] = taken.get(short, 0) + 1
        for slug in slugs:
            if taken[shorts[slug]] > 1:  # two slugs abbreviate alike: fall back to the slug
                shorts[slug] = slug[:SHORT_NAME]
        for m in game.minis:
            if m.owner is player:
                out[m.id] = shorts[m.defn.slug]
    return out


def token(m: Mini, short: str) -> str:
    """``A:t-lion#2*3`` for A's second temple-lion with 3 damage; ``A@cottage`` for a location."""
    copy = m.handle[len(m.defn.slug) :]  # '#2' or ''
    damage = f"*{m.damage}" if m.damage else ""
    sep = ":" if m.defn.is_creature else "@"
    room = CELL_WIDTH - 2 - len(copy) - len(damage)
    return f"{m.owner.name}{sep}{short[:room]}{copy}{damage}"


# --- the dreamscape --------------------------------------------------------------


def cell_mark(game: Game, cell: int) -> str:
    """A cell's mark: ``A portal``, ``B spawn``, ``5 pts A+B`` (value and who scores it)."""
    for player in (Player.A, Player.B):
        if cell == PORTAL[player]:
            return f"{player.name} portal"
    for player in (Player.A, Player.B):
        if cell in spawn_row_cells(player):
            return f"{player.name} spawn"
    if cell in KEY_CELLS:
        scorers = "+".join(p.name for p in (Player.A, Player.B) if cell in SCORING_CELLS[p])
        value = game.values[cell]
        return f"{value} pt{'' if value == 1 else 's'} {scorers}"
    return ""


def render_board(game: Game) -> list[str]:
    """The dreamscape, row 5 at the top and column a at the left (A's view)."""
    names = short_names(game)
    contents: list[list[str]] = [[] for _ in range(SIZE * SIZE)]
    for m in sorted(game.minis, key=lambda m: (m.defn.is_creature, m.owner, m.id)):
        if m.zone is Zone.DREAMSCAPE and m.cell >= 0:
            contents[m.cell].append(token(m, names[m.id]))
    border = "   " + "+".join(["", *(["-" * CELL_WIDTH] * SIZE), ""])
    lines = ["   " + "".join(f" {c:^{CELL_WIDTH}}" for c in COLUMNS), border]
    for r in range(SIZE - 1, -1, -1):
        cells = [r * SIZE + c for c in range(SIZE)]
        columns = [[cell_mark(game, cell), *contents[cell]] for cell in cells]
        height = max(2, *(len(col) for col in columns))
        for i in range(height):
            label = f" {r + 1} " if i == 0 else "   "
            parts = [col[i] if i < len(col) else "" for col in columns]
            lines.append(label + "|" + "|".join(f"{p:<{CELL_WIDTH}}" for p in parts) + "|")
        lines.append(border)
    lines.append("   A:name#k*d = A's creature (copy k) with d damage; A@name = A's location")
    return lines


# --- status, reserves, graveyards -----------------------------------------------


def describe_phase(game: Game) -> str:
    """``'Turn 3, action phase 2 of 4 (A), A went first'``."""
    if game.is_over:
        return f"Turn {game.turn}, game over"
    phase = game.phase
    if phase is Phase.INITIATIVE:
        where = "initiative phase"
    elif phase is Phase.SPAWN:
        where = f"spawn phase of {game.active.name}"
    elif phase is Phase.ACTION:
        where = f"action phase {game.action_index + 1} of 4 ({game.active.name})"
    else:
        where = "conquest phase"
    first = "" if phase is Phase.INITIATIVE else f", {game.first.name} went first"
    return f"Turn {game.turn}, {where}{first}"


def conquest_now(game: Game, player: Player) -> int:
    """Conquest points ``player`` would score if the turn ended now (803.1, 803.2)."""
    return game.claimed_points(player) + game.kills[player]


def render_status(game: Game) -> list[str]:
    to_win = game.setup.options.turns_to_win
    a, b = game.turns_won
    lines = [f"{describe_phase(game)}.   Victory track: A {a}/{to_win}, B {b}/{to_win}."]
    parts = []
    for p in (Player.A, Player.B):
        claimed, kills = game.claimed_points(p), game.kills[p]
        parts.append(f"{p.name} {claimed + kills} (cells {claimed}, kills {kills})")
    lines.append("Conquest this turn: " + "; ".join(parts) + ".")
    if game.phase is Phase.SPAWN:
        spawn = f"{counted(game.spawn_points, 'spawn point')} left for {game.active.name}"
    else:
        spawn = "no spawn phase under way"
    lines.append(f"Spawn points: {spawn}; bonus waiting: A {game.bonus[0]}, B {game.bonus[1]}.")
    return lines


def _wrap(head: str, items: Sequence[str]) -> list[str]:
    """``head`` then the items separated by commas, broken only between items."""
    return [head.rstrip(), *wrap_items(items or ["(none)"], sep=", ")]


def render_reserves(game: Game, player: Player) -> list[str]:
    """Reserves sorted by spawn cost now; ``*`` marks what the spawning player can afford."""
    spawning = game.phase is Phase.SPAWN and game.active is player and not game.is_over
    entries = []
    for m in game.minis:
        if m.owner is player and m.zone is Zone.RESERVES:
            cost = game.spawn_cost(m)
            base, shortfall, reduction = game.spawn_cost_parts(m)  # 801.4, Channel, 900.8
            short = f"+{shortfall}" if shortfall else ""
            less = f"-{reduction}" if reduction else ""
            price = f"{cost}({base}{short}{less})" if short or less else f"{cost}"
            mark = "*" if spawning and cost <= game.spawn_points else ""
            entries.append((cost, m.handle, f"{m.handle} {price}{mark}"))
    entries.sort()
    points = game.spawn_points
    note = f"; * = affordable ({points} point{'' if points == 1 else 's'})" if spawning else ""
    head = f"{player.name} reserves, spawn cost now = base(+aspect shortfall-Channel){note}:"
    return _wrap(head, [e[2] for e in entries])


def render_graveyard(game: Game, player: Player) -> list[str]:
    dead = [m.handle for m in game.minis if m.owner is player and m.zone is Zone.GRAVEYARD]
    if not dead:
        return [f"{player.name} graveyard: (none)"]
    return _wrap(f"{player.name} graveyard:", dead)


def render_position(game: Game) -> str:
    """Everything a player needs to see to decide, as lines of at most 80 columns."""
    lines = [*render_status(game), *render_board(game)]
    for player in (Player.A, Player.B):
        lines += render_reserves(game, player)
    for player in (Player.A, Player.B):
        lines += render_graveyard(game, player)
    lines.append(describe_pending(game))
    return "\n".join(_fit(lines))


def _fit(lines: Iterable[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, WIDTH, subsequent_indent="  ") if len(line) > WIDTH else [line]
    return out


# --- the pending decision ------------------------------------------------------------


def describe_result(game: Game, labels: tuple[str, str] | None = None) -> str:
    """``'A wins: six turns won to 2.'`` or ``'A wins: B resigned.'``; ``labels`` call the
    players otherwise (``'alice (A) wins, ...'``)."""
    if game.winner is None:
        return "The game is not over."
    winner, loser = game.winner, game.winner.other
    named = (Player.A.name, Player.B.name) if labels is None else labels
    if game.end_reason is EndReason.RESIGNATION:
        return f"{named[winner]} wins: {named[loser]} resigned."
    won = game.turns_won
    return f"{named[winner]} wins, {counted(won[winner], 'turn')} won to {won[loser]}."


def describe_pending(game: Game) -> str:
    """What the game waits for, in one sentence."""
    pending = game.pending
    if pending is None:
        return f"The game is over. {describe_result(game)}"
    if isinstance(pending, ChanceRequest):
        return _describe_chance(game, pending)
    return _describe_decision(game, pending)


def _describe_chance(game: Game, request: ChanceRequest) -> str:
    if request.kind is ChanceKind.INITIATIVE:
        who = " and ".join(p.name for p in request.players)
        return f"Initiative: {who} roll{'s' if len(request.players) == 1 else ''} a die."
    cell = cell_name(game.combat.cell) if game.combat is not None else "?"
    owner = request.owner.name if request.owner is not None else "?"
    if request.kind is ChanceKind.ATTACK:
        return f"{owner} rolls {dice_count(request.count, 'attack ')} in {cell}."
    if request.kind is ChanceKind.SPECIAL:
        return (
            f"{owner} rolls {dice_count(request.count)} for {roller(game)}'s special attack"
            f"{special_target(game)} (blades miss)."
        )
    if request.kind is ChanceKind.REROLL:
        return f"{owner} rerolls {dice_count(request.count)} (Fortunate)."
    if request.kind is ChanceKind.WAIL:
        return f"{owner} rolls two initiative dice for {roller(game)}'s Wail."
    if request.kind is ChanceKind.PACKS:
        return f"Both players roll {request.count} dice to open the packs (600.6)."
    return f"{owner} rolls {dice_count(request.count, 'deathblow ')} (blades miss)."


def roller(game: Game) -> str:
    """The miniature whose special attack or Wail is being rolled, by label."""
    rolling = game.rolling
    if rolling is None or rolling.attacker < 0:
        return "?"
    return game.minis[rolling.attacker].label


def special_target(game: Game) -> str:
    """`` on B:ashmaw-brute`` for a special attack being rolled against it; else empty."""
    rolling = game.rolling
    if rolling is None or rolling.target < 0:
        return ""
    return f" on {game.minis[rolling.target].label}"


def dice_count(n: int, kind: str = "") -> str:
    """``1 die``, ``3 dice``; with a ``kind``: ``1 attack die``, ``3 attack dice``."""
    return f"1 {kind}die" if n == 1 else f"{n} {kind}dice"


def _describe_decision(game: Game, d: Decision) -> str:
    p = d.player.name
    kind = d.kind
    if kind is DecisionKind.SPAWN:
        if any(isinstance(c, ActivateChoice) for c in game.legal_choices() or []):
            return (
                f"{p} to spawn ({counted(game.spawn_points, 'spawn point')} left): "
                "'spawn NAME CELL', "
                "'activate NAME ABILITY [X]' for a spawn ability, or 'done'."
            )
        points = counted(game.spawn_points, "spawn point")
        return f"{p} to spawn ({points} left): 'spawn NAME CELL' or 'done'."
    if kind is DecisionKind.ACTION:
        return f"{p} to choose for action phase {game.action_index + 1}: 'shift' or 'strike'."
    if kind is DecisionKind.SHIFT:
        return f"{p} is shifting: 'move NAME CELL' for an unengaged creature, or 'done'."
    if kind is DecisionKind.STRIKE:
        return f"{p} is striking: 'attack CELL' where {p}'s creatures are engaged, or 'done'."
    if kind is DecisionKind.DAMAGE:
        return (
            f"{p} assigns {d.total} damage among {d.player.other.name}'s creatures in "
            f"{cell_name(d.cell)}: 'damage NAME=N ...'."
        )
    if kind is DecisionKind.FATE:
        label = game.minis[d.minis[0]].label
        return f"{label} reached both defense and life: {p} chooses 'destroy' or 'disrupt'."
    if kind is DecisionKind.DEATHBLOW:
        dying = ", ".join(game.minis[i].label for i in d.minis)
        return f"{p}'s dying creatures in {cell_name(d.cell)} ({dying}) may make a deathblow."
    if kind is DecisionKind.BLADE:
        which = "the blade" if d.total == 1 else f"the next of {d.total} blades"
        return (
            f"{p} assigns {which} rolled in {cell_name(d.cell)} to a blade ability: "
            "'blade NAME ABILITY [SOURCE]'."
        )
    if kind is DecisionKind.TARGET:
        return describe_targeting(game, d)
    if kind is DecisionKind.REROLL:
        holder = game.minis[d.minis[0]]
        faces = format_attack_dice(d.dice)
        return (
            f"{p} may reroll up to {dice_count(d.total)} of {faces} ({holder.label}'s "
            f"Fortunate {d.total}): 'reroll FACE ...' (faces 1 2 3 - B) or 'reroll none'."
        )
    if kind is DecisionKind.COMMIT:
        return (
            f"{p} builds a warband from {p}'s pool and commits to it: 'pick NAME ...' "
            "saves one, 'auto' shows the automatic build, 'done' commits."
        )
    if kind is DecisionKind.REVEAL:
        return f"{p} reveals the warband {p} committed to."
    if kind is DecisionKind.ORDER:
        waiting = ", ".join(
            f"{n}. {effect}" for n, effect in enumerate(waiting_effects(game, d), 1)
        )
        return (
            f"{p}'s triggered abilities happen together; {p} chooses which resolves next "
            f"({waiting}): 'order N'."
        )
    waiting = ", ".join(game.minis[i].label for i in d.minis)
    return f"{p} deals with marked miniatures ({waiting}): 'place NAME CELL' or 'bury NAME'."


# --- abilities in words ---------------------------------------------------------------


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
    pattern = slots(ability, 2 if ability.keyword in _MOVES and not itself else 1)
    form = " ".join(_SLOT_WORDS[s] for s in pattern)
    keyword = lookup(ability.keyword)
    if keyword is not None and keyword.number is Number.TARGETS and targeting.number > 1:
        what = f"up to {targeting.number} targets, each {what}"
        form = f"{form} ..."
    may = keyword is not None and keyword.may
    none = ", or 'target none' for no effect" if may else ""
    return f"{p} chooses the targets of {named}: {what}. Write 'target {form}'{none}."


_MOVES = frozenset({"Advance", "Skirmish", "Expel", "Scare", "Lure", "Teleport"})


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
        if kind is Slot.CELL and parts and ability.keyword in _MOVES:
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
    return _fit([describe_pending(game)]) + choice_lines(game)


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
        return _fit(lines)
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


def wrap_items(items: Sequence[str], sep: str = " | ", indent: str = "  ") -> list[str]:
    """``items`` joined by ``sep`` in lines of at most 80 columns, broken only between items."""
    lines: list[str] = []
    line = ""
    tail = sep.rstrip()  # ends every line but the last
    for item in items:
        piece = item if not line else sep + item
        if line and len(indent) + len(line) + len(piece) + len(tail) > WIDTH:
            lines.append(indent + line + tail)
            piece = item
            line = ""
        line += piece
    if line:
        lines.append(indent + line)
    return lines


def render_score_by_turn(game: Game) -> list[str]:
    """One line per finished turn: both players' conquest points and who won the turn."""
    lines = []
    for turn, (a, b) in enumerate(game.conquest_history, start=1):
        winner = "tie" if a == b else ("A" if a > b else "B")
        lines.append(f"  turn {turn:2}: A {a:2} - B {b:2}   {winner}")
    return lines or ["  (no turn finished)"]


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
