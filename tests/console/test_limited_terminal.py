"""Limited play full screen (issue 16; docs/limited.md): ``dbnet play --limited`` in a
real terminal (tmux, 80x24) opens the builder on the person's pool, then the game."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

from dbnet.engine import GameSetup, Player
from dbnet.engine.limited import auto_build
from dbnet.engine.model import MiniatureDef
from dbnet.match.building import warband_path
from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay

from .tmux import Tmux

SEED = 7


def start_limited(tmux: Tmux, path: Path, minutes: str) -> None:
    command = [
        sys.executable, "-m", "dbnet", "play", "--limited", "3-boosters", "--seed", str(SEED),
        "--bot-delay", "0", "--replay", str(path), "--build-minutes", minutes,
    ]  # fmt: skip
    tmux.type(shlex.join(command) + "; echo EXIT=$?")
    tmux.keys("Enter")


def built_log(path: Path) -> GameLog:
    """The game in ``path`` so far (after both reveals: the built setup)."""
    records = list(load_replay(path).records)
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return log


Pools = tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]]


def built(path: Path) -> tuple[GameSetup, Pools]:
    """The built setup of the Limited game in ``path`` and the pools it was built from."""
    setup = built_log(path).game.setup
    assert setup.limited is not None
    assert setup.limited.pools is not None
    return setup, setup.limited.pools


def quit_game(tmux: Tmux) -> None:
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")


def test_a_warband_built_from_the_pool_is_committed(tmux: Tmux, tmp_path: Path) -> None:
    """The builder lists the pool with the copies left; a copy more than the pool holds is
    refused; Enter commits the legal warband and the game's first turn screen appears; the
    replay's A warband is the one built."""
    path = tmp_path / "built.dbnr"
    start_limited(tmux, path, "5")
    pane = tmux.wait_for("left to commit")
    assert "Limited 3-boosters, you are A: 21 in your pool;" in pane
    assert "Enter/Ctrl-S: commit" in pane
    lines = pane.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Catalog ("))
    # Add every copy the pool holds of the first miniature listed, then one more.
    held = int(lines[first + 1].split()[3].split("/")[1])  # cost, aspects, stats, left/held
    for _ in range(held):
        tmux.keys("+")
    tmux.wait_for(f"Warband ({held}/16)")
    tmux.keys("+")
    pane = tmux.wait_for("not added: your pool holds")
    assert "(600.6)" in pane
    assert f"0/{held}" in pane
    tmux.keys("Enter")
    pane = tmux.wait_for("Your decision: A to")
    assert "Turn 1" in pane
    quit_game(tmux)
    setup, pools = built(path)
    mine = setup.warbands[Player.A].minis
    assert len(mine) == held
    assert len({m.slug for m in mine}) == 1
    assert all(m in pools[0] for m in mine)


def test_the_automatic_build_is_committed_when_the_time_runs_out(
    tmux: Tmux, tmp_path: Path
) -> None:
    path = tmp_path / "timeout.dbnr"
    start_limited(tmux, path, "0.05")  # 3 seconds
    tmux.wait_for("left to commit")
    pane = tmux.wait_for("Your decision: A to")
    assert "Turn 1" in pane
    quit_game(tmux)
    setup, pools = built(path)
    assert setup.warbands[Player.A].minis == auto_build(pools[0])


def test_the_pool_draft_keeps_to_the_pool() -> None:
    """``PoolDraft`` without a terminal: the pool's kinds only, no copy more than it holds,
    the last legal warband remembered, only a legal warband committed."""
    from dbnet.catalog import load_catalog
    from dbnet.catalog.packs import pack_set
    from dbnet.console.builder import PoolDraft

    packs = pack_set()
    twice = packs.common[0]
    pool = (twice, twice, packs.uncommon[0], packs.rare[0])
    draft = PoolDraft(pool, load_catalog(), seconds=60, label="Limited")
    assert draft.results == [twice, packs.uncommon[0], packs.rare[0]]
    assert "2/2" in draft.catalog_line(twice, 60)
    assert not draft.save()
    assert draft.message == "not committed: the warband is empty"
    draft.add(twice)
    draft.add(twice)
    assert "0/2" in draft.catalog_line(twice, 60)
    draft.add(twice)
    assert draft.message == f"not added: your pool holds 2 copies of {twice.name} (600.6)"
    assert draft.minis() == (twice, twice)
    assert draft.last_legal == (twice, twice)
    assert draft.save()
    assert draft.committed == (twice, twice)
    draft.search(twice.name)
    assert draft.results == [twice]


def test_a_network_host_builds_full_screen(tmux: Tmux, tmp_path: Path) -> None:
    """``dbnet host --limited`` at a terminal (80x24) against a joining bot: the builder
    opens on the host's pool over the suspended game screen, Enter commits, and the game's
    screen comes back at turn 1 with both warbands revealed."""
    port = free_port()
    path = tmp_path / "host.dbnr"
    command = [
        sys.executable, "-m", "dbnet", "host", "--open", "--limited", "3-boosters", "--address",
        "127.0.0.1", "--port", str(port), "--build-minutes", "5", "--replay", str(path),
    ]  # fmt: skip
    home = shlex.quote(str(tmp_path / "alice"))
    tmux.type(f"DBNET_HOME={home} {shlex.join(command)}; echo EXIT=$?")
    tmux.keys("Enter")
    tmux.wait_for("waiting for the opponent")
    joiner_args = [
        sys.executable, "-m", "dbnet", "join", f"127.0.0.1:{port}", "--limited", "3-boosters",
        "--bot", "greedy", "--plain", "--replay", str(tmp_path / "join.dbnr"),
    ]  # fmt: skip
    env = {**os.environ, "DBNET_HOME": str(tmp_path / "bob"), "NO_COLOR": "1"}
    with subprocess.Popen(
        joiner_args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ) as joiner:
        try:
            pane = tmux.wait_for("left to commit")
            assert "Limited 3-boosters, you are A: 21 in your pool;" in pane
            tmux.keys("+")
            tmux.wait_for("Warband (1/16)")
            tmux.keys("Enter")
            pane = tmux.wait_for("Turn 1")
            assert "[connected to" in pane
            tmux.keys("C-c")
            tmux.wait_for("EXIT=")
        finally:
            joiner.terminate()
    log = built_log(path)
    assert len(log.game.setup.warbands[Player.A].minis) == 1
    assert log.game.setup.warbands[Player.B].minis
    assert warband_path(path).stat().st_mode & 0o777 == 0o600


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_sigterm_in_the_builder_saves_the_game_and_says_how_it_resumes(
    tmux: Tmux, tmp_path: Path
) -> None:
    path = tmp_path / "stopped.dbnr"
    start_limited(tmux, path, "5")
    tmux.wait_for("Ctrl-S")
    shell_pid = tmux.run("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
    [pid] = Path(f"/proc/{shell_pid}/task/{shell_pid}/children").read_text().split()
    os.kill(int(pid), signal.SIGTERM)
    tmux.wait_for("EXIT=143")
    text = tmux.text()
    assert "Stopped; the game is saved and can be resumed." in text
    assert f"Go on with it: dbnet play --resume {path}\n" in text
    assert "Traceback" not in text
    tmux.type("stty -a | grep -c -w -e -icanon -e -echo; echo RAW=$?")
    tmux.keys("Enter")
    tmux.wait_for("RAW=1")  # grep found neither: the terminal reads lines again
