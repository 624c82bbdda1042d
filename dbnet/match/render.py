"""The position as plain text for an 80-column terminal, the pending decision and the
result in one sentence each.

``render_position`` draws the 5x5 dreamscape from A's side (row 5 at the top),
each cell with its marks (key-cell value and who scores it, portals, spawn
rows), its location and one token per creature (``A:t-lion#2*3``: owner,
short name, copy number, damage taken), then the status, both reserves with
their spawn costs now, both graveyards and the pending decision
(``describe_pending``; its legal choices and help are in ``decision_help``,
abilities in words in ``ability_words``). Nothing here changes the game. The
names and texts a warband brings (a miniature's name and set, an ability's
modifier and text) may come from the other peer: they are shown through
``dbnet.text.printable``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

from dbnet.engine import (
    ActivateChoice,
    ChanceKind,
    ChanceRequest,
    Decision,
    DecisionKind,
    EndReason,
    Game,
    Mini,
    Phase,
    Player,
    Zone,
)
from dbnet.engine.board import (
    COLUMNS,
    KEY_CELLS,
    PORTAL,
    SCORING_CELLS,
    SIZE,
    cell_name,
    spawn_row_cells,
)
from dbnet.engine.notation import format_attack_dice
from dbnet.match.ability_words import describe_targeting, waiting_effects
from dbnet.text import counted

WIDTH = 80
CELL_WIDTH = 14  # 5 cells of 14 plus 6 borders plus a 3-column row label: 79
SHORT_NAME = 8


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
    return "\n".join(fit(lines))


def fit(lines: Iterable[str]) -> list[str]:
    """``lines``, each longer than ``WIDTH`` wrapped, its continuation indented."""
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
