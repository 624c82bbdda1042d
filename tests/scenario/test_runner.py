"""The scenario runner reports precisely, malformed files name their field, and the command's
exit codes are 0 (all pass), 1 (any fails) and 2 (usage error).

The scenarios here are deliberately wrong: their expected values contradict
the rules (801.1: 4 + 3 = 7 spawn points), so the runner must report them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.errors import DataError
from dbnet.scenario import Mismatch, load_scenario, result_lines, run_file

HEAD = """
title = "runner test"

[[define]]
name = "Grunt"
type = "creature"
spawn_cost = 2
aspects = []
power = 2
defense = 2
life = 4

[position]
stage = "initiative"
turn = 2

[A]
minis = [{ mini = "grunt", at = "e1" }, { mini = "grunt" }]

[B]
minis = [{ mini = "grunt", at = "a5" }, { mini = "grunt" }]
"""

ROLL_4_3 = """
[[step]]
roll = [4, 3]
"""


def write(tmp_path: Path, text: str, name: str = "scenario.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_passing_scenario_has_no_mismatch(tmp_path: Path) -> None:
    """801.1: initiative 4 and 3 give A, who goes first, 7 spawn points."""
    path = write(tmp_path, HEAD + ROLL_4_3 + "expect = { spawn_points = 7, phase = 'spawn A' }\n")
    result = run_file(str(path))
    assert result.passed
    assert result.mismatches == ()
    assert list(result_lines(result)) == [f"PASS {path}: runner test"]


def test_wrong_expectation_names_step_expected_and_actual(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + ROLL_4_3 + "expect.spawn_points = 9\n")
    result = run_file(str(path))
    assert not result.passed
    assert result.mismatches == (Mismatch(1, "roll [4, 3]", "spawn_points", "9", "7"),)
    lines = list(result_lines(result))
    assert lines[0] == f"FAIL {path}: runner test"
    assert lines[1].strip() == "step 1 (roll [4, 3]): spawn_points: expected 9, got 7"


def test_every_failed_expectation_is_reported_in_step_order(tmp_path: Path) -> None:
    text = (
        HEAD
        + ROLL_4_3
        + "expect = { spawn_points = 9, phase = 'spawn B' }\n"
        + "[[step]]\nplay = 'done'\nexpect.conquest = { A = 1 }\n"
    )
    result = run_file(str(write(tmp_path, text)))
    found = [(m.step, m.what, m.expected, m.actual) for m in result.mismatches]
    assert found == [
        (1, "spawn_points", "9", "7"),
        (1, "phase", "'spawn B'", "'spawn A'"),
        (2, "conquest.A", "1", "0"),
    ]


def test_refused_decision_ends_the_run_with_the_engines_reason(tmp_path: Path) -> None:
    """801.5: b1 can't take a spawn without a miniature of A's in column b."""
    text = (
        HEAD
        + ROLL_4_3
        + "[[step]]\nplay = 'spawn grunt#2 b1'\n"
        + "[[step]]\nexpect.spawn_points = 99\n"
    )
    result = run_file(str(write(tmp_path, text)))
    assert len(result.mismatches) == 1
    mismatch = result.mismatches[0]
    assert (mismatch.step, mismatch.step_text) == (2, "play 'spawn grunt#2 b1'")
    assert mismatch.expected == "a legal decision"
    assert mismatch.actual.startswith("refused: ")
    assert "801.5" in mismatch.actual


def test_play_list_names_the_decision_that_was_refused(tmp_path: Path) -> None:
    text = HEAD + ROLL_4_3 + "[[step]]\nplay = ['spawn grunt#2 e1', 'shift']\n"
    (mismatch,) = run_file(str(write(tmp_path, text))).mismatches
    assert mismatch.what == "play 'shift'"
    assert "does not fit a spawn decision" in mismatch.actual


def test_illegal_step_that_the_engine_accepts_fails(tmp_path: Path) -> None:
    """The portal always takes a spawn (801.6), so expecting a refusal is wrong."""
    text = HEAD + ROLL_4_3 + "[[step]]\nillegal = 'spawn grunt#2 e1'\n"
    (mismatch,) = run_file(str(write(tmp_path, text))).mismatches
    assert mismatch.what == "illegal 'spawn grunt#2 e1'"
    assert mismatch.actual == "accepted"
    assert "'spawn A'" in mismatch.expected


def test_illegal_step_checks_the_refusal_message(tmp_path: Path) -> None:
    good = HEAD + ROLL_4_3 + "[[step]]\nillegal = 'spawn grunt#2 b1'\nerror = '801.5'\n"
    assert run_file(str(write(tmp_path, good, "good.toml"))).passed
    bad = HEAD + ROLL_4_3 + "[[step]]\nillegal = 'spawn grunt#2 b1'\nerror = 'banana'\n"
    (mismatch,) = run_file(str(write(tmp_path, bad, "bad.toml"))).mismatches
    assert mismatch.what == "refusal message"
    assert mismatch.expected == "to contain 'banana'"
    assert "801.5" in mismatch.actual


def test_illegal_dice(tmp_path: Path) -> None:
    """Initiative needs two dice from 1 to 6."""
    text = HEAD + "[[step]]\nillegal = 'roll 7 2'\n[[step]]\nillegal = 'roll 3'\n"
    assert run_file(str(write(tmp_path, text))).passed


def test_legal_lists_report_missing_and_extra_choices(tmp_path: Path) -> None:
    """801.5/801.6: A's only spawn cell is the portal e1 (column e is A's only column)."""
    exact = HEAD + ROLL_4_3 + "expect.legal = ['spawn grunt#2 e1', 'spawn grunt#2 d1']\n"
    (mismatch,) = run_file(str(write(tmp_path, exact, "exact.toml"))).mismatches
    assert mismatch.what == "legal"
    assert mismatch.actual == "missing ['spawn grunt#2 d1']; also legal ['done']"
    includes = HEAD + ROLL_4_3 + "expect.legal_includes = ['spawn grunt#2 d1', 'done']\n"
    (mismatch,) = run_file(str(write(tmp_path, includes, "includes.toml"))).mismatches
    assert mismatch.expected == "to include ['spawn grunt#2 d1']"
    excludes = (
        HEAD + ROLL_4_3 + "expect.legal_excludes = ['spawn grunt#2 d1', 'Spawn Grunt#2 E1']\n"
    )
    (mismatch,) = run_file(str(write(tmp_path, excludes, "excludes.toml"))).mismatches
    assert mismatch.expected == "to exclude ['spawn grunt#2 e1']"  # compared in canonical notation


def test_pending_and_phase_may_leave_out_trailing_words(tmp_path: Path) -> None:
    ok = HEAD + "[[step]]\nexpect = { pending = 'roll 2', phase = 'initiative' }\n"
    assert run_file(str(write(tmp_path, ok, "ok.toml"))).passed
    wrong = HEAD + "[[step]]\nexpect.pending = 'roll 3'\n"
    (mismatch,) = run_file(str(write(tmp_path, wrong, "wrong.toml"))).mismatches
    assert (mismatch.expected, mismatch.actual) == ("'roll 3'", "'roll 2 initiative A B'")


def test_last_conquest_before_any_conquest_phase(tmp_path: Path) -> None:
    text = HEAD + "[[step]]\nexpect.last_conquest = { A = 0 }\n"
    (mismatch,) = run_file(str(write(tmp_path, text))).mismatches
    assert (mismatch.what, mismatch.actual) == ("last_conquest.A", "(no turn finished yet)")


def test_miniature_expectations(tmp_path: Path) -> None:
    text = HEAD + "[[step]]\nexpect.at = { 'A:grunt#1' = 'e2', 'B:grunt#2' = 'graveyard' }\n"
    result = run_file(str(write(tmp_path, text)))
    found = [(m.what, m.expected, m.actual) for m in result.mismatches]
    assert found == [
        ("at.A:grunt#1", "'e2'", "'e1'"),
        ("at.B:grunt#2", "'graveyard'", "'reserves'"),
    ]


def test_stats_expectations(tmp_path: Path) -> None:
    """The Grunt's printed stats, and what spawning the one in reserves costs (2, no aspect)."""
    good = HEAD + "[[step]]\nexpect.stats = { 'A:grunt#1' = { power = 2, defense = 2 } }\n"
    good += "[[step]]\nexpect.stats = { 'A:grunt#2' = { life = 4, cost = 2 } }\n"
    assert run_file(str(write(tmp_path, good, "good.toml"))).passed
    bad = HEAD + "[[step]]\nexpect.stats = { 'B:grunt#1' = { power = 3, cost = 2 } }\n"
    (mismatch,) = run_file(str(write(tmp_path, bad, "bad.toml"))).mismatches
    found = (mismatch.what, mismatch.expected, mismatch.actual)
    assert found == ("stats.B:grunt#1.power", "3", "2")


