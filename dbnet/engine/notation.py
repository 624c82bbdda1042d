"""The compact, human-readable notation for decisions and dice (see docs/notation.md).

One string per decision, read and written against the game it belongs to
(miniatures are named by their handles, ``temple-lion#2``, which are unique
within a warband). ``format_choice`` gives the canonical spelling;
``parse_choice`` also accepts any unambiguous prefix of a handle and is
case-insensitive. What people type, which may say less, is read by ``reading``.

    spawn sir-glorious e1      done          shift         strike
    move temple-lion#2 d2      attack c3     attack c3 lockjaw sir-glorious
    blade ogre crit   damage lockjaw=4 temple-lion#1=3   destroy lockjaw   disrupt lockjaw
    deathblow c3    deathblow c3 none        place lockjaw a2    bury lockjaw
    activate pearlthorn-castle pearlthorn-castle      target iron-thug c4    target none
    reroll - B      reroll none     order 2     roll 3 5
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from dbnet.engine import board
from dbnet.engine.abilities import blade_abilities
from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    ActivateChoice,
    AttackChoice,
    BladeChoice,
    BuryChoice,
    ChanceRequest,
    Choice,
    CommitChoice,
    DamageChoice,
    DeathblowChoice,
    Decision,
    DecisionKind,
    Done,
    FateChoice,
    MoveChoice,
    OrderChoice,
    PlaceChoice,
    RerollChoice,
    RevealChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
    TargetChoice,
    moves_of,
    spawns_of,
)
from dbnet.engine.game import Game, Mini, Zone
from dbnet.engine.model import Player
from dbnet.engine.targets import Slot, slots
from dbnet.errors import GameOverError, IllegalChoiceError, InvalidChoiceError

DIE_FACES = ("1", "2", "3", "-", "-", "B")
_FACE_VALUES = {"1": 1, "2": 2, "3": 3, "-": 4, "b": 6}

_Filter = Callable[[Mini], bool]
_Parser = Callable[[Game, Decision, str, Sequence[str]], Choice]


def format_choice(game: Game, choice: Choice) -> str:
    """The canonical notation of ``choice`` in ``game`` (call before applying it)."""
    h = game.minis
    if isinstance(choice, MoveChoice):  # the most frequent first
        return f"move {h[choice.mini].handle} {board.CELL_NAMES[choice.cell]}"
    if isinstance(choice, SpawnChoice):
        return f"spawn {h[choice.mini].handle} {board.CELL_NAMES[choice.cell]}"
    if isinstance(choice, Done):
        return "done"
    if isinstance(choice, ShiftChoice):
        return "shift"
    if isinstance(choice, StrikeChoice):
        return "strike"
    if isinstance(choice, AttackChoice):
        cell = board.cell_name(choice.cell)
        owner = h[choice.attackers[0]].owner if choice.attackers else game.active
        everyone = game.creature_ids(choice.cell, owner)
        if choice.attackers == everyone:
            return f"attack {cell}"
        return f"attack {cell} " + " ".join(h[i].handle for i in choice.attackers)
    if isinstance(choice, BladeChoice):
        source = choice.mini if choice.source < 0 else choice.source
        text = f"blade {h[choice.mini].handle} {ability_word(game, source, choice.index)}"
        if choice.source >= 0:
            holder = h[choice.mini]
            other = h[choice.source]
            text += " " + (other.handle if other.owner is holder.owner else other.label)
        return text
    if isinstance(choice, ActivateChoice):
        ability = h[choice.mini].abilities[choice.index]
        text = f"activate {h[choice.mini].handle} {ability_word(game, choice.mini, choice.index)}"
        return f"{text} {choice.x}" if ability.cost_x else text
    if isinstance(choice, TargetChoice):
        return "target " + _format_targets(game, choice.targets)
    if isinstance(choice, RerollChoice):
        if not choice.dice:
            return "reroll none"
        return "reroll " + " ".join(DIE_FACES[v - 1] for v in choice.dice)
    if isinstance(choice, DamageChoice):
        parts = [f"{h[i].handle}={n}" for i, n in choice.assignments]
        return " ".join(["damage", *parts])
    if isinstance(choice, FateChoice):
        return f"{'destroy' if choice.destroy else 'disrupt'} {h[choice.mini].handle}"
    if isinstance(choice, DeathblowChoice):
        cell = board.cell_name(choice.cell)
        if not choice.attackers:
            return f"deathblow {cell} none"
        pending = game.pending
        dying = pending.minis if isinstance(pending, Decision) else ()
        if choice.attackers == dying:
            return f"deathblow {cell}"
        return f"deathblow {cell} " + " ".join(h[i].handle for i in choice.attackers)
    if isinstance(choice, PlaceChoice):
        return f"place {h[choice.mini].handle} {board.cell_name(choice.cell)}"
    if isinstance(choice, BuryChoice):
        return f"bury {h[choice.mini].handle}"
    if isinstance(choice, OrderChoice):
        return f"order {choice.position + 1}"
    if isinstance(choice, CommitChoice):
        return f"commit {choice.digest.hex()}"
    if isinstance(choice, RevealChoice):
        return " ".join(["reveal", *choice.slugs, "salt", choice.salt.hex()])
    raise InvalidChoiceError(f"not a choice: {choice!r}")


def format_dice(values: Sequence[int]) -> str:
    return " ".join(["roll", *(str(v) for v in values)])


def format_attack_dice(values: Sequence[int]) -> str:
    """Attack dice as faces: ``[2 3 - B]``."""
    return "[" + " ".join(DIE_FACES[v - 1] for v in values) + "]"


def parse_dice(text: str) -> tuple[int, ...]:
    """``'roll 3 5'`` (or just ``'3 5'``) as die values; values are checked by ``Game.roll``."""
    words = text.split()
    if words and words[0].lower() == "roll":
        words = words[1:]
    try:
        return tuple(int(w) for w in words)
    except ValueError:
        raise InvalidChoiceError(f"dice must be numbers 1-6, got {text!r}") from None


def decision_words(game: Game, text: str) -> tuple[Decision, list[str]]:
    """The pending decision that ``text`` answers, and its words.

    Raises:
        GameOverError: the game is over.
        IllegalChoiceError: the game waits for dice, not a decision.
        InvalidChoiceError: ``text`` is empty.
    """
    pending = game.pending
    if pending is None:
        raise GameOverError(f"the game is over; {text!r} cannot be played")
    if isinstance(pending, ChanceRequest):
        raise IllegalChoiceError(
            f"the game waits for {pending.count} {pending.kind.value} dice, not {text!r}"
        )
    words = text.split()
    if not words:
        raise InvalidChoiceError("empty input: expected a decision")
    return pending, words


def parse_choice(game: Game, text: str) -> Choice:
    """Read ``text`` as a choice for the game's pending decision.

    A spawn, a move or targets come back as the very value that ``legal_choices`` lists
    when they are legal, so that ``Game.apply`` finds them there and checks no further.
    """
    placed = _placing(text)
    if placed is not None:  # a move or a spawn: most decisions of a game
        kinds, key, cell, where, row = placed
        pending = game.pending
        if type(pending) is Decision and pending.kind in kinds:
            exact = game.handles[pending.player].get(key)
            if exact is not None and where(game.minis[exact]):
                return row(exact)[cell]  # what the parser gives: an exact handle
    pending, words = decision_words(game, text)
    verb, args = words[0].lower(), words[1:]
    known = _VERBS.get(verb)
    if known is None or pending.kind not in known[0]:
        raise InvalidChoiceError(
            f"{text!r} does not fit a {pending.kind.value} decision; expected "
            + " or ".join(repr(v) for v in _PARSERS[pending.kind])
        )
    parse = known[1]
    return parse(game, pending, text, args)


def _plain(choice: Choice) -> _Parser:
    """The parser of a verb that is the whole choice (``done``, ``shift``, ``strike``)."""

    def parse(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
        _arity(text, args, 0)
        return choice

    return parse


def _in_dreamscape(m: Mini) -> bool:
    return m.cell >= 0


def _spawnable_from(m: Mini) -> bool:
    """Reserves, or the graveyard for a miniature with Respawn."""
    return m.zone is Zone.RESERVES or (
        m.zone is Zone.GRAVEYARD and any(a.keyword == "Respawn" for a in m.abilities)
    )


_Row = Callable[[int], tuple[Choice, ...]]

_PLACED: Final[dict[str, tuple[_Filter, str, _Row]]] = {
    "spawn": (_spawnable_from, "in reserves", spawns_of),
    "move": (_in_dreamscape, "in the dreamscape", moves_of),
}
"""The verbs that put one of the player's miniatures in a cell: where the miniature must
be (and the words for it), and its choices by cell."""


def _parse_placed(verb: str) -> _Parser:
    """The parser of ``verb HANDLE CELL`` (``_PLACED``)."""
    where, what, row = _PLACED[verb]

    def parse(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
        _arity(text, args, 2)
        m = _mini(game, args[0], pending.player, where, what)
        return row(m.id)[_cell(args[1])]

    return parse


_parse_spawn = _parse_placed("spawn")
_parse_move = _parse_placed("move")


def _parse_attack(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    if not args:
        raise InvalidChoiceError(f"{text!r}: attack needs a cell, e.g. 'attack c3'")
    cell = _cell(args[0])
    player = pending.player
    if len(args) == 1:
        attackers = game.creature_ids(cell, player)
    else:
        attackers = _minis(game, args[1:], player, lambda m: m.cell == cell, f"in {args[0]}")
    return AttackChoice(cell, attackers)


def _parse_damage(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    pairs: list[tuple[int, int]] = []
    for word in args:
        handle, sep, amount = word.partition("=")
        if not sep or not amount.isdigit():
            raise InvalidChoiceError(f"{word!r}: write damage as handle=amount, e.g. lockjaw=4")
        m = _mini(game, handle, pending.player.other, _in_dreamscape, "in the dreamscape")
        pairs.append((m.id, int(amount)))
    pairs.sort()
    return DamageChoice(tuple(pairs))


def _parse_destroy(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    return _parse_fate(game, pending, text, args, destroy=True)


def _parse_disrupt(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    return _parse_fate(game, pending, text, args, destroy=False)


def _parse_fate(
    game: Game, pending: Decision, text: str, args: Sequence[str], *, destroy: bool
) -> Choice:
    _arity(text, args, 1)
    m = _mini(game, args[0], pending.player.other, _in_dreamscape, "in the dreamscape")
    return FateChoice(m.id, destroy)


def _parse_deathblow(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    if not args:
        raise InvalidChoiceError(f"{text!r}: deathblow needs a cell, e.g. 'deathblow c3'")
    cell = _cell(args[0])
    if len(args) == 1:
        return DeathblowChoice(cell, pending.minis)
    if len(args) == 2 and args[1].lower() == "none":
        return DeathblowChoice(cell, ())
    return DeathblowChoice(
        cell, _minis(game, args[1:], pending.player, lambda m: m.id in pending.minis, "dying")
    )


def _parse_place(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    _arity(text, args, 2)
    m = _mini(game, args[0], pending.player.other, _in_dreamscape, "in the dreamscape")
    return PlaceChoice(m.id, _cell(args[1]))


def _parse_bury(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    _arity(text, args, 1)
    m = _mini(game, args[0], pending.player.other, _in_dreamscape, "in the dreamscape")
    return BuryChoice(m.id)


def _parse_order(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    _arity(text, args, 1)
    if not args[0].isdigit() or int(args[0]) < 1:
        raise InvalidChoiceError(f"{text!r}: write 'order N', N from 1 as listed")
    return OrderChoice(int(args[0]) - 1)


def _parse_activate(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    if len(args) not in (1, 2, 3):
        raise InvalidChoiceError(
            f"{text!r}: write 'activate HANDLE ABILITY [X]', e.g. 'activate castle pearlthorn'"
        )
    m = _mini(game, args[0], pending.player, _in_dreamscape, "in the dreamscape")
    words = list(args[1:])
    x = 0
    if words and words[-1].isdigit():
        x = int(words.pop())
    spawn = [(m.id, i) for i, a in enumerate(m.abilities) if a.spawn_cost is not None or a.cost_x]
    indices = [i for _, i in (_named(game, spawn, words[0].lower()) if words else spawn)]
    if len(indices) != 1:
        raise InvalidChoiceError(
            f"{text!r}: {m.label} has "
            + ("no such spawn ability" if not indices else "several; name the ability")
        )
    return ActivateChoice(m.id, indices[0], x)


def _parse_blade(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    """``blade HOLDER [ABILITY [SOURCE]]``: SOURCE names the creature whose ability is copied
    (Copy) or the miniature whose Hell's Fury grants it."""
    if len(args) not in (1, 2, 3):
        raise InvalidChoiceError(f"{text!r}: write 'blade HANDLE ABILITY', e.g. 'blade ogre crit'")
    m = _mini(game, args[0], pending.player, _in_dreamscape, "in the dreamscape")
    found = [(source, index) for source, index, _ in blade_abilities(game, m)]
    if len(args) > 1:
        found = _named(game, found, args[1].lower())
    if len(args) == 3:
        word = args[2].lower()
        found = [(s, i) for s, i in found if s != m.id and _names(game.minis[s], word)]
    elif len(found) > 1:
        own = [(s, i) for s, i in found if s == m.id]
        found = own if len(own) == 1 else found
    if len(found) != 1:
        raise InvalidChoiceError(
            f"{text!r}: {m.label} has "
            + ("no such blade ability" if not found else "several; name the ability (and source)")
        )
    source, index = found[0]
    return BladeChoice(m.id, index, -1 if source == m.id else source)


