"""What the console client draws, as prompt-toolkit formatted text, from a game and a session.

Nothing here changes the game or touches the terminal: each function takes the
position (and a width) and returns lines of ``(style, text)`` fragments, so the
same code serves the live screen, the tests and the text captures. Words and
rule numbers come from ``dbnet.match.render``; what is new here is the compact
dreamscape that leaves room for everything else on an 80x24 terminal.

The compact board writes each cell's mark (``A portal``, ``B spawn``, ``5pt
A+B``: a key cell worth 5 that both score) in the border line above the cell,
so a row of the dreamscape costs one line plus one line per miniature in its
fullest cell.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from dbnet.console.session import LogKind, LogLine, Session
from dbnet.engine import (
    DamageChoice,
    Decision,
    DecisionKind,
    Game,
    Mini,
    Phase,
    Player,
    Zone,
    format_choice,
)
from dbnet.engine.board import (
    COLUMNS,
    KEY_CELLS,
    PORTAL,
    SCORING_CELLS,
    SIZE,
    parse_cell,
    spawn_row_cells,
)
from dbnet.errors import DbnetError
from dbnet.match.decision_help import choice_meaning, describe_mini, pending_help
from dbnet.match.render import (
    CELL_WIDTH,
    conquest_now,
    describe_pending,
    describe_phase,
    short_names,
    token,
)
from dbnet.text import counted, printable

Line = StyleAndTextTuples

NARROW_CELL = 10  # cell width of the compact board (80 columns)
WIDE_CELL = CELL_WIDTH  # render's cell width, for terminals of 100 columns and more

OWNER_STYLE = ("class:owner-a", "class:owner-b")


def board_width(cell_width: int) -> int:
    """Columns the board takes: a row label, five cells and six borders."""
    return 2 + SIZE * cell_width + SIZE + 1


# --- the dreamscape ------------------------------------------------------------------


def cell_mark(game: Game, cell: int, wide: bool) -> tuple[str, str]:
    """The mark of ``cell`` and its style: portal, spawn row, or key-cell value and scorers."""
    for player in (Player.A, Player.B):
        if cell == PORTAL[player]:
            return f"{player.name} portal", f"{OWNER_STYLE[player]} class:mark.portal"
    for player in (Player.A, Player.B):
        if cell in spawn_row_cells(player):
            return f"{player.name} spawn", f"{OWNER_STYLE[player]} class:mark.spawn"
    if cell in KEY_CELLS:
        scorers = "+".join(p.name for p in (Player.A, Player.B) if cell in SCORING_CELLS[p])
        value = game.values[cell]
        if wide:
            return f"{value} pt{'' if value == 1 else 's'} {scorers}", "class:mark.key"
        return f"{value}pt {scorers}", "class:mark.key"
    return "", "class:border"


def compact_token(m: Mini, short: str, width: int) -> str:
    """``A:l-page#2*3`` cut to ``width``: owner, short name, copy number, damage taken."""
    copy = m.handle[len(m.defn.slug) :]
    damage = f"*{m.damage}" if m.damage else ""
    sep = ":" if m.defn.is_creature else "@"
    room = max(1, width - 2 - len(copy) - len(damage))
    return f"{m.owner.name}{sep}{short[:room]}{copy}{damage}"


