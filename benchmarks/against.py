"""``dbnet verify`` and ``dbnet event`` of this checkout against another git revision's, in
one process, alternated.

The revision's ``dbnet`` is imported under another name (``benchmarks/lockstep.py``'s
``package_at``), so both versions run in this process on the same files, one after the
other, the one that goes first changing every round; each round's ratio is printed, and
the median of the rounds. Times are this process's CPU time (``time.process_time``), so
other programs on a shared machine count against neither version, except for ``--jobs``,
whose workers are other processes: wall-clock time there (``time.perf_counter``).

- ``verify``: what ``dbnet verify`` does with each shipped replay (``replays/*.dbnr``):
  ``commands.verify.verify_file``. Beside it, in the same rounds, this checkout's floor:
  the Ed25519 checks the files need (``identity.verify`` over each entry's signing
  message, the same loop as ``benchmarks/verify.py``), and the parts of the rest that can
  be timed apart: reading the files, and decoding their records.
- ``event``: what ``dbnet event FOLDER`` does with ``--event-files`` replay files (seeded
  ``dbnet selfplay --a random --b random`` games, made once into ``--folder``):
  ``commands.event.read_all`` then ``replay.event.report``, with ``--jobs 1`` for both
  versions; then this checkout with ``--jobs 1`` against ``--jobs N`` (N = the CPUs this
  process may use), alternated the same way; then the parts of ``--jobs N`` that this
  process does alone (listing the folder, gathering the workers' results, the report),
  in CPU time, each worker's CPU time, and the speed-up these bound on N idle cores
  (the wall-clock ratio is depressed by whatever else the machine runs).

The signed log's own A/B (``dbnet selfplay``'s decisions) is ``benchmarks/lockstep.py``.
Asserts only that both versions reach the same verdicts; timings depend on the machine.

    python benchmarks/against.py REV [--verify-rounds R] [--rounds R] [--event-files N]
                                     [--folder DIR]
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lockstep import package_at

from dbnet.commands.copies import read_in_workers
from dbnet.commands.verify import find_replays, jobs_for
from dbnet.commands.workers import map_files
from dbnet.protocol.identity import verify
from dbnet.replay.event import Points, report
from dbnet.replay.file import read_replay
from dbnet.replay.gamefile import examine
from dbnet.wire.entries import decode_signed_entry, signing_message

ROOT = Path(__file__).resolve().parent.parent
SEED = 32


def module(package: str, name: str) -> Any:
    return importlib.import_module(f"{package}.{name}")


def alternate(
    rounds: int, works: dict[str, Callable[[], object]], clock: Callable[[], float]
) -> dict[str, list[float]]:
    """Each work once a round, in an order that turns every round; seconds by work, on
    ``clock``."""
    names = list(works)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(rounds):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            started = clock()
            works[name]()
            times[name].append(clock() - started)
    return times


def ratios(base: list[float], mine: list[float]) -> str:
    """``base / mine`` by round: the median, then each round's."""
    each = [b / m for b, m in zip(base, mine, strict=True)]
    by_round = " ".join(f"{r:.2f}" for r in each)
    return f"{statistics.median(each):.2f}x (by round {by_round})"


