"""The next round of an event, and the check of the rounds written, pure: from the event
file, the round files and the results (``results``), never from the clock or the
order of files.

The Swiss rounds come first (``event.rounds`` of them, ``pairing``), then the top cut
(``cut``) when the event has one. A round is paired only when every table of the
rounds before it has a result; its file records those results (``paired_from``), and
``check`` pairs every written round again from what it recorded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dbnet.replay.swiss import cut
from dbnet.replay.swiss.errors import PairingError
from dbnet.replay.swiss.eventfile import EventFile
from dbnet.replay.swiss.pairing import pair_round
from dbnet.replay.swiss.results import Results
from dbnet.replay.swiss.roundfile import Outcome, Paired, RoundFile, Stage, Table
from dbnet.replay.swiss.standings import history, standings

__all__ = ["Difference", "champion", "check", "plan_round"]


def _swiss(event: EventFile, results: Sequence[Paired]) -> list[Paired]:
    return [r for r in results if r.round <= event.rounds]


def _pairs(
    event: EventFile, number: int, results: Sequence[Paired]
) -> tuple[Stage, list[tuple[str, str | None]]]:
    """The tables of round ``number`` paired from ``results`` (every earlier round's)."""
    if number <= event.rounds:
        active = [e.fingerprint for e in event.players if e.active(number)]
        return Stage.SWISS, pair_round(active, history(event, results), event.event_id, number)
    if not event.top:
        raise PairingError(f"the event has {event.rounds} rounds and no top cut: it is over")
    seeded = [
        line.fingerprint
        for line in standings(event, _swiss(event, results))
        if line.dropped is None or line.dropped > event.rounds + 1
    ]
    if len(seeded) < event.top:
        raise PairingError(
            f"a top {event.top} needs {event.top} players still in; {len(seeded)} are"
        )
    seeded = seeded[: event.top]
    if number == event.rounds + 1:
        return Stage.CUT, list(cut.first_round(seeded))
    last = [r for r in results if r.round == number - 1]
    winners = [r.a if r.outcome is Outcome.A else r.b or r.a for r in last]
    if len(winners) == 1:
        raise PairingError(f"the top cut is over: {winners[0]} won the event")
    return Stage.CUT, list(cut.next_round(winners, {p: i for i, p in enumerate(seeded)}))


def champion(event: EventFile, rounds: Sequence[RoundFile], results: Results) -> str | None:
    """The winner of the final of the top cut, once it has a result."""
    if not event.top or len(rounds) <= event.rounds or len(rounds[-1].tables) != 1:
        return None
    final = results.rounds[-1][0]
    if final.outcome is Outcome.A:
        return final.table.a
    if final.outcome is Outcome.B:
        return final.table.b
    return None


def plan_round(event: EventFile, rounds: Sequence[RoundFile], results: Results) -> RoundFile:
    """The next round's file.

    Raises:
        PairingError: a table of an earlier round has no result yet, or the event is over.
    """
    number = len(rounds) + 1
    for rnd, found in zip(rounds, results.rounds, strict=True):
        for r in found:
            if r.pending:
                t = r.table
                raise PairingError(
                    f"round {rnd.number} table {t.number} ({t.a} v {t.b}) has no result yet: "
                    f"wait for its game, or record the result by hand in round-{rnd.number}.toml"
                )
    winner = champion(event, rounds, results)
    if winner is not None:
        raise PairingError(f"the event is over: {winner} won the top cut")
    if number > event.rounds and event.top == 0:
        raise PairingError(f"the event's {event.rounds} rounds are paired: it is over")
    known = results.known()
    stage, pairs = _pairs(event, number, known)
    tables = tuple(Table(i, a, b) for i, (a, b) in enumerate(pairs, start=1))
    return RoundFile(number, stage, tables, known)


@dataclass(frozen=True, slots=True)
class Difference:
    """Where a written round is not what its recorded results pair, or where a result
    it was paired from is no longer the result found now."""

    round: int
    text: str
    fatal: bool


def check(event: EventFile, rounds: Sequence[RoundFile], results: Results) -> list[Difference]:
    """Every round paired again from the results its file records."""
    out = []
    now = {(r.round, r.table.number): r for rnd in results.rounds for r in rnd}
    for rnd in rounds:
        earlier = [p for p in rnd.paired_from if p.round < rnd.number]
        try:
            stage, pairs = _pairs(event, rnd.number, earlier)
        except PairingError as exc:
            out.append(Difference(rnd.number, f"cannot be paired again: {exc}", True))
            continue
        written = [(t.a, t.b) for t in rnd.tables]
        if stage is not rnd.stage:
            out.append(
                Difference(
                    rnd.number, f"is a {stage.value} round, written as {rnd.stage.value}", True
                )
            )
        for i in range(max(len(pairs), len(written))):
            want = pairs[i] if i < len(pairs) else None
            got = written[i] if i < len(written) else None
            if want != got:
                out.append(
                    Difference(
                        rnd.number,
                        f"table {i + 1}: written {_table(got)}, recomputed {_table(want)}",
                        True,
                    )
                )
        for p in earlier:
            current = now.get((p.round, p.table))
            if (
                current is None
                or current.outcome != p.outcome
                or (current.game != p.game and not current.hand)
            ):
                said = "pending" if current is None else current.words()
                out.append(
                    Difference(
                        rnd.number,
                        f"was paired from round {p.round} table {p.table}: {p.outcome.value}"
                        f"{' (game ' + p.game[:16] + ')' if p.game else ''}; now {said}",
                        False,
                    )
                )
    return out


def _table(pair: tuple[str, str | None] | None) -> str:
    if pair is None:
        return "nothing"
    a, b = pair
    return f"{a} v {b}" if b is not None else f"{a} bye"