def test_blade_and_reroll_pending_say_how_many(tmp_path: Path) -> None:
    """A blade decision reads ``blade A 2`` (blades left): a shorter phrase still matches."""
    text = HEAD + "[[step]]\nexpect.pending = 'blade A 2'\n"
    (mismatch,) = run_file(str(write(tmp_path, text))).mismatches
    assert (mismatch.expected, mismatch.actual) == ("'blade A 2'", "'roll 2 initiative A B'")


def test_resign_ends_the_game_and_a_second_resignation_is_refused(tmp_path: Path) -> None:
    text = (
        HEAD
        + "[[step]]\nresign = 'A'\nexpect = { winner = 'B', pending = 'none', phase = 'over' }\n"
        + "[[step]]\nresign = 'B'\n"
    )
    (mismatch,) = run_file(str(write(tmp_path, text))).mismatches
    assert (mismatch.step, mismatch.step_text, mismatch.what) == (2, "resign B", "resign")
    assert "the game is over" in mismatch.actual


MALFORMED = [
    ("title = 'x'\n[[step]\n", "not valid TOML"),
    (HEAD.replace('title = "runner test"', "") + ROLL_4_3, ": title: missing"),
    ("titel = 'typo'\n" + HEAD + ROLL_4_3, ": titel: unknown field 'titel'; did you mean 'title'?"),
    (HEAD.replace("turn = 2", "turn = 'two'") + ROLL_4_3, "position.turn: expected an integer"),
    (HEAD.replace('"initiative"', '"lunch"') + ROLL_4_3, "position.stage: expected one of"),
    (HEAD.replace('at = "e1"', 'at = "f9"') + ROLL_4_3, "A.minis 1.at: expected a cell"),
    (HEAD.replace('{ mini = "grunt" }]\n\n[B]', '{ mini = "ghost" }]\n\n[B]') + ROLL_4_3,
     "A.minis 2.mini: not defined in this file"),
    (HEAD.replace("spawn_cost = 2\n", ""), "define 1 ('Grunt')"),
    (HEAD + "[map]\nvalues = { a1 = 3 }\n" + ROLL_4_3, "map.values.a1: 'a1' is not a key cell"),
    (HEAD + "[[step]]\nroll = [4, 3]\nplay = 'done'\n", "step 1: a step has at most one action"),
    (HEAD + "[[step]]\nerror = 'x'\n", "step 1.error: 'error' only goes with 'illegal'"),
    (HEAD + ROLL_4_3 + "expect.spawnpoints = 7\n",
     "step 1.expect.spawnpoints: unknown field 'spawnpoints'; did you mean 'spawn_points'?"),
    (HEAD + ROLL_4_3 + "expect.at = { 'A:ghost' = 'e1' }\n", "'A:ghost' names no miniature"),
    (HEAD + ROLL_4_3 + "expect.pending = 'lunch A'\n", "step 1.expect.pending: expected"),
    (HEAD + ROLL_4_3 + "expect.phase = 'action C'\n", "step 1.expect.phase: expected"),
    (HEAD + ROLL_4_3 + "expect.turns_won = { C = 1 }\n", "expect.turns_won.C"),
    (HEAD + "[[step]]\nexpect.stats = { 'A:grunt#1' = { pwr = 2 } }\n",
     "unknown field 'pwr'; did you mean 'power'?"),
    (HEAD + "[[step]]\nexpect.stats = { 'A:grunt#1' = {} }\n", "expected stats such as"),
    (HEAD + "[[step]]\nexpect.pending = 'spawn A 2'\n", "step 1.expect.pending: expected"),
    (HEAD, "step: a scenario needs at least one [[step]]"),
    (HEAD + "[[step]]\n", "step 1: an empty step"),
    (HEAD + "[[step]]\nillegal = ' '\n", "step 1.illegal: expected a decision"),
    (HEAD.replace('at = "e1" }, { mini = "grunt" }', 'at = "e1", damage = -1 }'),
     "A.minis 1.damage: expected an integer of at least 0"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "fragment"), MALFORMED, ids=[f for _, f in MALFORMED])
