"""``dbnet scenario FILE...``: run rule scenarios and report every mismatch.

Exit codes: 0 when every scenario passes, 1 when any fails (a malformed file
counts as a failure, and the other files still run), 2 for usage errors such
as a path that does not exist.
"""

from __future__ import annotations

import argparse
import sys

from dbnet.errors import DataError
from dbnet.scenario import find_scenario_files, result_lines, run_file, summary_line

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scenario",
        help="run rule scenario files",
        description="Run scenario files (TOML, see docs/scenarios.md); folders are searched "
        "recursively for *.toml. Exit 0 if all pass, 1 if any fails, 2 for usage errors.",
    )
    parser.add_argument("paths", nargs="+", metavar="FILE", help="scenario file or folder")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only failures and the summary"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        files = find_scenario_files(args.paths)
    except DataError as exc:
        print(f"dbnet scenario: {exc}", file=sys.stderr)
        return EXIT_USAGE
    results = []
    for path in files:
        result = run_file(str(path))
        results.append(result)
        if result.passed and args.quiet:
            continue
        for line in result_lines(result):
            print(line)
    print(summary_line(results))
    return EXIT_PASSED if all(r.passed for r in results) else EXIT_FAILED
