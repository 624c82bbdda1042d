"""A re-played replay (``replay.story.Story``) written out: the lines ``dbnet replay``
prints, and ``dbnet export``'s JSON document and its plain-text form."""

from __future__ import annotations

import json
from collections.abc import Iterator

from dbnet.engine import Player
from dbnet.engine.notation import format_attack_dice
from dbnet.match.render import describe_result, render_score_by_turn
from dbnet.match.story import EventKind
from dbnet.protocol.clock import ClockSetting, format_clock
from dbnet.protocol.identity import fingerprint
from dbnet.protocol.rolls import Roll
from dbnet.replay.story import Story, Told
from dbnet.text import counted
from dbnet.wire.bodies import ClaimBody, CosignBody, DisputeBody, EntryKind, FinalBody, OfferBody


def preamble_lines(story: Story) -> Iterator[str]:
    yield f"{story.where}: {story.verdict.summary()}"
    header = story.header
    if header is not None:
        yield (
            f"Game {header.game_id.hex()[:16]}, rules {header.rules}, "
            f"created {header.created} (informative)"
        )
    if story.setup is not None and story.keys is not None:
        for player in (Player.A, Player.B):
            warband = story.setup.warbands[player].name
            name = story.names[player]
            signed = "" if name is None else f"{name!r}, "
            yield f"{player.name}: {signed}{warband!r}, key {fingerprint(story.keys[player])}"
        options = story.setup.options
        to_win = counted(options.turns_to_win, "turn")
        yield f"Map {story.setup.map.name!r}; first to win {to_win} wins."
    clock = clock_setting(story)
    if clock is not None:
        yield f"Clock: {clock.describe()} for each player."


def clock_setting(story: Story) -> ClockSetting | None:
    """The game's clock (from its OFFER), or None."""
    if not story.entries:
        return None
    offer = story.entries[0].entry.body
    if not isinstance(offer, OfferBody) or offer.clock is None:
        return None
    return ClockSetting.from_wire(offer.clock)


def clock_words(reading: tuple[int, int]) -> str:
    """``A 9:58, B 10:00``: a signed clock reading for people."""
    return f"A {format_clock(reading[0])}, B {format_clock(reading[1])}"


def game_lines(story: Story) -> Iterator[str]:
    turn = 0
    reading: tuple[int, int] | None = None  # the last signed clock reading
    for told in story.entries:
        entry = told.entry
        who = Player(entry.author).name
        seq = entry.seq
        for event in told.events:
            if event.kind is not EventKind.TURN and event.turn != turn:
                turn = event.turn
                yield ""
                clocks = "" if reading is None else f" (clocks {clock_words(reading)})"
                yield f"Turn {turn}{clocks}"
            if event.kind is EventKind.TURN:
                yield f"{'':8}{event.words}"
            elif event.kind is EventKind.ROLL:
                yield f"{seq:>6}    {event.notation:<14} {event.words}"
            else:
                yield f"{seq:>6}  {who} {event.notation}"
                if event.outcome:
                    yield f"{'':8}{event.outcome}"
        body = entry.body
        if isinstance(body, FinalBody):
            yield ""
            yield f"{seq:>6}  {who} FINAL: {Player(body.winner).name} wins by {body.reason}"
        elif isinstance(body, CosignBody):
            yield f"{seq:>6}  {who} COSIGN: agrees that {Player(body.winner).name} wins"
        elif isinstance(body, ClaimBody):
            yield ""
            if body.reason == "clock" and body.clock is not None:
                loser = Player(entry.author).other.name
                yield (
                    f"{seq:>6}  {who} CLAIM ON TIME: {loser}'s clock ran out before entry "
                    f"{body.waiting_for} (clocks {clock_words(body.clock)}; a clock claim)"
                )
            else:
                yield (
                    f"{seq:>6}  {who} CLAIM: entry {body.waiting_for} never came "
                    "(a unilateral claim, not a result)"
                )
        elif isinstance(body, DisputeBody):
            left = format_clock(body.clock[entry.author])
            yield (
                f"{seq:>6}  {who} DISPUTES THE CLOCK CLAIM: by {who}'s clock {left} was left "
                f"(clocks {clock_words(body.clock)}; a disputed clock claim, not a result)"
            )
        if body.clock is not None and not isinstance(body, OfferBody):
            reading = body.clock
    game = story.game
    if game is not None and game.is_over:
        yield ""
        yield describe_result(game)
        yield "Score by turn (conquest points):"
        yield from render_score_by_turn(game)
    if story.stops_at is not None and story.entries:
        yield ""
        yield f"The replay stops here: {story.verdict.summary()}"


def export_json(story: Story) -> dict[str, object]:
    """The story as plain JSON values (bytes as lower-case hex)."""
    header = story.header
    return {
        "file": story.where,
        "verdict": story.verdict.to_json(),
        "header": None
        if header is None
        else {
            "format": header.format,
            "protocol": header.protocol,
            "rules": header.rules,
            "game_id": header.game_id.hex(),
            "keys": [k.hex() for k in header.keys],
            "created": header.created,
        },
        "players": _players(story),
        "clock": _clock_json(story),
        "options": None
        if story.setup is None
        else {
            "map": story.setup.map.name,
            "turns_to_win": story.setup.options.turns_to_win,
            "tournament_initiative": story.setup.options.tournament_initiative,
        },
        "entries": [_entry_json(t) for t in story.entries],
        "stopped_at_record": story.stops_at,
    }


