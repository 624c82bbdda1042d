"""The ``[[step]]`` tables of a scenario: one action each, then expectations.

Everything that can be checked without playing is checked here: keys,
types, players, cells, miniature labels, and the words of ``phase`` and
``pending`` phrases. Choices in notation are read only when played, because
their meaning depends on the game at that point.
"""

from __future__ import annotations

from collections.abc import Sequence

from dbnet.engine import board
from dbnet.engine.choices import ChanceKind, DecisionKind
from dbnet.errors import DataError
from dbnet.scenario.fields import (
    Table,
    as_bool,
    as_int,
    as_list,
    as_pair,
    as_player,
    as_str,
    as_str_list,
    as_table,
    check_keys,
    field,
)
from dbnet.scenario.model import (
    Action,
    Expect,
    Expectation,
    ExpectLegal,
    Illegal,
    LegalMode,
    Play,
    Resign,
    Roll,
    Step,
    Subject,
)
from dbnet.scenario.setup import ZONE_NAMES

_STEP_KEYS = ("play", "roll", "illegal", "error", "resign", "expect")
_ACTIONS = ("play", "roll", "illegal", "resign")
_INT_SUBJECTS = (Subject.TURN, Subject.SPAWN_POINTS)
_PAIR_SUBJECTS = (
    Subject.CONQUEST, Subject.CLAIMED, Subject.KILLS, Subject.BONUS, Subject.TURNS_WON,
    Subject.INITIATIVE, Subject.LAST_CONQUEST,
)  # fmt: skip
_MINI_SUBJECTS = (Subject.AT, Subject.DAMAGE, Subject.MOVED)
STAT_NAMES = ("power", "defense", "life", "cost")
_COUNTED = ("damage", "blade", "reroll")  # pending words followed by a number
_EXPECT_KEYS = tuple(s.value for s in Subject) + tuple(m.value for m in LegalMode)
_DECISION_WORDS = tuple(k.value for k in DecisionKind)
_CHANCE_WORDS = tuple(k.value for k in ChanceKind)


def read_steps(value: object, where: str, labels: Sequence[str]) -> tuple[Step, ...]:
    """The ``step`` list of a scenario (``where`` names it, e.g. ``'path: step'``)."""
    if value is None:
        raise DataError(where, "a scenario needs at least one [[step]]")
    items = as_list(value, where)
    if not items:
        raise DataError(where, "a scenario needs at least one [[step]]")
    return tuple(
        _read_step(as_table(item, f"{where} {i + 1}"), f"{where} {i + 1}", i + 1, labels)
        for i, item in enumerate(items)
    )


def _read_step(table: Table, where: str, index: int, labels: Sequence[str]) -> Step:
    check_keys(table, _STEP_KEYS, where)
    given = [key for key in _ACTIONS if key in table]
    if len(given) > 1:
        raise DataError(where, f"a step has at most one action; this one has {', '.join(given)}")
    if "error" in table and "illegal" not in table:
        raise DataError(field(where, "error"), "'error' only goes with 'illegal'")
    action: Action | None = None
    if "play" in table:
        raw = table["play"]
        if isinstance(raw, str):
            choices: tuple[str, ...] = (raw,)
        else:
            choices = as_str_list(raw, field(where, "play"))
        if not choices or not all(c.strip() for c in choices):
            raise DataError(field(where, "play"), f"expected decisions in notation, got {raw!r}")
        action = Play(choices)
    elif "roll" in table:
        dice = tuple(
            as_int(v, f"{field(where, 'roll')}, die {i + 1}", minimum=1)
            for i, v in enumerate(as_list(table["roll"], field(where, "roll")))
        )
        action = Roll(dice)
    elif "illegal" in table:
        text = as_str(table["illegal"], field(where, "illegal"))
        if not text.strip():
            raise DataError(field(where, "illegal"), "expected a decision in notation, got ''")
        error = as_str(table["error"], field(where, "error")) if "error" in table else None
        action = Illegal(text, error)
    elif "resign" in table:
        action = Resign(as_player(table["resign"], field(where, "resign")))
    expectations: tuple[Expectation, ...] = ()
    if "expect" in table:
        expect_where = field(where, "expect")
        expect = as_table(table["expect"], expect_where)
        expectations = read_expectations(expect, expect_where, labels)
    if action is None and not expectations:
        raise DataError(where, "an empty step: give an action, expectations, or both")
    return Step(index, action, expectations)