def ability_word(game: Game, source: int, index: int) -> str:
    """The notation word of ability ``index`` of ``source``: its keyword (``crit``), with
    ``#k`` when the miniature has that keyword more than once (``crit#2``)."""
    word = _keyword(game.ability_def(source, index).keyword)
    same = [
        i
        for i in range(len(game.minis[source].abilities))
        if _keyword(game.ability_def(source, i).keyword) == word
    ]
    return word if len(same) == 1 else f"{word}#{same.index(index) + 1}"


def _named(game: Game, abilities: Sequence[tuple[int, int]], word: str) -> list[tuple[int, int]]:
    """Those (source, index) abilities that ``word`` names: exactly (``crit#2``), or else
    as a keyword or its beginning (``crit``, ``pearl``)."""
    exact = [(s, i) for s, i in abilities if ability_word(game, s, i) == word]
    if exact:
        return exact
    return [
        (s, i) for s, i in abilities if _keyword(game.ability_def(s, i).keyword).startswith(word)
    ]


def _names(m: Mini, word: str) -> bool:
    """Whether ``word`` names ``m``: its handle, its label (``B:ogre``) or their prefix."""
    return m.handle.startswith(word) or m.label.lower().startswith(word)


def _format_targets(game: Game, targets: tuple[int, ...]) -> str:
    if not targets:
        return "none"
    pending = game.pending
    assert isinstance(pending, Decision)
    ability = game.ability_def(*pending.ability)
    words = []
    for position, (kind, value) in enumerate(
        zip(slots(ability, len(targets)), targets, strict=True)
    ):
        if kind is Slot.CELL:
            words.append(board.cell_name(value))
            continue
        m = game.minis[value]
        # handles are unique within a warband: only a namesake of the other player's,
        # if it may be targeted here too, makes the handle ambiguous
        namesake = game.handles[m.owner.other].get(m.handle)
        clash = namesake is not None and any(
            len(o.targets) > position and o.targets[position] == namesake
            for o in _target_options(game)
        )
        words.append(m.label if clash else m.handle)
    return " ".join(words)


