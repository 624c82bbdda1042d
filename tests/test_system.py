"""The system parts some tests need (tests/system.py): a missing one skips each test that
needs it with one line that says what to install, or fails it under CI (``CI=true``);
and the README's test command is the script that installs them, which CI runs too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from system import SETUP, Part, missing

ROOT = Path(__file__).resolve().parents[1]
TERMINAL_TEST = "tests/console/test_menu_terminal.py::test_the_menu_makes_a_warband_and_lists_it"
"""A test that drives the real program in tmux (through the ``tmux`` fixture)."""
CTRL_C_TEST = "tests/commands/test_play.py::test_ctrl_c_ends_without_a_traceback"
"""A test that interrupts a program it started (SIGINT, as Ctrl-C does)."""


def run_without_tmux(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    """Pytest on ``TERMINAL_TEST`` with a ``$PATH`` where no tmux is, ``CI`` set to ``ci``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CI"))}
    env |= {"PATH": str(tmp_path), "CI": ci}
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*command, "-p", "no:randomly", TERMINAL_TEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_missing_program_skips_its_tests_with_what_to_install(tmp_path: Path) -> None:
    done = run_without_tmux(tmp_path, ci="")
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, done.stdout
    assert skipped[0].endswith(
        ": the terminal tests need tmux: apt-get install -y tmux "
        f"(as root, {SETUP} installs every part)"
    ), skipped[0]
    assert done.stdout.splitlines()[-1].startswith("1 skipped in ")


def test_under_ci_a_missing_program_fails_the_run(tmp_path: Path) -> None:
    done = run_without_tmux(tmp_path, ci="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 error in ")  # in the tmux fixture
    assert (
        "the terminal tests need tmux: apt-get install -y tmux "
        f"(as root, {SETUP} installs every part); CI=true: a missing part fails the run"
    ) in done.stdout
    assert "Traceback" not in done.stdout


def test_a_run_started_in_the_background_still_interrupts_its_programs() -> None:
    """A command run in the background (``cmd &`` in a script, ``nohup``) starts with
    SIGINT and SIGHUP ignored, which every program it starts would inherit: the tests
    that press Ctrl-C in one would then fail only there."""

    def ignore_like_a_background_job() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CTRL_C_TEST],
        cwd=ROOT,
        env=env,
        preexec_fn=ignore_like_a_background_job,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 passed in ")


def test_the_line_names_every_missing_part_and_one_apt_get() -> None:
    def absent(name: str, install: str, package: bool) -> Part:
        return Part(name, lambda: False, install, package=package)

    parts = [
        absent("root", "run as root", package=False),
        absent("nft", "nftables", package=True),
        Part("ip", lambda: True, "iproute2", package=True),
        absent("turnserver", "coturn", package=True),
    ]
    assert missing(parts, "the lab's tests") == (
        "the lab's tests need root, nft, turnserver: apt-get install -y nftables coturn; "
        f"run as root (as root, {SETUP} installs every part)"
    )
    assert missing(parts[2:3], "the lab's tests") is None


def test_the_readme_and_ci_run_the_set_up_script() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert f"\n{SETUP}\n" in readme  # the test command, alone on its line
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert f"\n{SETUP}\n" in ci
    assert os.access(ROOT / SETUP, os.X_OK)
    checked = subprocess.run(["bash", "-n", str(ROOT / SETUP)], capture_output=True, check=False)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("program", ["tmux", "chromium", "miniupnpd", "turnserver", "nft"])
def test_the_script_installs_what_ci_run_installed(program: str) -> None:
    """Every program the tests look for is one the script installs when missing."""
    script = (ROOT / SETUP).read_text("utf-8")
    assert f"command -v {program}" in script
