"""People's entries: what a person types, read against the legal choices.

``parse_choice`` (``notation``) reads the notation of the log and the replays,
strictly. People type less: ``read_choice`` matches what they typed against the
legal choices first (a name by its handle, a beginning of it, or its words:
``beacon`` is ``rallying-beacon``), takes a bare verb when one legal choice has it,
and refuses with what was wrong and what is legal, in words, the rule numbers last.
``find_minis`` names miniatures the same way (``show``), as they are shown on screen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dbnet.engine import board
from dbnet.engine.choices import Choice, Decision, DecisionKind
from dbnet.engine.game import Game, Mini
from dbnet.engine.model import Player
from dbnet.engine.notation import decision_words, format_choice, parse_choice
from dbnet.errors import DbnetError, IllegalChoiceError

LISTED = 6  # legal alternatives named in a refusal; the rest are counted
_RULES = re.compile(r" ?\((\d{3}(?:\.\d+[a-z]?)?(?:(?:-|, | and )\d{3}(?:\.\d+[a-z]?)?)*)\)")
_OWNER = re.compile(r"^([ab])[:@]", re.IGNORECASE)


def name_key(text: str) -> str:
    """A name as a handle is spelled: lower case, words joined by hyphens, apostrophes
    dropped (``"Hell's Fury"`` -> ``hells-fury``, ``"Rallying Beacon"`` ->
    ``rallying-beacon``); a copy number (``#2``) is kept."""
    out = "".join(c if c.isalnum() or c == "#" else "-" for c in text.lower().replace("'", ""))
    return "-".join(part for part in out.split("-") if part)


def words_name(key: str, name: str) -> bool:
    """Whether the words of ``key`` begin words of ``name``, in order (``beacon`` and
    ``r-beacon`` name ``rallying-beacon``; ``t-firebr`` names ``taunting-firebrand``).
    Both as ``name_key`` spells them, without copy numbers."""
    wanted = [w for w in key.split("-") if w]
    parts = [p for p in name.split("-") if p]
    i = 0
    for part in parts:
        if i < len(wanted) and part.startswith(wanted[i]):
            i += 1
    return bool(wanted) and i == len(wanted)


def _split_copy(key: str) -> tuple[str, str]:
    """``vanguard-herald#2`` -> (``vanguard-herald``, ``#2``)."""
    base, sep, copy = key.partition("#")
    return base, sep + copy


def find_minis(game: Game, name: str) -> list[int]:
    """The miniatures ``name`` calls, as people write them or see them on screen.

    ``name`` may start with the owner (``B:``, or ``B@`` as the board marks locations)
    and be a handle (``vanguard-herald#2``), a display name (``Rallying Beacon``), a board
    token (``A:l-page#2*3``: damage marks are ignored), a beginning of a handle, or words
    of it (``beacon``, ``l-page``). Exact names win over beginnings, beginnings over
    words. Copies of one miniature are listed once unless a copy is named by number.
    """
    text = name.strip()
    owner: Player | None = None
    found = _OWNER.match(text)
    if found is not None:
        owner = Player.A if found.group(1).lower() == "a" else Player.B
        text = text[2:]
    key = name_key(re.sub(r"\*\d*$", "", text))
    if not key:
        return []
    base, copy = _split_copy(key)
    minis = [
        m
        for m in game.minis
        if (owner is None or m.owner is owner) and (not copy or m.handle.endswith(copy))
    ]

    def exact(m: Mini) -> bool:
        return key == m.handle or base in (m.defn.slug, name_key(m.defn.name))

    def beginning(m: Mini) -> bool:
        return m.handle.startswith(key) or m.defn.slug.startswith(base)

    def words(m: Mini) -> bool:
        return words_name(base, m.defn.slug) or words_name(base, name_key(m.defn.name))

    chosen: list[Mini] = []
    for test in (exact, beginning, words):
        chosen = [m for m in minis if test(m)]
        if chosen:
            break
    out: list[int] = []
    seen: list[tuple[Player, str]] = []
    for m in chosen:
        kind = (m.owner, m.defn.slug)
        if copy or kind not in seen:
            seen.append(kind)
            out.append(m.id)
    return out


def _word_fits(typed: str, word: str, position: int) -> bool:
    """Whether one typed word stands for one word of a legal choice's notation: the verb,
    cells, numbers and ``none`` as written; names and abilities also by a beginning or
    their words (``beacon``, ``crit`` for ``crit#2``, ``b:ogre`` for ``B:ogre``)."""
    typed, word = typed.lower(), word.lower()
    if typed == word:
        return True
    if position == 0 or board.parse_cell(word) is not None or word.isdigit() or word == "none":
        return False
    if ":" not in word:
        typed = _OWNER.sub("", typed)
    if word.startswith(typed):
        return True
    key, copy = _split_copy(name_key(typed))
    base, own_copy = _split_copy(name_key(word))
    return (not copy or copy == own_copy) and words_name(key, base)


def _fits(words: Sequence[str], notation: str) -> bool:
    theirs = notation.split()
    return len(words) == len(theirs) and all(
        _word_fits(w, t, i) for i, (w, t) in enumerate(zip(words, theirs, strict=True))
    )


def read_choice(game: Game, text: str) -> Choice:
    """Read a person's entry ``text`` as a legal choice for the pending decision.

    The strict notation (``parse_choice``) first; when that names no legal choice, the
    legal choices that ``text`` fits word for word (names by a beginning or their words),
    if exactly one does; a bare verb (``destroy``) when exactly one legal choice has it.

    Raises:
        GameOverError: the game is over.
        IllegalChoiceError: the entry is not a legal choice now: the message says what was
            wrong and what is legal, in words, with the rule numbers after.
        InvalidChoiceError: the entry is empty.
    """
    _, words = decision_words(game, text)
    parsed: Choice | None = None
    try:
        parsed = parse_choice(game, text)
        game.check_choice(parsed)
        return parsed
    except DbnetError as exc:
        reason = _reason(game, text, parsed, exc)
    legal = [(c, format_choice(game, c)) for c in game.legal_choices() or []]
    verb = words[0].lower()
    if len(words) == 1:
        bare = [c for c, notation in legal if notation.split()[0] == verb]
        if len(bare) == 1:
            return bare[0]
    fitting = [(c, notation) for c, notation in legal if _fits(words, notation)]
    if fitting and len({_alike(game, n) for _, n in fitting}) == 1:
        return fitting[0][0]  # one, or copies in the same place and state: the first
    if fitting:
        reason = "it fits more than one legal choice; name the one you mean"
        legal = fitting
    elif parsed is None:
        respelled = _respelled(game, words)
        if respelled != words:
            try:
                parsed = parse_choice(game, " ".join(respelled))
                game.check_choice(parsed)
                return parsed
            except DbnetError as exc:
                if parsed is not None:
                    reason = _reason(game, " ".join(respelled), parsed, exc)
    raise IllegalChoiceError(_refusal(game, text, parsed, reason, [n for _, n in legal]))


def _alike(game: Game, notation: str) -> str:
    """``notation`` with each miniature it names replaced by what tells copies apart
    (owner, definition, zone, cell, damage, moved): copies in the same place and state are
    interchangeable, as ``_mini`` takes them."""
    out = []
    for word in notation.split():
        owner_name, _, handle = word.rpartition(":")
        found = None
        for player in (Player.A, Player.B):
            if owner_name and owner_name != player.name:
                continue
            i = game.handles[player].get(handle.lower())
            if i is not None:
                found = game.minis[i]
                break
        if found is None:
            out.append(word)
        else:
            m = found
            out.append(f"{m.owner.name}:{m.defn.slug}/{m.zone}/{m.cell}/{m.damage}/{m.moved}")
    return " ".join(out)


def _respelled(game: Game, words: Sequence[str]) -> list[str]:
    """``words`` with each word after the verb that names exactly one miniature by its
    words (``find_minis``: ``beacon``) written as that miniature's handle."""
    out = list(words[:1])
    for word in words[1:]:
        plain = board.parse_cell(word.lower()) is not None or word.isdigit() or "=" in word
        found = [] if plain or word.lower() == "none" else find_minis(game, word)
        out.append(game.minis[found[0]].handle if len(found) == 1 else word)
    return out


def _reason(game: Game, text: str, parsed: Choice | None, exc: DbnetError) -> str:
    """Why ``text`` (``parsed``, when it could be read) was refused, without the entry
    itself (the refusal names it first)."""
    words = str(exc)
    if parsed is not None:
        head = f"{parsed!r} is not legal now: "
        if words.startswith(head):
            return words[len(head) :]
        notation = format_choice(game, parsed)
        words = words.replace(repr(parsed), repr(notation))
    head = f"{text.strip()!r}: "
    return words[len(head) :] if words.startswith(head) else words


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:LISTED])
    more = len(items) - LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _refusal(
    game: Game, text: str, parsed: Choice | None, reason: str, legal: Sequence[str]
) -> str:
    """``you cannot WHAT: WHY; legal: ... (rule N)``: the rule numbers in the reason move
    to the end; the legal choices listed are those with the entry's verb and, among them,
    its first name or cell, when there are such."""
    what = format_choice(game, parsed) if parsed is not None else " ".join(text.split())
    rules = _RULES.findall(reason)
    why = _RULES.sub("", reason).strip()
    words = text.split()
    verb = words[0].lower()
    same = [n for n in legal if n.split()[0] == verb] or list(legal)
    if len(words) > 1:
        closer = [n for n in same if len(n.split()) > 1 and _word_fits(words[1], n.split()[1], 1)]
        same = closer or same
    pending = game.pending
    if isinstance(pending, Decision) and pending.kind is DecisionKind.DAMAGE:
        targets = ", ".join(game.minis[i].handle for i in pending.targets)
        alternatives = f"damage NAME=N ..., exactly {pending.total} in all, among {targets}"
    elif same:
        alternatives = _listed(same)
    else:
        alternatives = "nothing"
    out = f"you cannot {what}: {why}; legal: {alternatives}"
    if rules:
        label = "rule" if len(rules) == 1 and re.fullmatch(r"[\d.a-z]+", rules[0]) else "rules"
        out += f" ({label} {', '.join(rules)})"
    return out


__all__ = ["LISTED", "find_minis", "name_key", "read_choice", "words_name"]
