"""The warband builder: its model (``Draft``) without a terminal, then the real program
(``dbnet warband new`` / ``edit``) in tmux at 80x24."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

from prompt_toolkit.input import create_pipe_input

from dbnet.catalog import load_catalog, read_warband_list
from dbnet.console.builder import Builder, Draft, catalog_line, warband_line

from .helpers import DOWN, TAB, SizedOutput
from .tmux import Tmux


def draft(tmp_path: Path) -> Draft:
    return Draft("Pack", tmp_path / "pack.toml", load_catalog())


def test_add_remove_and_live_legality(tmp_path: Path) -> None:
    d = draft(tmp_path)
    assert d.status_lines()[-1] == "Empty: add at least one miniature."
    hound = d.catalog.get("Frenzied Gorehound")
    for _ in range(4):
        d.add(hound)
    assert d.size == 4
    assert d.status_lines()[-1] == "NOT LEGAL 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)"
    d.remove(hound)
    assert d.status_lines()[-1].startswith("Legal")
    assert d.status_lines()[0].startswith("3/16 miniatures (3 creatures), spawn costs 9 in all")
    for _ in range(4):
        d.remove(hound)
    assert d.message == "Frenzied Gorehound is not in the warband"
    assert d.counts == {}


def test_the_search_filters_the_catalog_and_keeps_results_on_a_bad_query(
    tmp_path: Path,
) -> None:
    d = draft(tmp_path)
    d.search("a:passion c:<=2 t:creature")
    assert d.results
    assert all(m.spawn_cost <= 2 and m.is_creature for m in d.results)
    kept = d.results
    d.search("a:purple")
    assert d.results == kept
    assert "no aspect 'purple'" in d.message


def test_channel_and_the_save(tmp_path: Path) -> None:
    d = draft(tmp_path)
    assert not d.save()
    assert d.message == "not saved: the warband is empty"
    d.add(d.catalog.get("Crucible of Fury"))
    assert any(line.startswith("Channel 1 (Crucible of Fury)") for line in d.status_lines())
    assert d.save()
    assert not d.modified
    assert read_warband_list(d.path, d.catalog).entries == ((d.catalog.get("Crucible of Fury"), 1),)


def test_lines_fit_their_half_of_80_columns() -> None:
    catalog = load_catalog()
    longest = max(catalog.minis, key=lambda m: len(m.name))
    assert len(catalog_line(longest, 3, 39)) <= 39
    assert len(warband_line(longest, 3, 40)) <= 40


def test_builder_in_a_real_terminal(tmux: Tmux, tmp_path: Path) -> None:
    """New warband at 80x24: search, add past the copy limit (the breach shows), remove
    from the warband side, save, quit; the file checks and opens again with edit."""
    command = [sys.executable, "-m", "dbnet", "warband", "new", "Test", "Band"]
    tmux.type(shlex.join(command) + "; echo EXIT=$?")
    tmux.keys("Enter")
    tmux.wait_for("Warband builder: Test Band (test-band.toml)")
    tmux.keys("/")
    tmux.type("gorehound")
    tmux.wait_for("Catalog (1)")
    tmux.keys("Enter", "Enter", "Enter", "Enter", "Enter")
    tmux.wait_for("NOT LEGAL 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)")
    tmux.keys("Tab", "-")
    pane = tmux.wait_for("Legal: at most 16 miniatures (600.1)")
    assert "3 Frenzied Gorehound" in pane
    assert all(len(line) <= 80 for line in pane.splitlines())
    tmux.keys("C-q")
    tmux.wait_for("Ctrl-Q again quits without saving")
    tmux.keys("C-s")
    tmux.wait_for("saved test-band.toml")
    tmux.keys("C-q")
    tmux.wait_for("EXIT=0")
    listed = read_warband_list(tmp_path / "test-band.toml", load_catalog())
    assert [(m.name, n) for m, n in listed.entries] == [("Frenzied Gorehound", 3)]

    tmux.type(shlex.join([sys.executable, "-m", "dbnet", "warband", "edit", "test-band.toml"]))
    tmux.keys("Enter")
    tmux.wait_for("Warband (3/16)")
    tmux.keys("C-q")
    tmux.wait_for("EXIT=0")


def test_keys_typed_ahead_never_reach_past_the_warband(tmp_path: Path) -> None:
    """Two removals typed before the screen is drawn again: the first takes the last entry
    away under the cursor, and the second removes the entry now under it, where it once
    reached past the list (IndexError, and the builder died)."""

    async def scenario() -> tuple[int, dict[str, int]]:
        d = draft(tmp_path)
        with create_pipe_input() as pipe:
            builder = Builder(d, input=pipe, output=SizedOutput(80, 24), colour=False)
            task = asyncio.create_task(builder.app.run_async())
            await asyncio.sleep(0.2)
            pipe.send_text("a" + DOWN + "a")  # two different miniatures from the catalog
            await asyncio.sleep(0.2)
            pipe.send_text(TAB + DOWN)  # to the warband, on its second entry
            await asyncio.sleep(0.2)
            assert builder.warband_cursor == 1, builder.warband_cursor
            pipe.send_text("dd")  # both read before the next draw
            await asyncio.sleep(0.3)
            counts = dict(d.counts)
            builder.app.exit(result=0)
            return await asyncio.wait_for(task, 5), counts

    code, counts = asyncio.run(scenario())
    assert code == 0
    assert counts == {}  # the second entry, then the first