def render_board(
    game: Game,
    cell_width: int = NARROW_CELL,
    highlight: Iterable[int] = (),
    *,
    side: Player = Player.A,
    max_lines: int | None = None,
) -> list[Line]:
    """The dreamscape seen from ``side``'s edge, one line each: for A, row 5 on top and
    column a on the left; for B, turned round (row 1 on top, column e on the left).

    ``highlight`` cells (those the entry being typed names) are drawn reversed. With
    ``max_lines``, the fullest rows give up lines until the board fits in that many (at
    least ``MIN_BOARD_LINES``): a cell with more miniatures than its row has lines shows
    the first ones and ``+N more`` (``+N`` on a one-line row), so the column letters and
    every row number stay on screen.
    """
    rows = range(SIZE - 1, -1, -1) if side is Player.A else range(SIZE)
    columns = range(SIZE) if side is Player.A else range(SIZE - 1, -1, -1)
    wide = cell_width >= WIDE_CELL
    names = short_names(game)
    lit = set(highlight)
    contents: list[list[tuple[str, str]]] = [[] for _ in range(SIZE * SIZE)]
    for m in sorted(game.minis, key=lambda m: (m.defn.is_creature, m.owner, m.id)):
        if m.zone is Zone.DREAMSCAPE and m.cell >= 0:
            text = (
                token(m, names[m.id])
                if cell_width >= CELL_WIDTH
                else compact_token(m, names[m.id], cell_width)
            )
            style = OWNER_STYLE[m.owner] + (" class:damaged" if m.damage else "")
            contents[m.cell].append((style, text[:cell_width]))
    heights = row_heights([[len(contents[r * SIZE + c]) for c in columns] for r in rows], max_lines)
    lines: list[Line] = []
    for r, height in zip(rows, heights, strict=True):
        cells = [r * SIZE + c for c in columns]
        border: Line = [("class:border", "  +")]
        for cell in cells:
            mark, style = cell_mark(game, cell, wide)
            mark = mark[: cell_width - 1]
            if mark:
                border += [
                    ("class:border", "-"),
                    (style, mark),
                    ("class:border", "-" * (cell_width - 1 - len(mark)) + "+"),
                ]
            else:
                border.append(("class:border", "-" * cell_width + "+"))
        lines.append(border)
        stacks = [stack(contents[cell], height, cell_width) for cell in cells]
        for i in range(height):
            label = f"{r + 1} " if i == 0 else "  "
            line: Line = [("class:label", label), ("class:border", "|")]
            for cell, shown in zip(cells, stacks, strict=True):
                style, text = shown[i] if i < len(shown) else ("", "")
                if cell in lit:
                    style += " class:highlight"
                line += [(style, f"{text:<{cell_width}}"), ("class:border", "|")]
            lines.append(line)
    bottom: Line = [("class:border", "  +")]
    for c in columns:
        bottom += [("class:label", f"{COLUMNS[c]:-^{cell_width}}"), ("class:border", "+")]
    lines.append(bottom)
    return lines


MIN_BOARD_LINES = 2 * SIZE + 1  # a border and one line per row, and the column letters


def row_heights(counts: Sequence[Sequence[int]], max_lines: int | None) -> list[int]:
    """The lines each row of the board gets: as many as its fullest cell has miniatures
    (``counts``, row by row), at least one; with ``max_lines``, the tallest row (the first
    of equals) gives up a line until the board's lines fit or every row has one."""
    heights = [max(1, *row) for row in counts]
    if max_lines is None:
        return heights
    while SIZE + 1 + sum(heights) > max_lines and max(heights) > 1:
        heights[heights.index(max(heights))] -= 1
    return heights


def stack(items: Sequence[tuple[str, str]], height: int, width: int) -> list[tuple[str, str]]:
    """A cell's tokens in ``height`` lines: all of them when they fit; else the first ones
    and ``+N more`` on the last line, or ``+N`` after the first token on a one-line row."""
    if len(items) <= height:
        return list(items)
    if height == 1:
        style, text = items[0]
        more = f"+{len(items) - 1}"
        return [(style, text[: max(0, width - len(more))] + more)]
    hidden = len(items) - height + 1
    return [*items[: height - 1], ("class:dim", f"+{hidden} more"[:width])]


# --- status -------------------------------------------------------------------------


