"""How long ``dbnet --help`` takes to start, against the interpreter's bare start.

Runs ``python -c pass``, ``python -m dbnet --help`` and, when a ``dbnet`` command
is on PATH, ``dbnet --help`` (the installed entry point), each ``--runs`` times
(default 20), in turns so that all three see the same conditions, after one
untimed warm-up run of each. Times are wall times of whole processes
(``time.perf_counter`` around ``subprocess.run``). Prints the median of each and
its ratio to the bare start next to the target (at most 4x); asserts nothing,
since timings depend on the machine and its load.

    python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

TARGET_RATIO = 4.0


def wall_time(command: Sequence[str]) -> float:
    """Seconds from starting ``command`` to its exit (it must exit 0)."""
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        why = result.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise SystemExit(f"{' '.join(command)}: exit status {result.returncode} {why}")
    return elapsed


def medians(commands: dict[str, list[str]], runs: int) -> dict[str, float]:
    """The median wall time of each command over ``runs`` runs, taken in turns."""
    for command in commands.values():
        wall_time(command)  # warm-up: the file cache and bytecode files
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, command in commands.items():
            times[label].append(wall_time(command))
    return {label: statistics.median(values) for label, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=20, metavar="N", help="timed runs of each (default 20)"
    )
    args = parser.parse_args()
    bare = "bare python"
    commands = {
        bare: [sys.executable, "-c", "pass"],
        "python -m dbnet --help": [sys.executable, "-m", "dbnet", "--help"],
    }
    installed = shutil.which("dbnet")
    if installed is not None:
        commands["dbnet --help"] = [installed, "--help"]
    times = medians(commands, max(1, args.runs))
    base = times[bare]
    print(f"median of {max(1, args.runs)} runs each; {sys.executable}")
    for label, seconds in times.items():
        if label == bare:
            continue
        ratio = seconds / base
        meets = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(
            f"{label}: {seconds * 1e3:.1f} ms, {bare}: {base * 1e3:.1f} ms, "
            f"ratio {ratio:.1f}x (target <= {TARGET_RATIO:g}x: {meets})"
        )
    if installed is None:
        print("(no dbnet command on PATH: the installed entry point was not timed)")


if __name__ == "__main__":
    main()
