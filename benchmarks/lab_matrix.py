"""The NAT lab's path matrix (issue 31, item 5): every host kind x joiner kind of
{cone, symmetric, upnp, cgnat}, two players behind one router, and an IPv6 pair behind
default-deny firewalls; each pair plays one seeded bot game (``dbnet host`` and
``dbnet join INVITE`` in the lab's namespaces, tests/lab) and the table says the path
it started on, the path it ended on, the seconds from ``dbnet join`` to the first
prompt, and to the direct path (the first connection's when it was direct, else the
``path:`` line of the move). No delay is added to the lab's links here: these kernels
have no sch_netem, and a user-space forwarder in the middle of a punched UDP path would
be the very thing the punch goes around.

    python benchmarks/lab_matrix.py [--turns N] [--seed S]

``benchmarks/network.py`` prints it too, after its own figures.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

KINDS = ("cone", "symmetric", "upnp", "cgnat")
FIRST_PROMPT = re.compile(r"^the host offers: ")  # as benchmarks/network.py

DIRECT = re.compile(r"^(?:connected to .* via direct|path: direct)")
TIMEOUT = 180.0


@dataclass(frozen=True, slots=True)
class PairRun:
    pair: str
    first_path: str
    last_path: str
    to_prompt: float
    to_direct: float | None


def run_matrix(turns: int, seed: int) -> list[PairRun] | str:
    """Every pair's game in one lab; or why the lab cannot run here."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from lab.lab import Lab  # tests/lab: the NAT lab
    from lab.players import invite_of, path_of, start_host, start_joiner
    from system import LAB, missing  # tests/system.py: what the lab needs

    why = missing(LAB, "the lab's games")
    if why is not None:
        return why
    runs: list[PairRun] = []
    game = ("--seed", str(seed), "--turns-to-win", str(turns))
    with Lab.open() as lab, tempfile.TemporaryDirectory() as tmp:
        relay = lab.relay()
        hosts = {kind: lab.router(kind).host() for kind in KINDS}
        joiners = {kind: lab.router(kind).host() for kind in KINDS}
        pairs = [(f"{h} x {j}", hosts[h], joiners[j]) for h, j in itertools.product(KINDS, KINDS)]
        lan = lab.router("cone")
        pairs.append(("one LAN", lan.host(), lan.host()))
        closed = ("ipv6closed x ipv6closed", lab.router("ipv6closed").host())
        pairs.append((*closed, lab.router("ipv6closed").host()))
        for number, (name, host_at, joiner_at) in enumerate(pairs):
            directory = Path(tmp) / f"pair{number}"
            directory.mkdir()
            host = start_host(host_at, directory, relay.address, *game)
            joiner = start_joiner(joiner_at, directory, invite_of(host), relay.address, *game[:2])
            code, host_code = joiner.wait(TIMEOUT), host.wait(TIMEOUT)
            if code or host_code:
                raise SystemExit(f"{name}: the game did not complete:\n{joiner.output()}")
            moves = [line for line in joiner.lines if line.startswith("path: ")]
            first = path_of(joiner)
            last = moves[-1].removeprefix("path: ") if moves else first
            direct = any(DIRECT.search(line) for line in joiner.lines)
            runs.append(
                PairRun(
                    name,
                    first,
                    last,
                    joiner.seconds_to(FIRST_PROMPT),
                    joiner.seconds_to(DIRECT) if direct else None,
                )
            )
    return runs


def print_matrix(turns: int, seed: int) -> None:
    found = run_matrix(turns, seed)
    if isinstance(found, str):
        print(f"the lab's path matrix: not measured here ({found})")
        return
    print(f"the NAT lab's path matrix: one bot game a pair, seed {seed}, {turns} turns to win")
    print("| pair (host x joiner) | first path | path at the end | to first prompt | to direct |")
    print("|---|---|---|---|---|")
    for run in found:
        direct = "-" if run.to_direct is None else f"{run.to_direct:.2f} s"
        print(
            f"| {run.pair} | {run.first_path} | {run.last_path} | {run.to_prompt:.2f} s "
            f"| {direct} |"
        )
    matrix = found[:16]
    direct_pairs = sum(1 for run in matrix if run.to_direct is not None)
    print(f"  direct at the end: {direct_pairs} of {len(matrix)} router pairs (expected: 11)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1, help="turns to win (1)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' and the game's seed (1)")
    args = parser.parse_args()
    print_matrix(args.turns, args.seed)


if __name__ == "__main__":
    main()
