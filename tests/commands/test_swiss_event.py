"""A whole Swiss event of real games through ``dbnet event`` as real processes: eight
players, three rounds, one player dropping, a no-show recorded by hand, then a top 4;
the pairings, results, games apart and standings checked against a table computed by
hand, and ``--check`` catching a round file changed after the fact."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from dbnet.protocol.identity import Identity

from .swiss_games import KEYS, won
from .test_event import dbnet

EVENT_ID = "5" * 32
PLAYERS = KEYS[:8]
NAME = {k.fingerprint: f"p{i + 1}" for i, k in enumerate(PLAYERS)}
KEY = {k.fingerprint: k for k in PLAYERS}


def better(a: str, b: str) -> str:
    """The result rule of this event: the lower-numbered player wins."""
    return min(a, b, key=lambda p: int(NAME[p][1:]))


def tables(folder: Path, number: int) -> list[dict[str, object]]:
    doc = tomllib.loads((folder / f"round-{number}.toml").read_text())
    rows: list[dict[str, object]] = doc["tables"]
    return rows


def names_of(row: dict[str, object]) -> tuple[str, ...]:
    return tuple(NAME[str(row[k])] for k in ("a", "b") if k in row)


def ok(cwd: Path, *args: str) -> str:
    done = dbnet(cwd, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def play_round(folder: Path, number: int, hand_table: int | None = None) -> None:
    """Every table's game, the better player winning; ``hand_table``'s result recorded
    by hand in the round file instead (a no-show)."""
    path = folder / f"round-{number}.toml"
    text = path.read_text()
    for row in tables(folder, number):
        if "b" not in row:
            continue
        a, b = str(row["a"]), str(row["b"])
        winner = better(a, b)
        if row["table"] == hand_table:
            seat = "A" if winner == a else "B"
            head = f'table = {hand_table}\na = "{a}"\nb = "{b}"\n'
            text = text.replace(head, head + f'result = "{seat}"\nnote = "no-show"\n')
            continue
        game = won(KEY[a], KEY[b], KEY[winner], number * 100 + int(str(row["table"])),
                   (NAME[a], NAME[b]))  # fmt: skip
        game.write(folder / f"r{number}-t{row['table']}.dbnr")
    path.write_text(text)


@dataclass(frozen=True)
class Event:
    cwd: Path
    folder: Path
    pending: str
    refused: str


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Event:
    cwd = tmp_path_factory.mktemp("swiss")
    folder = cwd / "ev"
    ok(cwd, "event", "new", "ev", "--name", "Cup", "--rounds", "3", "--top", "4")
    path = folder / "event.toml"
    made = tomllib.loads(path.read_text())["id"]
    path.write_text(path.read_text().replace(made, EVENT_ID))  # fixed pairings
    for key in PLAYERS:
        ok(cwd, "event", "add", "ev", key.fingerprint, "--name", NAME[key.fingerprint])
    ok(cwd, "event", "pair", "ev")
    pending = ok(cwd, "event", "ev")
    refused = dbnet(cwd, "event", "pair", "ev").stderr
    play_round(folder, 1)
    ok(cwd, "event", "pair", "ev")
    play_round(folder, 2)
    ok(cwd, "event", "drop", "ev", PLAYERS[7].fingerprint)
    ok(cwd, "event", "pair", "ev")
    play_round(folder, 3, hand_table=2)
    p = {NAME[k.fingerprint]: k for k in PLAYERS}
    stranger = KEYS[10]
    won(p["p1"], stranger, p["p1"], 71, ("p1", "zed")).write(folder / "stranger.dbnr")
    won(p["p7"], p["p8"], p["p7"], 72, ("p7", "p8")).write(folder / "dropped.dbnr")
    won(p["p4"], p["p6"], p["p4"], 73, ("p4", "p6")).write(folder / "second.dbnr")
    won(p["p4"], p["p7"], p["p4"], 74, ("p4", "p7")).write(folder / "unpaired.dbnr")
    ok(cwd, "event", "pair", "ev")  # the top 4
    play_round(folder, 4)
    ok(cwd, "event", "pair", "ev")  # the final
    play_round(folder, 5)
    return Event(cwd, folder, pending, refused)


def test_a_round_waits_for_its_results(event: Event) -> None:
    assert event.pending.count(": pending") == 4
    assert event.refused.startswith("dbnet event: round 1 table 1 (")
    assert "has no result yet" in event.refused
    assert len(event.refused.splitlines()) == 1


def test_the_pairings_are_the_swiss_ones(event: Event) -> None:
    rounds = [sorted(sorted(names_of(r)) for r in tables(event.folder, k)) for k in (1, 2, 3)]
    # computed by hand from the rules (the seeded shuffle of round 1 is the event id's)
    assert rounds[0] == [["p1", "p5"], ["p2", "p8"], ["p3", "p7"], ["p4", "p6"]]
    # after round 1: p1 p2 p3 p4 on 3; p5 p6 p7 p8 on 0; no rematch
    assert rounds[1] == [["p1", "p3"], ["p2", "p4"], ["p5", "p8"], ["p6", "p7"]]
    # p8 dropped: seven players; p1 p2 on 6 play; the bye to the lowest on 0, p7; on 3,
    # ranked p4 p6 p5 p3 by the round's shuffle: p4-p6 met, so p4-p5 and p6-p3 (squared
    # rank distances 4 + 4) rather than p4-p3 and p6-p5 (9 + 1)
    assert rounds[2] == [["p1", "p2"], ["p3", "p6"], ["p4", "p5"], ["p7"]]
    cut = [names_of(r) for r in tables(event.folder, 4)]
    assert cut == [("p1", "p4"), ("p2", "p3")]  # seeds 1 v 4, 2 v 3; the higher seed A
    assert [names_of(r) for r in tables(event.folder, 5)] == [("p1", "p2")]


def test_the_standings_are_the_hand_computed_table(event: Event) -> None:
    doc = json.loads(ok(event.cwd, "event", "ev", "--json"))
    got = [
        (s["name"], s["points"], f"{s['wins']}-{s['draws']}-{s['losses']}", s["byes"],
         s["opponents_match_win"]["exact"], s["game_win"]["exact"],
         s["opponents_game_win"]["exact"], s["dropped_from_round"], s["hand_recorded"])
        for s in doc["standings"]
    ]  # fmt: skip
    # p1 beat p5 p3 p2; p2 beat p8 p4; p3 beat p7 p6; p4 beat p6 and p5 (a no-show);
    # p5 beat p8; p6 beat p7; p7 had the bye. MWP 9/9, 6/9, 3/9, 0 (p8, floored to 1/3).
    assert got == [
        ("p1", 9, "3-0-0", 0, "5/9", "1/1", "5/9", None, 0),  # (1/3+2/3+2/3)/3
        ("p2", 6, "2-0-1", 0, "2/3", "2/3", "2/3", None, 0),  # (1/3+2/3+1)/3
        ("p3", 6, "2-0-1", 0, "5/9", "2/3", "5/9", None, 0),  # (1/3+1+1/3)/3
        ("p4", 6, "2-0-1", 0, "4/9", "2/3", "4/9", None, 1),  # (1/3+2/3+1/3)/3
        ("p5", 3, "1-0-2", 0, "2/3", "1/3", "2/3", None, 1),  # (1+1/3+2/3)/3
        ("p6", 3, "1-0-2", 0, "5/9", "1/3", "5/9", None, 0),  # (2/3+1/3+2/3)/3
        ("p7", 3, "0-0-2", 1, "1/2", "1/3", "1/2", None, 0),  # (2/3+1/3)/2, bye left out
        ("p8", 0, "0-0-2", 0, "1/2", "0/1", "1/2", 3, 0),  # (2/3+1/3)/2
    ]
    assert NAME[doc["champion"]] == "p1"
    hand = [t for r in doc["rounds"] for t in r["tables"] if t["hand_recorded"]]
    assert [(t["round"], t["table"], t["result"], t["note"]) for t in hand] == [
        (3, 2, "A", "no-show")
    ]


def test_games_that_are_no_tables_result_are_listed_apart(event: Event) -> None:
    doc = json.loads(ok(event.cwd, "event", "ev", "--json"))
    why = {Path(a["files"][0]).name: a["why"] for a in doc["apart"]}
    assert why == {
        "stranger.dbnr": f"signed by a key not in the event: {KEYS[10].fingerprint}",
        "dropped.dbnr": f"a game of {PLAYERS[7].fingerprint}, who dropped from round 3",
        "second.dbnr": "a second game of a pairing (round 1, table 2)",
        "unpaired.dbnr": "its players were not paired in any round",
    }
    counted = {t["game"] for r in doc["rounds"] for t in r["tables"] if t["game"]}
    assert len(counted) == 13  # 11 Swiss tables of two (one recorded by hand), 3 in the cut
    text = ok(event.cwd, "event", "ev")
    assert "Winner of the top cut: " + PLAYERS[0].fingerprint + " (p1)" in text
    assert "A won (recorded by hand: no-show)" in text


def test_the_page_shows_standings_rounds_and_ratings(event: Event) -> None:
    page = ok(event.cwd, "event", "ev", "--html")
    assert page.startswith("<!DOCTYPE html>")
    for heading in ("Standings of the Swiss rounds", "Round 3 (Swiss)", "Round 5 (top cut)",
                    "Ratings (Glicko-2", "Games apart"):  # fmt: skip
        assert heading in page
    assert page.count("<tr>") >= 8 + 4 * 3 + 3 + 8


def test_ratings_rank_the_winner_first(event: Event) -> None:
    doc = json.loads(ok(event.cwd, "event", "ev", "--json", "--ratings"))
    ratings = doc["ratings"]
    assert [NAME[r["fingerprint"]] for r in ratings][:2] == ["p1", "p2"]
    assert {NAME[r["fingerprint"]]: r["games"] for r in ratings}["p1"] == 5


def test_check_recomputes_every_round_and_finds_a_changed_one(event: Event) -> None:
    out = ok(event.cwd, "event", "pair", "ev", "--check")
    assert "rounds 1 to 5: each is what its recorded results pair" in out
    over = dbnet(event.cwd, "event", "pair", "ev")
    assert over.returncode == 2
    assert "the event is over" in over.stderr
    path = event.folder / "round-2.toml"
    before = path.read_text()
    one, two = (str(r["b"]) for r in tables(event.folder, 2)[:2])
    swapped = before.replace(one, "@").replace(two, one).replace("@", two)
    try:
        path.write_text(swapped)
        done = dbnet(event.cwd, "event", "pair", "ev", "--check")
        assert done.returncode == 1, done.stdout
        assert "round 2 differs: table 1: written " in done.stdout
    finally:
        path.write_text(before)


def test_a_late_ruling_never_changes_a_round_already_paired(event: Event) -> None:
    path = event.folder / "round-1.toml"
    before = path.read_text()
    row = tables(event.folder, 1)[0]
    head = f'table = 1\na = "{row["a"]}"\nb = "{row["b"]}"\n'
    try:
        path.write_text(before.replace(head, head + 'result = "draw"\nnote = "ruling"\n'))
        done = dbnet(event.cwd, "event", "pair", "ev", "--check")
        assert done.returncode == 0, done.stdout
        assert "round 2 note: was paired from round 1 table 1: A (game " in done.stdout
        assert "now a draw (recorded by hand: ruling)" in done.stdout
        assert "differs" not in done.stdout
    finally:
        path.write_text(before)


def test_hostile_round_files_get_one_line(event: Event, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(event.folder, folder)
    path = folder / "round-3.toml"
    for bad, says in (
        (path.read_text().replace("stage = \"swiss\"", "stage = \"final\""), "'stage' must be"),
        (path.read_text().replace(PLAYERS[0].fingerprint, Identity.generate().fingerprint),
         "is not a player of the event"),
        ("round = [", "not valid TOML"),
    ):  # fmt: skip
        path.write_text(bad)
        done = dbnet(tmp_path, "event", "copy")
        assert done.returncode == 2
        assert len(done.stderr.splitlines()) == 1
        assert says in done.stderr
        assert "Traceback" not in done.stderr


def test_a_folder_without_an_event_file_is_rated_as_one_period(
    event: Event, tmp_path: Path
) -> None:
    for path in event.folder.glob("*.dbnr"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    doc = json.loads(ok(tmp_path, "event", ".", "--ratings", "--json"))
    games = {r["fingerprint"]: r["games"] for r in doc["ratings"]}
    assert games[PLAYERS[0].fingerprint] == 6  # five tables and the game with a stranger
    assert KEYS[10].fingerprint in games  # no event: every counted game is rated
    assert sum(games.values()) == 2 * 17
    text = ok(tmp_path, "event", ".", "--ratings")
    assert "Glicko-2 ratings (one rating period: a game's time is not signed" in text
