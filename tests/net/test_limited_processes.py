"""Issue 16, item 4: a Limited game between two real ``dbnet`` processes (bots) on
loopback. Both replays verify; a replay with a byte flipped does not, nor one whose
revealed warband holds a miniature outside its player's pool (re-signed with the
player's own key, so that only the warband changes): the verifier names the miniature.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dbnet.engine import Player
from dbnet.engine.choices import Decision, DecisionKind
from dbnet.match.building import warband_path
from dbnet.protocol.log import GameLog
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.replay.verify import Verdict, VerdictStatus, verify_replay
from dbnet.wire.bodies import PlayBody
from dbnet.wire.entries import decode_signed_entry, encode_signed_entry, replace, sign_entry

from .processes import Dbnet, replay_records, verify_command
from .test_processes import forget_played_games, until_listening

GAME_TIMEOUT = 90.0  # seconds: a hang guard only
KEYS = {0: bytes([1]) * 32, 1: bytes([2]) * 32}  # alice's and bob's keys (the homes fixture)


async def _play(tmp_path: Path, homes: Path) -> tuple[Dbnet, Dbnet, Path, Path]:
    forget_played_games(homes)
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    host_args = [
        "host", "--open", "--address", "127.0.0.1", "--port", "0", "--limited", "3-boosters",
        "--bot", "greedy", "--plain", "--seed", "16", "--turns-to-win", "2",
        "--name", "alice", "--replay", str(host_replay), "--adjourn-after", "60",
    ]  # fmt: skip
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args)
            port = await until_listening(host)
            join_args = [
                "join", f"127.0.0.1:{port}", "--limited", "3-boosters", "--bot", "greedy",
                "--plain", "--seed", "16", "--name", "bob", "--replay", str(joiner_replay),
                "--adjourn-after", "60",
            ]  # fmt: skip
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join_args)
            await host.wait()
            await joiner.wait()
    return host, joiner, host_replay, joiner_replay


def both_complete(processes: tuple[Dbnet, Dbnet], replays: tuple[Path, Path]) -> None:
    """Both processes exited 0 and both replays verify as complete games."""
    for process in processes:
        assert process.code == 0, f"{process.name} exited {process.code}:\n{process.output()}"
    for path in replays:
        result = verify_command(path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{path}: complete:" in result.stdout


async def test_a_limited_game_between_two_processes(tmp_path: Path, homes: Path) -> None:
    host, joiner, host_replay, joiner_replay = await _play(tmp_path, homes)
    both_complete((host, joiner), (host_replay, joiner_replay))
    data = host_replay.read_bytes()
    assert data == joiner_replay.read_bytes()
    assert host.saw("The packs are opened with 48 dice (600.6). A's pool: ")
    assert joiner.saw("A reveals its warband: ")  # 600.7: each sees the other's warband

    # The pools are the same on both peers and in the verifier: re-derived from the file.
    records = replay_records(host_replay)
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    limited = log.game.setup.limited
    assert limited is not None
    assert limited.pools is not None
    assert log.game.setup.warbands[0].minis

    # A byte flipped in the reveal's record: invalid.
    reveal_seq = _reveal_seq(records, Player.B)
    flipped = bytearray(records[reveal_seq])
    flipped[len(flipped) // 2] ^= 0x01
    verdict = _verify(
        tmp_path / "flipped.dbnr", host_replay, [*records[:reveal_seq], bytes(flipped)]
    )
    assert verdict.status is VerdictStatus.INVALID

    # B's revealed warband with a miniature outside B's pool, re-signed with B's key.
    pool = limited.pools[1]
    outsider = next(m for m in limited.packs.common if m not in pool)
    _, entry = decode_signed_entry(records[reveal_seq])
    body = entry.body
    assert isinstance(body, PlayBody)
    assert body.decision is not None
    words = body.decision.split()
    words[1] = outsider.slug
    changed = replace(entry, body=replace(body, decision=" ".join(words)))
    key = Ed25519PrivateKey.from_private_bytes(KEYS[1])
    record = encode_signed_entry(sign_entry(changed, key.sign))
    verdict = _verify(tmp_path / "outsider.dbnr", host_replay, [*records[:reveal_seq], record])
    assert verdict.status is VerdictStatus.INVALID, verdict
    assert verdict.reason is not None
    assert f"{outsider.name!r} is not in the pool" in verdict.reason, verdict


async def test_a_joiner_plays_the_limited_terms_the_host_offers(
    tmp_path: Path, homes: Path
) -> None:
    """Issue 30, item 9: the joiner need not repeat the host's ``--limited FORMAT``: the
    OFFER carries it, ``dbnet join`` says it before its ACCEPT and plays it."""
    forget_played_games(homes)
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", [
                "host", "--open", "--address", "127.0.0.1", "--port", "0",
                "--limited", "3-boosters", "--bot", "greedy", "--plain", "--seed", "16",
                "--turns-to-win", "2",
                "--name", "alice", "--replay", str(host_replay), "--adjourn-after", "60",
            ])  # fmt: skip
            port = await until_listening(host)
            joiner = await Dbnet.start(nursery, "join", homes / "bob", [
                "join", f"127.0.0.1:{port}", "--bot", "greedy", "--plain", "--seed", "16",
                "--name", "bob", "--replay", str(joiner_replay), "--adjourn-after", "60",
            ])  # fmt: skip
            if await joiner.wait() != 0:
                host.kill()  # a refused joiner: the host would wait for another
            await host.wait()
    both_complete((host, joiner), (host_replay, joiner_replay))
    assert host_replay.read_bytes() == joiner_replay.read_bytes()
    offers = [i for i, line in enumerate(joiner.lines) if "the host offers:" in line]
    assert len(offers) == 1, joiner.output()
    said = joiner.lines[offers[0]]
    assert "Limited 3-boosters" in said, said
    assert "you play B with a warband you build from your pool" in said, said
    opened = next(i for i, line in enumerate(joiner.lines) if "The packs are opened" in line)
    assert offers[0] < opened  # told before the game
    records = replay_records(joiner_replay)
    log = GameLog.start(records[0])
    assert log.game.setup.limited is not None
    assert log.game.setup.limited.format == "3-boosters"


@pytest.mark.parametrize(
    ("host_terms", "join_terms", "said"),
    [
        (
            ["--limited", "3-boosters"],
            ["--limited", "starter+booster"],
            "the host offers Limited 3-boosters, and this side asked for Limited "
            "starter+booster: join without --limited to play the host's terms",
        ),
        (
            [],
            ["--limited", "starter+booster"],
            "the host offers a Constructed game, and this side asked for Limited "
            "starter+booster: join without --limited to play the host's terms",
        ),
    ],
)
async def test_a_joiners_limited_that_disagrees_is_refused_in_one_line(
    tmp_path: Path, homes: Path, host_terms: list[str], join_terms: list[str], said: str
) -> None:
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", [
                "host", "--open", "--address", "127.0.0.1", "--port", "0", *host_terms, "--bot",
                "greedy", "--plain", "--seed", "17", "--name", "alice",
                "--replay", str(tmp_path / "alice.dbnr"), "--adjourn-after", "60",
            ])  # fmt: skip
            port = await until_listening(host)
            joiner = await Dbnet.start(nursery, "join", homes / "bob", [
                "join", f"127.0.0.1:{port}", *join_terms, "--bot", "greedy", "--plain",
                "--seed", "17", "--name", "bob", "--replay", str(tmp_path / "bob.dbnr"),
            ])  # fmt: skip
            code = await joiner.wait()
            host.kill()
    assert code == 1, joiner.output()
    assert "Traceback" not in joiner.output()
    refusals = [line for line in joiner.lines if "the host offers" in line]
    assert len(refusals) == 1, joiner.output()
    assert said in refusals[0], joiner.output()


def _reveal_seq(records: list[bytes], player: Player) -> int:
    """The sequence number of ``player``'s reveal."""
    log = GameLog.start(records[0])
    for seq, record in enumerate(records[1:], 1):
        if log.game.pending == Decision(player, DecisionKind.REVEAL):
            _, entry = decode_signed_entry(record)
            body = entry.body
            if isinstance(body, PlayBody) and body.decision is not None:
                return seq
        log.append(record)
    raise AssertionError("no reveal")