def compare_verify(other: str, rounds: int) -> None:
    """The shipped replays by both versions, their floors and parts, in CPU time."""
    files = sorted(str(path) for path in (ROOT / "replays").glob("*.dbnr"))
    theirs = module(other, "commands.verify").verify_file
    ours = module("dbnet", "commands.verify").verify_file
    verdicts = [(ours(f).summary(), theirs(f).summary()) for f in files]
    assert all(a == b for a, b in verdicts), "the versions disagree on a shipped replay"
    datas = [Path(f).read_bytes() for f in files]
    checks: list[tuple[bytes, bytes, bytes]] = []
    records: list[bytes] = []
    for data, name in zip(datas, files, strict=True):
        replay = read_replay(data, where=name)
        for record in replay.records:
            signed, entry = decode_signed_entry(record)
            checks.append(
                (
                    replay.header.keys[entry.author],
                    signed.signature,
                    signing_message(signed.signed),
                )
            )
            records.append(record)
    their_verify = module(other, "protocol.identity").verify

    def floor(check: Callable[[bytes, bytes, bytes], bool]) -> Callable[[], None]:
        def run() -> None:
            for key, signature, message in checks:
                if not check(key, signature, message):
                    raise SystemExit("a signature did not verify")

        return run

    def reading() -> None:
        for name in files:
            read_replay(Path(name).read_bytes(), where=name)

    def decoding() -> None:
        for record in records:
            decode_signed_entry(record)

    times = alternate(
        rounds,
        {
            "theirs": lambda: [theirs(f) for f in files],
            "ours": lambda: [ours(f) for f in files],
            "floor": floor(verify),
            "their floor": floor(their_verify),
            "reading": reading,
            "decoding": decoding,
        },
        time.process_time,
    )
    best = {name: min(values) for name, values in times.items()}
    print(
        f"dbnet verify of the {len(files)} shipped replays ({len(checks)} entries), "
        f"{rounds} rounds, best round in ms:"
    )
    for name in times:
        print(f"  {name:12} {best[name] * 1e3:8.1f}")
    print(f"  this / the revision: {ratios(times['theirs'], times['ours'])} as fast")
    print(f"  their floor / this floor: {ratios(times['their floor'], times['floor'])} as fast")
    to_floor = [o / f for o, f in zip(times["ours"], times["floor"], strict=True)]
    old_to_floor = [o / f for o, f in zip(times["theirs"], times["their floor"], strict=True)]
    rest = best["ours"] - best["floor"]
    print(
        f"  verify / its floor: this {statistics.median(to_floor):.2f}, the revision "
        f"{statistics.median(old_to_floor):.2f} (medians of the rounds)"
    )
    print(
        f"  the rest beyond the floor, {rest * 1e3:.1f} ms (best rounds): reading and "
        f"framing the files {best['reading'] * 1e3:.1f} ms, decoding the records again "
        f"{best['decoding'] * 1e3:.1f} ms, the log's rules (engine, dice chains, state "
        f"hashes) about {(rest - best['reading'] - best['decoding']) * 1e3:.1f} ms"
    )


def event_files(folder: Path, count: int) -> list[str]:
    """``count`` seeded random-vs-random selfplay replays in ``folder`` (made once)."""
    folder.mkdir(parents=True, exist_ok=True)
    have = sorted(folder.glob("*.dbnr"))
    if len(have) < count:
        print(f"making {count - len(have)} selfplay replays in {folder} ...", flush=True)
        subprocess.run(
            [
                *(sys.executable, "-m", "dbnet", "selfplay", "--a", "random", "--b", "random"),
                *("--seed", str(SEED), "--games", str(count), "--replays", str(folder)),
            ],
            check=False,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off"},
        )
        have = sorted(folder.glob("*.dbnr"))
    return [str(path) for path in have[:count]]


