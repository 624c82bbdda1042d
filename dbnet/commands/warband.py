"""``dbnet warband``: check warband files against rule 600, show one with its costs, and
open the full-screen builder to make or edit one.

``check`` prints one line per breach, quoting the rule (``600.3: 4 copies of 'Frenzied
Gorehound' (at most 3)``), from the same check a game's start makes
(``WarbandList.breaches``); exit 0 when every file is legal, 1 when one breaks a rule, 2
when one is not a warband (the error names the line of a TOML mistake, and the nearest
names of an unknown miniature). Output fits 80 columns.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from dbnet.catalog import Catalog, WarbandList, load_catalog, read_warband_list, slugify
from dbnet.catalog.construction import cost_label, range_label, summary_lines
from dbnet.engine.model import MiniatureDef
from dbnet.errors import DataError
from dbnet.text import printable

EXIT_OK = 0
EXIT_BREACH = 1
EXIT_USAGE = 2
WIDTH = 80


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog_files)
    action = args.warband_action
    if action == "check":
        return check(args.files, catalog)
    if action == "show":
        listed = read_warband_list(args.file, catalog)
        print(format_show(listed, str(args.file), catalog))
        return EXIT_BREACH if listed.breaches() else EXIT_OK
    if action == "new":
        name = " ".join(args.name).strip()
        if not name:
            raise DataError("", "the warband's name is empty")
        path = args.file if args.file is not None else Path(f"{slugify(name) or 'warband'}.toml")
        if path.exists():
            raise DataError(str(path), f"already exists; 'dbnet warband edit {path}' opens it")
        return _build(WarbandList(name, ()), path, catalog)
    listed = read_warband_list(args.file, catalog)
    return _build(listed.merged(), args.file, catalog)


def check(files: list[Path], catalog: Catalog) -> int:
    """Check each file; print its breaches (or that it is legal); the worst exit code."""
    worst = EXIT_OK
    for path in files:
        try:
            listed = read_warband_list(path, catalog)
        except DataError as exc:
            print(printable(f"dbnet warband check: {exc}"), file=sys.stderr)
            worst = EXIT_USAGE
            continue
        breaches = listed.breaches()
        for breach in breaches:
            print(printable(f"{path}: {breach}"))
        if breaches:
            worst = max(worst, EXIT_BREACH)
        else:
            print(printable(f"{path}: legal: {_legal_words(listed, catalog)}"))
    return worst


def _legal_words(listed: WarbandList, catalog: Catalog) -> str:
    most = max(listed.copies(m) for m, _ in listed.entries)
    return f"{listed.size} miniatures, at most {most} copies, catalog {catalog.version}"


def format_show(listed: WarbandList, where: str, catalog: Catalog) -> str:
    """The warband's miniatures with copies, type, cost, what spawning can cost, stats;
    then its aspect costs (600.2) and whether it may be played."""
    merged = listed.merged()
    lines = [printable(f"{listed.name} ({where})")]
    header = ("N", "NAME", "TYPE", "COST", "PAYS", "P/D/L")
    rows = [
        (
            str(count),
            mini.name,
            "creature" if mini.is_creature else "location",
            cost_label(mini),
            range_label(mini),
            _stats(mini),
        )
        for mini, count in merged.entries
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    room = WIDTH - sum(widths) + widths[1] - 2 * (len(header) - 1)
    widths[1] = max(12, min(widths[1], room))
    for row in [header, *rows]:
        name = row[1] if len(row[1]) <= widths[1] else row[1][: widths[1] - 3] + "..."
        cells = (row[0].rjust(widths[0]), name, *row[2:])
        lines.append(
            printable("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
        )
    lines.append("")
    lines += summary_lines(merged.entries)
    lines.append(
        "COST: spawn cost and aspect symbols (300.1). PAYS: what spawning it costs, from "
        "every aspect satisfied to none (one more point per miniature short, 801.4)."
    )
    breaches = listed.breaches()
    if breaches:
        lines += [f"Not legal: {b}" for b in breaches]
    else:
        lines.append(f"Legal: {_legal_words(listed, catalog)}.")
    return "\n".join(_wrap(line) for line in lines)


def _wrap(line: str) -> str:
    if len(line) <= WIDTH:
        return line
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False))


def _stats(mini: MiniatureDef) -> str:
    return f"{mini.power}/{mini.defense}/{mini.life}" if mini.is_creature else "-"


def _build(listed: WarbandList, path: Path, catalog: Catalog) -> int:
    """Open the builder on a terminal (the console client imports prompt-toolkit)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise DataError("", "the warband builder needs a terminal (stdin and stdout)")
    from dbnet.console.builder import run_builder

    return run_builder(listed, path, catalog)
