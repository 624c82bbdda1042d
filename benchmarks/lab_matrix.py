"""The NAT lab's path matrix (issue 31, item 5): every host kind x joiner kind of
{cone, symmetric, upnp, cgnat}, two players behind one router, and an IPv6 pair behind
default-deny firewalls; each pair plays one seeded bot game (``dbnet host`` and
``dbnet join INVITE`` in the lab's namespaces, tests/lab) and the table says the path
it started on, the path it ended on, the seconds from ``dbnet join`` to the first
prompt, and to the direct path (the first connection's when it was direct, else the
``path:`` line of the move).

Every site's link to the lab's internet (each router's WAN, each carrier's, the relay's)
is delayed by half of ``--delay`` each way (``Lab.delay_link``: these kernels have no
sch_netem, so a small namespace cut into the link passes each frame on later, in user
space, TCP and UDP alike). So a direct path between two players is ``--delay`` one
way, and the relayed path twice that, as in ``benchmarks/network.py``'s forwarders.

Then the speed of a punched path (issue 31, item 6): whole games (``--turns``) over a
mapped port (host upnp, joiner cone) and over a punched path (both cone: the game
starts on the relay and moves), ``--rounds`` each, alternating; it prints each one's
median wall time (from the joiner's first connection to its last line) and their ratio
(target: at most 1.1), and when the game moved to the punched path after its start.

    python benchmarks/lab_matrix.py [--delay MS] [--turns N] [--rounds R] [--seed S]

``benchmarks/network.py`` prints it too, after its own figures.
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

KINDS: tuple[Literal["cone", "symmetric", "upnp", "cgnat"], ...] = (
    "cone",
    "symmetric",
    "upnp",
    "cgnat",
)
FIRST_PROMPT = re.compile(r"^the host offers: ")  # as benchmarks/network.py

CONNECTED = re.compile(r"^connected to ")
DIRECT = re.compile(r"^(?:connected to .* via direct|path: direct)")
TIMEOUT = 180.0


@dataclass(frozen=True, slots=True)
class PairRun:
    pair: str
    first_path: str
    last_path: str
    to_prompt: float
    to_direct: float | None


def _delayed(lab: object, delay: float) -> None:
    """Delay every site's link to the internet by half of ``delay`` each way."""
    from lab.lab import Lab  # tests/lab: the NAT lab

    assert isinstance(lab, Lab)
    if delay <= 0:
        return
    for namespace in lab.namespaces:
        kind = getattr(namespace, "kind", None)
        if kind is not None and getattr(namespace, "carrier", None) is None:
            lab.delay_link(namespace, "wan", delay / 2)  # a router or a carrier on the internet
        elif namespace.name.split("-")[-1].startswith("relay"):
            lab.delay_link(namespace, "eth0", delay / 2)


def run_matrix(turns: int, seed: int, delay: float) -> list[PairRun] | str:
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
        _delayed(lab, delay)
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


def print_matrix(turns: int, seed: int, delay: float) -> None:
    found = run_matrix(turns, seed, delay)
    if isinstance(found, str):
        print(f"the lab's path matrix: not measured here ({found})")
        return
    print(
        f"the NAT lab's path matrix: one bot game a pair, seed {seed}, {turns} turns to win, "
        f"{delay * 1000:g} ms one way between two sites"
    )
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


WALL_TARGET = 1.1
UPGRADE_TARGET = 2.0


@dataclass(frozen=True, slots=True)
class GameRun:
    wall: float
    to_prompt: float
    upgrade: float | None  # seconds from the first connection to the move, if it moved
    path: str


def run_speed(turns: int, seed: int, delay: float, rounds: int) -> dict[str, list[GameRun]] | str:
    """Whole games over a mapped port and over a punched path, alternating."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from lab.lab import Lab
    from lab.players import invite_of, start_host, start_joiner
    from system import LAB, missing

    why = missing(LAB, "the lab's games")
    if why is not None:
        return why
    game = ("--seed", str(seed), "--turns-to-win", str(turns))
    runs: dict[str, list[GameRun]] = {"mapped": [], "punched": []}
    with Lab.open() as lab, tempfile.TemporaryDirectory() as tmp:
        relay = lab.relay()
        sites = {
            "mapped": (lab.router("upnp").host(), lab.router("cone").host()),
            "punched": (lab.router("cone").host(), lab.router("cone").host()),
        }
        _delayed(lab, delay)
        for number, kind in enumerate(["mapped", "punched"] * rounds):
            directory = Path(tmp) / f"game{number}"
            directory.mkdir()
            host_at, joiner_at = sites[kind]
            host = start_host(host_at, directory, relay.address, *game)
            joiner = start_joiner(joiner_at, directory, invite_of(host), relay.address, *game[:2])
            if joiner.wait(TIMEOUT) or host.wait(TIMEOUT):
                raise SystemExit(f"{kind}: the game did not complete:\n{joiner.output()}")
            connected = joiner.seconds_to(CONNECTED)
            moved = [i for i, line in enumerate(joiner.lines) if line.startswith("path: ")]
            upgrade = joiner.times[moved[0]] - joiner.started - connected if moved else None
            last = joiner.lines[moved[-1]].removeprefix("path: ") if moved else "as connected"
            runs[kind].append(
                GameRun(
                    joiner.times[-1] - joiner.started - connected,
                    joiner.seconds_to(FIRST_PROMPT),
                    upgrade,
                    last,
                )
            )
    return runs


def print_speed(turns: int, seed: int, delay: float, rounds: int) -> None:
    found = run_speed(turns, seed, delay, rounds)
    if isinstance(found, str):
        print(f"the punched path's speed: not measured here ({found})")
        return
    print(
        f"a whole game ({turns} turns to win, seed {seed}) over a mapped port and over a "
        f"punched path, {rounds} of each alternating, {delay * 1000:g} ms one way"
    )
    medians = {}
    for kind, games in found.items():
        medians[kind] = statistics.median(g.wall for g in games)
        walls = ", ".join(f"{g.wall:.2f}" for g in games)
        prompts = ", ".join(f"{g.to_prompt:.2f}" for g in games)
        print(f"  {kind}: wall {walls} s (median {medians[kind]:.2f}); to first prompt {prompts} s")
        for g in games:
            if g.upgrade is not None:
                verdict = "meets" if g.upgrade <= UPGRADE_TARGET else "MISSES"
                print(
                    f"    moved to {g.path} {g.upgrade:.2f} s after the first connection "
                    f"({verdict} the target of at most {UPGRADE_TARGET:g} s)"
                )
    ratio = medians["punched"] / medians["mapped"]
    verdict = "meets" if ratio <= WALL_TARGET else "MISSES"
    print(
        f"  punched / mapped wall time: {ratio:.3f} ({verdict} the target of at most "
        f"{WALL_TARGET}; the punched game's first moments are on the relay)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=25.0, help="one-way delay in ms (25)")
    parser.add_argument("--turns", type=int, default=6, help="turns to win, speed games (6)")
    parser.add_argument("--rounds", type=int, default=2, help="games of each path (2)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' and the game's seed (1)")
    parser.add_argument("--no-matrix", action="store_true", help="only the speed games")
    args = parser.parse_args()
    if not args.no_matrix:
        print_matrix(1, args.seed, args.delay / 1000)
    print_speed(args.turns, args.seed, args.delay / 1000, args.rounds)


if __name__ == "__main__":
    main()