def _verify(path: Path, original: Path, records: list[bytes]) -> Verdict:
    """The verdict on a replay of ``records`` with ``original``'s header."""
    header = load_replay(original).header
    with ReplayWriter.create(path, header) as writer:
        for record in records:
            writer.append(record)
    return verify_replay(path.read_bytes(), where=str(path))


def test_the_host_and_the_joiner_agree_on_the_format() -> None:
    """A Limited host offers its format to a joiner who brought a warband too (empty in
    the OFFER); a joiner without ``--limited`` plays the format offered, and one with it
    refuses an OFFER of another format, Constructed included."""
    from dbnet.catalog import default_warbands, load_catalog, load_map
    from dbnet.engine.model import GameSetup, Warband
    from dbnet.net.offer_terms import LIMITED_WARBAND, _check_limited_offer, _limited_offer
    from dbnet.net.session_values import GameSessionError

    mine, theirs = default_warbands(load_catalog())
    constructed = GameSetup(load_map(), (mine, theirs))
    brought = _limited_offer(constructed, "3-boosters")
    assert brought.warbands == (Warband(mine.name, ()), Warband(LIMITED_WARBAND, ()))
    offer = _limited_offer(GameSetup(load_map(), (mine, Warband("x", ()))), "3-boosters")
    assert offer.warbands == (Warband(mine.name, ()), Warband("x", ()))
    assert offer.limited is not None
    _check_limited_offer(offer, "3-boosters")
    _check_limited_offer(offer, None)  # the joiner plays the host's terms
    with pytest.raises(GameSessionError, match="offers Limited 3-boosters, and this side asked"):
        _check_limited_offer(offer, "starter+booster")
    with pytest.raises(GameSessionError, match="offers a Constructed game"):
        _check_limited_offer(constructed, "3-boosters")
    _check_limited_offer(constructed, None)


