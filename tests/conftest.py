"""Every test, and every process a test starts, runs with the relay and router port
mapping turned off (the network rule of docs/development.md): nothing may reach the
default relay, the machine's router or a multicast group. The lab's tests turn them on
inside the lab's own namespaces, with the lab's addresses."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

os.environ["DBNET_RELAY"] = "off"
os.environ["DBNET_PORT_MAPPING"] = "off"
os.environ["DBNET_STUN"] = "off"  # no test may ask a public STUN server


@pytest.fixture
def count_applies(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[int]]:
    """Start counting every ``Game.apply`` (random bots apply nothing of their own): each
    call starts a count from 0 and gives the list that holds it; ``monkeypatch.undo()``
    stops counting."""
    from dbnet.engine import Choice, Game

    def start() -> list[int]:
        calls = [0]
        real = Game.apply

        def counting(game: Game, choice: Choice) -> None:
            calls[0] += 1
            real(game, choice)

        monkeypatch.setattr(Game, "apply", counting)
        return calls

    return start
