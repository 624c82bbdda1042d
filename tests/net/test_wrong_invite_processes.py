"""An invite whose key is not the key of the dbnet at its addresses: a key does not change
by waiting, so the joiner stops at once with one line when no path can still reach the
invite's key, and retries only the paths that still can (a refused or silent address,
where the host may be restarting). Real processes on loopback."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import trio

from dbnet.net.invite import Candidate, Invite, PathKind

from .processes import Dbnet
from .test_invite_processes import CLOSED_PORT, invite_of
from .test_processes import GAME_TIMEOUT, SEED, TURNS, forget_played_games

STRANGER = "KQ3X-7ZBD-M2LA-QX4P"


def host_args(replay: Path) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--bot", "greedy", "--seed", SEED,
        "--turns-to-win", TURNS, "--name", "alice", "--replay", str(replay),
        "--adjourn-after", "60",
    ]  # fmt: skip


def join_args(invite: str, adjourn_after: int) -> list[str]:
    return [
        "join", invite, "--verbose", "--bot", "greedy", "--name", "bob",
        "--adjourn-after", str(adjourn_after),
    ]  # fmt: skip


async def test_an_invite_naming_another_key_stops_at_once_with_one_line(
    tmp_path: Path, homes: Path
) -> None:
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(tmp_path / "a"))
            real = Invite.parse(await invite_of(host))
            invite = Invite(STRANGER, real.secret, real.direct, None).text()
            started = trio.current_time()
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join_args(invite, 60))
            with trio.move_on_after(15):
                await joiner.wait()
            took = trio.current_time() - started
            if not joiner.finished.is_set():
                joiner.kill()
                host.kill()
                raise AssertionError(f"the joiner goes on retrying:\n{joiner.output()}")
            assert joiner.code == 1, joiner.output()
            await trio.sleep(0.5)  # the host would tell a second attempt by now
            assert not host.finished.is_set()
            host.kill()
            await host.wait()
    assert took < 8, joiner.output()  # not a single retry (the backoff reaches 8 s)
    assert not joiner.saw("retrying"), joiner.output()
    where = f"127.0.0.1:{real.direct[0].port}"
    assert joiner.lines[-1] == (
        f"dbnet: the game cannot go on: the invite names the host {STRANGER}, but the dbnet "
        f"reached at {where} has the key {real.fingerprint}, and a key does not change by waiting: "
        "ask your opponent for the invite its dbnet printed for this game"
    ), joiner.output()
    assert "Traceback" not in joiner.output()
    failures = [line for line in host.lines if line.startswith("connection failed")]
    assert len(failures) == 1, host.output()  # the one attempt, never again


async def test_only_the_paths_that_can_still_succeed_are_retried(
    tmp_path: Path, homes: Path
) -> None:
    """One address answers with another key (tried once), one is refused (the host may be
    restarting there: retried until --adjourn-after)."""
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(tmp_path / "a"))
            real = Invite.parse(await invite_of(host))
            closed = Candidate(PathKind.LAN, ipaddress.ip_address("127.0.0.2"), CLOSED_PORT)
            invite = Invite(STRANGER, real.secret, (*real.direct, closed), None).text()
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join_args(invite, 3))
            assert await joiner.wait() == 1, joiner.output()
            host.kill()
            await host.wait()
    wrong = f"path failed: direct (LAN) to 127.0.0.1:{real.direct[0].port}: the peer there has"
    refused = f"path failed: direct (LAN) to 127.0.0.2:{CLOSED_PORT}: "
    output = joiner.output()
    assert output.count(wrong) == 1, output
    assert output.count(refused) >= 2, output
    assert joiner.saw("the host could not be reached for 3 s"), output
    assert "Traceback" not in output


async def test_the_relay_reaching_another_key_is_not_retried_either(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int]
) -> None:
    """The host waits at the relay too, under the invite's secret: through the relay the
    joiner meets the same key as at the direct address, not the invite's. Both paths are
    done with at once."""
    relay = f"{real_relay[0]}:{real_relay[1]}"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            args = [*host_args(tmp_path / "a"), "--relay", relay]
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            real = Invite.parse(await invite_of(host))
            assert real.relay == real_relay
            invite = Invite(STRANGER, real.secret, real.direct, real.relay).text()
            join = [*join_args(invite, 60), "--relay", relay]
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join)
            with trio.move_on_after(15):
                await joiner.wait()
            if not joiner.finished.is_set():
                joiner.kill()
                host.kill()
                raise AssertionError(f"the joiner goes on retrying:\n{joiner.output()}")
            host.kill()
            await host.wait()
    assert joiner.code == 1, joiner.output()
    assert not joiner.saw("retrying"), joiner.output()
    where = f"127.0.0.1:{real.direct[0].port}"
    assert joiner.saw(
        f"but the dbnet reached at {where} and through the relay {relay} has the key "
        f"{real.fingerprint}, and a key does not change by waiting"
    ), joiner.output()
