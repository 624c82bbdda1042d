"""The game a scenario starts from: map, options, miniature definitions, warbands, position.

Miniatures come from the file's own ``[[define]]`` tables first (parsed by the
catalog's schema, so inline and catalog miniatures obey the same rules), then
from the catalog by name. Warband order fixes the miniature ids and handles,
exactly as in a real game: A's warband first, then B's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from dbnet.catalog import Catalog, load_catalog, load_map
from dbnet.catalog.schema import parse_mini
from dbnet.engine import board
from dbnet.engine.game import Zone, make_handles
from dbnet.engine.model import GameSetup, MapDef, MiniatureDef, Options, Player, Warband
from dbnet.engine.position import Placement, Position, Stage
from dbnet.errors import DataError
from dbnet.scenario.fields import (
    Table,
    as_cell,
    as_cell_list,
    as_list,
    as_player,
    as_str,
    as_table,
    check_keys,
    field,
    get_bool,
    get_int,
    get_pair,
    get_str,
    get_table,
)

ZONE_NAMES = {"reserves": Zone.RESERVES, "graveyard": Zone.GRAVEYARD, "removed": Zone.REMOVED}
_ACTION_STAGES = (Stage.ACTION, Stage.SHIFT, Stage.STRIKE)
_MINI_KEYS = ("mini", "at", "damage", "moved")
_POSITION_KEYS = (
    "stage", "turn", "first", "active", "action_phase", "initiative", "spawn_points",
    "allies_at_spawn_start", "turns_won", "bonus", "kills", "one_rolled_last_turn",
    "attacked_cells",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Start:
    """The setup and position a scenario starts from, with the label of every miniature."""

    setup: GameSetup
    position: Position
    labels: tuple[str, ...]  # ``A:footman#2`` for each miniature, in id order


def read_start(doc: Table, where: str) -> Start:
    """Build the starting game of the document ``doc`` (``where`` is ``'path:'``)."""
    definitions = _read_definitions(doc.get("define"), field(where, "define"))
    game_map = _read_map(get_table(doc, "map", where), field(where, "map"))
    options = _read_options(get_table(doc, "options", where), field(where, "options"))
    warbands: list[Warband] = []
    placements: list[Placement] = []
    for player in (Player.A, Player.B):
        side_where = field(where, player.name)
        warband, places = _read_side(
            get_table(doc, player.name, where), side_where, player, definitions
        )
        warbands.append(warband)
        placements.extend(places)
    setup = GameSetup(game_map, (warbands[0], warbands[1]), options)
    position = _read_position(
        get_table(doc, "position", where), field(where, "position"), tuple(placements)
    )
    labels = tuple(
        f"{player.name}:{handle}"
        for player in (Player.A, Player.B)
        for handle in make_handles(setup.warbands[player].minis)
    )
    return Start(setup, position, labels)


def _read_definitions(value: object, where: str) -> tuple[MiniatureDef, ...]:
    if value is None:
        return ()
    out: list[MiniatureDef] = []
    for i, item in enumerate(as_list(value, where)):
        item_where = f"{where} {i + 1}"
        defn = parse_mini(dict(as_table(item, item_where)), item_where)
        for other in out:
            if defn.slug == other.slug or defn.name.lower() == other.name.lower():
                raise DataError(item_where, f"{defn.name!r} is defined twice in this file")
        out.append(defn)
    return tuple(out)


def _find_mini(name: str, definitions: Sequence[MiniatureDef], where: str) -> MiniatureDef:
    """An inline definition by slug or name, else the catalog miniature of that name."""
    key = name.strip().lower()
    for defn in definitions:
        if key in (defn.slug, defn.name.lower()):
            return defn
    catalog = _shipped_catalog()
    found = catalog.lookup(name)
    if found is None:
        raise DataError(where, f"not defined in this file, and {catalog.unknown_name(name)}")
    return found


@functools.cache
def _shipped_catalog() -> Catalog:
    return load_catalog()


@functools.cache
def _standard_map() -> MapDef:
    return load_map()


def _read_map(table: Table | None, where: str) -> MapDef:
    """The shipped standard map, or one given cell by cell (cells left out are worth 0)."""
    if table is None:
        return _standard_map()
    check_keys(table, ("name", "values", "note"), where)
    values = [0] * board.CELL_COUNT
    given = get_table(table, "values", where)
    if given is None:
        raise DataError(field(where, "values"), "a map needs its key-cell values, e.g. { c3 = 5 }")
    for name in given:
        value_where = field(field(where, "values"), name)
        cell = as_cell(name, value_where)
        if cell not in board.KEY_CELLS:
            raise DataError(value_where, f"{name!r} is not a key cell (b2-d4); only they score")
        amount = get_int(given, name, field(where, "values"))
        assert amount is not None
        values[cell] = amount
    return MapDef(
        get_str(table, "name", where) or "scenario map",
        tuple(values),
        reconstructed=False,
        note=get_str(table, "note", where) or "",
    )


def _read_options(table: Table | None, where: str) -> Options:
    if table is None:
        return Options()
    check_keys(table, ("tournament_initiative", "turns_to_win"), where)
    tournament = get_bool(table, "tournament_initiative", where)
    turns = get_int(table, "turns_to_win", where, minimum=1)
    default = Options()
    return Options(
        tournament_initiative=default.tournament_initiative if tournament is None else tournament,
        turns_to_win=default.turns_to_win if turns is None else turns,
    )


def _read_side(
    table: Table | None, where: str, player: Player, definitions: Sequence[MiniatureDef]
) -> tuple[Warband, list[Placement]]:
    if table is None:
        return Warband(player.name, ()), []
    check_keys(table, ("name", "minis"), where)
    name = get_str(table, "name", where) or player.name
    minis: list[MiniatureDef] = []
    placements: list[Placement] = []
    for i, item in enumerate(as_list(table.get("minis", []), field(where, "minis"))):
        item_where = f"{field(where, 'minis')} {i + 1}"
        entry = as_table(item, item_where)
        check_keys(entry, _MINI_KEYS, item_where)
        if "mini" not in entry:
            raise DataError(field(item_where, "mini"), "missing: which miniature this is")
        mini_name = as_str(entry["mini"], field(item_where, "mini"))
        minis.append(_find_mini(mini_name, definitions, field(item_where, "mini")))
        placements.append(_read_placement(entry, item_where))
    return Warband(name, tuple(minis)), placements


def _read_placement(entry: Table, where: str) -> Placement:
    at = get_str(entry, "at", where) or "reserves"
    damage = get_int(entry, "damage", where) or 0
    moved = get_bool(entry, "moved", where) or False
    zone = ZONE_NAMES.get(at.strip().lower())
    if zone is not None:
        return Placement(zone, -1, damage, moved)
    cell = board.parse_cell(at)
    if cell is None:
        raise DataError(
            field(where, "at"),
            f"expected a cell (a1-e5), 'reserves', 'graveyard' or 'removed', got {at!r}",
        )
    return Placement(Zone.DREAMSCAPE, cell, damage, moved)


def _read_position(table: Table | None, where: str, placements: tuple[Placement, ...]) -> Position:
    if table is None:
        return Position(placements=placements)
    check_keys(table, _POSITION_KEYS, where)
    stage_text = get_str(table, "stage", where) or "initiative"
    try:
        stage = Stage(stage_text.strip().lower())
    except ValueError:
        names = ", ".join(s.value for s in Stage)
        raise DataError(
            field(where, "stage"), f"expected one of {names}, got {stage_text!r}"
        ) from None
    first = as_player(table["first"], field(where, "first")) if "first" in table else Player.A
    active = as_player(table["active"], field(where, "active")) if "active" in table else first
    if "active" in table and stage is Stage.INITIATIVE:
        raise DataError(field(where, "active"), "an initiative phase has no active player")
    action_phase = get_int(table, "action_phase", where, minimum=1)
    if action_phase is not None and stage not in _ACTION_STAGES:
        raise DataError(
            field(where, "action_phase"),
            f"only action, shift and strike stages have one, not {stage.value!r}",
        )
    if action_phase is not None and action_phase > 2:
        raise DataError(
            field(where, "action_phase"),
            f"each player has action phases 1 and 2, not {action_phase}",
        )
    action_index = (0 if active is first else 2) + (action_phase or 1) - 1
    attacked: tuple[int, ...] = ()
    if "attacked_cells" in table:
        if stage is not Stage.STRIKE:
            raise DataError(field(where, "attacked_cells"), "only a strike has attacked cells")
        attacked = as_cell_list(table["attacked_cells"], field(where, "attacked_cells"))
    initiative = get_pair(table, "initiative", where)
    if any(die > 6 for die in initiative):
        raise DataError(
            field(where, "initiative"), f"initiative dice read 1 to 6, got {initiative!r}"
        )
    allies: tuple[int, ...] | None = None
    if "allies_at_spawn_start" in table:
        allies = as_cell_list(table["allies_at_spawn_start"], field(where, "allies_at_spawn_start"))
    return Position(
        stage=stage,
        turn=get_int(table, "turn", where, minimum=1) or 1,
        first=first,
        active=active,
        action_index=action_index if stage in _ACTION_STAGES else 0,
        initiative=initiative,
        spawn_points=get_int(table, "spawn_points", where),
        allies_at_spawn_start=allies,
        turns_won=get_pair(table, "turns_won", where),
        bonus=get_pair(table, "bonus", where),
        kills=get_pair(table, "kills", where),
        had_one_last_turn=get_bool(table, "one_rolled_last_turn", where) or False,
        attacked_cells=attacked,
        placements=placements,
    )
