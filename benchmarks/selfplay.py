"""Engine, bot and signed-log throughput: random-versus-random games on one core.

In one run, so that every ratio compares figures taken under the same conditions:

1. The engine: random-vs-random games with the default warbands, then every pairing
   of the example ability warbands in ``examples/warbands/`` (each against the next,
   both seats). Every decision counts the legal-choice generation (the random bot
   calls ``legal_choices()`` each time), the choice's application (``Game.apply``
   checks a choice again unless it is the very one listed) and the dice. Decisions
   and games per second, next to the targets.
2. python-chess (the ``bench`` extra): random legal moves until the game is over,
   from a seeded ``random.Random``, against the default-warband engine games again, in
   ``CHESS_TURNS`` alternating turns: a share of the games, then chess (one run of
   games, resumed at every turn) for as long as they took. The engine's decisions per
   second over chess's plies per second, in all and by turn; then the median of the
   turns' ratios, next to the target, and their spread (lowest and highest, the middle
   half, and its half-width over the median), so that one run says how far to trust
   it: alternating keeps a machine whose speed drifts (a shared virtual machine) from
   favouring either side, and the median keeps a turn that another program slowed on
   one side only from moving the figure. Skipped, in one line, when ``chess`` is not
   installed.
3. The signed log: the floor of a decision through it (two engine decisions, one
   per peer, from the first ``--log-games`` default-warband games above; one
   Ed25519 signature and one verification, of the entries of a real game), and
   ``dbnet selfplay``'s own games (``play_one``, random vs random, ``--seed S``'s
   games 1 to ``--log-games``) per decision, over the floor, next to the target.
   These use this process's CPU time (``time.process_time``), interleaved game by game
   (engine game ``i - 1``, one pass of signing and verifying a game's entries, then log
   game ``i``) in each of ``--rounds`` rounds, so that a machine whose speed drifts (a
   shared virtual machine) slows every part alike; the ratio is over all the rounds'
   totals, and each round's own is printed beside it.

With ``--breakdown``, then: where a decision through the signed log spends its time,
timed in place (its signatures, verifications, engine work, state hashes, notation,
encoding and decoding, and the rest), to set beside the floor's parts timed alone; and
what running the floor's parts interleaved costs: the floor's games played by two peers'
engines in step, with a signature and a verification between A's engine decision and
B's (as the log must run them), against the same games and signatures timed apart.

It asserts nothing, since timings depend on the machine.

    python benchmarks/selfplay.py [--games N] [--log-games N] [--rounds R] [--seed S]
                                  [--breakdown]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbnet.bots import RandomBot
from dbnet.bots.match import DEFAULT_MAX_TURNS, play_match, roll_dice
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.commands.selfplay import game_keys, play_one
from dbnet.engine import ChanceRequest, Game, GameSetup, Warband
from dbnet.engine.keywords import check_ability
from dbnet.protocol.identity import Identity, verify
from dbnet.wire.entries import decode_signed_entry, signing_message

TARGET_DEFAULT = 20_000  # decisions per second with the default warbands
TARGET_ABILITIES = 10_000  # ...and with the ability warbands
TARGET_CHESS = 3.0  # engine decisions/s at least this many times python-chess's plies/s
TARGET_FLOOR = 1.5  # a decision through the signed log: at most this many floors
CHESS_TURNS = 20  # alternations of engine games and chess (a drifting machine evens out)
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "warbands"


@dataclass(frozen=True, slots=True)
class Throughput:
    """Decisions made, and the wall and CPU seconds they took."""

    decisions: int
    wall: float
    cpu: float


def ability_setups() -> list[GameSetup]:
    """Each playable example warband with abilities against the next one, both ways."""
    catalog = load_catalog()
    warbands: list[Warband] = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        warband = load_warband(path, catalog)
        playable = all(
            check_ability(a, location=m.is_location) is None
            for m in warband.minis
            for a in m.abilities
        )
        if playable and any(m.abilities for m in warband.minis):
            warbands.append(warband)
    game_map = load_map()
    setups = []
    for i, first in enumerate(warbands):
        second = warbands[(i + 1) % len(warbands)]
        setups += [GameSetup(game_map, (first, second)), GameSetup(game_map, (second, first))]
    return setups


def engine_players(seed: int, index: int) -> tuple[tuple[RandomBot, RandomBot], random.Random]:
    """The bots (A's, B's) and the dice of engine game ``index`` of ``seed``'s."""
    bots = (
        RandomBot(random.Random(f"{seed}:{index}:A")),
        RandomBot(random.Random(f"{seed}:{index}:B")),
    )
    return bots, random.Random(f"{seed}:{index}:dice")