def top_bar(game: Game, width: int, connection: str | None = None) -> Line:
    """Turn and phase on the left; the victory track and the conquest points each player
    would score if the turn ended now on the right, shortened to fit ``width``. In a
    network game, ``connection`` (its state) comes first."""
    to_win = game.setup.options.turns_to_win
    a, b = game.turns_won
    ca, cb = conquest_now(game, Player.A), conquest_now(game, Player.B)
    phase = describe_phase(game)
    short_phase = phase.partition(", ")[0] if game.is_over else phase.rsplit(", ", 1)[0]
    victory = f"Victory A {a}/{to_win} B {b}/{to_win}"
    options: tuple[tuple[str, str], ...] = (
        (phase, f"{victory} | Conquest now A {ca} B {cb}"),
        (phase, f"{victory} | Conquest A {ca} B {cb}"),
        (short_phase, f"{victory} | Conquest A {ca} B {cb}"),
        (short_phase, f"Won A {a}/{to_win} B {b}/{to_win} | Now A {ca} B {cb}"),
    )
    if connection is not None:
        connection = printable(connection)  # it may hold the peer's name
        options = tuple((f"[{connection}] {left}", right) for left, right in options) + tuple(
            (f"[{connection}] {short_phase}", right) for _, right in options[-1:]
        )
    for left, right in options:
        if len(left) + len(right) + 3 <= width:
            break
    gap = max(1, width - len(left) - len(right) - 2)
    return [("class:topbar", f" {left}{' ' * gap}{right} "[:width])]


def seat_lines(game: Game, labels: tuple[str, str], width: int) -> list[Line]:
    """One line per player: who sits there (``labels``, A's first), spawn points left,
    reserves and graveyard."""
    lines: list[Line] = []
    for player in (Player.A, Player.B):
        mine = game.minis_of(player)
        dead = sum(1 for m in mine if m.zone is Zone.GRAVEYARD)
        waiting = sum(1 for m in mine if m.zone is Zone.RESERVES)
        parts = []
        if game.phase is Phase.SPAWN and game.active is player and not game.is_over:
            parts.append(f"{counted(game.spawn_points, 'spawn pt')} left")
        if game.bonus[player]:
            parts.append(f"bonus {game.bonus[player]}")
        parts += [f"{waiting} in reserves", f"{dead} in graveyard"]
        text = f"{player.name} {printable(labels[player])}: " + " | ".join(parts)
        lines.append([(OWNER_STYLE[player], _fit(text, width))])
    return lines


def named_cells(game: Game, words: Iterable[str]) -> list[int]:
    """The cells ``words`` name (``c3``), and the cells of the miniatures they name by
    handle (``vanguard-herald#1``, ``ashmaw-brute=3``)."""
    cells = []
    for word in words:
        cell = parse_cell(word.lower())
        if cell is not None:
            cells.append(cell)
            continue
        name = word.lower().partition("=")[0]
        for m in game.minis:
            if m.handle == name and m.cell >= 0:
                cells.append(m.cell)
    return cells


def decision_text(session: Session) -> str:
    """What the game waits for, in words, addressed to the people at this keyboard."""
    game = session.game
    pending = game.pending
    if pending is None:
        return describe_pending(game) + " Type 'quit' (or press Ctrl-Q) to leave."
    if isinstance(pending, Decision):
        who = pending.player
        if session.is_local(who):
            head = f"{who.name}, your decision: " if session.hotseat else "Your decision: "
            return head + describe_pending(game)
        label = session.seat_label(who)
        thinking = session.thinking
        if thinking is not None:
            return (
                f"{who.name} ({label}): computer thinking… {thinking:.0%}. {describe_pending(game)}"
            )
        return f"{who.name} ({label}) is deciding: {describe_pending(game)}"
    return describe_pending(game)


# --- the panels ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReserveEntry:
    handle: str
    cost: int  # now: base + shortfall - reduction, at least 0 (801.4, Channel, 900.8)
    base: int  # the printed spawn cost
    affordable: bool  # the spawning player can pay it now
    shortfall: int = 0  # one point per miniature an aspect is short (801.4)
    reduction: int = 0  # Channel's

    @property
    def parts(self) -> str:
        """``'5+2-1'``: the spawn cost, the aspect shortfall, Channel's reduction ('' when
        the cost is just the spawn cost)."""
        if not self.shortfall and not self.reduction:
            return ""
        short = f"+{self.shortfall}" if self.shortfall else ""
        less = f"-{self.reduction}" if self.reduction else ""
        return f"{self.base}{short}{less}"


