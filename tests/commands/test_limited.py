"""``dbnet play --limited``: a person builds from their pool in the line interface within
the build time; the bot builds automatically; the replay verifies (docs/limited.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from dbnet.cli import build_parser
from dbnet.commands.play import Session, _check_limited
from dbnet.engine import Player
from dbnet.engine.limited import auto_build
from dbnet.engine.model import MiniatureDef
from dbnet.errors import InvalidChoiceError
from dbnet.replay.verify import VerdictStatus, verify_replay

from .test_play import replay_path, run_play


def test_a_limited_game_through_the_pipes(tmp_path: Path) -> None:
    result = run_play(
        tmp_path,
        "--limited", "starter+booster", "--plain", "--seed", "7",
        stdin="pick nothing-like-this\nauto\ndone\nresign\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "The packs are opened with 48 dice (600.6). A's pool: " in out
    assert "A's pool (23 miniatures):" in out
    assert "not saved: 'nothing-like-this' names no miniature of the pool" in out
    assert "Automatic build: " in out
    assert "A (you): commit " in out
    assert "B reveals its warband: " in out  # 600.7
    assert "Both warbands are fixed; the game begins" in out
    path = replay_path(out)
    verdict = verify_replay((tmp_path / path).read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict


def _session(tmp_path: Path, clock: list[float]) -> tuple[Session, list[str]]:
    """A ``dbnet play --limited 3-boosters --build-minutes 1`` session on a fake clock,
    with the pack dice rolled; its lines are given later (``_reader``)."""
    args = build_parser().parse_args(
        ["play", "--limited", "3-boosters", "--plain", "--seed", "3", "--build-minutes", "1",
         "--replay", str(tmp_path / "game.dbnr")]
    )  # fmt: skip
    said: list[str] = []
    session = Session.start(args, _reader([], clock), said.append)
    session.clock = lambda: clock[0]
    session.local.advance()  # the pack roll
    return session, said


def _pool(session: Session) -> tuple[MiniatureDef, ...]:
    build = session.local.game.build
    assert build is not None
    assert build.pools is not None
    return build.pools[Player.A]


def _reader(lines: list[str], clock: list[float]) -> Callable[[str], str]:
    """Reads ``lines``, each taking ten seconds on ``clock``; then the input ends."""

    def read_line(prompt: str) -> str:
        clock[0] += 10.0
        if not lines:
            raise EOFError
        return lines.pop(0)

    return read_line


def test_a_saved_warband_is_committed_when_the_time_runs_out(tmp_path: Path) -> None:
    """The person saves a legal warband, then types for more than the build time: the
    saved warband is committed, revealed and played."""
    clock = [0.0]
    session, said = _session(tmp_path, clock)
    pool = _pool(session)
    picked = [m.slug for m in pool if m.is_creature][:3]
    lines = [f"pick {' '.join(picked)}", *["pool"] * 7, "done"]
    session.read_line = _reader(lines, clock)
    session.loop()
    text = "\n".join(said)
    assert "build time is up" in text
    game = session.local.game
    assert [m.slug for m in game.setup.warbands[Player.A].minis] == picked
    assert game.build is None


def test_the_automatic_build_when_time_runs_out_with_nothing_saved(tmp_path: Path) -> None:
    clock = [0.0]
    session, said = _session(tmp_path, clock)
    pool = _pool(session)
    session.read_line = _reader(["pick " + "x" * 3, *["auto"] * 7, "resign"], clock)
    session.loop()
    game = session.local.game
    assert game.setup.warbands[Player.A].minis == auto_build(pool)
    assert "build time is up" in "\n".join(said)


def test_a_warband_breaking_600_is_not_saved(tmp_path: Path) -> None:
    clock = [0.0]
    session, said = _session(tmp_path, clock)
    pool = _pool(session)
    once = next(m for m in pool if pool.count(m) == 1)
    session.read_line = _reader([f"pick {once.slug} {once.slug}", "quit"], clock)
    session.loop()
    assert (
        f"not saved: the warband breaks 600.6: 2 copies of {once.name!r}, but the pool holds 1"
        in said
    )


@pytest.mark.parametrize("option", ["--warband=x.toml", "--hotseat"])
def test_limited_refuses_options_of_other_games(option: str) -> None:
    args = build_parser().parse_args(["play", "--limited", "3-boosters", option])
    with pytest.raises(InvalidChoiceError, match="--limited builds both warbands"):
        _check_limited(args)


def test_limited_is_played_full_screen_too() -> None:
    """--tui (the full-screen builder on the pool, then the game) is allowed; the build
    time may be a fraction of a minute."""
    args = build_parser().parse_args(
        ["play", "--limited", "3-boosters", "--tui", "--build-minutes", "0.05"]
    )
    _check_limited(args)
    assert args.build_minutes == 0.05
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--limited", "3-boosters", "--build-minutes", "0"])


def test_the_format_must_be_known() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--limited", "sealed"])
    assert isinstance(build_parser().parse_args(["play"]), argparse.Namespace)


def test_the_salt_is_the_players_own_and_the_warband_file_is_this_games(tmp_path: Path) -> None:
    """docs/limited.md, "Commitments": the salt is fixed by key and game id, differs from
    the chain secret and from another key's or game's; the committed warband's file is
    written mode 0600 and refused for another game, and its absence is one message."""
    import hashlib

    from dbnet.match.building import (
        WarbandFileError,
        load_warband,
        save_warband,
        warband_path,
        warband_salt,
    )
    from dbnet.protocol.identity import Identity
    from dbnet.protocol.remote import chain_secret

    alice = Identity.from_private_bytes(bytes(32))
    bob = Identity.from_private_bytes(bytes([1]) * 32)
    game, other = bytes(32), bytes([1]) * 32
    salt = warband_salt(alice, game)
    assert len(salt) == 32
    assert salt == warband_salt(alice, game)
    assert len({salt, warband_salt(alice, other), warband_salt(bob, game)}) == 3
    assert salt != chain_secret(alice, game)
    tag = b"dbnet/limited/salt/v1\x00"
    assert salt == hashlib.sha256(tag + alice.sign(tag + game)).digest()

    path = warband_path(tmp_path / "g.dbnr")
    assert path.name == "g.dbnr.warband"
    with pytest.raises(WarbandFileError, match="is missing: it held the warband this side"):
        load_warband(path, game)
    save_warband(path, game, ["a-slug", "b-slug"])
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_warband(path, game) == ("a-slug", "b-slug")
    with pytest.raises(WarbandFileError, match="is not this game's committed warband"):
        load_warband(path, other)
