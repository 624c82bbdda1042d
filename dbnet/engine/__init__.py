"""The Dreamblade rules engine: pure, deterministic, standard library only.

The public surface is re-exported here; the modules behind it are
``model`` (definitions), ``board`` (geometry), ``choices`` (decisions and
choices), ``game`` (the state machine) and ``notation``.
"""

from dbnet.engine.abilities import NO_ABILITIES, AbilityRules, Stat
from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    AttackChoice,
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
    Pending,
    PlaceChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
)
from dbnet.engine.game import EndReason, Game, Mini, Phase, Step, Zone
from dbnet.engine.model import (
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
from dbnet.engine.position import Placement, Position, Stage, game_at
from dbnet.engine.notation import format_choice, format_dice, parse_choice, parse_dice

__all__ = [
    "DONE", "NO_ABILITIES", "SHIFT", "STRIKE", "AbilityDef", "AbilityRules", "Activation",
    "Aspect", "AttackChoice", "BuryChoice", "ChanceKind", "ChanceRequest", "Choice",
    "DamageChoice", "DeathblowChoice", "Decision", "DecisionKind", "Done", "EndReason",
    "FateChoice", "Game", "GameSetup", "MapDef", "Mini", "MiniKind", "MiniatureDef",
    "MoveChoice", "Options", "Pending", "Phase", "PlaceChoice", "Placement", "Position", "Stage", "game_at", "Player", "ShiftChoice",
    "SpawnChoice", "Stat", "Step", "StrikeChoice", "Warband", "Zone", "format_choice",
    "format_dice", "parse_choice", "parse_dice",
]  # fmt: skip
