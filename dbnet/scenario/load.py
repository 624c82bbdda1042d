"""Reading a scenario file (TOML) into a checked ``Scenario``; the format is docs/scenarios.md.

Any problem raises ``DataError`` naming the file and the field, including a
starting position the engine rejects (too many creatures in a cell, damage
on a miniature in reserves, ...).
"""

from __future__ import annotations

from pathlib import Path

from dbnet.catalog.files import parse_toml
from dbnet.engine.position import game_at
from dbnet.errors import DataError
from dbnet.scenario.fields import Table, as_str, as_str_list, check_keys, field, get_bool, get_str
from dbnet.scenario.model import Scenario
from dbnet.scenario.setup import read_start
from dbnet.scenario.steps import read_steps

_TOP_KEYS = (
    "title", "rules", "description", "allow_unimplemented", "options", "map", "define",
    "position", "A", "B", "step",
)  # fmt: skip


def load_scenario(path: str | Path) -> Scenario:
    """Read and check the scenario file at ``path``."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(name, f"cannot read the file: {exc}") from None
    return parse_scenario(text, name)


def parse_scenario(text: str, name: str) -> Scenario:
    """Read a scenario from TOML ``text``; ``name`` is how errors refer to the file."""
    doc: Table = parse_toml(text, name)
    where = f"{name}:"
    check_keys(doc, _TOP_KEYS, where)
    if "title" not in doc:
        raise DataError(field(where, "title"), "missing: every scenario needs a title")
    title = as_str(doc["title"], field(where, "title")).strip()
    if not title:
        raise DataError(field(where, "title"), "the title is empty")
    rules = as_str_list(doc["rules"], field(where, "rules")) if "rules" in doc else ()
    allow = get_bool(doc, "allow_unimplemented", where) or False
    start = read_start(doc, where)
    try:
        game_at(start.setup, start.position, allow_unimplemented=allow)
    except DataError as exc:
        raise DataError(f"{name}: {exc.where}", exc.problem) from None
    steps = read_steps(doc.get("step"), field(where, "step"), start.labels)
    return Scenario(
        path=name,
        title=title,
        setup=start.setup,
        position=start.position,
        steps=steps,
        rules=rules,
        description=get_str(doc, "description", where) or "",
        allow_unimplemented=allow,
    )
