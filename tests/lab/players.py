"""Two ``dbnet`` players in the lab: a host that prints its invite and a joiner that
pastes it, each a real process inside its own namespace, bots playing both sides.

Inside the lab the relay, port mapping and STUN are on (``DBNET_RELAY`` names the
lab's relay, ``DBNET_PORT_MAPPING=on``, ``DBNET_STUN`` the lab's coturn): the lab is
the only place a test lets them be.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .lab import GAME_PORTS, STUN_ADDRESSES, STUN_PORT, Host

INVITE = re.compile(r"^  dbnet join (DB\w+)$")
GAME_LIMIT = 90.0  # seconds: a hang guard (a one-turn bot game takes a few)


@dataclass(eq=False)
class Player:
    """One ``dbnet`` process in the lab and its output lines as they come."""

    name: str
    process: subprocess.Popen[str]
    replay: Path
    lines: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    """When each line came (``time.monotonic()``), for the benchmark."""
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.times.append(time.monotonic())
            self.lines.append(line.rstrip("\n"))

    def seconds_to(self, pattern: re.Pattern[str]) -> float:
        """Seconds from its start to its first line matching ``pattern``."""
        self.wait_for(pattern)
        first = next(i for i, line in enumerate(self.lines) if pattern.search(line))
        return self.times[first] - self.started

    def wait_for(self, pattern: re.Pattern[str], seconds: float = 30.0) -> re.Match[str]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if match := pattern.search(line):
                    return match
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"{self.name} never said {pattern.pattern!r}:\n{self.output()}")

    def wait(self, seconds: float = GAME_LIMIT) -> int:
        code = self.process.wait(timeout=seconds)
        self._reader.join(timeout=5)
        return code

    def output(self) -> str:
        return "\n".join(self.lines)

    def connected(self) -> list[str]:
        """Its lines that say whom it is connected to, and by which path."""
        return [line for line in self.lines if line.startswith("connected")]


def environment(home: Path, relay: tuple[str, int] | None) -> dict[str, str]:
    """A player's environment in the lab: its home, the lab's relay (or none), port
    mapping on."""
    return {
        "DBNET_HOME": str(home),
        "DBNET_RELAY": "off" if relay is None else f"{relay[0]}:{relay[1]}",
        "DBNET_PORT_MAPPING": "on",
        "DBNET_STUN": f"{STUN_ADDRESSES[0]}:{STUN_PORT}",
        "NO_COLOR": "1",
    }


def start_host(
    where: Host,
    directory: Path,
    relay: tuple[str, int] | None,
    *extra: str,
    command: tuple[str, ...] = ("host",),
) -> Player:
    """``dbnet host`` (or ``command``) with a bot, on the lab's game port, in ``where``."""
    replay = directory / "host.dbnr"
    argv = [
        sys.executable, "-m", "dbnet", *command, "--port", str(GAME_PORTS[0]), "--bot",
        "random", "--name", "alice", "--adjourn-after", "60", "--plain",
    ]  # fmt: skip
    if command == ("host",):
        argv += ["--turns-to-win", "1", "--replay", str(replay)]
    argv += extra  # last: it may change the defaults above
    env = environment(directory / "alice", relay)
    process = where.popen(argv, env=env, stderr=subprocess.STDOUT)
    return Player("host", process, replay)


def start_joiner(
    where: Host, directory: Path, invite: str, relay: tuple[str, int] | None, *extra: str
) -> Player:
    """``dbnet join INVITE --verbose`` with a bot, in ``where``."""
    replay = directory / "joiner.dbnr"
    argv = [
        sys.executable, "-m", "dbnet", "join", invite, "--bot", "random", "--name", "bob",
        "--replay", str(replay), "--adjourn-after", "60", "--verbose", "--plain", *extra,
    ]  # fmt: skip
    process = where.popen(argv, env=environment(directory / "bob", relay), stderr=subprocess.STDOUT)
    return Player("joiner", process, replay)


def invite_of(host: Player) -> str:
    return host.wait_for(INVITE).group(1)


@dataclass
class Game:
    host: Player
    joiner: Player


def play(
    host_at: Host,
    joiner_at: Host,
    directory: Path,
    relay: tuple[str, int] | None,
    *host_extra: str,
    joiner_extra: tuple[str, ...] = (),
) -> Game:
    """A whole bot game: the host prints its invite, the joiner pastes it."""
    directory.mkdir(parents=True, exist_ok=True)
    host = start_host(host_at, directory, relay, *host_extra)
    joiner = start_joiner(joiner_at, directory, invite_of(host), relay, *joiner_extra)
    joiner.wait()
    host.wait()
    return Game(host, joiner)


def assert_complete(game: Game) -> None:
    """Both exited 0; both replays verify complete (``dbnet verify``) and are the same."""
    for player in (game.host, game.joiner):
        code = player.process.returncode
        assert code == 0, f"{player.name} exited {code}:\n{player.output()}"
        result = subprocess.run(
            [sys.executable, "-m", "dbnet", "verify", str(player.replay)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{player.replay}: complete:" in result.stdout
    assert game.host.replay.read_bytes() == game.joiner.replay.read_bytes()


def path_of(player: Player) -> str:
    """The path its first connection took: what follows ``via`` on its connected line."""
    lines = player.connected()
    assert lines, f"{player.name} never connected:\n{player.output()}"
    return lines[0].rpartition(" via ")[2]
