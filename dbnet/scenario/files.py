"""Turning the paths a user gives into scenario files: folders are searched for ``*.toml``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from dbnet.errors import DataError


def find_scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """Each file as given, each folder's ``*.toml`` files recursively in sorted order.

    Raises DataError for a path that does not exist or a folder without
    scenario files: both are mistakes in the command line, not failed scenarios.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*.toml") if p.is_file())
            if not files:
                raise DataError(str(path), "the folder holds no scenario files (*.toml)")
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            raise DataError(str(path), "no such file or folder")
    return found
