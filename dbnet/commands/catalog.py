"""``dbnet catalog``: list, search and show the miniatures a game can use, and the keywords.

Output fits 80 columns. An unknown name or keyword, an empty search and a bad
catalog file exit 2 with one line on standard error (through the ``DataError``
the catalog raises, or here); a search that matches nothing exits 1, like grep.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import textwrap
from collections.abc import Sequence

from dbnet.catalog import Catalog, Match, load_catalog
from dbnet.catalog.construction import cost_label
from dbnet.engine.keywords import (
    BLADES,
    CUSTOM,
    KEYWORDS,
    Keyword,
    Kind,
    Modifiers,
    Number,
    check_ability,
    explain,
)
from dbnet.engine.model import AbilityDef, Activation, MiniatureDef
from dbnet.errors import DataError

WIDTH = 80
MIN_NAME_WIDTH = 12  # names are cut to fit 80 columns, never below this
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
# Glossary headings that write the number with its sign: "Bolster (+X)", "Fight (type) (+X)".
SIGNED_NUMBERS = frozenset({"Bolster", "Enrage", "Fight"})
KEYWORD_LEGEND = (
    "X is the ability's number (900.15); [X] is how many targets it may take (1 when "
    "not printed); [modifier] narrows what it affects to Self, Enemies, an aspect or "
    "a lineage (900.14); TYPE is an aspect or a lineage; NAME is the Unique name."
)
EXIT_OK = 0
EXIT_NO_MATCH = 1
EXIT_USAGE = 2


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog_files)
    action = args.catalog_action or "list"
    if action == "show":
        print(format_details(catalog, catalog.get(" ".join(args.name))))
        return EXIT_OK
    if action == "keywords":
        name = " ".join(args.keyword).strip()
        print(format_keywords(catalog, [find_keyword(name)] if name else None))
        return EXIT_OK
    if action == "search":
        text = " ".join(args.text).strip()
        if not text:
            print("dbnet catalog search: the search text is empty", file=sys.stderr)
            return EXIT_USAGE
        found = catalog.search(text)
        if not found:
            print(f"dbnet catalog search: no miniature matches {text!r}", file=sys.stderr)
            return EXIT_NO_MATCH
        print(format_matches(found, text))
        return EXIT_OK
    print(format_table(catalog.minis))
    return EXIT_OK


# --- labels ------------------------------------------------------------------------------


def stats_label(mini: MiniatureDef) -> str:
    """Power/defense/life, or ``-`` for a location (it has none)."""
    return f"{mini.power}/{mini.defense}/{mini.life}" if mini.is_creature else "-"


def ability_label(ability: AbilityDef) -> str:
    """``'Crit 2 [blade]'``: keyword, modifier and number (900.14, 900.15), then activation.

    An X spawn cost is also the number: ``'Warpstrike X [X spawn, score]'``.
    """
    number = None
    if ability.cost_x:
        number = "X"
    elif ability.x is not None:
        signed = ability.keyword in SIGNED_NUMBERS and ability.x >= 0
        number = f"+{ability.x}" if signed else str(ability.x)
    head = " ".join(part for part in (ability.keyword, ability.modifier, number) if part)
    activation = ACTIVATION_LABELS[ability.activation]
    if ability.activation is Activation.SPAWN:
        activation = f"{'X' if ability.cost_x else ability.spawn_cost} spawn"
    if ability.score:
        activation += ", score"
    return f"{head} [{activation}]"


def unimplemented(mini: MiniatureDef) -> list[AbilityDef]:
    return [a for a in mini.abilities if check_ability(a, location=mini.is_location) is not None]


# --- list and search ---------------------------------------------------------------------


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
    lines = _columns(header, rows)
    official = sum(1 for m in minis if m.official)
    noun = "miniature" if len(minis) == 1 else "miniatures"
    lines.append(f"{len(minis)} {noun}: {official} official, {len(minis) - official} original.")
    if any(unimplemented(m) for m in minis):
        lines.append(
            "* has an ability dbnet can't play (its effect is unknown): a game refuses it."
        )
    return "\n".join(lines)


def format_matches(matches: Sequence[Match], text: str) -> str:
    """A search's results: one line per miniature with what matched, wrapped to 80 columns."""
    header = ("NAME", "TYPE", "COST", "P/D/L", "MATCHED")
    rows = [
        (
            match.mini.name,
            "creature" if match.mini.is_creature else "location",
            cost_label(match.mini),
            stats_label(match.mini),
            ", ".join(match.fields),
        )
        for match in matches
    ]
    lines = _columns(header, rows, wrap_last=True)
    noun = "miniature matches" if len(matches) == 1 else "miniatures match"
    lines.append(f"{len(matches)} {noun} {text!r}.")
    return "\n".join(lines)


