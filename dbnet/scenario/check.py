"""Reading a game the way scenario expectations describe it, and comparing.

Every observation is canonical text (see ``Expect``), so that a mismatch can
be reported as "expected X, got Y" with both sides in the file's own terms.
"""

from __future__ import annotations

from dbnet.engine import board
from dbnet.engine.choices import ChanceKind, ChanceRequest, DecisionKind
from dbnet.engine.game import Game, Phase, Zone
from dbnet.engine.model import Player
from dbnet.engine.notation import format_choice, parse_choice
from dbnet.engine.statics import Stat
from dbnet.errors import DbnetError
from dbnet.scenario.model import Expect, Expectation, ExpectLegal, LegalMode, Subject


def check(game: Game, expectation: Expectation) -> tuple[str, str] | None:
    """None if ``expectation`` holds in ``game``, else the (expected, actual) texts."""
    if isinstance(expectation, ExpectLegal):
        return _check_legal(game, expectation)
    actual = observe(game, expectation)
    expected = expectation.expected
    if expectation.subject in (Subject.PHASE, Subject.PENDING):
        # Trailing words may be left out: "damage B" matches "damage B 6".
        if actual.lower().split()[: len(expected.split())] == expected.lower().split():
            return None
    elif actual == expected:
        return None
    return (repr(expected) if _quoted(expectation) else expected, _show(expectation, actual))


def _quoted(expectation: Expect) -> bool:
    return expectation.subject in (Subject.PHASE, Subject.PENDING, Subject.AT, Subject.TARGETS)


def _show(expectation: Expect, actual: str) -> str:
    return repr(actual) if _quoted(expectation) else actual


def observe(game: Game, expectation: Expect) -> str:
    """The canonical text of what ``expectation`` looks at, now."""
    subject = expectation.subject
    if expectation.player is not None:
        if subject is Subject.LAST_CONQUEST and not game.conquest_history:
            return "(no turn finished yet)"
        return str(_per_player(game, subject, expectation.player))
    if expectation.mini is not None and expectation.stat is not None:
        return _mini_stat(game, expectation.mini, expectation.stat)
    if expectation.mini is not None:
        return _mini_state(game, subject, expectation.mini)
    if subject is Subject.TURN:
        return str(game.turn)
    if subject is Subject.SPAWN_POINTS:
        return str(game.spawn_points)
    if subject is Subject.PHASE:
        return phase_text(game)
    if subject is Subject.PENDING:
        return pending_text(game)
    if subject is Subject.FIRST:
        return game.first.name
    if subject is Subject.WINNER:
        return "none" if game.winner is None else game.winner.name
    assert subject is Subject.TARGETS
    pending = game.pending
    if pending is None or isinstance(pending, ChanceRequest):
        return "(no decision pending)"
    return " ".join(sorted(game.minis[i].label for i in pending.targets))


def _per_player(game: Game, subject: Subject, player: Player) -> int:
    if subject is Subject.CONQUEST:
        return game.claimed_points(player) + game.kills[player]
    if subject is Subject.CLAIMED:
        return game.claimed_points(player)
    if subject is Subject.KILLS:
        return game.kills[player]
    if subject is Subject.BONUS:
        return game.bonus[player]
    if subject is Subject.TURNS_WON:
        return game.turns_won[player]
    if subject is Subject.INITIATIVE:
        return game.initiative[player]
    assert subject is Subject.LAST_CONQUEST
    return game.conquest_history[-1][player]


def _mini_state(game: Game, subject: Subject, label: str) -> str:
    mini = next(m for m in game.minis if m.label == label)
    if subject is Subject.DAMAGE:
        return str(mini.damage)
    if subject is Subject.MOVED:
        return "true" if mini.moved else "false"
    if mini.zone is Zone.DREAMSCAPE:
        return board.cell_name(mini.cell)
    return mini.zone.name.lower()


def _mini_stat(game: Game, label: str, name: str) -> str:
    """A stat after all modifiers and the 900.8 minimums; ``cost`` is what spawning the
    miniature costs its owner now (Channel, Respawn, the aspect shortfall of 801.4)."""
    mini = next(m for m in game.minis if m.label == label)
    if name == "cost":
        return str(game.spawn_cost(mini))
    if not mini.defn.is_creature:
        return f"(a location has no {name})"
    return str(game.stat(mini, Stat[name.upper()]))


def phase_text(game: Game) -> str:
    """``initiative``, ``spawn A``, ``action B 2``, ``conquest`` or ``over``."""
    if game.phase is Phase.SPAWN:
        return f"spawn {game.active.name}"
    if game.phase is Phase.ACTION:
        return f"action {game.active.name} {game.action_index % 2 + 1}"
    return game.phase.name.lower()


def pending_text(game: Game) -> str:
    """``strike A``, ``damage B 6``, ``blade A 2``, ``reroll A 2``, ``roll 2 initiative A B``,
    ``roll 4 attack A``, ``none``."""
    pending = game.pending
    if pending is None:
        return "none"
    if isinstance(pending, ChanceRequest):
        if pending.kind is ChanceKind.INITIATIVE:
            whose = " ".join(p.name for p in pending.players)
        else:
            whose = pending.owner.name if pending.owner is not None else ""
        return f"roll {pending.count} {pending.kind.value} {whose}".rstrip()
    text = f"{pending.kind.value} {pending.player.name}"
    if pending.kind in (DecisionKind.DAMAGE, DecisionKind.BLADE, DecisionKind.REROLL):
        text += f" {pending.total}"  # damage to assign, blades left, dice it may reroll
    return text


def legal_texts(game: Game) -> list[str] | None:
    """The legal choices in canonical notation, or None when the game lists none."""
    choices = game.legal_choices()
    if choices is None:
        return None
    return [format_choice(game, choice) for choice in choices]


def canonical(game: Game, text: str) -> str:
    """``text`` in canonical notation if the game can read it now, else as written."""
    try:
        return format_choice(game, parse_choice(game, text))
    except DbnetError:
        return " ".join(text.split()).lower()


def _check_legal(game: Game, expectation: ExpectLegal) -> tuple[str, str] | None:
    legal = legal_texts(game)
    if legal is None:
        return (
            f"{expectation.mode.value} {list(expectation.choices)!r}",
            f"no list of legal choices while the game waits for {pending_text(game)!r}",
        )
    wanted = [canonical(game, text) for text in expectation.choices]
    if expectation.mode is LegalMode.EXACTLY:
        missing = [w for w in wanted if w not in legal]
        extra = [c for c in legal if c not in wanted]
        if not missing and not extra:
            return None
        return (f"exactly {sorted(wanted)!r}", _difference(missing, extra))
    if expectation.mode is LegalMode.INCLUDES:
        missing = [w for w in wanted if w not in legal]
        if not missing:
            return None
        return (f"to include {missing!r}", f"not legal; legal are {legal!r}")
    present = [w for w in wanted if w in legal]
    if not present:
        return None
    return (f"to exclude {present!r}", "they are legal")


def _difference(missing: list[str], extra: list[str]) -> str:
    parts = []
    if missing:
        parts.append(f"missing {missing!r}")
    if extra:
        parts.append(f"also legal {extra!r}")
    return "; ".join(parts)
