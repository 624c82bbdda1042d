"""The warband builder: a full-screen editor of one warband file (``dbnet warband new``
and ``dbnet warband edit``).

The catalog is on the left, searched as you type (``construction.parse_query``: words
match names, ``a:`` aspect, ``c:`` cost, ``t:`` type, ``k:`` keyword); the warband is on
the right; below them its counts, costs and legality, from the one check of rule 600 a
game's start makes (``WarbandList.breaches``), updated on every key. Saving writes the
file atomically (``save_warband``).

``Draft`` holds everything the screen shows and does, with no prompt-toolkit in it, so
that it is tested without a terminal; ``Builder`` draws it and maps keys to it.

A Limited game's build (docs/limited.md) opens the same screen on a ``PoolDraft``
(``run_pool_builder``): the pool instead of the catalog, with the copies left, a time
limit in the title, and Enter or Ctrl-S committing a legal warband.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    BufferControl,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from dbnet.catalog import Catalog, WarbandList, save_warband
from dbnet.catalog.construction import (
    ASPECT_WORDS,
    QUERY_HELP,
    Query,
    aspect_summary,
    channels,
    cost_label,
    parse_query,
    range_label,
)
from dbnet.console import screen
from dbnet.console.fullscreen import application
from dbnet.engine.game import MAX_COPIES, MAX_WARBAND
from dbnet.engine.limited import limited_breaches
from dbnet.engine.model import MiniatureDef
from dbnet.errors import DataError

QUIT_KEYS = "Ctrl-Q"
HELP = "Tab: switch  Enter/+: add  -/Del: remove  /: search  Ctrl-S: save  Ctrl-Q: quit"


@dataclass
class Draft:
    """A warband being built: its name, file, miniatures and copies, the catalog search,
    and the message of the last action."""

    name: str
    path: Path
    catalog: Catalog
    counts: dict[str, int] = field(default_factory=dict)
    """Copies of each miniature, by slug, in the order they were first added."""
    query: Query = field(default_factory=Query)
    results: list[MiniatureDef] = field(default_factory=list)
    message: str = ""
    modified: bool = False

    commits = False
    """Whether saving commits (a Limited build, ``PoolDraft``) and ends the builder."""
    help = HELP

    def __post_init__(self) -> None:
        self.results = list(self.catalog.minis)

    def title(self) -> str:
        mark = " [modified]" if self.modified else ""
        return f" Warband builder: {self.name} ({self.path}){mark}"

    def catalog_line(self, mini: MiniatureDef, width: int) -> str:
        return catalog_line(mini, self.counts.get(mini.slug, 0), width)

    def searched(self) -> Sequence[MiniatureDef]:
        """What the search looks through."""
        return self.catalog.minis

    @classmethod
    def from_list(cls, listed: WarbandList, path: Path, catalog: Catalog) -> Draft:
        draft = cls(listed.name, path, catalog)
        for mini, count in listed.entries:
            draft.counts[mini.slug] = draft.counts.get(mini.slug, 0) + count
        return draft

    # --- the warband ----------------------------------------------------------------

    @property
    def entries(self) -> list[tuple[MiniatureDef, int]]:
        return [(self.catalog.get(slug), n) for slug, n in self.counts.items()]

    @property
    def listed(self) -> WarbandList:
        return WarbandList(self.name, tuple(self.entries))

    @property
    def size(self) -> int:
        return sum(self.counts.values())

    def add(self, mini: MiniatureDef) -> None:
        """One more copy of ``mini``: allowed even past a limit, which the screen then shows
        as a breach (the check is the game's own)."""
        self.counts[mini.slug] = self.counts.get(mini.slug, 0) + 1
        self.modified = True
        self.message = f"added {mini.name} ({self.counts[mini.slug]} now)"

    def remove(self, mini: MiniatureDef) -> None:
        """One copy fewer of ``mini`` (its line goes at none)."""
        count = self.counts.get(mini.slug, 0)
        if not count:
            self.message = f"{mini.name} is not in the warband"
            return
        if count == 1:
            del self.counts[mini.slug]
        else:
            self.counts[mini.slug] = count - 1
        self.modified = True
        self.message = f"removed {mini.name} ({count - 1} left)"

    def status_lines(self) -> list[str]:
        """The counts, costs and legality: what the screen shows under the lists."""
        entries = self.entries
        spawn = sum(m.spawn_cost * n for m, n in entries)
        creatures = sum(n for m, n in entries if m.is_creature)
        aspects = ", ".join(
            f"{ASPECT_WORDS[line.aspect]} {line.members} (needs {line.most})"
            for line in aspect_summary(entries)
        )
        lines = [
            f"{self.size}/{MAX_WARBAND} miniatures ({creatures} creatures), spawn costs "
            f"{spawn} in all; aspects (600.2): {aspects or 'none'}"
        ]
        if not entries:
            lines.append("Empty: add at least one miniature.")
            return lines
        for mini, ability in channels(entries):
            which = f"{ability.modifier} miniatures" if ability.modifier else "miniatures"
            lines.append(
                f"Channel {ability.x or 0} ({mini.name}) in play: {which} cost "
                f"{ability.x or 0} less, aspect shortfall included, at least 0 (900.8)"
            )
        breaches = self.listed.breaches()
        if breaches:
            lines += [f"NOT LEGAL {b}" for b in breaches]
        else:
            lines.append(
                f"Legal: at most {MAX_WARBAND} miniatures (600.1), at most {MAX_COPIES} "
                "copies of each (600.3)"
            )
        return lines

    # --- the catalog search ---------------------------------------------------------

    def search(self, text: str) -> None:
        """Show the catalog's miniatures that match ``text``; a query that means nothing
        keeps the last results and says why."""
        try:
            self.query = parse_query(text)
        except DataError as exc:
            self.message = str(exc)
            return
        self.results = [m for m in self.searched() if self.query.matches(m)]
        self.message = f"{len(self.results)} miniatures match" if text.strip() else ""

    # --- saving ---------------------------------------------------------------------

    def save(self) -> bool:
        """Write the file atomically; False (and the message says why) if it is not
        written. A warband with a breach is saved too (and the message says so), since a
        half-made warband is worth keeping; an empty one is not (no file can hold it)."""
        if not self.counts:
            self.message = "not saved: the warband is empty"
            return False
        try:
            save_warband(self.path, self.name, self.entries)
        except DataError as exc:
            self.message = f"not saved: {exc}"
            return False
        self.modified = False
        breaches = self.listed.breaches()
        self.message = f"saved {self.path}" + (
            f" (not legal yet: {breaches[0]})" if breaches else ""
        )
        return True


LIMITED_HELP = "Tab: switch  +: add  -: remove  /: search  Enter/Ctrl-S: commit  Ctrl-Q: leave"


class PoolDraft(Draft):
    """A Limited warband built from a pool (docs/limited.md): the catalog side lists the
    pool's miniatures with the copies left, no more copies than the pool holds can be
    added, and saving commits a legal warband (600.6 and the rules of 600). The last legal
    warband is kept (``last_legal``): it is committed if the time runs out."""

    commits = True
    help = LIMITED_HELP

    def __init__(
        self, pool: Sequence[MiniatureDef], catalog: Catalog, *, seconds: float, label: str
    ) -> None:
        self.pool = tuple(pool)
        self.kinds = {m.slug: m for m in self.pool}
        self.held = Counter(m.slug for m in self.pool)
        self.deadline = time.monotonic() + seconds
        self.label = label
        self.last_legal: tuple[MiniatureDef, ...] | None = None
        self.committed: tuple[MiniatureDef, ...] | None = None
        super().__init__("Limited warband", Path(), catalog)

    def __post_init__(self) -> None:
        self.results = list(self.kinds.values())

    def searched(self) -> Sequence[MiniatureDef]:
        return list(self.kinds.values())

    @property
    def entries(self) -> list[tuple[MiniatureDef, int]]:
        return [(self.kinds[slug], n) for slug, n in self.counts.items()]

    def minis(self) -> tuple[MiniatureDef, ...]:
        """The warband, one entry per copy, in the order added."""
        return tuple(m for m, n in self.entries for _ in range(n))

    def seconds_left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def title(self) -> str:
        left = int(self.seconds_left() + 0.999)
        return (
            f" {self.label}: {len(self.pool)} in your pool; {left // 60}:{left % 60:02d} "
            "left to commit"
        )

    def catalog_line(self, mini: MiniatureDef, width: int) -> str:
        stats = f"{mini.power}/{mini.defense}/{mini.life}" if mini.is_creature else "loc"
        held = self.held[mini.slug]
        left = f"{held - self.counts.get(mini.slug, 0)}/{held}"
        return _fit(f"{cost_label(mini):<7}{stats:<8}{left:<4} {mini.name}", width)

    def add(self, mini: MiniatureDef) -> None:
        held = self.held[mini.slug]
        if self.counts.get(mini.slug, 0) >= held:
            copies = "copy" if held == 1 else "copies"
            self.message = f"not added: your pool holds {held} {copies} of {mini.name} (600.6)"
            return
        super().add(mini)
        self._remember()

    def remove(self, mini: MiniatureDef) -> None:
        super().remove(mini)
        self._remember()

    def breaches(self) -> list[str]:
        minis = self.minis()
        if not minis:
            return ["the warband is empty"]
        return [str(b) for b in limited_breaches(minis, self.pool)]

    def _remember(self) -> None:
        if not self.breaches():
            self.last_legal = self.minis()

    def status_lines(self) -> list[str]:
        lines = super().status_lines()
        breaches = self.breaches()
        if self.counts and breaches and not any(x.startswith("NOT LEGAL") for x in lines):
            lines = [x for x in lines if not x.startswith("Legal")]
            lines.append(f"NOT LEGAL {breaches[0]}")
        return lines

    def save(self) -> bool:
        """Commit the warband if it is legal; else say why not."""
        breaches = self.breaches()
        if breaches:
            self.message = f"not committed: {breaches[0]}"
            return False
        self.committed = self.minis()
        self.message = "committed"
        return True


def catalog_line(mini: MiniatureDef, copies: int, width: int) -> str:
    """``' 2 P   1/2/3   x2 Frenzied Gorehound'``: cost, stats, copies in the warband, name."""
    stats = f"{mini.power}/{mini.defense}/{mini.life}" if mini.is_creature else "loc"
    have = f"x{copies}" if copies else "  "
    return _fit(f"{cost_label(mini):<7}{stats:<8}{have} {mini.name}", width)


def warband_line(mini: MiniatureDef, copies: int, width: int) -> str:
    """``'3 Frenzied Gorehound  2 P  pays 2-3'``."""
    pays = range_label(mini)
    head = f"{copies} "
    tail = f" {cost_label(mini):<7}{pays:>5}"
    room = width - len(head) - len(tail)
    name = mini.name if len(mini.name) <= room else mini.name[: max(room - 1, 0)] + "~"
    return f"{head}{name:<{max(room, 0)}}{tail}"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "~"


class Builder:
    """The full-screen builder over a ``Draft``."""

    def __init__(
        self,
        draft: Draft,
        *,
        input: Input | None = None,
        output: Output | None = None,
        colour: bool | None = None,
    ) -> None:
        self.draft = draft
        self.catalog_cursor = 0
        self.warband_cursor = 0
        self.quit_asked = False
        self.search_buffer = Buffer(multiline=False, name="search")
        self.search_buffer.on_text_changed += self._on_search
        self.catalog_window = screen.cursor_list(self._catalog_text, lambda: self.catalog_cursor)
        self.warband_window = screen.cursor_list(self._warband_text, lambda: self.warband_cursor)
        body = HSplit(
            [
                Window(FormattedTextControl(self._top_text), height=1, style="class:topbar"),
                VSplit(
                    [
                        Window(FormattedTextControl([("class:label", "Search: ")]), width=8),
                        Window(BufferControl(self.search_buffer), height=1),
                    ],
                    height=1,
                ),
                VSplit(
                    [
                        HSplit(
                            [
                                Window(FormattedTextControl(self._catalog_heading), height=1),
                                self.catalog_window,
                            ],
                            width=lambda: Dimension.exact(self._half()),
                        ),
                        Window(width=1, char="|", style="class:border"),
                        HSplit(
                            [
                                Window(FormattedTextControl(self._warband_heading), height=1),
                                self.warband_window,
                            ]
                        ),
                    ],
                    height=Dimension(min=5),
                ),
                Window(
                    FormattedTextControl(self._status_text),
                    height=Dimension(min=2, max=6),
                    wrap_lines=True,
                ),
                Window(FormattedTextControl(self._message_text), height=1),
            ]
        )
        self.app: Application[int] = application(
            Layout(screen.fitted(body, self._size, QUIT_KEYS), focused_element=self.catalog_window),
            self._key_bindings(),
            colour=colour,
            input=input,
            output=output,
        )

    def _size(self) -> tuple[int, int]:
        return screen.terminal_size(self.app)

    def _half(self) -> int:
        return max(20, (self._size()[0] - 1) // 2)

    # --- drawing --------------------------------------------------------------------

    def _top_text(self) -> StyleAndTextTuples:
        return [("", _fit(self.draft.title(), 200))]

    def _catalog_heading(self) -> StyleAndTextTuples:
        style = "class:panel.heading" + (" reverse" if self._focused(self.catalog_window) else "")
        return [(style, f"Catalog ({len(self.draft.results)})")]

    def _warband_heading(self) -> StyleAndTextTuples:
        style = "class:panel.heading" + (" reverse" if self._focused(self.warband_window) else "")
        return [(style, f"Warband ({self.draft.size}/{MAX_WARBAND})  N NAME  COST  PAYS")]

    def _catalog_text(self) -> StyleAndTextTuples:
        width = self._half()
        if not self.draft.results:
            return [("class:dim", "(nothing matches)")]
        self.catalog_cursor = min(self.catalog_cursor, len(self.draft.results) - 1)
        out: StyleAndTextTuples = []
        for i, mini in enumerate(self.draft.results):
            line = self.draft.catalog_line(mini, width)
            selected = i == self.catalog_cursor and self._focused(self.catalog_window)
            out.append(("class:choice.selected" if selected else "", line + "\n"))
        return out

    def _warband_selected(self) -> MiniatureDef | None:
        """The miniature of the warband entry under the cursor, or None when the warband is
        empty. The cursor is kept on the list first: a removal shortens it, and keys typed
        ahead are read before the screen is drawn again."""
        entries = self.draft.entries
        if not entries:
            return None
        self.warband_cursor = min(self.warband_cursor, len(entries) - 1)
        return entries[self.warband_cursor][0]

    def _warband_text(self) -> StyleAndTextTuples:
        width = self._size()[0] - self._half() - 1
        entries = self.draft.entries
        if not entries:
            adds = "+" if self.draft.commits else "Enter"
            return [("class:dim", f"(empty: {adds} adds from the catalog)")]
        self.warband_cursor = min(self.warband_cursor, len(entries) - 1)
        out: StyleAndTextTuples = []
        for i, (mini, n) in enumerate(entries):
            selected = i == self.warband_cursor and self._focused(self.warband_window)
            style = "class:choice.selected" if selected else ""
            if n > MAX_COPIES:
                style += " class:status.error"
            out.append((style, warband_line(mini, n, width) + "\n"))
        return out

    def _status_text(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for line in self.draft.status_lines():
            style = ""
            if line.startswith("NOT LEGAL"):
                style = "class:status.error"
            elif line.startswith("Legal"):
                style = "class:status.info"
            out.append((style, line + "\n"))
        return out

    def _message_text(self) -> StyleAndTextTuples:
        if self.draft.message:
            return [("class:status.hint", self.draft.message)]
        if self._focused_search():
            return [("class:status.hint", QUERY_HELP)]
        return [("class:status.hint", self.draft.help)]

    def _focused(self, window: Window) -> bool:
        return self.app.layout.has_focus(window) if hasattr(self, "app") else False

    def _focused_search(self) -> bool:
        return hasattr(self, "app") and self.app.layout.has_focus(self.search_buffer)

    # --- keys -----------------------------------------------------------------------

    def _on_search(self, _: Buffer) -> None:
        self.draft.search(self.search_buffer.text)
        self.catalog_cursor = 0

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        in_catalog = has_focus(self.catalog_window)
        in_warband = has_focus(self.warband_window)
        in_search = has_focus(self.search_buffer)
        in_lists = in_catalog | in_warband
        editing = Condition(lambda: not self.draft.commits)
        committing = Condition(lambda: self.draft.commits)

        @kb.add("c-q")
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            if self.draft.commits:
                event.app.exit(result=1)  # the caller commits the last legal warband
                return
            if self.draft.modified and not self.quit_asked:
                self.quit_asked = True
                self.draft.message = "not saved: Ctrl-S saves, Ctrl-Q again quits without saving"
                return
            event.app.exit(result=0)

        @kb.add("c-s")
        @kb.add("enter", filter=in_lists & committing)
        def _save(event: KeyPressEvent) -> None:
            self.quit_asked = False
            if self.draft.save() and self.draft.commits:
                event.app.exit(result=0)

        @kb.add("tab")
        def _next(event: KeyPressEvent) -> None:
            layout = event.app.layout
            if layout.has_focus(self.search_buffer):
                layout.focus(self.catalog_window)
            elif layout.has_focus(self.catalog_window):
                layout.focus(self.warband_window)
            else:
                layout.focus(self.search_buffer)

        @kb.add("/", filter=in_lists)
        def _search(event: KeyPressEvent) -> None:
            event.app.layout.focus(self.search_buffer)

        @kb.add("enter", filter=in_search)
        @kb.add("down", filter=in_search)
        @kb.add("escape", filter=in_search)
        def _to_catalog(event: KeyPressEvent) -> None:
            event.app.layout.focus(self.catalog_window)

        @kb.add("up", filter=in_catalog)
        def _up(event: KeyPressEvent) -> None:
            if self.catalog_cursor == 0:
                event.app.layout.focus(self.search_buffer)
            self.catalog_cursor = max(0, self.catalog_cursor - 1)

        @kb.add("down", filter=in_catalog)
        def _down(event: KeyPressEvent) -> None:
            self.catalog_cursor = min(len(self.draft.results) - 1, self.catalog_cursor + 1)

        @kb.add("pageup", filter=in_catalog)
        def _page_up(event: KeyPressEvent) -> None:
            self.catalog_cursor = max(0, self.catalog_cursor - 10)

        @kb.add("pagedown", filter=in_catalog)
        def _page_down(event: KeyPressEvent) -> None:
            self.catalog_cursor = min(len(self.draft.results) - 1, self.catalog_cursor + 10)

        @kb.add("enter", filter=in_catalog & editing)
        @kb.add("+", filter=in_catalog)
        @kb.add("a", filter=in_catalog)
        def _add(event: KeyPressEvent) -> None:
            if self.draft.results:
                self.quit_asked = False
                self.draft.add(self.draft.results[self.catalog_cursor])

        @kb.add("-", filter=in_catalog)
        @kb.add("delete", filter=in_catalog)
        def _remove_selected(event: KeyPressEvent) -> None:
            if self.draft.results:
                self.draft.remove(self.draft.results[self.catalog_cursor])

        @kb.add("up", filter=in_warband)
        def _wb_up(event: KeyPressEvent) -> None:
            self.warband_cursor = max(0, self.warband_cursor - 1)

        @kb.add("down", filter=in_warband)
        def _wb_down(event: KeyPressEvent) -> None:
            self.warband_cursor = max(0, min(len(self.draft.counts) - 1, self.warband_cursor + 1))

        @kb.add("+", filter=in_warband)
        @kb.add("enter", filter=in_warband & editing)
        def _wb_add(event: KeyPressEvent) -> None:
            selected = self._warband_selected()
            if selected is not None:
                self.draft.add(selected)

        @kb.add("-", filter=in_warband)
        @kb.add("delete", filter=in_warband)
        @kb.add("d", filter=in_warband)
        def _wb_remove(event: KeyPressEvent) -> None:
            selected = self._warband_selected()
            if selected is not None:
                self.draft.remove(selected)

        @kb.add("escape", filter=in_lists & Condition(lambda: bool(self.draft.message)))
        def _clear(event: KeyPressEvent) -> None:
            self.draft.message = ""

        return kb

    def run(self) -> int:
        """Until the person quits (or commits); a ``PoolDraft`` ends with exit code 2 when
        its time runs out."""
        if isinstance(self.draft, PoolDraft):
            return self.app.run(pre_run=self._start_timer)
        return self.app.run()

    def _start_timer(self) -> None:
        self.app.create_background_task(self._timer())

    async def _timer(self) -> None:
        """Redraw the time left each second; end the builder when it is up."""
        draft = self.draft
        assert isinstance(draft, PoolDraft)
        while draft.seconds_left() > 0:
            await asyncio.sleep(min(1.0, draft.seconds_left()))
            self.app.invalidate()
        self.app.exit(result=2)


def run_pool_builder(
    pool: Sequence[MiniatureDef], catalog: Catalog, *, seconds: float, label: str
) -> tuple[tuple[MiniatureDef, ...] | None, str]:
    """Open the builder on ``pool`` for ``seconds``: the warband committed (Enter or
    Ctrl-S on a legal one), else the last legal one (the time ran out, or the person
    left), else None (the caller commits the automatic build); and a line saying which."""
    draft = PoolDraft(pool, catalog, seconds=seconds, label=label)
    return _pool_result(draft, Builder(draft).run())


async def run_pool_builder_async(
    pool: Sequence[MiniatureDef], catalog: Catalog, *, seconds: float, label: str
) -> tuple[tuple[MiniatureDef, ...] | None, str]:
    """``run_pool_builder`` on the running event loop (the network client runs it in
    the terminal of its suspended game screen)."""
    draft = PoolDraft(pool, catalog, seconds=seconds, label=label)
    builder = Builder(draft)
    return _pool_result(draft, await builder.app.run_async(pre_run=builder._start_timer))


def _pool_result(draft: PoolDraft, code: int) -> tuple[tuple[MiniatureDef, ...] | None, str]:
    if draft.committed is not None:
        return draft.committed, "You committed your warband."
    why = "Build time is up" if code == 2 else "You left the builder"
    if draft.last_legal is not None:
        return draft.last_legal, f"{why}: committing the last legal warband you built."
    return None, f"{why}: committing the automatic build."


def run_builder(listed: WarbandList, path: Path, catalog: Catalog) -> int:
    """Open the builder on ``listed`` (saved to ``path``) until the person quits."""
    return Builder(Draft.from_list(listed, path, catalog)).run()
