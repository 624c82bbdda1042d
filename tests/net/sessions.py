"""Two ``GameSession``s in one trio run, over memory streams that can be cut, silenced or
damaged, with seeded bots: the same seed plays the same game, whatever the network does.

``reference(turns)`` is the game played over a perfect network; a test compares a
game played over a bad one with it record for record.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio
import trio.testing

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog
from dbnet.engine import Game, Options, format_choice
from dbnet.match.story import Event
from dbnet.net.session import GameSession, Timing
from dbnet.net.session_values import (
    Chooser,
    GameSessionError,
    LocalPlayer,
    NewGame,
    Outcome,
    restore_game,
)
from dbnet.protocol.clock import ClockSetting
from dbnet.protocol.identity import Identity, KnownPeers
from dbnet.protocol.log import GameLog
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.replay.verify import Verdict, verify_replay

from .helpers import ALICE, BOB

SEED = 7
NONCE = bytes(range(100, 132))
JOINER_NONCE = bytes(range(200, 232))
GAME_LIMIT = 100_000.0  # virtual seconds: far more than any test game needs (hang guard)

Wrap = Callable[[int, trio.abc.Stream, trio.abc.Stream], tuple[trio.abc.Stream, trio.abc.Stream]]
"""Given a connection's number (0 for the first) and its joiner and host ends: the ends
to use instead (to cut, silence or damage that connection)."""


def bot_chooser(
    name: str, seed: str, *, think: float = 0.0, decisions: list[str] | None = None
) -> Chooser:
    """A seeded bot deciding in the trio thread (a worker thread would let the mock
    clock jump while it thinks). Like a bot in a worker thread, it decides first (its
    random generator moves on) and then takes ``think`` seconds of trio time before it
    answers; it notes each decision in ``decisions`` as it makes it (a decision asked
    for twice shows twice)."""
    bot = make_bot(name, random.Random(seed))

    async def choose(view: Game) -> str:
        decision = format_choice(view, bot.choose(view))
        if decisions is not None:
            decisions.append(decision)
        if think:
            await trio.sleep(think)
        return decision

    return choose


@dataclass
class Side:
    """One player's session, what it said, its decisions and its replay file."""

    session: GameSession
    path: Path
    said: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    outcome: Outcome | GameSessionError | None = None

    @property
    def records(self) -> list[bytes]:
        game = self.session.game
        return [] if game is None else list(game.records)

    def saw(self, text: str) -> bool:
        """Whether some line it said contains ``text``."""
        return any(text in line for line in self.said)

    def verdict(self) -> Verdict:
        return verify_replay(self.path.read_bytes(), where=str(self.path))

    def file_records(self) -> list[bytes]:
        return list(load_replay(self.path).records)


def make_side(
    tmp_path: Path,
    file: str,
    *,
    identity: Identity,
    host: bool,
    name: str | None = None,
    turns: int = 2,
    think: float = 0.0,
    timing: Timing | None = None,
    expect: str | None = None,
    known_peers: bool = False,
    seed: int = SEED,
    clock: ClockSetting | None = None,
) -> Side:
    """A new game's side, saving its replay to ``file``.dbnr: the host plays A with the
    first shipped warband, the joiner B with the second; named alice and bob unless
    ``name`` says otherwise; bots seeded by ``seed`` and the side."""
    who = name or ("alice" if host else "bob")
    path = tmp_path / f"{file}.dbnr"
    home = tmp_path / f"{file}-home"
    if known_peers:
        home.mkdir(parents=True, exist_ok=True)
    side = Side(session=None, path=path)  # type: ignore[arg-type]
    player = LocalPlayer(
        identity=identity,
        name=who,
        choose=bot_chooser(
            "greedy", f"{seed}:{'A' if host else 'B'}", think=think, decisions=side.decisions
        ),
        say=side.said.append,
        known_peers=KnownPeers.in_dir(home) if known_peers else None,
        expect=expect,
    )
    warband = default_warbands(load_catalog())[0 if host else 1]
    new = NewGame(
        warband,
        options=Options(turns_to_win=turns),
        nonce=NONCE if host else JOINER_NONCE,
        clock=clock,
    )
    side.session = GameSession(player, new_game=new, replay_path=path, timing=timing)
    return side


