"""Building a warband (rule 600): what a miniature costs, a warband's aspect costs, and
finding miniatures in the catalog by name, aspect, cost, type and keyword.

Shared by ``dbnet warband show`` and the console's warband builder; the rules a warband
must keep are the engine's ``warband_breaches`` (``WarbandList.breaches``).

Cost is the glossary's: "the spawn cost plus the aspect cost", one more spawn point for
each miniature an aspect is short (801.4). Channel makes miniatures "cost X less to
spawn", so it reduces that whole amount, never below 0 (900.8), as the engine does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dbnet.engine.abilities import matches
from dbnet.engine.model import AbilityDef, Aspect, MiniatureDef, MiniKind
from dbnet.errors import DataError

ASPECT_WORDS = {a: a.name.capitalize() for a in Aspect}
ASPECT_SYMBOLS = "VMFP"  # by Aspect value: Valor, Madness, Fear, Passion


def cost_label(mini: MiniatureDef) -> str:
    """Spawn cost then one symbol per aspect symbol (300.1): ``'9 MMM'``."""
    symbols = "".join(ASPECT_SYMBOLS[a] for a in mini.aspects)
    return f"{mini.spawn_cost} {symbols}".rstrip()


def cost_range(mini: MiniatureDef, reduction: int = 0) -> tuple[int, int]:
    """What spawning ``mini`` can cost: with every aspect satisfied, and with none (one
    more point per aspect symbol, 801.4); ``reduction`` (Channel) comes off the whole
    cost, never below 0 (900.8)."""
    low = mini.spawn_cost - reduction
    high = mini.spawn_cost + len(mini.aspects) - reduction
    return max(low, 0), max(high, 0)


def range_label(mini: MiniatureDef, reduction: int = 0) -> str:
    low, high = cost_range(mini, reduction)
    return str(low) if low == high else f"{low}-{high}"


def channels(entries: Iterable[tuple[MiniatureDef, int]]) -> list[tuple[MiniatureDef, AbilityDef]]:
    """The Channel abilities of a warband's miniatures, once per miniature."""
    seen: set[str] = set()
    out: list[tuple[MiniatureDef, AbilityDef]] = []
    for mini, _ in entries:
        if mini.slug in seen:
            continue
        seen.add(mini.slug)
        out.extend((mini, a) for a in mini.abilities if a.keyword == "Channel")
    return out


def channel_covers(ability: AbilityDef, mini: MiniatureDef) -> bool:
    """Whether a Channel ability reduces ``mini``'s cost: no modifier, or ``mini`` is of
    the aspect or lineage it names (900.14)."""
    return matches(ability.modifier, mini)


@dataclass(frozen=True, slots=True)
class AspectLine:
    """One aspect of a warband (600.2): how many of its miniatures belong to the aspect
    (and so help pay aspect costs, 801.4), the most any of them asks for, and how many
    aspect symbols the warband has in all."""

    aspect: Aspect
    members: int
    most: int
    symbols: int


def aspect_summary(entries: Iterable[tuple[MiniatureDef, int]]) -> list[AspectLine]:
    """Each aspect the warband uses, in rule order (Valor, Madness, Fear, Passion)."""
    members = [0, 0, 0, 0]
    most = [0, 0, 0, 0]
    symbols = [0, 0, 0, 0]
    for mini, count in entries:
        for aspect, need in mini.aspect_needs():
            members[aspect] += count
            most[aspect] = max(most[aspect], need)
            symbols[aspect] += need * count
    return [
        AspectLine(a, members[a], most[a], symbols[a]) for a in Aspect if members[a] or symbols[a]
    ]