def reserve_entries(game: Game, player: Player) -> list[ReserveEntry]:
    """``player``'s reserves, cheapest first (the order ``render`` uses)."""
    spawning = game.phase is Phase.SPAWN and game.active is player and not game.is_over
    entries = []
    for m in game.minis:
        if m.owner is player and m.zone is Zone.RESERVES:
            cost = game.spawn_cost(m)
            base, shortfall, reduction = game.spawn_cost_parts(m)
            affordable = spawning and cost <= game.spawn_points
            entries.append(ReserveEntry(m.handle, cost, base, affordable, shortfall, reduction))
    entries.sort(key=lambda e: (e.cost, e.handle))
    return entries


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "~"


def _fit_handle(head: str, handle: str, tail: str, width: int) -> str:
    """``head + handle + tail`` in ``width`` columns: the name shortened first (``~``), its
    copy number (``#2``) kept, so two copies never look alike; then the tail dropped."""
    text = head + handle + tail
    if len(text) <= width:
        return text
    slug, sep, copy = handle.partition("#")
    copy = sep + copy
    for end in (tail, ""):
        room = width - len(head) - len(copy) - len(end) - 1
        if room >= 1:
            return f"{head}{slug[:room]}~{copy}{end}"
    return _fit(text, width)


def reserve_lines(game: Game, width: int, first: Player = Player.A) -> list[Line]:
    """Both reserves (``first``'s on top), cheapest first: spawn cost now, then the handle.

    ``*`` marks what the spawning player can afford now; the aspect shortfall in
    the cost is shown as ``(5+2)`` when there is room, else as ``+``.
    """
    lines: list[Line] = []
    wide = width >= 36
    for player in (first, first.other):
        spawning = game.phase is Phase.SPAWN and game.active is player and not game.is_over
        points = f" ({game.spawn_points} pts)" if spawning else ""
        heading = "class:panel.heading " + OWNER_STYLE[player]
        lines.append([(heading, f"{player.name} reserves{points}")])
        entries = reserve_entries(game, player)
        if not entries:
            lines.append([("", "  (none)")])
        for e in entries:
            mark = "*" if e.affordable else " "
            if wide:
                extra = f" ({e.parts})" if e.parts else ""
                text = _fit_handle(f"{mark}{e.cost:>2} ", e.handle, extra, width)
            else:
                text = _fit_handle(
                    f"{mark}{e.cost:>2}{'+' if e.parts else ' '} ", e.handle, "", width
                )
            style = "class:affordable" if e.affordable else ""
            lines.append([(style, text)])
        lines.append([])
    legend = (
        "Spawn cost now (base+missing aspects-Channel); * = affordable now (rule 801.4)"
        if wide
        else "Spawn cost now; + = missing aspects or Channel; * = affordable now (rule 801.4)"
    )
    lines += wrap(legend, width, "class:dim")
    return lines


def graveyard_lines(game: Game, width: int) -> list[Line]:
    lines: list[Line] = []
    for player in (Player.A, Player.B):
        lines.append([("class:panel.heading " + OWNER_STYLE[player], f"{player.name} graveyard")])
        dead = [m for m in game.minis if m.owner is player and m.zone is Zone.GRAVEYARD]
        if not dead:
            lines.append([("", "  (none)")])
        for m in dead:
            lines.append([("", _fit(f"  {m.handle}", width))])
        removed = [m for m in game.minis if m.owner is player and m.zone is Zone.REMOVED]
        for m in removed:
            lines.append([("class:dim", _fit(f"  {m.handle} (removed)", width))])
        lines.append([])
    return lines