def resume_side(
    side: Side,
    *,
    seed: str,
    timing: Timing | None = None,
    on_events: Callable[[list[Event]], None] | None = None,
) -> Side:
    """A new session going on with ``side``'s game from its replay file (like ``dbnet
    resume``), with a bot seeded by ``seed``."""
    old = side.session.player
    writer = ReplayWriter.resume(side.path)
    records = list(load_replay(side.path).records)
    game = restore_game(old.identity, records, writer.append, name=old.name)
    again = Side(session=None, path=side.path)  # type: ignore[arg-type]
    player = LocalPlayer(
        identity=old.identity,
        name=old.name,
        choose=bot_chooser("greedy", seed, decisions=again.decisions),
        say=again.said.append,
        on_events=on_events,
    )
    again.session = GameSession(
        player, game=game, writer=writer, replay_path=side.path, timing=timing
    )
    return again


class Network:
    """The joiner's connections to the host, each a memory stream pair whose host end
    goes to the host's ``arrivals``; ``wrap`` may replace the ends of each connection;
    ``refuse`` makes ``connect`` fail (like a host that is not listening)."""

    def __init__(self, wrap: Wrap | None = None) -> None:
        self.wrap = wrap
        self.refuse = False
        self.count = 0
        self._to_host, self.arrivals = trio.open_memory_channel[trio.abc.Stream](math.inf)

    async def connect(self) -> trio.abc.Stream:
        if self.refuse:
            raise ConnectionRefusedError(111, "Connection refused")
        joiner_end: trio.abc.Stream
        host_end: trio.abc.Stream
        joiner_end, host_end = trio.testing.memory_stream_pair()
        if self.wrap is not None:
            joiner_end, host_end = self.wrap(self.count, joiner_end, host_end)
        self.count += 1
        await self._to_host.send(host_end)
        return joiner_end

    async def arrive(self, stream: trio.abc.Stream) -> None:
        """Hand the host a connection of the test's own (a hostile peer's end)."""
        await self._to_host.send(stream)


async def run_side(side: Side, play: Callable[[], object]) -> None:
    """Run ``play`` (a session's serve or join) into ``side.outcome``."""
    try:
        side.outcome = await play()  # type: ignore[misc]
    except GameSessionError as exc:
        side.outcome = exc


async def play(
    host: Side, joiner: Side, network: Network, *, stop_host_after_joiner: bool = False
) -> None:
    """Play the host (serving ``network.arrivals``) against the joiner (connecting through
    ``network``) until both are done; with ``stop_host_after_joiner``, the host is stopped
    once the joiner is (a host whose game never started waits for ever)."""
    with trio.fail_after(GAME_LIMIT):
        async with trio.open_nursery() as nursery:
            host_scope = trio.CancelScope()

            async def run_host() -> None:
                with host_scope:
                    await run_side(host, lambda: host.session.serve(network.arrivals))

            nursery.start_soon(run_host)
            await run_side(joiner, lambda: joiner.session.join(network.connect))
            if stop_host_after_joiner:
                host_scope.cancel()
    for side in (host, joiner):  # as the commands do when a session ends
        if side.session.writer is not None:
            side.session.writer.close()


def final_state(records: list[bytes]) -> bytes:
    """The state hash of the game after ``records``, re-simulated from scratch."""
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return log.game.state_hash()


_REFERENCES: dict[tuple[int, int], list[bytes]] = {}


async def reference(tmp_path: Path, turns: int = 2, seed: int = SEED) -> list[bytes]:
    """The records of the game ALICE hosts and BOB joins with ``seed`` over a perfect
    network (played once per test session)."""
    key = (turns, seed)
    if key not in _REFERENCES:
        host = make_side(tmp_path, "ref-alice", identity=ALICE, host=True, turns=turns, seed=seed)
        joiner = make_side(tmp_path, "ref-bob", identity=BOB, host=False, turns=turns, seed=seed)
        await play(host, joiner, Network())
        assert host.outcome is Outcome.COMPLETE, host.said
        assert joiner.outcome is Outcome.COMPLETE, joiner.said
        assert host.records == joiner.records
        _REFERENCES[key] = host.records
    return _REFERENCES[key]
