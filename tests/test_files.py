"""``dbnet.files``: the calls that differ between systems, each with its fallback."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import pytest

import dbnet
from dbnet import files

PACKAGE = Path(dbnet.__file__).parent
FOLDER_OPENS = frozenset({"sync_folder"})
"""Functions that open a folder (to fsync it), not a file's bytes."""


def os_opens() -> list[tuple[str, str, ast.Call]]:
    """Every ``os.open(...)`` call in the package: (module, enclosing function, call)."""
    found: list[tuple[str, str, ast.Call]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "open"
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "os"
                ):
                    found.append((str(path.relative_to(PACKAGE)), function.name, node))
    return found


def test_every_open_of_a_files_bytes_is_binary() -> None:
    """Windows opens in text mode without ``O_BINARY`` (line ends translated, a read
    stopped at a Ctrl-Z byte): every ``os.open`` of a file's bytes asks for ``BINARY``."""
    opens = os_opens()
    assert len(opens) >= 6  # the replay writer's, the identity key's, the played games'...
    missing = [
        f"{module}:{call.lineno} in {function}"
        for module, function, call in opens
        if function not in FOLDER_OPENS
        and "BINARY" not in ast.unparse(call.args[1] if len(call.args) > 1 else call)
    ]
    assert not missing, f"os.open without files.BINARY: {missing}"


def test_set_mode_without_fchmod_sets_the_mode_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | files.BINARY, 0o600)
    try:
        monkeypatch.delattr(os, "fchmod")
        files.set_mode(fd, path, 0o640)
    finally:
        os.close(fd)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_replace_atomically_writes_bytes_as_they_are(tmp_path: Path) -> None:
    data = b"line\r\nend\n\x1aafter ctrl-z"
    files.replace_atomically(tmp_path / "f", data, 0o600)
    assert (tmp_path / "f").read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
