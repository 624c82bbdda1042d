"""What spawning a miniature costs its owner now (801.4, Respawn, Channel, 900.8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbnet.engine.abilities import channel_reductions, matches
from dbnet.engine.enums import Zone
from dbnet.engine.model import AbilityDef
from dbnet.engine.statics import Stat, apply_minimum

if TYPE_CHECKING:
    from dbnet.engine.state import Mini, State


def spawn_cost(
    game: State, m: Mini, counts: list[int], channels: list[tuple[str | None, int]] | None = None
) -> int:
    """What spawning ``m`` costs when its owner has ``counts`` miniatures of each aspect
    (``Game.spawn_cost``); ``channels``: the owner's ``channel_reductions``, if the
    caller has them.

    The glossary's *cost* is "the spawn cost plus the aspect cost", one extra point for
    each miniature an aspect is short (801.4); Channel makes miniatures "cost X less to
    spawn", so it reduces that whole amount, and 900.8 floors the result at 0 after all
    modifiers: a 1VV miniature with both Valor short under Channel 2 costs 1 + 2 - 2 = 1.
    """
    base, shortfall, reduction = spawn_cost_parts(game, m, counts, channels)
    return apply_minimum(Stat.COST, base + shortfall - reduction)


def spawn_cost_parts(
    game: State, m: Mini, counts: list[int], channels: list[tuple[str | None, int]] | None = None
) -> tuple[int, int, int]:
    """The three parts of ``spawn_cost``: the spawn cost (Respawn's cost from the
    graveyard), the aspect shortfall (801.4) and Channel's reduction (``channels``: the
    owner's ``channel_reductions``, if the caller has them), before the 900.8 floor."""
    cost = m.defn.spawn_cost
    itself = 0  # a miniature in the graveyard counts towards its own aspects there
    if m.zone is Zone.GRAVEYARD:
        # Respawn: "as if it were in your reserves", so it does not count for itself.
        ability = respawn(game, m)
        if ability is not None:
            cost = ability.x or 0
        itself = 1
    shortfall = 0
    for aspect, needed in m.needs:
        have = counts[aspect] - itself
        if have < needed:
            shortfall += needed - have
    reduction = 0
    if game.rules.statics.channels:
        if channels is None:
            channels = channel_reductions(game, m.owner)
        if channels:  # no generator for the usual none
            reduction = sum(x for modifier, x in channels if matches(modifier, m.defn))
    return cost, shortfall, reduction


def respawn(game: State, m: Mini) -> AbilityDef | None:
    """``m``'s Respawn, which spawns it from the graveyard, or None."""
    for ability in m.abilities:
        if ability.keyword == "Respawn":
            return ability
    return None
