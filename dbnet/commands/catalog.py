"""``dbnet catalog``: list, search and show the miniatures a game can use.

Output fits 80 columns. An unknown name exits 2 with suggestions (through the
``DataError`` the catalog raises); a search that matches nothing exits 1.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from dbnet.catalog import Catalog, load_catalog
from dbnet.engine.keywords import check_ability, explain
from dbnet.engine.model import AbilityDef, Activation, MiniatureDef

WIDTH = 80
MIN_NAME_WIDTH = 12  # names are cut to fit 80 columns, never below this
ASPECT_SYMBOLS = "VMFP"  # by Aspect value: Valor, Madness, Fear, Passion
ACTIVATION_LABELS = {
    Activation.ALWAYS: "always",
    Activation.BLADE: "blade",
    Activation.MULTIBLADE: "multiblade",
    Activation.DOUBLE_BLADE: "double blade",
    Activation.DOUBLE_MULTIBLADE: "double multiblade",
    Activation.SPAWN: "spawn",
    Activation.COMES_INTO_PLAY: "comes into play",
    Activation.UNKNOWN: "activation unknown",
}
EXIT_OK = 0
EXIT_NO_MATCH = 1
EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "catalog",
        help="list, search and show miniatures",
        description="List the miniatures in the catalog, search them, or show one in full.",
    )
    parser.add_argument(
        "--catalog",
        dest="catalog_files",
        action="append",
        type=Path,
        metavar="FILE",
        help="read this catalog file instead of the shipped catalog (repeatable)",
    )
    actions = parser.add_subparsers(dest="catalog_action", metavar="ACTION")
    actions.add_parser("list", help="list every miniature (the default)")
    search = actions.add_parser(
        "search", help="miniatures whose name, lineage, aspect, set or abilities contain TEXT"
    )
    search.add_argument("text", nargs="+", metavar="TEXT")
    show = actions.add_parser("show", help="one miniature's full stats and abilities")
    show.add_argument("name", nargs="+", metavar="NAME", help="a name or slug")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog_files)
    action = args.catalog_action or "list"
    if action == "show":
        print(format_details(catalog, catalog.get(" ".join(args.name))))
        return EXIT_OK
    if action == "search":
        text = " ".join(args.text).strip()
        if not text:
            print("dbnet catalog search: the search text is empty", file=sys.stderr)
            return EXIT_USAGE
        found = catalog.find(text)
        if not found:
            print(f"dbnet catalog search: no miniature matches {text!r}", file=sys.stderr)
            return EXIT_NO_MATCH
        print(format_table(found))
        return EXIT_OK
    print(format_table(catalog.minis))
    return EXIT_OK


def cost_label(mini: MiniatureDef) -> str:
    """Spawn cost then one symbol per aspect symbol (300.1): ``'9 MMM'``."""
    symbols = "".join(ASPECT_SYMBOLS[a] for a in mini.aspects)
    return f"{mini.spawn_cost} {symbols}".rstrip()


def stats_label(mini: MiniatureDef) -> str:
    """Power/defense/life, or ``-`` for a location (it has none)."""
    return f"{mini.power}/{mini.defense}/{mini.life}" if mini.is_creature else "-"


def ability_label(ability: AbilityDef) -> str:
    """``'Crit 2 [blade]'``: keyword, modifier and number (900.14, 900.15), then activation."""
    head = " ".join(
        part
        for part in (
            ability.keyword,
            ability.modifier,
            None if ability.x is None else str(ability.x),
        )
        if part
    )
    activation = ACTIVATION_LABELS[ability.activation]
    if ability.activation is Activation.SPAWN:
        activation = f"{ability.spawn_cost} spawn"
    if ability.score:
        activation += ", score"
    return f"{head} [{activation}]"


def unimplemented(mini: MiniatureDef) -> list[AbilityDef]:
    return [a for a in mini.abilities if check_ability(a) is not None]


def format_table(minis: Sequence[MiniatureDef]) -> str:
    """One line per miniature, with a header and a footnote for unplayable abilities.

    Names are cut (ending in ``...``) when the line would not fit 80 columns.
    """
    header = ("NAME", "TYPE", "COST", "P/D/L", "ORIGIN", "ABILITIES")
    rows = []
    for mini in minis:
        count = str(len(mini.abilities)) if mini.abilities else "-"
        if unimplemented(mini):
            count += "*"
        rows.append(
            (
                mini.name,
                "creature" if mini.is_creature else "location",
                cost_label(mini),
                stats_label(mini),
                "official" if mini.official else "original",
                count,
            )
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    room = WIDTH - sum(widths[1:]) - 2 * (len(header) - 1)
    widths[0] = max(min(widths[0], room), MIN_NAME_WIDTH)
    lines = []
    for row in [header, *rows]:
        name = row[0] if len(row[0]) <= widths[0] else row[0][: widths[0] - 3] + "..."
        cells = (name, *row[1:])
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    official = sum(1 for m in minis if m.official)
    noun = "miniature" if len(minis) == 1 else "miniatures"
    lines.append(f"{len(minis)} {noun}: {official} official, {len(minis) - official} original.")
    if any(unimplemented(m) for m in minis):
        lines.append(
            "* has an ability dbnet can't play (its effect is unknown): a game refuses it."
        )
    return "\n".join(lines)


def format_details(catalog: Catalog, mini: MiniatureDef) -> str:
    """Everything known about ``mini``: stats, abilities with their text, provenance."""
    lines = _wrap(f"{mini.name} ({mini.slug})", "", "")
    aspects = ", ".join(f"{n} {a.name.capitalize()}" for a, n in mini.aspect_needs()) or "none"
    field_lines = [
        ("type", "creature" if mini.is_creature else "location"),
        ("cost", f"{cost_label(mini)} (spawn cost {mini.spawn_cost}; aspect cost {aspects})"),
    ]
    if mini.is_creature:
        field_lines += [
            ("power", str(mini.power)),
            ("defense", str(mini.defense)),
            ("life", str(mini.life)),
        ]
    field_lines += [
        ("lineage", mini.lineage or "-"),
        ("set", f"{mini.set_name or '-'} ({'official' if mini.official else 'dbnet original'})"),
    ]
    for key, value in field_lines:
        lines += _wrap(f"{key + ':':<12}{value}", "  ", "  " + " " * 12)
    if not mini.abilities:
        lines.append("  abilities:  none")
    else:
        lines.append("  abilities:")
        for ability in mini.abilities:
            label = ability_label(ability)
            problem = check_ability(ability)
            if problem is not None:
                label += f" (not played by dbnet: {problem})"
            lines += _wrap(label, "    ", "    ")
            lines += _wrap(explain(ability), "      ", "      ")
            if ability.text and ability.text != explain(ability):
                lines += _wrap(f"Printed: {ability.text}", "      ", "      ")
    provenance = catalog.provenance(mini)
    if provenance.confidence:
        lines.append(f"  confidence: {provenance.confidence}")
    if provenance.sources:
        lines.append("  sources:")
        for source in provenance.sources:
            lines += _wrap(source, "    ", "    ")
    if provenance.notes:
        lines += _wrap(f"{'notes:':<12}{provenance.notes}", "  ", "  " + " " * 12)
    return "\n".join(lines)


def _wrap(text: str, first: str, rest: str) -> list[str]:
    # Slugs and web addresses stay whole unless they are wider than a line.
    return textwrap.wrap(
        text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first]
