"""The Dreamblade rules engine: pure, deterministic, standard library only.

The public surface is re-exported here; the modules behind it are
``model`` (definitions), ``board`` (geometry), ``choices`` (decisions and
choices), ``game`` (the state machine), ``notation`` and ``reading`` (choices as
text, and what people type). ``game`` is the facade on ``rules`` (what a setup
fixes), ``state`` (what changes, and its copy) and one module per concern, each
working on the state, never on the facade: ``listing`` and ``checking``,
``turnflow``, ``zones``, ``stack`` and ``activation``, ``abilities`` and
``effects``, ``procedure`` and ``resolution``, ``statehash``
(docs/architecture.md, "Inside the engine").
"""

from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    ActivateChoice,
    AttackChoice,
    BladeChoice,
    BuryChoice,
    ChanceKind,
    ChanceRequest,
    Choice,
    DamageChoice,
    DeathblowChoice,
    Decision,
    DecisionKind,
    Done,
    FateChoice,
    MoveChoice,
    OrderChoice,
    Pending,
    PlaceChoice,
    RerollChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
    TargetChoice,
)
from dbnet.engine.game import EndReason, Game, Mini, Phase, Step, Zone
from dbnet.engine.model import (
    PLAYERS,
    AbilityDef,
    Activation,
    Aspect,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    Options,
    Player,
    Warband,
)
from dbnet.engine.notation import format_choice, format_dice, parse_choice, parse_dice
from dbnet.engine.position import Placement, Position, Stage, game_at
from dbnet.engine.reading import find_minis, read_choice
from dbnet.engine.statics import Stat
from dbnet.engine.waiting import Event, EventKind, Trigger

__all__ = [
    "DONE",
    "PLAYERS",
    "SHIFT",
    "STRIKE",
    "AbilityDef",
    "ActivateChoice",
    "Activation",
    "Aspect",
    "AttackChoice",
    "BladeChoice",
    "BuryChoice",
    "ChanceKind",
    "ChanceRequest",
    "Choice",
    "DamageChoice",
    "DeathblowChoice",
    "Decision",
    "DecisionKind",
    "Done",
    "EndReason",
    "Event",
    "EventKind",
    "FateChoice",
    "Game",
    "GameSetup",
    "MapDef",
    "Mini",
    "MiniKind",
    "MiniatureDef",
    "MoveChoice",
    "Options",
    "OrderChoice",
    "Pending",
    "Phase",
    "PlaceChoice",
    "Placement",
    "Player",
    "Position",
    "RerollChoice",
    "ShiftChoice",
    "SpawnChoice",
    "Stage",
    "Stat",
    "Step",
    "StrikeChoice",
    "TargetChoice",
    "Trigger",
    "Warband",
    "Zone",
    "find_minis",
    "format_choice",
    "format_dice",
    "game_at",
    "parse_choice",
    "parse_dice",
    "read_choice",
]  # fmt: skip