def _clock_json(story: Story) -> dict[str, int] | None:
    clock = clock_setting(story)
    if clock is None:
        return None
    return {"base_ms": clock.base_ms, "increment_ms": clock.increment_ms}


def _players(story: Story) -> dict[str, object] | None:
    if story.keys is None or story.setup is None:
        return None
    return {
        p.name: {
            "name": story.names[p],
            "fingerprint": fingerprint(story.keys[p]),
            "key": story.keys[p].hex(),
            "warband": story.setup.warbands[p].name,
        }
        for p in (Player.A, Player.B)
    }


def _entry_json(told: Told) -> dict[str, object]:
    entry = told.entry
    body = entry.body
    state = getattr(body, "state", None)
    out: dict[str, object] = {
        "seq": entry.seq,
        "record": told.record,
        "author": Player(entry.author).name,
        "kind": entry.kind.name.lower(),
        "turn": told.turn,
        "decision": getattr(body, "decision", None),
        "rolls": [_roll_json(r) for r in told.rolls],
        "state": state.hex() if isinstance(state, bytes) else None,
        "hash": told.hash.hex(),
        "story": [event.words for event in told.events],
        "clock": None
        if isinstance(body, OfferBody) or body.clock is None
        else {"A": body.clock[0], "B": body.clock[1]},
    }
    if isinstance(body, FinalBody):
        out["result"] = {
            "winner": Player(body.winner).name,
            "reason": body.reason,
            "turns": [[a, b] for a, b in body.turns],
        }
    elif isinstance(body, CosignBody):
        out["cosigned"] = {"head": body.head.hex(), "winner": Player(body.winner).name}
    elif isinstance(body, ClaimBody):
        claim: dict[str, object] = {"reason": body.reason, "waiting_for": body.waiting_for}
        if body.reason == "clock":
            claim["flagged"] = Player(entry.author).other.name
        out["claim"] = claim
    elif isinstance(body, DisputeBody):
        out["dispute"] = {"claim": entry.seq - 1, "left": body.clock[entry.author]}
    if entry.kind is EntryKind.RESIGN:
        out["resigns"] = True
    return out


def _roll_json(roll: Roll) -> dict[str, object]:
    faces = None if roll.kind == "initiative" else format_attack_dice(roll.dice)
    return {"index": roll.index, "kind": roll.kind, "dice": list(roll.dice), "faces": faces}


def export_text(story: Story) -> Iterator[str]:
    """The JSON export's content as plain text (one line each; the command escapes them)."""
    yield f"file: {story.where}"
    yield f"verdict: {story.verdict.summary()}"
    header = story.header
    if header is not None:
        yield (
            f"header: format {header.format}, protocol {header.protocol}, rules {header.rules}, "
            f"created {header.created}"
        )
        yield f"game id: {header.game_id.hex()}"
    players = _players(story)
    if players is not None and story.keys is not None and story.setup is not None:
        for p in (Player.A, Player.B):
            name = story.names[p]
            yield (
                f"player {p.name}: "
                + ("" if name is None else f"name {name!r}, ")
                + f"key {story.keys[p].hex()} (fingerprint {fingerprint(story.keys[p])}), "
                f"warband {story.setup.warbands[p].name!r}"
            )
    clock = clock_setting(story)
    if clock is not None:
        yield (
            f"clock: {clock.describe()} ({clock.base_ms} ms, {clock.increment_ms} ms a move); "
            "each entry's clock is its author's signed reading"
        )
    for told in story.entries:
        data = _entry_json(told)
        yield ""
        yield (
            f"entry {data['seq']} (record {data['record']}) by {data['author']}: "
            f"{str(data['kind']).upper()}, turn {data['turn']}"
        )
        for roll in told.rolls:
            faces = "" if roll.kind == "initiative" else f" {format_attack_dice(roll.dice)}"
            dice = " ".join(str(d) for d in roll.dice)
            yield f"  roll {roll.index} ({roll.kind}): {dice}{faces}"
        if data["decision"] is not None:
            yield f"  decision: {data['decision']}"
        body = told.entry.body
        if body.clock is not None and not isinstance(body, OfferBody):
            yield f"  clock: {clock_words(body.clock)} ({body.clock[0]} ms, {body.clock[1]} ms)"
        for words in told.events:
            yield f"  story: {words.words}"
        for key in ("result", "cosigned", "claim"):
            if key in data:
                yield f"  {key}: {json.dumps(data[key])}"
        if data["state"] is not None:
            yield f"  state: {data['state']}"
        yield f"  hash: {data['hash']}"
    if story.stops_at is not None:
        yield ""
        yield f"stops here: {story.verdict.summary()}"