def engine_games(
    setups: list[GameSetup], games: int, seed: int, first: int = 0
) -> tuple[Throughput, int]:
    """Play ``games`` random-vs-random engine games (no log), from game ``first`` of
    ``seed``'s: the decisions and the time they took, and the dice rolls."""
    decisions = rolls = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(first, first + games):
        bots, dice = engine_players(seed, i)
        result = play_match(setups[i % len(setups)], bots, dice)
        decisions += result.decisions
        rolls += result.rolls
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return Throughput(decisions, elapsed, cpu), rolls


def measure(label: str, setups: list[GameSetup], games: int, seed: int, target: int) -> Throughput:
    """Play ``games`` engine games (no log) and print their rates next to ``target``."""
    played, rolls = engine_games(setups, games, seed)
    decisions, elapsed = played.decisions, played.wall
    rate = decisions / elapsed
    verdict = "meets" if rate >= target else "MISSES"
    print(f"{label}: random vs random, {games} games on one core, {elapsed:.2f} s")
    print(f"  {decisions} decisions ({decisions / games:.0f} a game), {rolls} dice rolls")
    print(f"  {rate:,.0f} decisions/s ({verdict} the target of {target:,})")
    print(f"  {games / elapsed:,.1f} games/s")
    return played


# --- python-chess ------------------------------------------------------------------------------


class ChessPlayouts:
    """Random python-chess games (a uniformly random legal move until the game is over)
    from a seeded ``random.Random``, played for a while at a time."""

    def __init__(self, seed: int) -> None:
        import chess

        self.new_board = chess.Board
        self.board = chess.Board()
        self.rng = random.Random(f"{seed}:chess")
        self.plies = self.games = 0

    def play(self, budget: float) -> int:
        """Go on for ``budget`` wall seconds; the plies played."""
        board, rng, plies = self.board, self.rng, 0
        deadline = time.perf_counter() + budget
        while time.perf_counter() < deadline:
            if board.is_game_over():
                self.games += 1
                board = self.board = self.new_board()
                continue
            board.push(rng.choice(list(board.legal_moves)))
            plies += 1
        self.plies += plies
        return plies


