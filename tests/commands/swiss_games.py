"""Real games with the result a test wants, for Swiss events: a random-against-random
game of one turn to win (``events.play``), played again with the next seed until the
wanted player wins (bounded)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from dbnet.protocol.identity import Identity
from dbnet.replay.verify import verify_replay

from .events import Played, play

KEYS = tuple(Identity.from_private_bytes(bytes([i + 1]) * 32) for i in range(12))
"""Fixed keys: fixed fingerprints, so a fixed event id gives fixed pairings."""


def won(a: Identity, b: Identity, winner: Identity, seed: int, names: tuple[str, str]) -> Played:
    """A complete game, ``a`` playing A, that ``winner`` wins."""
    seat = "A" if winner is a else "B"
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(60):
            game = play((a, b), seed * 1000 + attempt, names=names)
            data = game.write(Path(tmp) / f"{attempt}.dbnr").read_bytes()
            verdict = verify_replay(data, where="game")
            if verdict.ok and verdict.winner == seat:
                return game
    raise AssertionError(f"no game won by {seat} in 60 seeds from {seed}")
