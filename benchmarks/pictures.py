"""Pictures, pages and events against their targets.

1. ``svg``: ``replay.svg.board`` on every position of the longest shipped game
   (``06-bulwark-vs-pyre-abilities``), three passes; prints the median, the 95th
   percentile and the slowest single run, and the slowest position by its best run
   (a single run can be slowed by other work on the machine); target: at most 5 ms.
2. ``html``: the page of ``03-greedy-vs-greedy-short-chains`` (247 entries, the
   shipped game nearest 200) and of the longest one: the time to make the page from
   the re-played story, the time to read, verify, re-play and make it (what ``dbnet
   export --format html`` does after Python has started), the whole command's wall
   time, and the page's size (targets: at most 1 s and 1 MB for a 200-entry game).
3. ``event``: ``dbnet verify`` and ``dbnet event`` over one folder of ``--files``
   replays (default 1,000), made by copying the eight shipped replays under new names:
   so the folder holds only eight game ids, each in many copies, which ``event``
   groups as copies of one game (it compares their last entries' hashes; the copies
   agree, so no file is read twice). Runs the two commands in turns, ``--runs`` times
   each, and prints the wall time and the CPU time of the processes (``RUSAGE_CHILDREN``;
   less disturbed by other work on the machine) of each, and the ratio (target: event
   at most 1.2 times verify).

Asserts nothing, since timings depend on the machine and its load.

    python benchmarks/pictures.py [svg|html|event ...] [--files N] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dbnet.replay import html, svg
from dbnet.replay.file import load_bytes
from dbnet.replay.steps import steps
from dbnet.replay.story import load_story, read_story

REPLAYS = Path(__file__).resolve().parents[1] / "replays"
LONGEST = REPLAYS / "06-bulwark-vs-pyre-abilities.dbnr"
NEAR_200 = REPLAYS / "03-greedy-vs-greedy-short-chains.dbnr"
SVG_TARGET_MS = 5.0
PAGE_TARGET_S = 1.0
PAGE_TARGET_BYTES = 1_000_000
EVENT_TARGET_RATIO = 1.2
CHECKED = html.Checked("0" * 64, "benchmark")


def bench_svg(passes: int = 3) -> None:
    positions = steps(load_story(LONGEST)).positions
    svg.board(positions[0])  # warm up
    best = [float("inf")] * len(positions)
    times = []
    for _ in range(passes):
        for n, game in enumerate(positions):
            start = time.perf_counter()
            svg.board(game)
            elapsed = (time.perf_counter() - start) * 1000
            times.append(elapsed)
            best[n] = min(best[n], elapsed)
    times.sort()
    p95 = times[len(times) * 95 // 100]
    print(
        f"svg: {len(positions)} positions of {LONGEST.name}, {passes} passes: median "
        f"{statistics.median(times):.2f} ms, 95th percentile {p95:.2f} ms, slowest single "
        f"run {times[-1]:.2f} ms; slowest position (its best run) {max(best):.2f} ms "
        f"(target <= {SVG_TARGET_MS:.0f} ms)"
    )


def bench_html() -> None:
    for path in (NEAR_200, LONGEST):
        story = load_story(path)
        best_page = best_all = float("inf")
        size = 0
        for _ in range(5):
            start = time.perf_counter()
            page = html.page(story, CHECKED)
            best_page = min(best_page, time.perf_counter() - start)
            start = time.perf_counter()
            page = html.page(read_story(load_bytes(path), where=str(path)), CHECKED)
            best_all = min(best_all, time.perf_counter() - start)
            size = len(page.encode("utf-8"))
        wall = _wall([sys.executable, "-m", "dbnet", "export", str(path), "--format", "html"])
        print(
            f"html: {path.name} ({len(story.entries)} entries): page {best_page:.3f} s; read, "
            f"verify, re-play and page {best_all:.3f} s; whole command {wall:.3f} s; "
            f"{size:,} bytes (targets <= {PAGE_TARGET_S:.0f} s, <= {PAGE_TARGET_BYTES:,} bytes)"
        )


def bench_event(files: int, runs: int) -> None:
    shipped = sorted(REPLAYS.glob("*.dbnr"))
    with tempfile.TemporaryDirectory(prefix="dbnet-event-") as folder:
        for n in range(files):
            source = shipped[n % len(shipped)]
            shutil.copyfile(source, Path(folder) / f"game-{n:05d}-{source.name}")
        print(
            f"event: {files} files, copies of {len(shipped)} shipped replays (so {len(shipped)} "
            "game ids, each in many copies); runs in turns:"
        )
        commands = {
            "verify": [sys.executable, "-m", "dbnet", "verify", folder],
            "event": [sys.executable, "-m", "dbnet", "event", folder],
        }
        walls: dict[str, list[float]] = {k: [] for k in commands}
        cpus: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(runs):
            for name, command in commands.items():
                cpu = _children_cpu()
                walls[name].append(_wall(command, ok=(0, 1)))
                cpus[name].append(_children_cpu() - cpu)
        for name in commands:
            print(
                f"  dbnet {name:<6}: wall {statistics.median(walls[name]):7.2f} s, "
                f"CPU {statistics.median(cpus[name]):7.2f} s (median of {runs})"
            )
        wall_ratio = statistics.median(walls["event"]) / statistics.median(walls["verify"])
        cpu_ratio = statistics.median(cpus["event"]) / statistics.median(cpus["verify"])
        print(
            f"  event / verify: wall {wall_ratio:.2f}x, CPU {cpu_ratio:.2f}x "
            f"(target <= {EVENT_TARGET_RATIO}x); {os.cpu_count()} CPUs"
        )


def _wall(command: list[str], ok: tuple[int, ...] = (0,)) -> float:
    env = {**os.environ, "DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off"}
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}: {done.stderr[-300:]!r}")
    return elapsed


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="*", metavar="svg|html|event", help="default: all three")
    parser.add_argument("--files", type=int, default=1000, help="replays in the event folder")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (event)")
    args = parser.parse_args()
    chosen = args.what or ["svg", "html", "event"]
    unknown = set(chosen) - {"svg", "html", "event"}
    if unknown:
        parser.error(f"unknown benchmark {sorted(unknown)[0]!r}: choose svg, html or event")
    if "svg" in chosen:
        bench_svg()
    if "html" in chosen:
        bench_html()
    if "event" in chosen:
        bench_event(args.files, args.runs)


if __name__ == "__main__":
    main()
