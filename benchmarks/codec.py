"""Decoding cost of the wire format: every record of the shipped replays.

Decodes every entry record of every ``replays/*.dbnr`` file with
``wire.entries.decode_signed_entry``, many times over, then the PLAY records alone (most of
a game) and the OFFER records alone (a setup of 32 miniatures each: the heaviest
entry). Prints records per second and microseconds per record for each set. Times
are this process's CPU time (``time.process_time``), the best of ``--repeat`` runs.

With ``--against REV`` the codec of that git revision (``dbnet/wire/codec.py`` as
committed there, loaded beside this one; for a revision after the codec was split,
``dbnet/wire/entries.py``, whose imports are this tree's) decodes the same records, alternately with
this one, so that both see the same conditions: a way to measure a change of the
codec in one run. Asserts nothing, since timings depend on the machine.

    python benchmarks/codec.py [--repeat N] [--against REV]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from dbnet.replay.file import load_replay
from dbnet.wire.bodies import EntryKind
from dbnet.wire.entries import decode_signed_entry

ROOT = Path(__file__).resolve().parent.parent
Decoder = Callable[[bytes], object]


def shipped_records() -> list[bytes]:
    """Every entry record of every shipped replay, in file order."""
    return [
        r for path in sorted((ROOT / "replays").glob("*.dbnr")) for r in load_replay(path).records
    ]


def codec_at(revision: str) -> ModuleType:
    """The codec as committed at ``revision``, loaded as its own module: ``dbnet/wire/
    codec.py`` while it was one module, else ``dbnet/wire/entries.py``."""
    path = "dbnet/wire/codec.py"
    source = _show(revision, path)
    if "from dbnet.wire.entries import" in source:  # the facade left by the split
        path = "dbnet/wire/entries.py"
        source = _show(revision, path)
    name = f"codec_at_{revision.replace('/', '_').replace('-', '_')}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module


def _show(revision: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{revision}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def best_times(
    repeat: int, rounds: int, records: Sequence[bytes], decoders: Sequence[Decoder]
) -> list[float]:
    """The best CPU time of each decoder over ``repeat`` runs (the decoders take turns),
    each run decoding ``records`` ``rounds`` times."""
    best = [float("inf")] * len(decoders)
    for _ in range(repeat):
        for i, decode in enumerate(decoders):
            start = time.process_time()
            for _ in range(rounds):
                for record in records:
                    decode(record)
            best[i] = min(best[i], time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs; the best counts")
    parser.add_argument("--against", metavar="REV", help="also time the codec of this revision")
    args = parser.parse_args()
    records = shipped_records()
    kinds = [decode_signed_entry(r)[1].kind for r in records]
    sets = [
        ("every record", records, 20),
        ("PLAY", [r for r, k in zip(records, kinds, strict=True) if k is EntryKind.PLAY], 20),
        ("OFFER", [r for r, k in zip(records, kinds, strict=True) if k is EntryKind.OFFER], 200),
    ]
    names = ["this codec"]
    decoders: list[Decoder] = [decode_signed_entry]
    if args.against:
        other = codec_at(args.against)
        for record in records:  # the same entries, or the comparison means nothing
            (theirs, their_entry), (ours, our_entry) = (
                decode(record) for decode in (other.decode_signed_entry, decode_signed_entry)
            )  # compared as plain values: the types' fields may differ between revisions
            assert (theirs.to_wire(), their_entry.to_wire()) == (
                ours.to_wire(),
                our_entry.to_wire(),
            )
        names.append(f"codec at {args.against}")
        decoders.append(other.decode_signed_entry)
    print(f"{len(records)} records of {len(sets[2][1])} replays (replays/*.dbnr)")
    for label, chosen, rounds in sets:
        times = best_times(args.repeat, rounds, chosen, decoders)
        count = len(chosen) * rounds
        for name, seconds in zip(names, times, strict=True):
            print(
                f"  {label:<13} {name:<24} {count / seconds:>10,.0f} records/s  "
                f"{seconds / count * 1e6:8.2f} us a record"
            )
        if len(times) == 2:
            print(f"  {label:<13} {'this codec is':<24} {times[1] / times[0]:>10.2f} x as fast")


if __name__ == "__main__":
    main()
