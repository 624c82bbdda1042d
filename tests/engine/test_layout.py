"""The engine stays in small modules: none over 800 lines (issue 34; DESIGN.md §2)."""

from __future__ import annotations

from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "dbnet" / "engine"
MAX_LINES = 800


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_no_engine_module_is_too_long(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines; split it by the jobs it does"