def compare_chess(setup: GameSetup, games: int, seed: int) -> None:
    """Print python-chess's random playout rate and the engine's rate over it: the
    ``games`` default-warband engine games in ``CHESS_TURNS`` shares, each followed by
    as long of chess (one run of chess games, resumed at every turn)."""
    try:
        chess = ChessPlayouts(seed)
    except ModuleNotFoundError:
        print('python-chess: not installed (pip install -e ".[bench]"); no comparison')
        return
    decisions, elapsed, ratios = 0, 0.0, []
    share = max(1, games // CHESS_TURNS)
    for turn in range(CHESS_TURNS):
        played, _ = engine_games([setup], share, seed, first=turn * share)
        plies = chess.play(played.wall)
        decisions, elapsed = decisions + played.decisions, elapsed + played.wall
        ratios.append(played.decisions / max(plies, 1))
    chess_rate = chess.plies / elapsed
    ratio = decisions / chess.plies
    median = statistics.median(ratios)
    verdict = "meets" if median >= TARGET_CHESS else "MISSES"
    print(
        f"python-chess: random legal moves until the game is over, {elapsed:.2f} s in "
        f"{CHESS_TURNS} turns, each after as long of default-warband engine games"
    )
    print(f"  {chess.plies} plies, {chess.games} games over: {chess_rate:,.0f} plies/s")
    print(
        f"  engine decisions/s / chess plies/s: {ratio:.1f}x in all; by turn "
        + " ".join(f"{x:.1f}" for x in ratios)
    )
    print(f"  {spread(ratios)} ({verdict} the target of at least {TARGET_CHESS:g}x)")


def spread(ratios: list[float]) -> str:
    """The median of per-slice ratios and how far they spread: the lowest and highest,
    the middle half (first to third quartile) and its half-width over the median."""
    ordered = sorted(ratios)
    median = statistics.median(ordered)
    if len(ordered) > 1:
        first, _, third = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        first = third = median
    width = (third - first) / 2 / median if median else 0.0
    return (
        f"median of the {len(ordered)} turns' ratios {median:.2f}x; spread: lowest "
        f"{ordered[0]:.2f}x, highest {ordered[-1]:.2f}x, middle half {first:.2f}x to "
        f"{third:.2f}x (+/-{width:.0%} of the median)"
    )


# --- the signed log --------------------------------------------------------------------------


Signing = tuple[Identity, bytes, bytes]
"""An entry's author, the message they sign and their signature."""


def signings(setup: GameSetup, seed: int) -> list[Signing]:
    """The signings of the entries of game 1 of ``dbnet selfplay --seed seed``."""
    records: list[bytes] = []
    play_one(setup, ("random", "random"), seed, 1, DEFAULT_MAX_TURNS, records.append)
    identities = game_keys(seed, 1).identities
    jobs = []
    for record in records:
        signed, entry = decode_signed_entry(record)
        message = signing_message(signed.signed)
        jobs.append((identities[entry.author], message, signed.signature))
    return jobs


def signature_times(jobs: list[Signing]) -> tuple[float, float]:
    """CPU seconds spent signing each of ``jobs``' messages once, and checking each
    signature once, with its author's key."""
    start = time.process_time()
    for identity, message, _ in jobs:
        identity.sign(message)
    middle = time.process_time()
    for identity, message, signature in jobs:
        if not verify(identity.public_key, signature, message):
            raise SystemExit("an entry's signature did not verify")
    return middle - start, time.process_time() - middle


def signed_log(setup: GameSetup, games: int, seed: int, first: int = 1) -> Throughput:
    """Games ``first`` to ``first + games - 1`` of ``dbnet selfplay --seed seed --a random
    --b random``, as that command plays them (``play_one``: two peers, every entry signed
    and checked)."""
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(first, first + games):
        decisions += play_one(setup, ("random", "random"), seed, i, DEFAULT_MAX_TURNS).decisions
    return Throughput(decisions, time.perf_counter() - start, time.process_time() - cpu_start)


@dataclass(slots=True)
class FloorRound:
    """One round's CPU seconds and counts for each part of the floor, and for the log."""

    engine: float = 0.0
    engine_decisions: int = 0
    signing: float = 0.0
    verifying: float = 0.0
    signatures: int = 0
    log: float = 0.0
    log_decisions: int = 0

    def add(self, other: FloorRound) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def floor(self) -> float:
        """Seconds a decision: two engine decisions, one signature, one verification."""
        engine = self.engine / self.engine_decisions
        return 2 * engine + (self.signing + self.verifying) / self.signatures

    def ratio(self) -> float:
        return self.log / self.log_decisions / self.floor()


def floor_round(setup: GameSetup, games: int, seed: int, jobs: list[Signing]) -> FloorRound:
    """The floor's parts and the log, interleaved game by game: engine game ``i - 1``,
    one pass over a game's signatures, then log game ``i``, so that a
    machine whose speed drifts slows every part alike."""
    measured = FloorRound()
    for i in range(1, games + 1):
        engine, _ = engine_games([setup], 1, seed, first=i - 1)
        measured.engine += engine.cpu
        measured.engine_decisions += engine.decisions
        signing, verifying = signature_times(jobs)
        measured.signing += signing
        measured.verifying += verifying
        measured.signatures += len(jobs)
        log = signed_log(setup, 1, seed, first=i)
        measured.log += log.cpu
        measured.log_decisions += log.decisions
    return measured


def compare_floor(
    setup: GameSetup, games: int, seed: int, rounds: int, jobs: list[Signing]
) -> None:
    """Print the floor of a decision through the signed log (its signatures: ``jobs``),
    the signed log's cost per decision, and their ratio, over ``rounds`` rounds of
    ``floor_round``."""
    total, ratios = FloorRound(), []
    for _ in range(rounds):
        measured = floor_round(setup, games, seed, jobs)
        ratios.append(measured.ratio())
        total.add(measured)
    ratio = total.ratio()
    verdict = "meets" if ratio <= TARGET_FLOOR else "MISSES"
    us = 1e6
    print(
        f"signed log: dbnet selfplay --games {games} --seed {seed} --a random --b random, "
        f"CPU time, {rounds} rounds interleaved game by game"
    )
    engine = total.engine / total.engine_decisions
    sign, check = total.signing / total.signatures, total.verifying / total.signatures
    floor, log = total.floor(), total.log / total.log_decisions
    print(f"  engine      {engine * us:6.1f} us a decision (default-warband games 0-{games - 1})")
    print(f"  Ed25519     {sign * us:6.1f} us a signature, {check * us:.1f} us a verification")
    print(f"  floor       {floor * us:6.1f} us a decision (2 engine, 1 signature, 1 verification)")
    print(f"  signed log  {log * us:6.1f} us a decision ({total.log_decisions // rounds} a round)")
    print(
        f"  ratio {ratio:.2f} of the floor ({verdict} the target of at most {TARGET_FLOOR}); "
        f"by round {' '.join(f'{r:.2f}' for r in ratios)}"
    )


class PartTimers:
    """Time spent in some callables while they are patched with timing wrappers: where a
    decision through the signed log spends its time, measured in place. The clock is
    ``perf_counter_ns`` (wall time: run it on an idle machine): reading the CPU clock costs
    about a microsecond, which every wrapped call would carry; this one, a tenth of that."""

    def __init__(self, parts: dict[str, list[tuple[object, str]]]) -> None:
        self.parts = parts
        self.spent = dict.fromkeys(parts, 0)
        self.calls = dict.fromkeys(parts, 0)
        self._saved: list[tuple[object, str, object]] = []

    def __enter__(self) -> PartTimers:
        for part, places in self.parts.items():
            for owner, name in places:
                original = getattr(owner, name)
                self._saved.append((owner, name, original))
                setattr(owner, name, self._timed(part, original))
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)

    def _timed(self, part: str, original: Callable[..., object]) -> Callable[..., object]:
        spent, calls, clock = self.spent, self.calls, time.perf_counter_ns

        def timed(*args: object, **kwargs: object) -> object:
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                spent[part] += clock() - start
                calls[part] += 1

        return timed


