"""Strings a peer or a replay file chose reach the output of ``dbnet verify``, ``dbnet export
--format text`` and ``dbnet replay --plain`` escaped: a name holding a newline, a carriage
return, an escape sequence or a bidi override cannot forge a line or rewrite the screen.
Real replay files, read by real processes."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import AbilityDef, GameSetup, Warband
from dbnet.match.keys import MatchKeys
from dbnet.match.local import LocalGame
from dbnet.match.seats import BotSeat
from dbnet.protocol.genesis import game_id_for
from dbnet.protocol.peer import RULES_VERSION
from dbnet.replay.file import ReplayWriter
from dbnet.wire.bodies import EntryKind, OfferBody
from dbnet.wire.entries import (
    Entry,
    SignedEntry,
    encode_entry,
    encode_signed_entry,
    signing_message,
)
from dbnet.wire.replay_header import ReplayHeader
from dbnet.wire.setup import EncodedSetup, setup_to_wire
from dbnet.wire.values import encode
from dbnet.wire.versions import PROTOCOL_VERSION

from .terminal import isolated_env

HOSTILE = "Evil\n     1  A resign\r\x1b[2J\x1b]0;pwned\x07\x85\u202eelif\u2066"
"""A line break and a forged log line, a carriage return, a screen clear, a window title,
C1's next line, a right-to-left override and an isolate."""
SHOWN = "Evil\\n     1  A resign\\r\\x1b[2J\\x1b]0;pwned\\x07\\x85\\u202eelif\\u2066"
CREATED = f"2026-01-01T00:00:00Z{HOSTILE}"


def hostile_setup(*, unknown_ability: bool = False) -> GameSetup:
    """The default setup with both warbands named ``HOSTILE`` (a warband's name is the
    player's own text; a game plays with it). With ``unknown_ability`` A's first
    miniature is named ``HOSTILE`` too, and that miniature has an ability no
    glossary knows, whose text is hostile: a setup both peers and the verifier refuse,
    naming the miniature (its card is not the catalog's)."""
    a, b = default_warbands(load_catalog())
    if not unknown_ability:
        return GameSetup(
            load_map(), (Warband(f"{HOSTILE} A", a.minis), Warband(f"{HOSTILE} B", b.minis))
        )
    first = a.minis[0]
    renamed = dataclasses.replace(first, name=f"{HOSTILE} mini")
    if unknown_ability:
        odd = AbilityDef(keyword="Wyrd", text=HOSTILE)
        renamed = dataclasses.replace(renamed, abilities=(*renamed.abilities, odd))
    minis = tuple(renamed if m.slug == first.slug else m for m in a.minis)
    return GameSetup(
        load_map(),
        (Warband(f"{HOSTILE} A", minis), Warband(f"{HOSTILE} B", b.minis)),
    )


def header(keys: MatchKeys, game_id: bytes) -> ReplayHeader:
    identities = keys.identities
    return ReplayHeader(
        rules=RULES_VERSION,
        game_id=game_id,
        keys=(identities[0].public_key, identities[1].public_key),
        created=CREATED,
    )


@pytest.fixture(scope="module")
def hostile_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole bot game with the hostile names and ``created``: a valid replay."""
    path = tmp_path_factory.mktemp("hostile") / "hostile.dbnr"
    setup = hostile_setup()
    keys = MatchKeys.from_seed(b"test-peer-text")
    seats = (BotSeat(GreedyBot(random.Random(1))), BotSeat(RandomBot(random.Random(2))))
    with ReplayWriter.create(path, header(keys, keys.game_id(setup))) as writer:
        local = LocalGame(setup, seats, keys, chain_length=4, on_record=writer.append)
        local.advance()
    assert local.match.is_closed
    return path


@pytest.fixture(scope="module")
def unplayable_offer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay whose OFFER, correctly signed, holds a miniature with a hostile name and an
    ability no glossary knows: invalid at record 1, and the reason names the miniature."""
    path = tmp_path_factory.mktemp("unplayable") / "unplayable.dbnr"
    setup = hostile_setup(unknown_ability=True)
    keys = MatchKeys.from_seed(b"test-peer-text-offer")
    identities = keys.identities
    public = (identities[0].public_key, identities[1].public_key)
    setup_bytes = encode(setup_to_wire(setup))
    game_id = game_id_for(RULES_VERSION, public, keys.nonce, setup_bytes, keys.joiner_nonce)
    body = OfferBody(
        rules=RULES_VERSION,
        keys=public,
        nonce=keys.nonce,
        offered=EncodedSetup(setup, None, setup_bytes),
        chain=4,
        anchor=bytes(32),
        state=bytes(32),
        joiner_nonce=keys.joiner_nonce,
        name="mallory",
    )
    entry = Entry(PROTOCOL_VERSION, game_id, 0, 0, bytes(32), EntryKind.OFFER, body)
    signed = encode_entry(entry)
    signature = identities[0].sign(signing_message(signed))
    with ReplayWriter.create(path, header(keys, game_id)) as writer:
        writer.append(encode_signed_entry(SignedEntry(signed, signature)))
    return path


