"""Every TOML file dbnet reads goes through ``catalog.files.parse_toml``: a file nested too
deep (arrays in arrays, tables in tables) is one line and exit 2 in every command that
reads one, never a ``RecursionError`` traceback."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.catalog.files import MAX_TOML_DEPTH, parse_toml
from dbnet.errors import DataError

from .helpers import dbnet, write

PACKAGE = Path(__file__).resolve().parents[2] / "dbnet"
SCENARIOS = PACKAGE.parent / "tests" / "scenarios"

DEEP = 3000


def _arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "text",
    [
        f'name = "Deep"\nminis = {_arrays(DEEP)}\n',
        "x = " + "{ a = " * DEEP + "1" + " }" * DEEP + "\n",  # inline tables
        "[" + ".".join(["a"] * DEEP) + "]\nb = 1\n",  # a table header, no recursion to parse
        ".".join(["a"] * DEEP) + " = 1\n",  # dotted keys
    ],
    ids=["arrays", "inline-tables", "table-header", "dotted-keys"],
)
def test_a_document_nested_too_deep_is_a_data_error(text: str) -> None:
    with pytest.raises(DataError) as caught:
        parse_toml(text, "deep.toml")
    assert str(caught.value) == (
        f"deep.toml: nested too deep (more than {MAX_TOML_DEPTH} arrays or tables "
        "inside one another)"
    )


def test_the_deepest_allowed_document_is_read() -> None:
    # the top-level table is the first level, so MAX_TOML_DEPTH - 1 arrays fit inside it
    value = parse_toml(f"x = {_arrays(MAX_TOML_DEPTH - 1)}\n", "ok.toml")["x"]
    for _ in range(MAX_TOML_DEPTH - 2):
        assert isinstance(value, list)
        (value,) = value
    assert value == []
    with pytest.raises(DataError, match="nested too deep"):
        parse_toml(f"x = {_arrays(MAX_TOML_DEPTH)}\n", "deep.toml")


def test_tomllib_is_read_in_one_place() -> None:
    """The guard holds for every TOML file because no other module parses TOML."""
    readers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name.split(".")[0] in {"tomllib", "tomli"} for name in names):
                readers.append(path.relative_to(PACKAGE).as_posix())
    assert readers == ["catalog/files.py"]


def _one_line_exit_2(done: subprocess.CompletedProcess[str], where: Path) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "RecursionError" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert str(where) in lines[0]
    assert "nested too deep" in lines[0]


@pytest.mark.parametrize(
    "command",
    [
        ["warband", "check"],
        ["warband", "show"],
        ["play", "--plain", "--seed", "1", "--warband"],
        ["play", "--plain", "--seed", "1", "--opponent"],
    ],
    ids=["check", "show", "play-warband", "play-opponent"],
)
def test_a_deep_warband_file_is_one_line_in_each_command(
    tmp_path: Path, command: list[str]
) -> None:
    path = write(tmp_path, "deep.toml", f'name = "Deep"\nminis = {_arrays(DEEP)}\n')
    _one_line_exit_2(dbnet(*command, str(path), cwd=tmp_path), path)


def test_a_deep_scenario_file_is_reported_as_malformed_and_the_others_still_run(
    tmp_path: Path,
) -> None:
    """``dbnet scenario`` counts a malformed file as a failure and runs the others (exit 1,
    its documented code); a deep file is one more malformed file."""
    path = write(tmp_path, "deep.toml", f'title = "Deep"\nrules = {_arrays(DEEP)}\n')
    good = sorted((SCENARIOS / "700_first_turn").glob("*.toml"))[0]
    done = dbnet("scenario", str(path), str(good), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert f"malformed: {path}: nested too deep" in done.stdout
    assert done.stdout.splitlines()[-1] == "2 scenarios: 1 passed, 1 failed"


@pytest.mark.parametrize("command", ["host", "join"])
def test_a_deep_config_file_is_one_line(tmp_path: Path, command: str) -> None:
    """``config.toml`` is read when neither ``--relay`` nor ``DBNET_RELAY`` is given; it says
    ``relay = "off"`` first, so a process that read it anyway would stay off the relay."""
    home = tmp_path / "home"
    home.mkdir()
    path = write(home, "config.toml", f'relay = "off"\nx = {_arrays(DEEP)}\n')
    env = {k: v for k, v in os.environ.items() if k != "DBNET_RELAY"}
    env |= {"DBNET_HOME": str(home), "DBNET_PORT_MAPPING": "off"}
    argv = ["host", "--plain", "--port", "0"] if command == "host" else ["join", "127.0.0.1:9"]
    done = subprocess.run(
        [sys.executable, "-m", "dbnet", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    _one_line_exit_2(done, path)
