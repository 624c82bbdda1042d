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
