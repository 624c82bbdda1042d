"""An event (``replay.event.Report``) as one self-contained HTML page: standings, roster,
games and flags, with no script and nothing fetched (``replay.page``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dbnet.replay.event import EventGame, Report, headline
from dbnet.replay.page import document
from dbnet.text import markup as esc

__all__ = ["event_page"]


def event_page(report: Report, *, version: str, folder: str) -> str:
    """The page of ``report``, checked by dbnet ``version`` from the replays in ``folder``."""
    p = report.points
    counted, apart = report.counted, report.apart
    intro = f"Verified by dbnet {version}: {headline(report)}"
    parts = [
        f"<header><h1>Event: {esc(folder)}</h1><p>{esc(intro)}</p></header>",
        "<main>",
        f"<h2>Standings</h2><p>Win {p.win}, draw {p.draw}, loss {p.loss} points; ties broken "
        "by the opponents' win rate. Only complete, verified games count, and wins by "
        "forfeit: a player proven to have signed two different entries for one place of a "
        "game loses it.</p>",
        _table(
            (
                "Rank",
                "Player (key fingerprint)",
                "Names",
                "Played",
                "Won",
                "Drawn",
                "Lost",
                "Points",
                "Opp. win rate",
                "Not counter-signed",
                "Won by forfeit",
            ),
            [
                (
                    str(s.rank),
                    s.fingerprint,
                    ", ".join(s.names) or "(not recorded)",
                    str(s.played),
                    str(s.wins),
                    str(s.draws),
                    str(s.losses),
                    str(s.points),
                    f"{float(s.opponents_win_rate):.1%}",
                    str(s.unsigned) if s.unsigned else "",
                    str(s.forfeits) if s.forfeits else "",
                )
                for s in report.standings
            ],
        ),
        "<h2>Roster</h2>",
        "".join(f"<p>{esc(note)}</p>" for note in report.notes),
        _table(
            ("Player (key fingerprint)", "Names", "Warbands", "Files", "Games"),
            [
                (
                    e.fingerprint,
                    ", ".join(e.names) or "(not recorded)",
                    ", ".join(repr(w) for w in e.warbands),
                    str(e.files),
                    str(e.games),
                )
                for e in report.roster
            ],
        ),
        "<h2>Flags</h2>",
        _list([f"{f.kind.value}: {f.text} ({', '.join(f.files)})" for f in report.flags]),
        "<h2>Games counted</h2>",
        _games(counted),
        "<h2>Games listed apart (not counted)</h2>",
        _games(apart),
        *(_unreadable(report) if report.unreadable else ()),
        "</main>",
    ]
    return document(f"dbnet event: {folder}", STYLE, "\n".join(parts))


def _unreadable(report: Report) -> tuple[str, ...]:
    listed = _list([f"{v.where}: {v.summary()}" for v in report.unreadable])
    return ("<h2>Unreadable files (no game in them)</h2>", listed)


def _games(games: Sequence[EventGame]) -> str:
    rows = []
    for game in games:
        a, b = game.players or ("?", "?")
        damaged = {v.where for v in game.bad}
        files = [f + (" (damaged copy)" if f in damaged else "") for f in game.files]
        files += [f"{f} (equivocation evidence)" for f in game.evidence]
        rows.append(((game.game_id or "")[:16], a, b, game.result(), "\n".join(files)))
    return _table(("Game id", "A", "B", "Result", "Files"), rows)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    if not rows:
        return "<p>(none)</p>"
    top = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table>"


def _cell(text: str) -> str:
    """A cell's text, escaped, its lines kept as lines."""
    return "<br>".join(esc(line) for line in text.split("\n"))


def _list(items: Sequence[str]) -> str:
    if not items:
        return "<p>(none)</p>"
    return "<ul>" + "".join(f"<li>{esc(item)}</li>" for item in items) + "</ul>"


STYLE: Final = """
body{font:15px/1.45 "DejaVu Sans","Liberation Sans",Arial,sans-serif;color:#111;
margin:0 auto;padding:12px;max-width:1200px;background:#fafafa}
h1{font-size:1.35em}h2{font-size:1.1em;margin-top:1.2em}
table{border-collapse:collapse;background:#fff;font-size:.92em}
th,td{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eee}
td{overflow-wrap:anywhere}
"""