def choice_items(game: Game) -> list[str]:
    """The legal choices of the pending decision in notation, in the engine's order.

    DAMAGE has too many splits to list: one item per target, all the damage on it.
    """
    pending = game.pending
    if not isinstance(pending, Decision):
        return []
    if pending.kind is DecisionKind.DAMAGE:
        items = []
        for target in pending.targets:
            choice = DamageChoice(((target, pending.total),))
            try:
                game.check_choice(choice)
            except DbnetError:
                continue
            items.append(format_choice(game, choice))
        return items
    return [format_choice(game, c) for c in game.legal_choices() or []]


MEANINGS_SHOWN = 24  # more choices than this are listed without what each does


def choice_meanings(game: Game) -> dict[str, str]:
    """What each legal choice does, in words, by its notation, where the notation does not
    say it plainly (spawn abilities, blades, targets, the order of effects, rerolls); none
    when there are more than MEANINGS_SHOWN choices."""
    choices = game.legal_choices() or []
    if len(choices) > MEANINGS_SHOWN:
        return {}
    out = {}
    for choice in choices:
        meaning = choice_meaning(game, choice)
        if meaning:
            out[format_choice(game, choice)] = meaning
    return out


def choice_lines(
    game: Game,
    items: Sequence[str],
    selected: int,
    width: int,
    meanings: Mapping[str, str] | None = None,
) -> list[Line]:
    """The legal choices, the selected one reversed, each followed by what it does (from
    ``meanings``) when that is not plain from its notation, and for DAMAGE the targets'
    stats."""
    pending = game.pending
    lines: list[Line] = []
    if not isinstance(pending, Decision):
        return wrap("No decision of yours is waiting.", width, "class:dim")
    if pending.kind is DecisionKind.DAMAGE:
        lines += wrap(f"Split exactly {pending.total} damage, e.g.:", width, "")
    meanings = meanings or {}
    verb = ""
    for i, item in enumerate(items):
        style = "class:choice.selected" if i == selected else "class:choice"
        first, _, rest = item.partition(" ")
        if not rest or len(item) <= width:
            lines.append([(style, item)])
            verb = ""
        else:
            if first != verb:  # long choices: the verb once, then what differs
                lines.append([("class:dim", f"{first} ...")])
                verb = first
            parts = textwrap.wrap(rest, max(10, width - 1), break_on_hyphens=False)
            for j, part in enumerate(parts):
                lines.append([("class:choice.verb " + style, "   " if j else " "), (style, part)])
        if item in meanings:  # what it does, indented under it
            said = textwrap.wrap(f"= {meanings[item]}", max(10, width - 2), subsequent_indent="  ")
            lines += [[("class:dim", f"  {part}")] for part in said]
    if pending.kind is DecisionKind.DAMAGE:
        lines.append([("class:dim", "Targets:")])
        for i in pending.targets:
            m = game.minis[i]
            text = f"{m.handle}: def {game.defense(m)}, life {game.life(m)}, dmg {m.damage}"
            lines += wrap(text, width, "", indent="  ")
    return lines


def log_text(line: LogLine) -> str:
    """``'  12. B spawn ashmaw-brute a5'``; rolls add their outcome in words. Escaped: a
    note may quote the other peer's names or reasons."""
    if line.kind is LogKind.COPY:
        return printable(line.words)
    if line.kind is LogKind.TURN or (line.kind is LogKind.NOTE and not line.number):
        return printable(f"      {line.words}")
    if line.kind in (LogKind.NOTE, LogKind.SEAL):
        who = line.player.name if line.player is not None else " "
        return printable(f"{line.number:4}. {who} {line.words}")
    who = line.player.name if line.player is not None and line.kind is not LogKind.ROLL else " "
    words = f"  {line.words}" if line.kind is LogKind.ROLL else ""
    return printable(f"{line.number:4}. {who} {line.notation}{words}")


def log_style(line: LogLine) -> str:
    if line.kind is LogKind.TURN:
        return "class:log.turn"
    if line.kind is LogKind.ROLL:
        return "class:log.roll"
    if line.player is not None:
        return OWNER_STYLE[line.player]
    return ""