def dbnet(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``dbnet ARGS``, its output decoded as it is (a carriage return stays one); 400
    columns wide, so that ``verify``'s table cuts no reason short."""
    env = {
        **isolated_env(tmp_path),
        "DBNET_RELAY": "off",
        "DBNET_PORT_MAPPING": "off",
        "COLUMNS": "400",
    }
    done = subprocess.run(
        [sys.executable, "-m", "dbnet", *args],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        env=env,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def assert_escaped(text: str) -> None:
    """Nothing in ``text`` but printable characters and the output's own line breaks, and
    no line that a hostile string began."""
    raw = sorted({ch for ch in text if not ch.isprintable() and ch != "\n"})
    assert not raw, f"raw control or format characters in the output: {raw!r}"
    assert not any(line.startswith("     1  A resign") for line in text.splitlines())


def test_replay_plain_escapes_the_header_and_names(tmp_path: Path, hostile_game: Path) -> None:
    done = dbnet(tmp_path, "replay", "--plain", str(hostile_game))
    assert done.returncode == 0, done.stderr
    assert_escaped(done.stdout)
    assert f"created {CREATED[:20]}{SHOWN}" in done.stdout
    assert SHOWN in done.stdout


def test_export_text_escapes_the_header_and_names(tmp_path: Path, hostile_game: Path) -> None:
    done = dbnet(tmp_path, "export", "--format", "text", str(hostile_game))
    assert done.returncode == 0, done.stderr
    assert_escaped(done.stdout)
    assert f"created {CREATED[:20]}{SHOWN}" in done.stdout


def test_export_json_keeps_the_values_exact(tmp_path: Path, hostile_game: Path) -> None:
    done = dbnet(tmp_path, "export", "--format", "json", str(hostile_game))
    assert done.returncode == 0, done.stderr
    assert_escaped(done.stdout)  # JSON escapes them itself
    document = json.loads(done.stdout)
    assert document["header"]["created"] == CREATED
    assert document["players"]["A"]["warband"] == f"{HOSTILE} A"


def test_verify_escapes_a_reason_naming_a_miniature(tmp_path: Path, unplayable_offer: Path) -> None:
    done = dbnet(tmp_path, "verify", str(unplayable_offer))
    assert done.returncode == 1, done.stderr
    assert_escaped(done.stdout)
    assert "invalid at record 1" in done.stdout
    assert f"{SHOWN} mini" in done.stdout


def test_verify_table_escapes_reasons(
    tmp_path: Path, unplayable_offer: Path, hostile_game: Path
) -> None:
    done = dbnet(tmp_path, "verify", str(unplayable_offer), str(hostile_game))
    assert done.returncode == 1, done.stderr
    assert_escaped(done.stdout)
    assert "\\x1b" in done.stdout


def test_replay_plain_of_an_unplayable_offer(tmp_path: Path, unplayable_offer: Path) -> None:
    for args in (("replay", "--plain"), ("export", "--format", "text")):
        done = dbnet(tmp_path, *args, str(unplayable_offer))
        assert done.returncode == 1, done.stderr
        assert_escaped(done.stdout)
        assert f"{SHOWN} mini" in done.stdout