def summary_lines(entries: Sequence[tuple[MiniatureDef, int]]) -> list[str]:
    """The cost summary of a warband (600.2, 801.4, Channel), one short line each."""
    size = sum(count for _, count in entries)
    creatures = sum(count for m, count in entries if m.is_creature)
    spawn = sum(m.spawn_cost * count for m, count in entries)
    symbols = sum(len(m.aspects) * count for m, count in entries)
    lines = [
        f"{size} miniatures ({creatures} creatures, {size - creatures} locations); "
        f"spawn costs {spawn} in all, {symbols} aspect symbols",
    ]
    for line in aspect_summary(entries):
        lines.append(
            f"{ASPECT_WORDS[line.aspect]}: {line.members} miniatures of the aspect, "
            f"needs up to {line.most}, {line.symbols} symbols"
        )
    for mini, ability in channels(entries):
        which = f"{ability.modifier} miniatures" if ability.modifier else "miniatures"
        lines.append(
            f"Channel {ability.x or 0} ({mini.name}): your {which} cost {ability.x or 0} less "
            "to spawn, aspect shortfall included, never below 0 (900.8)"
        )
    return lines


# --- finding miniatures -------------------------------------------------------------------


QUERY_HELP = (
    "words match names; a:valor aspect, c:3 or c:2-5 or c:<=4 cost, t:creature or "
    "t:location type, k:crit keyword"
)
_PREFIXES = {
    "a": "aspect", "aspect": "aspect", "c": "cost", "cost": "cost", "t": "type",
    "type": "type", "k": "keyword", "kw": "keyword", "keyword": "keyword",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Query:
    """A search of the catalog: every part must hold. Built by ``parse_query``."""

    words: tuple[str, ...] = ()
    aspects: tuple[Aspect, ...] = ()
    cost: tuple[int, int] | None = None
    kind: MiniKind | None = None
    keywords: tuple[str, ...] = ()

    def matches(self, mini: MiniatureDef) -> bool:
        name = mini.name.casefold()
        if not all(w in name or w in mini.slug for w in self.words):
            return False
        if not all(a in mini.aspects for a in self.aspects):
            return False
        if self.cost is not None and not self.cost[0] <= mini.spawn_cost <= self.cost[1]:
            return False
        if self.kind is not None and mini.kind is not self.kind:
            return False
        keywords = [a.keyword.casefold() for a in mini.abilities]
        return all(any(k in kw for kw in keywords) for k in self.keywords)


def parse_query(text: str) -> Query:
    """``'lion a:valor c:<=5'``: see ``QUERY_HELP``. A ``DataError`` for a part that
    means nothing (an unknown aspect or type, a cost that is no number)."""
    words: list[str] = []
    aspects: list[Aspect] = []
    keywords: list[str] = []
    cost: tuple[int, int] | None = None
    kind: MiniKind | None = None
    for part in text.casefold().split():
        head, colon, value = part.partition(":")
        field = _PREFIXES.get(head) if colon else None
        if field is None:
            words.append(part)
        elif not value:
            continue  # still being typed
        elif field == "aspect":
            found = [a for a in Aspect if ASPECT_WORDS[a].casefold().startswith(value)]
            if not found:
                raise DataError("", f"no aspect {value!r} (valor, madness, fear, passion)")
            aspects.append(found[0])
        elif field == "type":
            kinds = [k for k in MiniKind if k.name.casefold().startswith(value)]
            if not kinds:
                raise DataError("", f"no type {value!r} (creature, location)")
            kind = kinds[0]
        elif field == "keyword":
            keywords.append(value)
        else:
            cost = _parse_cost(value)
    return Query(tuple(words), tuple(aspects), cost, kind, tuple(keywords))


def _parse_cost(value: str) -> tuple[int, int]:
    """``'3'``, ``'2-5'``, ``'<=4'``, ``'<4'``, ``'>=6'``, ``'>6'``: a spawn cost range."""
    try:
        if value.startswith("<="):
            return 0, int(value[2:])
        if value.startswith("<"):
            return 0, int(value[1:]) - 1
        if value.startswith(">="):
            return int(value[2:]), 10**6
        if value.startswith(">"):
            return int(value[1:]) + 1, 10**6
        low, dash, high = value.partition("-")
        return (int(low), int(high)) if dash else (int(low), int(low))
    except ValueError:
        raise DataError("", f"cost {value!r} is no number or range (3, 2-5, <=4)") from None


def search(minis: Iterable[MiniatureDef], query: Query) -> list[MiniatureDef]:
    return [m for m in minis if query.matches(m)]
