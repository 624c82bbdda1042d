"""A verified replay as one self-contained HTML page: the board at every step, the moves,
the dice, and what was verified.

The page (``page(story, ...)``) holds the position after every step of the game
(``replay.steps``) as an inline SVG picture (``replay.svg``), a move list in the
notation with the story of each step (what it did, the dice of each roll as faces, the
conquest points of each turn), buttons (first, back, forward, last, a turn to jump to)
and keys (arrows, Home, End, Page Up/Down for turns), and a header that says what was
verified: the verdict, both players' key fingerprints, the file's SHA-256 and the
version of dbnet that checked it. ``#step=N`` in the address opens the page at step N
and follows it as you step, so a position can be linked to.

Pictures are stored in pieces and put together by the page's script, so a long game
stays small: ``svg.frame`` once, every different token and list item once
(``svg.cell_tokens``, ``svg.list_items``), every different set of them once, and every
different ``svg.status`` once. Nothing is fetched: the page's policy forbids every request
(``replay.page``) and it names no address at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from dbnet.engine import Player
from dbnet.protocol.identity import fingerprint
from dbnet.replay import svg
from dbnet.replay.page import document, script_data
from dbnet.replay.steps import Step, StepKind, walk
from dbnet.replay.story import Story
from dbnet.text import markup as esc

__all__ = ["Checked", "page"]

_FACES: Final = ("1", "2", "3", "-", "-", "B")
_FACE_TITLES: Final = ("1 damage", "2 damage", "3 damage", "miss", "miss", "blade")


@dataclass(frozen=True, slots=True)
class Checked:
    """What the page says about the file it shows: its SHA-256 (hex) and the version of
    dbnet that verified it."""

    sha256: str
    version: str


def page(story: Story, checked: Checked) -> str:
    """The whole page of ``story``, which must have a setup (a readable game)."""
    setup = story.setup
    if setup is None:
        raise ValueError(f"{story.where}: no game to draw")
    pieces: dict[str, int] = {}  # every different token and list item, numbered
    groups: dict[tuple[int, ...], int] = {}  # every different set of pieces, numbered
    statuses: dict[str, int] = {}
    rows: list[list[int]] = []
    steps: list[Step] = []
    opening = frame = start = ""
    for step, game in walk(story):
        if not opening:
            opening = svg.opening(game, namespace=False)
            frame = svg.frame(game)
            start = svg.cells(game) + svg.lists(game) + svg.status(game)
        row = []
        for made in (svg.cell_tokens(game), svg.list_items(game)):
            group = tuple(pieces.setdefault(piece, len(pieces)) for piece in made)
            row.append(groups.setdefault(group, len(groups)))
        row.append(statuses.setdefault(svg.status(game), len(statuses)))
        rows.append([*row, step.turn])
        steps.append(step)
    a, b = (setup.warbands[p].name for p in (Player.A, Player.B))
    title = f"dbnet replay: A {a!r} against B {b!r}"
    first_of_turn: dict[int, int] = {}
    for step in steps:
        first_of_turn.setdefault(step.turn, step.number)
    data = {
        "open": opening,
        "frame": frame,
        "wrap": [svg.CELLS_OPEN, svg.LISTS_OPEN, svg.GROUP_CLOSE],
        "pieces": list(pieces),
        "groups": [list(group) for group in groups],
        "status": list(statuses),
        "steps": rows,
        "turns": first_of_turn,
    }
    body = "\n".join(
        [
            _header(story, checked, title),
            '<main>\n<section id="viewer" aria-label="Board">',
            _controls(first_of_turn, len(steps) - 1),
            '<div id="now" aria-live="polite"></div>',
            f'<div id="board" data-step="0">{opening}{frame}{start}</div>',
            "</section>",
            _moves(steps),
            "</main>",
            script_data(data, "dbnet-data"),
        ]
    )
    return document(title, STYLE, body, SCRIPT)


def _header(story: Story, checked: Checked, title: str) -> str:
    verdict = story.verdict
    header = story.header
    setup = story.setup
    assert setup is not None
    facts: list[tuple[str, str]] = [("Verdict", verdict.summary())]
    if story.keys is not None:
        for p in (Player.A, Player.B):
            warband = setup.warbands[p].name
            name = story.names[p]
            signed = "" if name is None else f"{name}, "
            facts.append(
                (f"Player {p.name}", f"{signed}key {fingerprint(story.keys[p])}, {warband!r}")
            )
    facts.append(("File", story.where))
    facts.append(("SHA-256", checked.sha256))
    if header is not None:
        facts.append(("Game id", header.game_id.hex()))
        facts.append(
            ("Rules", f"{header.rules} (replay format {header.format}, protocol {header.protocol})")
        )
        facts.append(("Created", f"{header.created} (as its writer's clock said; not checked)"))
    facts.append(("Clocks", "not recorded in dbnet replays"))
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    return (
        f"<header>\n<h1>{esc(title.removeprefix('dbnet replay: '))}</h1>\n"
        f'<p class="checked">Verified by dbnet {esc(checked.version)} before this page was '
        "written: the framing, every signature, the hash chain, every dice link and the "
        "arming rule, a full re-simulation of the game with every state hash, and the "
        "result with its counter-signature.</p>\n"
        f'<dl class="facts">{rows}</dl>\n</header>'
    )


def _controls(first_of_turn: dict[int, int], last: int) -> str:
    options = "".join(
        f'<option value="{turn}">{"Start" if turn == 0 else f"Turn {turn}"}</option>'
        for turn in sorted(first_of_turn)
    )
    return (
        '<nav id="controls" aria-label="Steps">'
        '<button type="button" id="first" title="First step (Home)">|&#x25C0; First</button>'
        '<button type="button" id="back" title="Back one step (Left arrow)">&#x25C0; Back</button>'
        '<button type="button" id="forward" title="Forward one step (Right arrow)">'
        "Forward &#x25B6;</button>"
        '<button type="button" id="last" title="Last step (End)">Last &#x25B6;|</button>'
        f'<label>Jump to <select id="turn">{options}</select></label>'
        f'<span id="counter">Step 0 of {last}</span>'
        "</nav>"
    )


def _moves(steps: list[Step]) -> str:
    out = ['<section id="list" aria-label="Moves"><h2>Moves</h2><ol id="moves">']
    turn = -1
    for step in steps:
        if step.turn != turn:
            turn = step.turn
            if turn:
                out.append(f'<li class="turn" id="turn-{turn}">Turn {turn}</li>')
        out.append(_move(step))
    out.append("</ol></section>")
    return "".join(out)


def _move(step: Step) -> str:
    """One step in the move list: entry, author, notation, what happened, dice, turn ends."""
    kind = step.kind
    seq = "" if step.seq is None else f'<span class="seq">{step.seq}</span> '
    who = "" if step.author is None else f'<span class="who">{step.author.name}</span> '
    parts = [seq, who]
    if kind is StepKind.CHOICE or kind is StepKind.RESIGN:
        parts.append(f"<code>{esc(step.notation)}</code>")
        if step.outcome:
            parts.append(f' <span class="words">{esc(step.outcome)}</span>')
    elif kind is StepKind.ROLL:
        parts.append(_dice(step))
        parts.append(f' <span class="words">{esc(step.words)}</span>')
    else:
        parts.append(f'<span class="words">{esc(step.words)}</span>')
    for text in step.after:
        parts.append(f'<span class="after">{esc(text)}</span>')
    body = "".join(parts)
    return (
        f'<li class="st {kind.value}" data-step="{step.number}" data-turn="{step.turn}" '
        f'data-seq="{"" if step.seq is None else step.seq}">'
        f'<a href="#step={step.number}">{body}</a></li>'
    )


def _dice(step: Step) -> str:
    """The dice of a roll, one box each: faces for attack dice (1, 2, 3, - for a miss, B
    for a blade), the number for initiative and Wail dice."""
    boxes = []
    for value in step.dice:
        if step.faces and 1 <= value <= 6:
            face, title = _FACES[value - 1], _FACE_TITLES[value - 1]
            boxes.append(f'<span class="die" title="{value}: {title}">{face}</span>')
        else:
            boxes.append(f'<span class="die">{value}</span>')
    return f'<code>{esc(step.notation)}</code> <span class="dice">{"".join(boxes)}</span>'


STYLE: Final = """
:root{color-scheme:light;--ink:#111;--dim:#555;--line:#ccc;--hi:#fff3b0}
body{font:15px/1.45 "DejaVu Sans","Liberation Sans",Arial,sans-serif;color:var(--ink);
margin:0 auto;padding:12px;max-width:1280px;background:#fafafa}
h1{font-size:1.35em;margin:.2em 0}
h2{font-size:1.1em;margin:.2em 0}
.checked{margin:.3em 0;color:var(--dim)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:.4em 0 1em;
font-size:.9em}
.facts dt{font-weight:bold}
.facts dd{margin:0;overflow-wrap:anywhere}
main{display:grid;grid-template-columns:minmax(300px,640px) minmax(260px,1fr);gap:16px;
align-items:start}
@media (max-width:900px){main{grid-template-columns:1fr}}
#viewer{position:sticky;top:0;background:#fafafa}
#board svg{width:100%;height:auto;display:block;background:#fff;border:1px solid var(--line)}
#controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:0 0 8px}
#controls button,#controls select{font:inherit;padding:3px 9px}
#counter{color:var(--dim);font-size:.9em}
#now{min-height:3em;margin:8px 0;padding:6px 8px;background:#fff;border:1px solid var(--line)}
#now a{color:inherit;text-decoration:none}
#list{position:relative;max-height:90vh;overflow:auto;background:#fff;border:1px solid var(--line);
padding:6px 8px}
#moves{list-style:none;margin:0;padding:0;font-size:.92em}
#moves li.turn{font-weight:bold;margin-top:.6em;border-bottom:1px solid var(--line)}
#moves li.st a{display:block;color:inherit;text-decoration:none;padding:1px 4px}
#moves li.st.current a{background:var(--hi);outline:2px solid #333}
.seq{display:inline-block;min-width:2.6em;color:var(--dim);text-align:right}
.who{font-weight:bold}
.words{color:#333}
.after{display:block;margin-left:2.9em;font-style:italic}
.die{display:inline-block;min-width:1.3em;margin-right:2px;border:1.5px solid #333;
border-radius:3px;text-align:center;font:bold .9em "DejaVu Sans Mono",monospace;
background:#fff}
.seal .words{font-weight:bold}
"""

SCRIPT: Final = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("dbnet-data").textContent);
  var steps = data.steps, last = steps.length - 1, current = -1;
  var board = document.getElementById("board");
  var now = document.getElementById("now");
  var counter = document.getElementById("counter");
  var turn = document.getElementById("turn");
  var list = document.getElementById("list");
  var items = document.querySelectorAll("#moves li.st");
  function group(open, g) {
    return open + data.groups[g].map(function (i) { return data.pieces[i]; }).join("") +
      data.wrap[2];
  }
  function source(n) {
    var s = steps[n];
    return data.open + data.frame + group(data.wrap[0], s[0]) + group(data.wrap[1], s[1]) +
      data.status[s[2]];
  }
  function go(n, scroll) {
    n = Math.max(0, Math.min(last, n | 0));
    if (n === current) { return; }
    if (current >= 0) { items[current].classList.remove("current"); }
    current = n;
    var item = items[n];
    board.innerHTML = source(n);
    board.setAttribute("data-step", String(n));
    item.classList.add("current");
    now.innerHTML = item.innerHTML;
    var seq = item.getAttribute("data-seq");
    counter.textContent = "Step " + n + " of " + last +
      (steps[n][3] ? ", turn " + steps[n][3] : "") + (seq ? ", entry " + seq : "");
    turn.value = String(steps[n][3]);
    if (scroll) { reveal(item); }
    if (location.hash !== "#step=" + n) {
      try { history.replaceState(null, "", "#step=" + n); } catch (e) { /* file: pages */ }
    }
  }
  function reveal(item) {
    var top = item.offsetTop, box = list;
    if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }
  function turnStep(delta) {
    var t = steps[current][3], first = data.turns[t];
    if (delta < 0 && current > first) { return first; }
    var target = data.turns[t + delta];
    return target === undefined ? (delta < 0 ? 0 : current) : target;
  }
  function fromHash() {
    var m = /^#step=(\\d+)$/.exec(location.hash);
    return m ? parseInt(m[1], 10) : null;
  }
  function on(id, f) { document.getElementById(id).addEventListener("click", f); }
  on("first", function () { go(0, true); });
  on("back", function () { go(current - 1, true); });
  on("forward", function () { go(current + 1, true); });
  on("last", function () { go(last, true); });
  turn.addEventListener("change", function () { go(data.turns[turn.value], true); });
  document.getElementById("moves").addEventListener("click", function (e) {
    var li = e.target.closest("li.st");
    if (li) { e.preventDefault(); go(parseInt(li.getAttribute("data-step"), 10), false); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") { return; }
    var keys = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
    var n = null;
    if (e.key in keys) { n = current + keys[e.key]; }
    else if (e.key === "Home") { n = 0; }
    else if (e.key === "End") { n = last; }
    else if (e.key === "PageDown") { n = turnStep(1); }
    else if (e.key === "PageUp") { n = turnStep(-1); }
    if (n !== null) { e.preventDefault(); go(n, true); }
  });
  window.addEventListener("hashchange", function () {
    var n = fromHash();
    if (n !== null) { go(n, true); }
  });
  window.dbnetReplay = {
    go: go, source: source, last: last,
    current: function () { return current; }
  };
  var start = fromHash();
  go(start === null ? 0 : start, start !== null);
})();
"""