def log_lines(log: Sequence[LogLine], width: int = 0, current: int | None = None) -> list[Line]:
    """The log, one entry a line; with a ``width``, long entries wrap under their text.
    The line at index ``current`` (all its rows) is marked ``class:log.current``."""
    if not log:
        return [[("class:dim", "(nothing has happened yet)")]]
    lines: list[Line] = []
    for i, line in enumerate(log):
        text, style = log_text(line), log_style(line)
        if i == current:
            style += " class:log.current"
        if width <= 0 or len(text) <= width:
            lines.append([(style, text)])
            continue
        if line.kind is LogKind.COPY:  # its rows hold its characters only, in order
            lines += [[(style, text[i : i + width])] for i in range(0, len(text), width)]
            continue
        parts = textwrap.wrap(
            text, max(20, width), subsequent_indent=" " * 8, break_on_hyphens=False
        )
        lines += [[(style, part)] for part in parts]
    return lines


def current_row(lines: Sequence[Line]) -> int:
    """The first row ``log_lines`` marked current (0 when none is)."""
    for y, line in enumerate(lines):
        if any("class:log.current" in fragment[0] for fragment in line):
            return y
    return 0


def card_lines(game: Game, minis: Sequence[int], width: int) -> list[Line]:
    """``show``: each miniature's card (render's words), wrapped to ``width``."""
    lines: list[Line] = []
    for i in minis:
        m = game.minis[i]
        head, *rest = describe_mini(game, m)
        label, _, title = head.partition(": ")
        lines.append([("class:panel.heading " + OWNER_STYLE[m.owner], label)])
        for text in [title, *rest]:
            lines += wrap(text.strip(), width, "", indent="  ")
        lines.append([])
    return lines


KEYS_HELP = (
    "Keys: Tab completes the entry from the legal choices; Up and Down pick a legal choice; "
    "Enter plays the entry; F1 this help, F2 choices, F3 reserves, F4 graveyards, F5 log, "
    "F6 card; PageUp and PageDown scroll the panel; Ctrl-Q quits (Ctrl-C at once)."
)
COMMANDS_HELP = (
    "Commands: help, show NAME (a miniature's card and its abilities in words; 'show "
    "B:ashmaw' for B's), choices, reserves, graves, log, resign, invite (the host's, to "
    "copy whole), quit. Anything else is read "
    "as a choice in notation: 'spawn lantern e1', 'activate rallying advance', 'target "
    "lant d1', 'move lant d2', 'attack c3', 'blade herald advance', 'done'. Names may be "
    "shortened."
)
TOKENS_HELP = (
    "Board: seen from your edge (as A: row 5 on top, column a on the left; as B: turned "
    "round). A:l-page#2*3 is A's second lantern-page "
    "with 3 damage; A@name is A's location. Above each cell: its mark (5pt A+B: a key cell "
    "worth 5 that both players score; A portal; B spawn)."
)


def help_lines(game: Game, width: int) -> list[Line]:
    """The rules of the current step (render's help texts, with rule numbers), then keys."""
    lines: list[Line] = []
    for paragraph in pending_help(game):
        lines += wrap(paragraph, width, "")
        lines.append([])
    for text in (COMMANDS_HELP, KEYS_HELP, TOKENS_HELP):
        lines += wrap(text, width, "class:dim" if text is TOKENS_HELP else "")
        lines.append([])
    return lines


def wrap(text: str, width: int, style: str, indent: str = "") -> list[Line]:
    """``text`` wrapped to ``width`` columns, never breaking a handle at its hyphen; escaped
    (``dbnet.text.printable``), as it may quote names and reasons the other peer chose."""
    parts = textwrap.wrap(
        printable(text), max(10, width), subsequent_indent=indent, break_on_hyphens=False
    ) or [""]
    return [[(style, part)] for part in parts]


def plain(lines: Iterable[Line]) -> str:
    """Fragments as plain text, one line per line (for tests and captures)."""
    return "\n".join("".join(text for _, text, *_ in line) for line in lines)
