"""``dbnet selfplay``: per-game results, win counts, throughput; the same seed, the same games."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

GAME_LINE = re.compile(r"^game +(\d+): (.*)$", re.MULTILINE)


def selfplay(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "selfplay", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
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
        assert line.startswith("unfinished after 1 turns, turns won ")
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
