"""The canonical encoding of a state and its hash (docs/state-hash.md).

``encode`` is the whole state as a flat list of ints: a head of the turn's
fields, every miniature's (zone, cell, damage, moved), and a tail of whatever is
in progress. ``state_hash`` is SHA-256 over the setup digest (``Rules.hash_start``)
and that encoding, packed into fixed-width ints: what peers compare and replays
record, so any change here changes every recorded hash.
"""

from __future__ import annotations

from typing import Final

from dbnet.engine.canonical import pack_ints, words_bytes
from dbnet.engine.enums import EndReason
from dbnet.engine.state import State
from dbnet.engine.waiting import Trigger

HASH_VERSION = 2

_QUIET_TAIL: Final = pack_ints([0] * 7)
"""``_encode_tail`` packed, for a state with nothing in progress: no combat, stack, spawn
abilities used, Relentless damage, roll, targeting or damage to check (most states, so
``state_hash`` packs it once here)."""


def encode(state: State) -> list[int]:
    """The whole state as a flat list of ints (the canonical encoding, see docs)."""
    return [*_encode_head(state), *state.mini_words, *_encode_tail(state)]


def state_hash(state: State) -> bytes:
    """SHA-256 over the setup digest and the canonical state encoding (``encode``),
    the miniatures' fields straight from their array."""
    hasher = state.rules.hash_start.copy()
    hasher.update(pack_ints(_encode_head(state)))
    hasher.update(words_bytes(state.mini_words))
    if (
        state.combat is None
        and not state.stack
        and not state.spawn_uses
        and not state.no_disrupt
        and state.rolling is None
        and state.choosing is None
        and not state.damaged_outside_combat
    ):
        hasher.update(_QUIET_TAIL)  # most states: nothing in progress
    else:
        hasher.update(pack_ints(_encode_tail(state)))
    return hasher.digest()


def _encode_head(s: State) -> list[int]:
    """The encoding up to the miniatures' fields."""
    return [
        HASH_VERSION, s.turn, s.phase, s.step, *s.turns_won, *s.bonus,
        *s.kills, *s.initiative, len(s.reroll), *s.reroll,
        1 if s.had_one_last_turn else 0, 1 if s.skip_spawn else 0,
        s.first, s.active, s.action_index, s.spawn_points,
        s.allies_at_spawn_start,
        *s.spawned_into, s.mode, s.attacked_cells, s.locked_cells,
        -1 if s.winner is None else int(s.winner),
        0 if s.end_reason is None else (1 if s.end_reason is EndReason.VICTORY else 2),
        len(s.minis),
    ]  # fmt: skip


def _encode_tail(s: State) -> list[int]:
    """The encoding after the miniatures' fields (``_QUIET_TAIL`` when nothing is in
    progress)."""
    if s.combat is None:
        out = [0]
    else:
        combat = s.combat.encode()
        out = [1, len(combat), *combat]
    out += [1 if s.damaged_outside_combat else 0, len(s.stack)]
    for frame in s.stack:
        out.append(len(frame))
        for work in frame:
            if isinstance(work, Trigger):
                event = work.event
                out += (1, work.controller, work.mini, work.index, event.kind, event.mini,
                        event.cell)  # fmt: skip
            else:
                out += (0, *work)
    out.append(len(s.spawn_uses))
    for mini, index in s.spawn_uses:
        out += (mini, index)
    out += [len(s.no_disrupt), *s.no_disrupt]
    if s.rolling is None:
        out.append(0)
    else:
        rolling = s.rolling.encode()
        out += [1, len(rolling), *rolling]
    choosing = s.choosing
    if choosing is None:
        out.append(0)
    else:
        out += [1, choosing.holder, choosing.source, choosing.index, choosing.controller,
                choosing.number, choosing.context]  # fmt: skip
    return out