def _target_options(game: Game) -> list[TargetChoice]:
    legal = game.legal_choices() or []
    return [c for c in legal if isinstance(c, TargetChoice)]


def _parse_targets(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    if len(args) == 1 and args[0].lower() == "none":
        return next((o for o in _target_options(game) if not o.targets), TargetChoice(()))
    if not args:
        raise InvalidChoiceError(f"{text!r}: name the targets, or 'target none'")
    ability = game.ability_def(*pending.ability)
    kinds = slots(ability, len(args))
    for kind, word in zip(kinds, args, strict=True):
        if kind is Slot.CELL:
            _cell(word)  # a word that is no cell at all is said to be so, first
    options = _target_options(game)  # narrowed, word by word, to those that begin as read
    chosen: list[int] = []
    for position, (kind, word) in enumerate(zip(kinds, args, strict=True)):
        if kind is Slot.CELL:
            value = _cell(word)
        else:
            candidates = dict.fromkeys(
                o.targets[position] for o in options if len(o.targets) > position
            )
            value = _target(game, text, word, candidates)
        chosen.append(value)
        options = [o for o in options if len(o.targets) > position and o.targets[position] == value]
    for o in options:
        if len(o.targets) == len(chosen):
            return o  # the listed value itself
    return TargetChoice(tuple(chosen))


def _target(game: Game, text: str, word: str, candidates: Iterable[int]) -> int:
    """The one of ``candidates`` that ``word`` names: by its handle or label, else by
    their beginning."""
    key = word.lower()
    exact = [c for c in candidates if key in (game.minis[c].handle, game.minis[c].label.lower())]
    matches = exact or [c for c in candidates if _names(game.minis[c], key)]
    if len(matches) != 1:
        problem = "is ambiguous" if matches else "names no miniature that can be targeted"
        raise IllegalChoiceError(f"{text!r}: {word!r} {problem} here")
    return matches[0]


def _parse_reroll(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    if len(args) == 1 and args[0].lower() == "none":
        return RerollChoice(())
    try:
        values = sorted(_FACE_VALUES[word.lower()] for word in args)
    except KeyError:
        raise InvalidChoiceError(
            f"{text!r}: name the dice to reroll by face (1 2 3 - B), or 'reroll none'"
        ) from None
    if not values:
        raise InvalidChoiceError(f"{text!r}: name the dice to reroll, or 'reroll none'")
    return RerollChoice(tuple(values))


_HEX_32: Final = re.compile(r"[0-9a-f]{64}")


def _hex_32(text: str, word: str, what: str) -> bytes:
    """32 bytes written as 64 lower-case hex digits (Limited play's commitments and salts)."""
    if not _HEX_32.fullmatch(word):
        raise InvalidChoiceError(f"{text!r}: {what} must be 64 lower-case hex digits")
    return bytes.fromhex(word)


def _parse_commit(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    _arity(text, args, 1)
    return CommitChoice(_hex_32(text, args[0], "a commitment"))


def _parse_reveal(game: Game, pending: Decision, text: str, args: Sequence[str]) -> Choice:
    """``reveal SLUG ... salt HEX``: the warband's slugs in order, then its salt."""
    if len(args) < 2 or args[-2] != "salt":
        raise InvalidChoiceError(f"{text!r}: expected 'reveal SLUG ... salt HEX'")
    return RevealChoice(tuple(args[:-2]), _hex_32(text, args[-1], "the salt"))


_PARSE_DONE: Final = _plain(DONE)

_PARSERS: Final[dict[DecisionKind, dict[str, _Parser]]] = {
    DecisionKind.SPAWN: {"spawn": _parse_spawn, "activate": _parse_activate, "done": _PARSE_DONE},
    DecisionKind.ACTION: {"shift": _plain(SHIFT), "strike": _plain(STRIKE)},
    DecisionKind.SHIFT: {"move": _parse_move, "done": _PARSE_DONE},
    DecisionKind.STRIKE: {"attack": _parse_attack, "done": _PARSE_DONE},
    DecisionKind.BLADE: {"blade": _parse_blade},
    DecisionKind.DAMAGE: {"damage": _parse_damage},
    DecisionKind.FATE: {"destroy": _parse_destroy, "disrupt": _parse_disrupt},
    DecisionKind.DEATHBLOW: {"deathblow": _parse_deathblow},
    DecisionKind.RESOLVE: {"place": _parse_place, "bury": _parse_bury},
    DecisionKind.ORDER: {"order": _parse_order},
    DecisionKind.TARGET: {"target": _parse_targets},
    DecisionKind.COMMIT: {"commit": _parse_commit},
    DecisionKind.REVEAL: {"reveal": _parse_reveal},
    DecisionKind.REROLL: {"reroll": _parse_reroll},
}
"""The verbs each kind of decision takes, in the order error messages list them, and how
each reads its arguments."""


def _by_verb(
    parsers: dict[DecisionKind, dict[str, _Parser]],
) -> dict[str, tuple[tuple[DecisionKind, ...], _Parser]]:
    """``parsers`` by verb: the kinds of decision each verb answers, and its parser, which
    must be the same for all of them (a verb reads its arguments one way)."""
    by_verb: dict[str, tuple[tuple[DecisionKind, ...], _Parser]] = {}
    for kind, verbs in parsers.items():
        for verb, parse in verbs.items():
            kinds, known = by_verb.get(verb, ((), parse))
            if known is not parse:
                raise ValueError(f"verb {verb!r} has two parsers")
            by_verb[verb] = ((*kinds, kind), parse)
    return by_verb


_VERBS: Final = _by_verb(_PARSERS)
"""``_PARSERS`` by verb, for ``parse_choice``: a string's hash is C code, a
``DecisionKind``'s is Python."""


_Placing = tuple[tuple[DecisionKind, ...], str, int, _Filter, _Row]


@functools.lru_cache(maxsize=4096)
def _placing(text: str) -> _Placing | None:
    """``text`` read as a ``_PLACED`` verb, ``HANDLE CELL`` (the decisions it answers, the
    handle lowered, the cell, where the miniature must be, its choices by cell) as the
    verb's parser reads it, or None. A game repeats these texts; ``parse_choice`` takes
    the exact handle from them, else reads ``text`` in full."""
    words = text.split()
    if len(words) != 3:
        return None
    verb = words[0].lower()
    placed = _PLACED.get(verb)
    cell = board.parse_cell(words[2])
    if placed is None or cell is None:
        return None
    where, _, row = placed
    return _VERBS[verb][0], words[1].lower(), cell, where, row


@functools.lru_cache(maxsize=1024)
def _keyword(keyword: str) -> str:
    """An ability keyword as one notation word: ``"Hell's Fury"`` -> ``hells-fury`` (kept
    for the keywords met: a game has a few dozen at most)."""
    out = "".join(c if c.isalnum() else "-" for c in keyword.lower().replace("'", ""))
    return "-".join(part for part in out.split("-") if part)


def _arity(text: str, args: Sequence[str], n: int) -> None:
    if len(args) != n:
        raise InvalidChoiceError(f"{text!r}: expected {n} argument(s) after the verb")


def _cell(text: str) -> int:
    cell = board.parse_cell(text)
    if cell is None:
        raise InvalidChoiceError(f"{text!r} is not a cell; cells are a1 to e5")
    return cell


def _minis(
    game: Game, words: Iterable[str], owner: Player, where: _Filter, what: str
) -> tuple[int, ...]:
    ids: list[int] = []
    for word in words:
        taken = tuple(ids)

        def eligible(m: Mini, taken: tuple[int, ...] = taken) -> bool:
            return where(m) and m.id not in taken

        ids.append(_mini(game, word, owner, eligible, what).id)
    return tuple(sorted(ids))


def _mini(game: Game, word: str, owner: Player, where: _Filter, what: str) -> Mini:
    """The miniature of ``owner`` whose handle is ``word`` or uniquely starts with it."""
    key = word.lower()
    exact = game.handles[owner].get(key)
    if exact is not None and where(game.minis[exact]):
        return game.minis[exact]
    candidates = [m for m in game.minis if m.owner is owner and where(m)]
    for m in candidates:
        if m.handle == key:
            return m
    matches = [m for m in candidates if m.handle.startswith(key)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        # Copies in the same place and state are interchangeable: name the first.
        first = matches[0]
        if all(
            (m.defn.slug, m.zone, m.cell, m.damage, m.moved)
            == (first.defn.slug, first.zone, first.cell, first.damage, first.moved)
            for m in matches
        ):
            return first
        names = ", ".join(m.handle for m in matches)
        raise InvalidChoiceError(f"{word!r} is ambiguous: it could be {names}")
    raise InvalidChoiceError(f"{word!r} names no miniature of {owner.name} {what}")


__all__ = [
    "format_attack_dice",
    "format_choice",
    "format_dice",
    "parse_choice",
    "parse_dice",
]