def breakdown(setup: GameSetup, games: int, seed: int) -> None:
    """Print where a decision through the signed log spends its time, measured in
    place: the signed log's games timed with every part wrapped (``PartTimers``)."""
    from dbnet.match import peers, seats
    from dbnet.protocol import identity, remote
    from dbnet.protocol import log as log_module
    from dbnet.wire import entries

    parts: dict[str, list[tuple[object, str]]] = {
        "Ed25519 signing": [(identity.Identity, "sign")],
        "Ed25519 verifying": [(log_module, "verify")],
        "engine: bots choosing": [(seats.BotSeat, "ask")],
        "engine: applying, rolling": [(Game, "apply"), (Game, "roll")],
        "state hashes": [(Game, "state_hash")],
        "notation": [(peers, "format_choice"), (log_module, "parse_choice")],
        "entry encoding": [(entries, "encode_entry"), (log_module, "encode_signed_entry")],
        "entry decoding": [(log_module, "decode_signed_entry"), (remote, "decode_signed_entry")],
    }
    with PartTimers(parts) as timers:
        log = signed_log(setup, games, seed)
    us = 1e6 / log.decisions
    print(f"signed log, in place: where a decision's {log.wall * us:.1f} us go (wrapped calls)")
    for part, spent in timers.spent.items():
        made = timers.calls[part] / log.decisions
        print(f"  {part:26} {spent / 1e9 * us:6.1f} us  ({made:.2f} calls a decision)")
    rest = log.wall - sum(timers.spent.values()) / 1e9
    print(f"  {'the rest (log, peers)':26} {rest * us:6.1f} us")


