"""``dbnet selfplay``: per-game results, win counts, throughput; the same seed, the same games."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus, verify_replay

from .terminal import isolated_env

GAME_LINE = re.compile(r"^game +(\d+): (.*)$", re.MULTILINE)


def selfplay(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "selfplay", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env=isolated_env(tmp_path),
    )


def test_same_seed_same_games_and_consistent_counts(tmp_path: Path) -> None:
    args = ("--games", "6", "--seed", "11", "--a", "random", "--b", "greedy")
    first = selfplay(tmp_path, *args)
    second = selfplay(tmp_path, *args)
    assert first.returncode == 0, first.stderr
    games = GAME_LINE.findall(first.stdout)
    assert [int(n) for n, _ in games] == list(range(1, 7))
    assert games == GAME_LINE.findall(second.stdout)
    a_wins = sum(1 for _, line in games if line.startswith("A (random) wins"))
    b_wins = sum(1 for _, line in games if line.startswith("B (greedy) wins"))
    assert a_wins + b_wins == 6
    assert f"wins: A (random) {a_wins}, B (greedy) {b_wins}, unfinished 0, of 6 games" in (
        first.stdout
    )
    decisions = sum(int(re.findall(r"(\d+) decisions", line)[0]) for _, line in games)
    throughput = re.search(
        r"throughput: (\d+) decisions in [\d.]+ s: [\d,]+ decisions/s, [\d,.]+ games/s",
        first.stdout,
    )
    assert throughput
    assert int(throughput.group(1)) == decisions


def test_another_seed_gives_other_games(tmp_path: Path) -> None:
    base = ("--games", "3", "--a", "random", "--b", "random")
    one = GAME_LINE.findall(selfplay(tmp_path, *base, "--seed", "1").stdout)
    two = GAME_LINE.findall(selfplay(tmp_path, *base, "--seed", "2").stdout)
    assert len(one) == len(two) == 3
    assert one != two


def test_a_turn_limit_leaves_games_unfinished(tmp_path: Path) -> None:
    args = ("--games", "2", "--seed", "3", "--a", "random", "--b", "random")
    result = selfplay(tmp_path, *args, "--max-turns", "1")
    assert result.returncode == 0
    games = GAME_LINE.findall(result.stdout)
    assert len(games) == 2
    for _, line in games:
        assert line.startswith("unfinished after 1 turn, turns won ")
    assert "unfinished 2, of 2 games" in result.stdout


def test_without_a_seed_one_is_drawn_and_printed(tmp_path: Path) -> None:
    result = selfplay(tmp_path, "--games", "1", "--a", "random", "--b", "random")
    seed = re.search(r"seed (\d+)", result.stdout)
    assert seed
    again = selfplay(tmp_path, "--games", "1", "--a", "random", "--b", "random", "--seed", seed[1])
    assert GAME_LINE.findall(again.stdout) == GAME_LINE.findall(result.stdout)


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    for args in (("--games", "0"), ("--games", "many"), ("--a", "clever")):
        result = selfplay(tmp_path, *args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith("dbnet selfplay: error:")


def test_replays_are_saved_one_file_per_game_and_verify(tmp_path: Path) -> None:
    args = ("--games", "3", "--seed", "5", "--a", "random", "--b", "greedy")
    first = selfplay(tmp_path, *args, "--replays", str(tmp_path / "one"))
    again = selfplay(tmp_path, *args, "--replays", str(tmp_path / "two" / "deeper"))
    plain = selfplay(tmp_path, *args)
    assert first.returncode == again.returncode == plain.returncode == 0, first.stderr
    # saving replays changes no game
    assert GAME_LINE.findall(first.stdout) == GAME_LINE.findall(plain.stdout)
    files = sorted((tmp_path / "one").iterdir())
    assert [f.name for f in files] == [f"selfplay-5-{i:04}.dbnr" for i in (1, 2, 3)]
    games = GAME_LINE.findall(first.stdout)
    for path, (_, line) in zip(files, games, strict=True):
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
        assert line.startswith(f"{verdict.winner} (")
        decisions = int(re.findall(r"(\d+) decisions", line)[0])
        assert verdict.entries > decisions
        # the same seed, the same entries: only the header's creation time may differ
        twin = tmp_path / "two" / "deeper" / path.name
        assert load_replay(twin).records == load_replay(path).records
    assert not list(tmp_path.glob("*.dbnr"))  # without --replays nothing is written


def test_unfinished_games_leave_unfinished_replays(tmp_path: Path) -> None:
    args = ("--games", "1", "--seed", "3", "--a", "random", "--b", "random", "--max-turns", "1")
    result = selfplay(tmp_path, *args, "--replays", str(tmp_path))
    assert result.returncode == 0, result.stderr
    path = tmp_path / "selfplay-3-0001.dbnr"
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.UNFINISHED, verdict.summary()
    assert verdict.turn == 2


def test_an_existing_replay_is_not_overwritten(tmp_path: Path) -> None:
    taken = tmp_path / "selfplay-7-0001.dbnr"
    taken.write_bytes(b"keep me")
    result = selfplay(tmp_path, "--games", "1", "--seed", "7", "--replays", str(tmp_path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert (
        lines[0] == f"dbnet selfplay: {taken}: already exists; a replay file is never overwritten"
    )
    assert taken.read_bytes() == b"keep me"