def agrees(ours: object, theirs: object) -> bool:
    """Whether this checkout's JSON says what the revision's says: the same values, and
    every field of the revision's (fields added since, such as ``won_by_forfeit``, are
    not compared)."""
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and all(
            key in ours and agrees(ours[key], value) for key, value in theirs.items()
        )
    if isinstance(theirs, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(theirs)
            and all(agrees(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    return ours == theirs


def compare_event(other: str, rounds: int, files: list[str]) -> None:
    """The event by both versions with ``--jobs 1`` (CPU time), then this checkout's
    ``--jobs 1`` and ``--jobs N`` (wall time: the workers' CPU is not this process's)."""
    jobs = jobs_for(None)
    versions = {}
    for name, package in (("theirs", other), ("ours", "dbnet")):
        command, event = module(package, "commands.event"), module(package, "replay.event")

        def run(jobs: int, command: Any = command, event: Any = event) -> Any:
            return event.report(command.read_all(files, jobs), event.Points(3, 1, 0))

        versions[name] = run
    ours, theirs = versions["ours"](1), versions["theirs"](1)
    assert agrees(ours.to_json(), theirs.to_json()), "the versions disagree on the event"
    assert versions["ours"](jobs).to_json() == ours.to_json(), "--jobs changes the event"
    times = alternate(
        rounds,
        {"theirs": lambda: versions["theirs"](1), "ours": lambda: versions["ours"](1)},
        time.process_time,
    )
    print(
        f"dbnet event over {len(files)} replay files, --jobs 1, {rounds} rounds, best round "
        "in CPU s:"
    )
    for name, values in times.items():
        print(f"  {name:16} {min(values):8.2f}")
    print(f"  this / the revision: {ratios(times['theirs'], times['ours'])} as fast")
    parallel = f"--jobs {jobs}"
    walls = alternate(
        rounds,
        {"--jobs 1": lambda: versions["ours"](1), parallel: lambda: versions["ours"](jobs)},
        time.perf_counter,
    )
    print(f"dbnet event over {len(files)} replay files, this checkout, best round in wall s:")
    for name, values in walls.items():
        print(f"  {name:16} {min(values):8.2f}")
    print(
        f"  {parallel} / --jobs 1 ({os.cpu_count()} CPUs, shared with other work): "
        f"{ratios(walls['--jobs 1'], walls[parallel])} as fast"
    )
    started, own = time.perf_counter(), time.process_time()
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    versions["ours"](jobs)
    wall, own = time.perf_counter() - started, time.process_time() - own
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = after.ru_utime + after.ru_stime - workers.ru_utime - workers.ru_stime
    print(
        f"  one more {parallel} run: {wall:.2f} s wall; the workers' CPU {busy:.2f} s "
        f"({busy / wall:.2f} cores busy on average), this process's {own:.2f} s; the load "
        f"average of the machine {os.getloadavg()[0]:.2f}"
    )
    serial_parts(files, jobs, min(times["ours"]))


def timed_examine(path: str) -> tuple[int, float, object]:
    """``examine`` in a worker, with the worker's id and its CPU time so far."""
    facts = examine(path)
    return os.getpid(), time.process_time(), facts


def serial_parts(files: list[str], jobs: int, one: float) -> None:
    """What ``dbnet event --jobs N`` does in this process alone, timed (CPU time, so
    that other programs count against none of it): listing the folder, gathering the
    workers' results, the report; and each worker's CPU time (the busiest bounds the
    run). ``one`` is the CPU time of the whole event in one process."""
    folder = os.path.commonpath(files)
    clock = time.process_time
    started = clock()
    listed = find_replays([folder])
    listing = clock() - started
    if sorted(listed) != sorted(files):  # a folder with other files too: these alone
        listed = files
    started = clock()
    results = list(map_files(timed_examine, listed, jobs))
    gathering = clock() - started
    facts: list[Any] = [facts for _, _, facts in results]
    started = clock()
    read_in_workers(lambda h, f: report(facts, Points(3, 1, 0), h, fork=f), facts, jobs)
    reporting = clock() - started
    by_worker: dict[int, float] = {}
    for pid, cpu, _ in results:
        by_worker[pid] = max(cpu, by_worker.get(pid, 0.0))
    parent = listing + gathering + reporting
    work = sum(by_worker.values())
    busiest = max(by_worker.values())
    print(
        f"  this process alone, CPU s: listing {listing:.3f}, gathering the results "
        f"{gathering:.3f}, the report {reporting:.3f}: {parent:.3f} of {parent + work:.2f} "
        f"({parent / (parent + work):.1%} serial); the workers' CPU s: "
        + ", ".join(f"{cpu:.2f}" for cpu in sorted(by_worker.values()))
    )
    print(
        f"  on {jobs} idle cores: at most {one / (parent + busiest):.2f}x as fast as one "
        f"process ({one:.2f} s / (this process {parent:.2f} s + the busiest worker "
        f"{busiest:.2f} s), start-up and pipes aside)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", metavar="REV", help="the git revision to compare with")
    parser.add_argument(
        "--verify-rounds", type=int, default=21, help="rounds of dbnet verify (default 21)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of dbnet event (default 3)")
    parser.add_argument("--event-files", type=int, default=1000, help="default 1000; 0: none")
    parser.add_argument(
        "--folder", type=Path, help="where the event's replays are (made there if missing)"
    )
    parser.add_argument("--no-verify", action="store_true", help="compare dbnet event only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        other = package_at(args.revision, Path(scratch))
        sys.path.insert(0, scratch)
        if not args.no_verify:
            compare_verify(other, args.verify_rounds)
        if args.event_files:
            folder = args.folder or Path(scratch) / "event"
            compare_event(other, args.rounds, event_files(folder, args.event_files))


if __name__ == "__main__":
    main()
