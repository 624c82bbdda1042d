"""Tab completion of the input line: the legal choices in notation, and the commands.

A choice matches what has been typed when each typed word begins the
choice's word in the same place (``sp van e`` matches ``spawn
vanguard-herald#1 e1``), ignoring case; the completion replaces the whole
entry. Each completion carries what the choice does in words, where its
notation does not say it plainly (``display_meta``: shown beside it in the
menu).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from dbnet.engine import Decision, DecisionKind, Game

COMMANDS = ("help", "show", "choices", "reserves", "graves", "log", "resign", "quit")


def matches(typed: str, candidate: str) -> bool:
    """Whether the words of ``typed`` begin the words of ``candidate``, in order."""
    words = typed.lower().split()
    if typed.endswith(" "):
        words.append("")
    target = candidate.lower().split()
    if len(words) > len(target):
        return False
    return all(t.startswith(w) for w, t in zip(words, target, strict=False))


class ChoiceCompleter(Completer):
    """Completes the entry from ``choices()`` (legal choices in notation) and commands.

    ``show`` completes every miniature's handle (``show A:lantern-page``). ``meaning``
    says what a choice does, shown beside it in the menu (``= B:imp's Crit 2, granted by
    B:hellgate-herald's Hell's Fury``).
    """

    def __init__(
        self,
        get_game: Callable[[], Game],
        choices: Callable[[], Sequence[str]],
        meaning: Callable[[str], str] | None = None,
    ) -> None:
        self.get_game = get_game
        self.choices = choices
        self.meaning = meaning

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        typed = document.text_before_cursor
        start = -len(typed)
        seen: set[str] = set()
        for item in self.candidates(typed):
            if item not in seen and matches(typed, item):
                seen.add(item)
                meta = self.meaning(item) if self.meaning is not None else ""
                yield Completion(item, start_position=start, display_meta=meta or None)

    def candidates(self, typed: str) -> list[str]:
        words = typed.lower().split()
        game = self.get_game()
        if words and words[0] == "show" and (len(words) > 1 or typed.endswith(" ")):
            return [f"show {name}" for name in mini_names(game)]
        pending = game.pending
        if (
            len(words) + typed.endswith(" ") > 1
            and words[0] == "damage"
            and isinstance(pending, Decision)
            and pending.kind is DecisionKind.DAMAGE
        ):
            return [*self.choices(), *damage_candidates(game, pending, typed)]
        return [*self.choices(), *COMMANDS]


def mini_names(game: Game) -> list[str]:
    """Each miniature's handle, or ``A:handle`` where both players have that handle."""
    handles = [m.handle for m in game.minis]
    return [m.handle if handles.count(m.handle) == 1 else m.label for m in game.minis]


def damage_candidates(game: Game, pending: Decision, typed: str) -> list[str]:
    """``damage`` entries: the words typed so far plus one more target not yet named."""
    words = typed.split()
    done = words if typed.endswith(" ") else words[:-1]
    named = {w.partition("=")[0].lower() for w in done[1:]}
    head = " ".join(done)
    out = []
    for i in pending.targets:
        handle = game.minis[i].handle
        if handle not in named:
            out.append(f"{head} {handle}=")
    return out
