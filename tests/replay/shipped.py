"""The replays shipped in ``replays/``, read once per test session, with their steps."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

from dbnet.engine import Game, Zone
from dbnet.replay.steps import Walk, steps
from dbnet.replay.story import Story, load_story

REPLAYS: Final = Path(__file__).resolve().parents[2] / "replays"
SHORT: Final = "05-resignation.dbnr"
LONG: Final = "03-greedy-vs-greedy-short-chains.dbnr"
ABILITIES: Final = "06-bulwark-vs-pyre-abilities.dbnr"


def shipped(name: str) -> Path:
    return REPLAYS / name


@functools.cache
def story(name: str) -> Story:
    return load_story(shipped(name))


@functools.cache
def walked(name: str) -> Walk:
    return steps(story(name))


def on_board(game: Game) -> set[tuple[str, str, int]]:
    """What the board shows of ``game``: each miniature in the dreamscape as (label, cell,
    damage)."""
    names = "abcde"
    return {
        (m.label, f"{names[m.cell % 5]}{m.cell // 5 + 1}", m.damage)
        for m in game.minis
        if m.zone is Zone.DREAMSCAPE
    }


def in_lists(game: Game) -> set[tuple[str, str]]:
    """What the lists show of ``game``: (label, reserves or graveyard) of every miniature
    out of the dreamscape."""
    zones = {Zone.RESERVES: "reserves", Zone.GRAVEYARD: "graveyard", Zone.REMOVED: "graveyard"}
    return {(m.label, zones[m.zone]) for m in game.minis if m.zone in zones}