def _columns(
    header: tuple[str, ...], rows: Sequence[tuple[str, ...]], *, wrap_last: bool = False
) -> list[str]:
    """Left-aligned columns two spaces apart within 80 columns: the first column (the
    name) is cut to make room; with ``wrap_last`` the last one wraps onto more lines."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    if wrap_last:
        widths[-1] = len(header[-1])
    room = WIDTH - sum(widths[1:]) - 2 * (len(header) - 1)
    widths[0] = max(min(widths[0], room), MIN_NAME_WIDTH)
    indent = sum(widths[:-1]) + 2 * (len(header) - 1)
    lines = []
    for row in [header, *rows]:
        name = row[0] if len(row[0]) <= widths[0] else row[0][: widths[0] - 3] + "..."
        cells = (name, *row[1:])
        if not wrap_last:
            lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
            continue
        head = "  ".join(c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False))
        tail = textwrap.wrap(cells[-1], WIDTH - indent, break_on_hyphens=False) or [""]
        lines.append(f"{head}  {tail[0]}".rstrip())
        lines += [" " * indent + more for more in tail[1:]]
    return lines


# --- show --------------------------------------------------------------------------------


def format_details(catalog: Catalog, mini: MiniatureDef) -> str:
    """Everything known about ``mini``: stats, abilities explained with their rules text,
    provenance."""
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
            problem = check_ability(ability, location=mini.is_location)
            if problem is not None:
                label += f" (not played by dbnet: {problem})"
            lines += _wrap(label, "    ", "    ")
            explained = explain(ability)
            lines += _wrap(explained, "      ", "      ")
            if ability.text and ability.text not in explained:
                lines += _wrap(f"Text: {ability.text}", "      ", "      ")
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


# --- keywords ----------------------------------------------------------------------------


def find_keyword(name: str) -> Keyword:
    """The keyword or custom effect called ``name`` (any case); a ``DataError`` with
    suggestions if there is none."""
    every = {k.name.casefold(): k for k in (*KEYWORDS.values(), *CUSTOM.values())}
    found = every.get(name.strip().casefold())
    if found is not None:
        return found
    close = difflib.get_close_matches(name.strip().casefold(), list(every), n=3, cutoff=0.6)
    hint = (
        "did you mean " + " or ".join(repr(every[c].name) for c in close) + "?"
        if close
        else "'dbnet catalog keywords' lists them all"
    )
    raise DataError("", f"no ability keyword named {name!r}; {hint}")


def keyword_heading(keyword: Keyword) -> str:
    """``'Crit X  (activated: any blade, spawn or comes into play)'``: the keyword as
    printed on a base, then how it works."""
    parts = [keyword.name]
    if keyword.modifiers is Modifiers.FILTER:
        parts.append("[modifier]")
    elif keyword.modifiers is Modifiers.TYPE:
        parts.append("TYPE")
    elif keyword.modifiers is Modifiers.NAME:
        parts.append("NAME")
    if keyword.number is Number.REQUIRED:
        parts.append("+X" if keyword.name in SIGNED_NUMBERS else "X")
    elif keyword.number is Number.TARGETS:
        parts.append("[X]")
    how = keyword.kind.value
    if keyword.kind is Kind.ACTIVATED:
        how += ": " + _activation_words(keyword.activations)
    if keyword.may:
        how += '; "may"'
    return f"{' '.join(parts)}  ({how})"


def _activation_words(activations: frozenset[Activation]) -> str:
    """``'any blade, spawn or comes into play'``: the activations a keyword may have."""
    words = [label for a, label in ACTIVATION_LABELS.items() if a in activations]
    if all(a in activations for a in BLADES):
        words = ["any blade", *(w for w in words if "blade" not in w)]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def carriers(catalog: Catalog, name: str) -> list[MiniatureDef]:
    """The catalog's miniatures with an ability ``name``, in catalog order."""
    return [m for m in catalog.minis if any(a.keyword == name for a in m.abilities)]


def format_keywords(catalog: Catalog, only: Sequence[Keyword] | None = None) -> str:
    """Each keyword (``only`` those, or all of them then the miniatures' own effects)
    with its explanation and the miniatures that carry it; then the miniatures whose
    abilities dbnet can't play."""
    lines: list[str] = []
    if only is None:
        lines += _wrap(KEYWORD_LEGEND, "", "")
        lines.append("")
        lines.append("Ability keywords (the rulebook's glossary, and Dissipate from the FAQ):")
        lines.append("")
    for keyword in only if only is not None else KEYWORDS.values():
        lines += _keyword_lines(catalog, keyword)
    if only is None:
        lines.append("Abilities that are no keyword, played as the miniature's own effect:")
        lines.append("")
        for keyword in CUSTOM.values():
            lines += _keyword_lines(catalog, keyword)
        unplayable = [m.name for m in catalog.minis if unimplemented(m)]
        if unplayable:
            lines += _wrap(
                "Not played by dbnet (their effect is unknown): " + ", ".join(unplayable) + ".",
                "",
                "  ",
            )
        lines.append(f"{len(KEYWORDS)} keywords and {len(CUSTOM)} miniatures' own effects.")
    elif lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def _keyword_lines(catalog: Catalog, keyword: Keyword) -> list[str]:
    names = [m.name for m in carriers(catalog, keyword.name)]
    lines = _wrap(keyword_heading(keyword), "", "")
    lines += _wrap(keyword.summary, "  ", "  ")
    lines += _wrap("On: " + (", ".join(names) if names else "no miniature in this catalog"),
                   "  ", "      ")  # fmt: skip
    lines.append("")
    return lines


def _wrap(text: str, first: str, rest: str) -> list[str]:
    # Slugs and web addresses stay whole unless they are wider than a line.
    return textwrap.wrap(
        text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first]