async def test_a_game_resumed_between_commit_and_reveal_reveals(
    tmp_path: Path, homes: Path
) -> None:
    """Two people (lines typed into their stdin): A commits, and both processes are killed
    while B builds. A's salt comes back from its key and the game id, its warband from the
    file beside its replay: resumed (bots now), the game completes and verifies. Without
    that file, A's resume says in one line that the commitment cannot be opened."""
    forget_played_games(homes)
    alice, bob = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    common = ["--limited", "3-boosters", "--plain", "--seed", "16", "--adjourn-after", "60"]
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host_args = [
                "host", "--open", "--address", "127.0.0.1", "--port", "0", "--turns-to-win", "2",
                "--name", "alice", "--replay", str(alice), *common,
            ]  # fmt: skip
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args, stdin=True)
            port = await until_listening(host)
            join_args = ["join", f"127.0.0.1:{port}", "--name", "bob", "--replay", str(bob)]
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob", [*join_args, *common], stdin=True
            )
            await host.until_saw("Build your warband within")
            await host.type_line("done")  # A commits to the automatic build
            await joiner.until_saw("Build your warband within")  # A's commitment arrived
            host.kill()
            joiner.kill()
    stored = warband_path(alice)
    assert stored.exists()
    assert stored.stat().st_mode & 0o777 == 0o600
    assert not warband_path(bob).exists()  # B had not committed

    # The file missing: one line, no traceback.
    hidden = tmp_path / "hidden.warband"
    stored.rename(hidden)
    result = subprocess.run(
        [sys.executable, "-m", "dbnet", "resume", str(alice), "--address", "127.0.0.1",
         "--port", "0", "--bot", "greedy", "--plain"],
        env={**os.environ, "DBNET_HOME": str(homes / "alice"), "NO_COLOR": "1"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"{stored} is missing" in lines[0]
    assert "the commitment cannot be opened" in lines[0]
    hidden.rename(stored)

    # Resumed: B hosts, A joins, both as bots; A reveals the warband it committed.
    bots = ["--bot", "greedy", "--plain"]
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "bob", homes / "bob",
                ["resume", str(bob), "--address", "127.0.0.1", "--port", "0", *bots],
            )  # fmt: skip
            port = await until_listening(host)
            joiner = await Dbnet.start(
                nursery, "alice", homes / "alice",
                ["resume", str(alice), f"127.0.0.1:{port}", *bots],
            )  # fmt: skip
            await host.wait()
            await joiner.wait()
    both_complete((host, joiner), (alice, bob))
    assert alice.read_bytes() == bob.read_bytes()
    assert host.saw("A reveals its warband: ")
