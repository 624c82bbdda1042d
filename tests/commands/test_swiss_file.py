"""``dbnet event new/add/drop`` and ``dbnet id`` as real processes on real folders: the
event file made and edited, and every bad or hostile input refused in one line (exit 2,
no traceback) with the folder left byte for byte as it was."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from dbnet.protocol.identity import Identity

from .test_event import dbnet

FPS = tuple(Identity.generate().fingerprint for _ in range(3))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def refused(cwd: Path, folder: Path, *args: str, says: str) -> None:
    before = snapshot(folder)
    done = dbnet(cwd, *args)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert says in lines[0], lines[0]
    assert snapshot(folder) == before


@pytest.fixture
def event(tmp_path: Path) -> Path:
    done = dbnet(tmp_path, "event", "new", "ev", "--name", "Spring Open", "--rounds", "3")
    assert done.returncode == 0, done.stderr
    return tmp_path / "ev"


def test_new_writes_an_event_file_with_a_random_id(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        done = dbnet(
            tmp_path, "event", "new", folder, "--name", "Cup", "--rounds", "4", "--top", "8"
        )
        assert done.returncode == 0, done.stderr
    one = tomllib.loads((tmp_path / "one" / "event.toml").read_text())
    two = tomllib.loads((tmp_path / "two" / "event.toml").read_text())
    assert (one["name"], one["rounds"], one["top"]) == ("Cup", 4, 8)
    assert one["points"] == {"win": 3, "draw": 1, "loss": 0}
    assert len(one["id"]) == 32
    assert one["id"] != two["id"]
    assert one.get("players", []) == []


def test_id_prints_the_fingerprint_of_the_players_own_key(tmp_path: Path) -> None:
    first = dbnet(tmp_path, "id")
    again = dbnet(tmp_path, "id")
    assert first.returncode == 0, first.stderr
    key = Identity.load_or_create(tmp_path / "home")
    assert first.stdout.strip() == again.stdout.strip() == key.fingerprint


def test_add_and_drop_edit_the_file(event: Path) -> None:
    cwd = event.parent
    assert dbnet(cwd, "event", "add", "ev", FPS[0], "--name", "alice").returncode == 0
    written = FPS[1].lower().replace("-", " ")  # as people write it
    assert dbnet(cwd, "event", "add", "ev", written).returncode == 0
    done = dbnet(cwd, "event", "drop", "ev", FPS[1])
    assert done.returncode == 0, done.stderr
    doc = tomllib.loads((event / "event.toml").read_text())
    assert doc["players"] == [
        {"fingerprint": FPS[0], "name": "alice"},
        {"fingerprint": FPS[1], "dropped": 1},
    ]
    assert not [p for p in event.iterdir() if p.name.endswith(".tmp")]


def test_bad_edits_are_refused_and_change_nothing(event: Path) -> None:
    cwd = event.parent
    assert dbnet(cwd, "event", "add", "ev", FPS[0], "--name", "alice").returncode == 0
    refused(cwd, event, "event", "add", "ev", "KQ3X-7ZBD", says="not a key fingerprint")
    refused(cwd, event, "event", "add", "ev", "KQ3X-7ZBD-M2LA-QX41", says="not a key fingerprint")
    refused(cwd, event, "event", "add", "ev", FPS[0].lower(), says="already a player")
    refused(cwd, event, "event", "add", "ev", FPS[1], "--name", "no spaces", says="not a name")
    refused(cwd, event, "event", "drop", "ev", FPS[2], says="not a player of this event")
    refused(cwd, event, "event", "new", "ev", "--name", "X", "--rounds", "2", says="already exists")
    refused(cwd, event, "event", "add", "ev", FPS[1], "--rounds", "2", says="not an option")
    refused(cwd, event, "event", "ev", "--points", "2,1,0", says="the event's points are in")
    assert dbnet(cwd, "event", "drop", "ev", FPS[0]).returncode == 0
    refused(cwd, event, "event", "drop", "ev", FPS[0], says="already dropped")
    assert dbnet(cwd, "event", "add", "ev", FPS[1]).returncode == 0
    assert dbnet(cwd, "event", "add", "ev", FPS[2]).returncode == 0
    assert dbnet(cwd, "event", "pair", "ev").returncode == 0
    refused(
        cwd,
        event,
        "event",
        "add",
        "ev",
        Identity.generate().fingerprint,
        says="round 1 is already paired",
    )


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--rounds", "3"), "needs --name"),
        (("--name", "X", "--rounds", "0"), "rounds must be from 1"),
        (("--name", "X", "--rounds", "3", "--top", "6"), "top cut must be"),
        (("--name", "\x1b[2J", "--rounds", "3"), "printable"),
    ],
)
def test_bad_new_events_are_refused(tmp_path: Path, options: tuple[str, ...], says: str) -> None:
    refused(tmp_path, tmp_path, "event", "new", "ev", *options, says=says)
    assert not (tmp_path / "ev" / "event.toml").exists()


HOSTILE = {
    "not toml": b"id = [\n",
    "not utf-8": b'name = "\xff"\n',
    "huge": b"# " + b"x" * (5 * 1024 * 1024) + b"\n",
    "wrong type": b'format = 1\nid = "00000000000000000000000000000000"\nname = 3\nrounds = 3\n',
    "unknown key": b'format = 1\nid = "00000000000000000000000000000000"\nname = "x"\n'
    b"rounds = 3\nowner = 1\n",
    "future format": b'format = 9\nid = "00000000000000000000000000000000"\nname = "x"\n'
    b"rounds = 3\n",
    "bad id": b'format = 1\nid = "../../etc"\nname = "x"\nrounds = 3\n',
    "twice": (
        b'format = 1\nid = "00000000000000000000000000000000"\nname = "x"\nrounds = 3\n'
        + (f'[[players]]\nfingerprint = "{FPS[0]}"\n'.encode()) * 2
    ),
    "bad player": b'format = 1\nid = "00000000000000000000000000000000"\nname = "x"\n'
    b'rounds = 3\n[[players]]\nfingerprint = "<script>"\n',
    # issue 29, item 5: arrays in arrays 3,000 deep (a RecursionError in the TOML reader)
    "nested 3000 deep": b"format = " + b"[" * 3000 + b"]" * 3000 + b"\n",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_event_files_get_one_line(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "ev"
    folder.mkdir()
    (folder / "event.toml").write_bytes(HOSTILE[kind])
    refused(tmp_path, folder, "event", "add", "ev", FPS[1], says="event.toml")
    refused(tmp_path, folder, "event", "pair", "ev", says="event.toml")
    refused(tmp_path, folder, "event", "ev", says="event.toml")


def test_a_folder_named_like_a_verb_is_reached_with_a_path(tmp_path: Path) -> None:
    done = dbnet(tmp_path, "event", "new", "pair", "--name", "Verbs", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    shown = dbnet(tmp_path, "event", "./pair")
    assert shown.returncode == 0, shown.stderr
    assert "Event 'Verbs'" in shown.stdout
