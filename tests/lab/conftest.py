"""The ``lab`` fixture: a fresh network lab per test, closed whatever happens.

Lab tests carry the ``lab`` marker; without root or the lab's programs they fail with one
line that says what is missing (``-m "not lab"`` leaves them out)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .lab import Lab, missing_requirements


@pytest.fixture
def lab() -> Iterator[Lab]:
    why = missing_requirements()
    if why is not None:
        pytest.fail(why, pytrace=False)
    with Lab.open() as opened:
        yield opened
