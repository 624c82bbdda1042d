"""Every console test keeps dbnet's configuration folder (identity key, replays) in its
own temporary folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .tmux import Tmux


@pytest.fixture(autouse=True)
def dbnet_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$DBNET_HOME`` for the test: ``tmp_path / 'dbnet-home'``."""
    home = tmp_path / "dbnet-home"
    monkeypatch.setenv("DBNET_HOME", str(home))
    return home


@pytest.fixture
def tmux(needs_tmux: None, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Tmux]:
    server = Tmux(f"dbnet-test-{os.getpid()}-{request.node.name}"[:80], tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()
