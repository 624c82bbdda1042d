"""Shared data and helpers for the catalog tests: real TOML files written under tmp_path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_WARBANDS = REPO / "examples" / "warbands"

# Valid miniature tables; tests copy one and break a field.
CREATURE: dict[str, object] = {
    "name": "Temple Lion",
    "type": "creature",
    "spawn_cost": 8,
    "aspects": ["Valor"],
    "power": 4,
    "defense": 7,
    "life": 7,
}
LOCATION: dict[str, object] = {
    "name": "Moss Gate",
    "type": "location",
    "spawn_cost": 2,
    "aspects": ["Fear"],
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``tmp_path / name`` and return the path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def dbnet(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m dbnet ARGV`` in ``cwd``, as a person runs it."""
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
