"""An event with an event file as one self-contained HTML page (``replay.page``): the
Swiss standings with their tie-breaks, the pairings and results of every round, the
top cut's winner, the ratings, the games apart and the files' flags."""

from __future__ import annotations

from collections.abc import Sequence

from dbnet.replay.event import Report
from dbnet.replay.event_page import STYLE
from dbnet.replay.page import document
from dbnet.replay.swiss.eventfile import EventFile
from dbnet.replay.swiss.ratings import Rated
from dbnet.replay.swiss.results import Results
from dbnet.replay.swiss.standings import Line
from dbnet.text import markup as esc

__all__ = ["swiss_page"]


def swiss_page(
    event: EventFile,
    report: Report,
    results: Results,
    lines: Sequence[Line],
    rated: Sequence[Rated],
    winner: str | None,
    *,
    version: str,
    folder: str,
) -> str:
    names = {e.fingerprint: e.name for e in event.players}
    p = event.points
    cut = f", then a top {event.top}" if event.top else ""
    intro = (
        f"Event id {event.event_id}: {len(event.players)} players, {event.rounds} Swiss "
        f"rounds{cut}. {report.files} replay files in {folder}, verified by dbnet {version}."
    )
    parts = [
        f"<header><h1>{esc(event.name)}</h1><p>{esc(intro)}</p></header>",
        "<main>",
    ]
    if winner is not None:
        parts.append(f"<p><strong>Winner of the top cut: {esc(_named(winner, names))}</strong></p>")
    parts += [
        "<h2>Standings of the Swiss rounds</h2>",
        f"<p>Win {p.win}, draw {p.draw}, loss {p.loss} points, a bye a win; ties broken by "
        "the opponents' match-win percentage (each floored at one third), the game-win "
        "percentage, the opponents' game-win percentage, then a lot drawn from the event "
        "id.</p>",
        _table(
            (
                "Rank",
                "Player",
                "Name",
                "Points",
                "Played",
                "W-D-L",
                "Byes",
                "OMW%",
                "GW%",
                "OGW%",
                "Notes",
            ),
            [
                (
                    str(s.rank),
                    s.fingerprint,
                    s.name or "-",
                    str(s.points),
                    str(s.played),
                    f"{s.wins}-{s.draws}-{s.losses}",
                    str(s.byes),
                    f"{float(s.omw):.2%}",
                    f"{float(s.gwp):.2%}",
                    f"{float(s.ogw):.2%}",
                    "; ".join(
                        ([f"dropped from round {s.dropped}"] if s.dropped else [])
                        + ([f"{s.hand} hand-recorded"] if s.hand else [])
                    ),
                )
                for s in lines
            ],
        ),
    ]
    for found in results.rounds:
        if not found:
            continue
        number = found[0].round
        stage = "top cut" if number > event.rounds else "Swiss"
        parts.append(f"<h2>Round {number} ({stage})</h2>")
        parts.append(
            _table(
                ("Table", "A", "B", "Result"),
                [
                    (
                        str(r.table.number),
                        _named(r.table.a, names),
                        "bye" if r.table.b is None else _named(r.table.b, names),
                        r.words(),
                    )
                    for r in found
                ],
            )
        )
    parts += [
        "<h2>Ratings (Glicko-2, each round a rating period)</h2>",
        _table(
            ("Player", "Rating", "Deviation", "Volatility", "Games"),
            [
                (
                    _named(r.fingerprint, names),
                    f"{r.rating:.1f}",
                    f"{r.deviation:.1f}",
                    f"{r.volatility:.4f}",
                    str(r.games),
                )
                for r in rated
            ],
        ),
        "<h2>Games apart (no table's result, never counted)</h2>",
        _table(
            ("Game id", "Why", "Files"),
            [((a.game.game_id or "-")[:16], a.why, "\n".join(a.game.files)) for a in results.apart],
        ),
        "<h2>Flags</h2>",
        _table(("What", "Text"), [(f.kind.value, f.text) for f in report.flags]),
        "</main>",
    ]
    return document(f"dbnet event: {event.name}", STYLE, "\n".join(parts))


def _named(player: str, names: dict[str, str]) -> str:
    name = names.get(player)
    return f"{player} ({name})" if name else player


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    if not rows:
        return "<p>(none)</p>"
    top = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{'<br>'.join(esc(x) for x in c.split(chr(10)))}</td>" for c in row)
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table>"
