"""The ``lab`` fixture: a fresh network lab per test, closed whatever happens.

Lab tests carry the ``lab`` marker; without root or the lab's programs they are skipped
with one line that says what to install (under CI they fail: tests/system.py), and
``-m "not lab"`` leaves them out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .lab import Lab


@pytest.fixture
def lab(needs_lab: None) -> Iterator[Lab]:
    with Lab.open() as opened:
        yield opened
