"""Replay verification against its floor: the Ed25519 signature checks alone.

Plays one long real game (greedy against greedy with the default ability
warbands, ten turns to win, through the signed log like any local game; keys,
chain secrets and bots all derive from ``--seed``, so every run plays the same game),
records it with ``ReplayWriter``, then times ``verify_replay`` on the file and
the bare signature checks of the same entries (``identity.verify`` over
``signing_message(signed)``), alternately, so that both see the same
conditions. Times are this process's CPU time (``time.process_time``), so other
work on the machine does not count against either. Prints the best time of
each and their ratio next to the target, and the median ratio of the pairs;
asserts nothing, since timings depend on the machine.

    python benchmarks/verify.py [--replay FILE] [--seed S] [--repeat N]
"""

from __future__ import annotations

import argparse
import datetime
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup, Options
from dbnet.match.keys import MatchKeys, replay_header
from dbnet.match.local import Match, bots_in_place
from dbnet.protocol.identity import verify
from dbnet.replay.file import ReplayWriter, load_bytes, read_replay
from dbnet.replay.verify import verify_replay
from dbnet.wire.entries import decode_signed_entry, signing_message

TARGET_RATIO = 1.5
CREATED = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


def long_game(seed: int, folder: Path) -> Path:
    """A whole greedy-against-greedy game to ten turns, recorded in ``folder``."""
    setup = GameSetup(
        load_map(), default_warbands(load_catalog()), options=Options(turns_to_win=10)
    )
    choose = bots_in_place(
        (
            make_bot("greedy", random.Random(f"{seed}:A")),
            make_bot("greedy", random.Random(f"{seed}:B")),
        )
    )
    keys = MatchKeys.from_seed(f"dbnet-benchmark:{seed}".encode())  # the same game every run
    path = folder / "long.dbnr"
    with ReplayWriter.create(path, replay_header(keys, setup, CREATED)) as writer:
        match = Match(setup, keys, on_record=writer.append)
        while not match.is_closed:
            match.step(choose)
    return path


def paired_times(
    repeat: int, first: Callable[[], object], second: Callable[[], object]
) -> list[tuple[float, float]]:
    """``repeat`` pairs of CPU times in seconds, ``first`` then ``second`` in each pair."""
    pairs = []
    for _ in range(repeat):
        start = time.process_time()
        first()
        middle = time.process_time()
        second()
        pairs.append((middle - start, time.process_time() - middle))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay", type=Path, help="verify this replay instead of a new game")
    parser.add_argument("--seed", type=int, default=1, help="bot seed of the new game")
    parser.add_argument(
        "--repeat", type=int, default=21, help="timed pairs of runs; the best ratio counts"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.replay or long_game(args.seed, Path(folder))
        data = load_bytes(path)
    replay = read_replay(data, where=str(path))
    checks: list[tuple[bytes, bytes, bytes]] = []
    for record in replay.records:
        signed, entry = decode_signed_entry(record)
        checks.append(
            (
                replay.header.keys[entry.author],
                signed.signature,
                signing_message(signed.signed),
            )
        )

    verdict = verify_replay(data, where=str(path))

    def signatures() -> None:
        for key, signature, message in checks:
            if not verify(key, signature, message):
                raise SystemExit("a signature did not verify")

    pairs = paired_times(args.repeat, lambda: verify_replay(data, where=str(path)), signatures)
    verify_time = min(v for v, _ in pairs)
    signature_time = min(t for _, t in pairs)
    ratio = verify_time / signature_time
    ratios = sorted(v / t for v, t in pairs)
    median = ratios[len(ratios) // 2]
    entries = len(replay.records)
    meets = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(f"{path.name if args.replay else 'new game'}: {entries} entries, {len(data)} bytes")
    print(f"  verdict: {verdict.summary()}")
    print(
        f"  verify_replay      {verify_time * 1e3:8.2f} ms  "
        f"({verify_time / entries * 1e6:6.1f} us an entry)"
    )
    print(
        f"  Ed25519 checks     {signature_time * 1e3:8.2f} ms  "
        f"({signature_time / entries * 1e6:6.1f} us an entry)"
    )
    print(
        f"  ratio {ratio:.2f} of the best times; median {median:.2f} over {len(pairs)} pairs "
        f"({meets} the target of at most {TARGET_RATIO})"
    )


if __name__ == "__main__":
    main()