def read_expectations(table: Table, where: str, labels: Sequence[str]) -> tuple[Expectation, ...]:
    check_keys(table, _EXPECT_KEYS, where)
    out: list[Expectation] = []
    for key, value in table.items():
        key_where = field(where, key)
        if key in (m.value for m in LegalMode):
            out.append(ExpectLegal(LegalMode(key), as_str_list(value, key_where)))
            continue
        subject = Subject(key)
        if subject in _INT_SUBJECTS:
            out.append(Expect(subject, str(as_int(value, key_where))))
        elif subject in _PAIR_SUBJECTS:
            pair = as_pair(value, key_where)
            if not pair:
                raise DataError(key_where, "expected { A = ..., B = ... } with at least one player")
            out.extend(Expect(subject, str(n), player=p) for p, n in sorted(pair.items()))
        elif subject in _MINI_SUBJECTS:
            for label, item in as_table(value, key_where).items():
                item_where = field(key_where, f'"{label}"')
                expected = _mini_value(subject, item, item_where)
                out.append(Expect(subject, expected, mini=_label(label, item_where, labels)))
        elif subject is Subject.STATS:
            for label, item in as_table(value, key_where).items():
                item_where = field(key_where, f'"{label}"')
                mini = _label(label, item_where, labels)
                stats = as_table(item, item_where)
                if not stats:
                    raise DataError(item_where, "expected stats such as { power = 2 }, got {}")
                check_keys(stats, STAT_NAMES, item_where)
                out.extend(
                    Expect(subject, str(as_int(n, field(item_where, name))), mini=mini, stat=name)
                    for name, n in stats.items()
                )
        elif subject is Subject.TARGETS:
            names = as_str_list(value, key_where)
            chosen = sorted(
                _label(n, f"{key_where}, item {i + 1}", labels) for i, n in enumerate(names)
            )
            out.append(Expect(subject, " ".join(chosen)))
        elif subject is Subject.PHASE:
            out.append(Expect(subject, _phase(as_str(value, key_where), key_where)))
        elif subject is Subject.PENDING:
            out.append(Expect(subject, _pending(as_str(value, key_where), key_where)))
        elif subject is Subject.FIRST:
            out.append(Expect(subject, as_player(value, key_where).name))
        else:
            assert subject is Subject.WINNER
            text = as_str(value, key_where)
            winner = "none" if text.strip().lower() == "none" else as_player(text, key_where).name
            out.append(Expect(subject, winner))
    return tuple(out)


def _label(text: str, where: str, labels: Sequence[str]) -> str:
    """A miniature label, ``A:footman#2``, normalised and checked against the warbands."""
    owner, sep, handle = text.strip().partition(":")
    label = f"{owner.strip().upper()}:{handle.strip().lower()}"
    if not sep or label not in labels:
        known = ", ".join(labels)
        raise DataError(where, f"{text!r} names no miniature; labels are player:handle: {known}")
    return label


def _mini_value(subject: Subject, value: object, where: str) -> str:
    if subject is Subject.DAMAGE:
        return str(as_int(value, where))
    if subject is Subject.MOVED:
        return "true" if as_bool(value, where) else "false"
    text = as_str(value, where).strip().lower()
    if text not in ZONE_NAMES and board.parse_cell(text) is None:
        raise DataError(
            where, f"expected a cell (a1-e5), 'reserves', 'graveyard' or 'removed', got {value!r}"
        )
    return text


def _phase(text: str, where: str) -> str:
    """``initiative``, ``spawn A``, ``action B 2``, ``over``; trailing words may be left out."""
    words = text.split()
    ok = bool(words)
    if ok and words[0].lower() in ("initiative", "conquest", "over"):
        ok = len(words) == 1
    elif ok and words[0].lower() in ("spawn", "action"):
        limit = 2 if words[0].lower() == "spawn" else 3
        ok = len(words) <= limit and all(
            _is_player(w) if i == 1 else w in ("1", "2") for i, w in enumerate(words) if i
        )
    else:
        ok = False
    if not ok:
        raise DataError(
            where,
            f"expected a phase such as 'initiative', 'spawn A', 'action B 2' or 'over', "
            f"got {text!r}",
        )
    return _normal(words)


def _pending(text: str, where: str) -> str:
    """``spawn A``, ``damage B 6``, ``blade A 2``, ``roll 2 initiative A B``, ``none``; tails
    may be left out."""
    words = text.split()
    head = words[0].lower() if words else ""
    rest = words[1:]
    if head == "none":
        ok = not rest
    elif head in _DECISION_WORDS:
        ok = len(rest) <= 2 and (not rest or _is_player(rest[0]))
        ok = ok and (len(rest) < 2 or (head in _COUNTED and rest[1].isdigit()))
    elif head == "roll":
        ok = not rest or rest[0].isdigit()
        ok = ok and (len(rest) < 2 or rest[1].lower() in _CHANCE_WORDS)
        ok = ok and all(_is_player(w) for w in rest[2:])
    else:
        ok = False
    if not ok:
        raise DataError(
            where,
            f"expected a pending item such as 'strike A', 'damage B 6', 'roll 3 attack' or "
            f"'none', got {text!r}",
        )
    return _normal(words)


def _is_player(word: str) -> bool:
    return word.upper() in ("A", "B")


def _normal(words: Sequence[str]) -> str:
    """Keywords in lower case, players in upper case, one space between words."""
    return " ".join(w.upper() if _is_player(w) else w.lower() for w in words)