def test_malformed_file_names_file_and_field(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DataError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert fragment in message, message
    result = run_file(str(path))
    assert not result.passed
    assert result.error == message


def test_position_the_engine_rejects_is_a_data_error(tmp_path: Path) -> None:
    """301.1a: five of one player's creatures in a cell other than the portal."""
    five = ", ".join(['{ mini = "scout", at = "c3" }'] * 3 + ['{ mini = "grunt", at = "c3" }'] * 2)
    text = (
        HEAD.replace(
            'minis = [{ mini = "grunt", at = "e1" }, { mini = "grunt" }]', f"minis = [{five}]"
        )
        + "[[define]]\nname = 'Scout'\ntype = 'creature'\nspawn_cost = 1\naspects = []\n"
        + "power = 1\ndefense = 1\nlife = 1\n"
        + ROLL_4_3
    )
    with pytest.raises(DataError, match="5 creatures in c3; at most 4") as caught:
        load_scenario(write(tmp_path, text))
    assert str(caught.value).startswith(str(tmp_path / "scenario.toml"))


def dbnet_scenario(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "scenario", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_command_exits_0_when_all_pass(tmp_path: Path) -> None:
    write(tmp_path, HEAD + ROLL_4_3 + "expect.spawn_points = 7\n", "one.toml")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", HEAD + ROLL_4_3 + "expect.phase = 'spawn A'\n", "two.toml")
    done = dbnet_scenario(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"PASS {tmp_path / 'one.toml'}: runner test",
        f"PASS {tmp_path / 'sub' / 'two.toml'}: runner test",
        "2 scenarios: 2 passed, 0 failed",
    ]


def test_command_exits_1_and_keeps_going_after_failures(tmp_path: Path) -> None:
    malformed = write(tmp_path, HEAD + ROLL_4_3 + "expect.spawnpoints = 7\n", "a_malformed.toml")
    failing = write(tmp_path, HEAD + ROLL_4_3 + "expect.spawn_points = 9\n", "b_failing.toml")
    passing = write(tmp_path, HEAD + ROLL_4_3 + "expect.spawn_points = 7\n", "c_passing.toml")
    done = dbnet_scenario(malformed, failing, passing)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == f"FAIL {malformed}: (not loaded)"
    assert lines[1].startswith(f"    malformed: {malformed}: step 1.expect.spawnpoints")
    assert lines[2] == f"FAIL {failing}: runner test"
    assert lines[3] == "    step 1 (roll [4, 3]): spawn_points: expected 9, got 7"
    assert lines[4] == f"PASS {passing}: runner test"
    assert lines[5] == "3 scenarios: 1 passed, 2 failed"
    assert "Traceback" not in done.stderr


def test_command_quiet_prints_only_failures(tmp_path: Path) -> None:
    write(tmp_path, HEAD + ROLL_4_3 + "expect.spawn_points = 7\n", "a.toml")
    failing = write(tmp_path, HEAD + ROLL_4_3 + "expect.spawn_points = 9\n", "b.toml")
    done = dbnet_scenario("-q", tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == f"FAIL {failing}: runner test"
    assert done.stdout.splitlines()[-1] == "2 scenarios: 1 passed, 1 failed"
    assert "PASS" not in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("no-such-file.toml",), "no-such-file.toml: no such file or folder"),
        (("EMPTY",), "holds no scenario files"),
        ((), "the following arguments are required"),
    ],
)
def test_command_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    (tmp_path / "EMPTY").mkdir()
    paths = [tmp_path / a for a in args]
    done = dbnet_scenario(*paths)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