def peer_game(setup: GameSetup, seed: int, index: int, jobs: list[Signing]) -> tuple[float, int]:
    """The floor's engine game ``index`` played by two peers' engines in step: peer A's
    bot decides and A applies, then (with ``jobs``) the next job's entry is signed and its
    signature checked, then B applies the same choice; both roll the same dice. The CPU
    seconds and the decisions."""
    bots, dice = engine_players(seed, index)
    sign_next = itertools.cycle(jobs) if jobs else None
    decisions = 0
    start = time.process_time()
    a, b = Game(setup), Game(setup)
    while not a.is_over and a.turn <= DEFAULT_MAX_TURNS:
        pending = a.pending
        if isinstance(pending, ChanceRequest):
            values = roll_dice(dice, pending.count)
            a.roll(values)
            b.roll(values)
            continue
        assert pending is not None
        choice = bots[pending.player].choose(a)
        a.apply(choice)
        if sign_next is not None:
            identity, message, signature = next(sign_next)
            identity.sign(message)
            if not verify(identity.public_key, signature, message):
                raise SystemExit("an entry's signature did not verify")
        b.apply(choice)
        decisions += 1
    return time.process_time() - start, decisions


def interleaving(setup: GameSetup, games: int, seed: int, rounds: int, jobs: list[Signing]) -> None:
    """Print what running the floor's parts interleaved, as a decision through the log
    must (A's engine decision, a signature, a verification, B's engine decision), costs
    over timing them apart: each of the floor's games with and without the signatures in
    between, beside a pass of the signatures timed alone, game by game in each of
    ``rounds`` rounds (a drifting machine slows both alike); ``jobs``: the signatures."""
    apart = together = 0.0
    decisions = 0
    for _ in range(rounds):
        for i in range(games):
            engines, made = peer_game(setup, seed, i, [])
            signing, verifying = signature_times(jobs)
            both, _ = peer_game(setup, seed, i, jobs)
            apart += engines + made * (signing + verifying) / len(jobs)
            together += both
            decisions += made
    us = 1e6 / decisions
    print(
        "the floor's parts run interleaved, as the log must (A's engine decision, a "
        "signature, a verification, B's engine decision), in the floor's games:"
    )
    print(f"  timed apart  {apart * us:6.1f} us a decision")
    print(
        f"  interleaved  {together * us:6.1f} us a decision: "
        f"{(together - apart) * us:+.1f} us ({together / apart - 1:+.0%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games of each set (default 300)")
    parser.add_argument(
        "--log-games", type=int, default=20, help="games through the signed log (default 20)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of the signed log's comparison (default 3)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also print where a decision through the signed log spends its time, in place",
    )
    args = parser.parse_args()
    default = [GameSetup(load_map(), default_warbands(load_catalog()))]
    measure("default warbands", default, args.games, args.seed, TARGET_DEFAULT)
    setups = ability_setups()
    names = sorted({s.warbands[0].name for s in setups})
    measure(
        f"ability warbands ({', '.join(names)})", setups, args.games, args.seed, TARGET_ABILITIES
    )
    compare_chess(default[0], args.games, args.seed)
    jobs = signings(default[0], args.seed)
    compare_floor(default[0], args.log_games, args.seed, args.rounds, jobs)
    if args.breakdown:
        breakdown(default[0], args.log_games, args.seed)
        interleaving(default[0], args.log_games, args.seed, args.rounds, jobs)


if __name__ == "__main__":
    main()
