"""The full-screen client in-process: keys typed through a pipe, the screen read back."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Callable

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from dbnet.console.app import ConsoleApp
from dbnet.console.completion import matches
from dbnet.console.fullscreen import EXIT_ERROR
from dbnet.console.launch import default_setup
from dbnet.console.screen import Tab
from dbnet.console.session import LocalSession, LogKind
from dbnet.console.view import NARROW_CELL, compact_token, reserve_entries
from dbnet.engine import Choice, Decision, DecisionKind, Player, Zone
from dbnet.engine.board import parse_cell
from dbnet.engine.keywords import explain
from dbnet.interrupts import EXIT_INTERRUPTED
from dbnet.match.decision_help import describe_mini
from dbnet.match.local import LocalGame
from dbnet.match.render import short_names
from dbnet.replay.saved import resume_play_command
from dbnet.replay.verify import VerdictStatus, verify_replay

from .helpers import (
    CTRL_C,
    CTRL_Q,
    CTRL_U,
    DOWN,
    ENTER,
    F3,
    F4,
    F5,
    PAGE_DOWN,
    PAGE_UP,
    SEED,
    TAB,
    UP,
    Driver,
    SizedOutput,
    bot_session,
    run,
    running,
)


def mini_id(driver: Driver, handle: str, owner: Player = Player.A) -> int:
    game = driver.session.game
    return next(m.id for m in game.minis if m.handle == handle and m.owner is owner)


def first_spawn(driver: Driver) -> tuple[str, int]:
    """The first legal spawn in A's portal, e1: the entry and the miniature's id."""
    entry = next(i for i in driver.console.choice_items() if re.fullmatch(r"spawn \S+ e1", i))
    return entry, mini_id(driver, entry.split()[1])


def twins(driver: Driver) -> tuple[str, list[str]]:
    """A miniature A may spawn two copies of: what to type for it ('sp vang') and the two
    legal spawns in e1 that it completes to."""
    spawns = [i for i in driver.console.choice_items() if re.fullmatch(r"spawn \S+#\d e1", i)]
    for entry in spawns:
        slug = entry.split()[1].partition("#")[0]
        both = [i for i in spawns if i.split()[1].partition("#")[0] == slug]
        if len(both) == 2 and all(matches(f"sp {slug[:4]}", i) == (i in both) for i in spawns):
            return f"sp {slug[:4]}", both
    raise AssertionError(f"no two copies to spawn among {spawns}")


@run
async def test_legal_entry_is_applied_and_drawn() -> None:
    async with running() as d:
        entry, mini = first_spawn(d)
        game = d.session.game
        token = compact_token(game.minis[mini], short_names(game)[mini], NARROW_CELL)
        assert token not in d.screen()
        await d.keys(entry + ENTER)
        await d.wait_for(lambda: game.minis[mini].zone is Zone.DREAMSCAPE, "spawn")
        assert game.minis[mini].cell == parse_cell("e1")
        assert d.console.buffer.text == ""
        screen = d.screen()
        row1 = next(line for line in screen.splitlines() if line.startswith("1 |"))
        assert row1.split("|")[5].strip() == token  # column e of row 1
        assert f"A {entry}" in screen  # the log
        assert f"Played: {entry}" in screen


@run
async def test_illegal_entry_is_explained_and_changes_nothing() -> None:
    async with running() as d:
        before = d.session.game.state_hash()
        log = len(d.session.log)
        entry, mini = first_spawn(d)
        handle = d.session.game.minis[mini].handle
        wrong = entry.replace(" e1", " a1")  # not a portal, no ally in column a (801.5)
        await d.keys(wrong + ENTER)
        # what was wrong and what is legal, in words; the rule numbers last
        message = d.console.message
        assert message.startswith(
            f"Not played: you cannot {wrong}: A:{handle} can't be spawned in a1: a creature "
            "goes to your portal, or to a cell of your spawn row"
        )
        assert f"; legal: {entry}" in message
        assert message.endswith(" (rules 801.5, 801.6)")
        assert d.session.game.state_hash() == before
        assert len(d.session.log) == log
        assert d.console.buffer.text == wrong  # still there to edit
        assert f"Not played: you cannot {wrong}" in " ".join(d.screen().split())
        # the entry is fixed in place and played
        await d.keys("\x7f\x7f" + "e1" + ENTER)
        await d.wait_for(lambda: d.session.game.minis[mini].zone is Zone.DREAMSCAPE, "spawn")


@run
async def test_malformed_entry_is_explained() -> None:
    async with running() as d:
        before = d.session.game.state_hash()
        await d.keys("spawn nonsense e1" + ENTER)
        assert d.console.message.startswith(
            "Not played: you cannot spawn nonsense e1: 'nonsense' names no miniature of A in "
            "reserves; legal: spawn "
        )
        await d.keys(CTRL_U + "fly away" + ENTER)
        assert d.console.message.startswith(
            "Not played: you cannot fly away: 'fly away' does not fit a spawn decision"
        )
        assert "; legal: spawn " in d.console.message
        assert d.session.game.state_hash() == before


@run
async def test_tab_completes_the_legal_choices() -> None:
    async with running() as d:
        typed, both = twins(d)
        await d.keys(typed + TAB)
        await d.wait_for(lambda: d.console.buffer.complete_state is not None, "the menu")
        state = d.console.buffer.complete_state
        assert state is not None
        offered = [c.text for c in state.completions]
        assert offered == both
        await d.keys(TAB)  # the first completion goes into the entry
        await d.wait_for(lambda: d.console.buffer.text == both[0], "completion")
        assert both[1] in d.screen()  # the menu is drawn


@run
async def test_one_enter_plays_a_completion_picked_in_the_menu() -> None:
    async with running() as d:
        typed, both = twins(d)
        await d.keys(typed + TAB)
        await d.wait_for(lambda: d.console.buffer.complete_state is not None, "the menu")
        await d.keys(DOWN + DOWN)  # the menu's second entry
        assert d.console.buffer.text == both[1]
        await d.keys(ENTER)  # one Enter: the menu closes and the entry is played
        assert d.console.buffer.complete_state is None
        await d.wait_for(
            lambda: any(line.notation == both[1] for line in d.session.log), "the spawn"
        )


@run
async def test_tab_on_an_empty_entry_offers_every_legal_choice() -> None:
    async with running() as d:
        await d.keys(TAB)
        await d.wait_for(lambda: d.console.buffer.complete_state is not None, "the menu")
        state = d.console.buffer.complete_state
        assert state is not None
        offered = [c.text for c in state.completions]
        legal = d.console.choice_items()
        assert offered[: len(legal)] == legal
        assert "help" in offered
        assert "quit" in offered


@run
async def test_arrow_keys_pick_a_legal_choice() -> None:
    async with running() as d:
        items = d.console.choice_items()
        assert len(items) > 2
        await d.keys(DOWN)
        assert d.console.buffer.text == items[0]
        assert d.console.tab is Tab.CHOICES
        await d.keys(DOWN + DOWN + UP)
        assert d.console.buffer.text == items[1]
        assert d.console.selected == 1
        await d.keys(UP + UP)  # wraps around to the last
        assert d.console.buffer.text == items[-1]
        await d.keys(DOWN + DOWN)
        played = d.console.buffer.text
        assert played == items[1]
        await d.keys(ENTER)
        await d.wait_for(lambda: any(line.notation == played for line in d.session.log), "play")


@run
async def test_done_asks_first() -> None:
    async with running() as d:
        before = d.session.game.state_hash()
        points = d.session.game.spawn_points
        await d.keys("done" + ENTER)
        assert d.console.confirm is not None
        screen = d.screen()
        assert f"End your spawn phase? {points} spawn points left will be lost" in screen
        assert "(rule 801.9)." in screen
        assert "[y] yes   [n] no" in screen
        await d.keys("n")
        assert d.console.confirm is None
        assert d.session.game.state_hash() == before
        assert d.console.buffer.text == "done"  # not typed into: the dialog had the keys
        await d.keys(ENTER)
        await d.keys("y")
        await d.wait_for(lambda: any(line.notation == "done" for line in d.session.log), "done")


@run
async def test_shift_and_strike_need_no_confirmation() -> None:
    async with running() as d:
        await d.keys(first_spawn(d)[0] + ENTER)
        await d.ready()
        await d.keys("done" + ENTER + "y")
        await d.wait_for(
            lambda: (
                isinstance(d.session.game.pending, Decision)
                and d.session.game.pending.kind is DecisionKind.ACTION
                and d.session.local_player() is Player.A
            ),
            "A's action phase",
        )
        await d.keys("shift" + ENTER)
        assert d.console.confirm is None
        await d.wait_for(lambda: any(line.notation == "shift" for line in d.session.log), "shift")


@run
async def test_help_explains_the_current_step() -> None:
    async with running() as d:
        await d.keys("help" + ENTER)
        assert d.console.tab is Tab.HELP
        screen = d.screen()
        assert "Spawn phase: spend" in screen  # the panel wraps it
        assert d.console.buffer.text == ""


@run
async def test_show_a_card() -> None:
    async with running(columns=120, rows=40) as d:
        await d.keys("show rallying" + ENTER)  # a spawn ability, explained in words
        assert d.console.tab is Tab.CARD
        game = d.session.game
        beacon = game.minis[mini_id(d, "rallying-beacon")]
        card = describe_mini(game, beacon)
        assert card[0].startswith("A:rallying-beacon: Rallying Beacon (location")
        panel = " ".join(" ".join(line[79:] for line in d.screen().splitlines()).split())
        assert "A:rallying-beacon" in panel
        assert f"spawn cost {beacon.defn.spawn_cost}," in panel
        advance = beacon.abilities[0]
        assert f"Advance 2 (spawn ability: {advance.spawn_cost} spawn point" in panel
        assert explain(advance) in panel  # what it does in plain words
        assert "'activate rallying-beacon advance'" in panel  # and how to use it
        await d.keys("show nobody" + ENTER)
        assert d.console.message == "No miniature in this game is called 'nobody'."
        await d.keys(CTRL_U + "show B:ashmaw" + ENTER)
        assert d.console.card
        assert game.minis[d.console.card[0]].label == "B:ashmaw-brute"


def current_tab(d: Driver) -> Tab:
    return d.console.tab


@run
async def test_panels_switch_with_function_keys() -> None:
    async with running() as d:
        await d.keys(F4)
        assert current_tab(d) is Tab.GRAVES
        assert "A graveyard" in d.screen()
        await d.keys(F3)
        assert current_tab(d) is Tab.RESERVES
        assert f"A reserves ({d.session.game.spawn_points} pts)" in d.screen()


@run
async def test_page_keys_scroll_the_panel() -> None:
    async with running() as d:
        assert "Saving the replay to" in d.console.message
        await d.keys("x\x7f")  # typing clears the welcome line, giving its room to the panel
        assert not d.console.message
        await d.keys(F3)
        heading = f"A reserves ({d.session.game.spawn_points} pts)"
        dearest = reserve_entries(d.session.game, Player.B)[-1].handle[:12]  # B's last line
        panel = [line[59:] for line in d.screen().splitlines()]
        assert panel[2] == heading
        assert not any(dearest in line for line in panel)  # below, at 80x24
        await d.keys(PAGE_DOWN)
        assert d.console.panel_top > 0
        panel = [line[59:] for line in d.screen().splitlines()]
        assert heading not in panel
        assert any(dearest in line for line in panel)
        await d.keys(PAGE_UP)
        assert d.console.panel_top == 0
        assert [line[59:] for line in d.screen().splitlines()][2] == heading


@run
async def test_quit_asks_and_exits() -> None:
    async with running() as d:
        await d.keys(CTRL_Q)
        assert d.console.confirm is not None
        assert "Quit? The game is saved: you can go on with it later." in d.screen()
        await d.keys("n")
        assert d.task is not None
        assert not d.task.done()
        await d.keys("quit" + ENTER)
        assert d.console.confirm is not None
        await d.keys("y")
        assert await d.finish() == 0
        path = d.session.replay_path
        assert path is not None
        assert d.console.closing_words == [
            "Game left unfinished; it is saved and can be resumed.",
            f"Replay saved (unfinished): {path}",
            f"Go on with it: {resume_play_command(path, SEED)}",
        ]
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.status is VerdictStatus.UNFINISHED, verdict.summary()


@run
async def test_ctrl_c_exits_at_once() -> None:
    async with running() as d:
        await d.keys(CTRL_C)
        assert await d.finish() == EXIT_INTERRUPTED


@run
async def test_resign_ends_the_game() -> None:
    async with running() as d:
        await d.keys("resign" + ENTER)
        assert d.session.game.winner is None
        await d.keys("y")
        game = d.session.game
        assert game.is_over
        assert game.winner is Player.B
        assert "B wins: A resigned." in d.screen()
        assert d.console.message.startswith("You lose. B wins: A resigned.")
        await d.keys(F5)
        assert "Score by turn" in d.screen()
        await d.keys("spawn lantern-page e1" + ENTER)
        assert d.console.message.startswith("The game is over")
        await d.keys(CTRL_U + "quit" + ENTER)  # no question once the game is over
        assert await d.finish() == 0
        assert d.console.closing_words[0].startswith("The game is over. B wins")


@run
async def test_hotseat_hands_the_keyboard_over() -> None:
    session = LocalSession.hotseat_game(default_setup(), seed=3)
    async with running(session) as d:
        first = d.session.local_player()
        assert first is not None
        assert f"\n{first.name}>" in d.screen()
        assert f"{first.name}, your decision" in d.screen()
        await d.keys("done" + ENTER + "y")
        await d.wait_for(lambda: d.session.local_player() is first.other, "the other player")
        assert f"\n{first.other.name}>" in d.screen()


@run
async def test_bot_decisions_and_dice_reach_the_log() -> None:
    async with running() as d:
        kinds = {(line.kind.value, line.player) for line in d.session.log}
        assert ("roll", None) in kinds
        assert ("choice", Player.B) in kinds  # B went first with SEED and spawned
        initiative = next(line for line in d.session.log if line.kind is LogKind.ROLL)
        first_b = next(line for line in d.session.log if line.player is Player.B)
        assert re.fullmatch(r"Initiative: A \d, B \d\. B goes first\.", initiative.words)
        await d.keys("x\x7f")  # typing clears the welcome line, giving its room to the log
        screen = d.screen()
        assert initiative.words in screen
        assert f"B {first_b.notation}" in screen


@run
async def test_a_whole_game_by_arrow_keys() -> None:
    """Keys alone play a game to its end: Down picks the first legal choice, Enter plays
    it, y confirms the end of a phase; then the verdict shows and quit needs no question."""
    async with running(bot_session(seed=5)) as d:
        game = d.session.game

        def settled() -> bool:
            return game.is_over or (
                d.session.local_player() is not None and not d.console._advancing
            )

        while not game.is_over:
            await d.wait_for(settled, "the person's decision or the end")
            if game.is_over:
                break
            await d.keys(DOWN + ENTER)
            await d.wait_for(
                lambda: d.console.confirm is not None or not d.console.buffer.text, "the play"
            )
            if d.console.confirm is not None:
                await d.keys("y")
        assert game.winner is not None
        assert d.console.message.startswith(("You win! ", "You lose. "))
        assert "The game is over." in d.screen()
        assert len(game.conquest_history) >= 6
        await d.keys("quit" + ENTER)
        assert await d.finish() == 0
        assert d.console.closing_words[1] == "Score by turn:"
        # every entry was saved as it was played; both sides signed the result
        path = d.session.replay_path
        assert path is not None
        assert f"Replay saved (complete): {path}" in d.console.closing_words
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
        assert verdict.winner == game.winner.name


# --- errors inside the app ---------------------------------------------------------


class BrokenSession(LocalSession):
    async def advance(self, changed: Callable[[], None]) -> None:
        raise RuntimeError("the bot fell over")


def test_an_error_in_the_background_ends_the_app_cleanly() -> None:
    async def scenario() -> int:
        session = BrokenSession(LocalGame(default_setup(), bot_session().seats))
        with create_pipe_input() as pipe:
            console = ConsoleApp(session, input=pipe, output=SizedOutput(80, 24))
            code = await asyncio.wait_for(console.run_async(), 10)
            assert console.error is not None
            assert "the bot fell over" in console.error
            return code

    assert asyncio.run(scenario()) == EXIT_ERROR


@run
async def test_an_error_in_a_key_handler_ends_the_app_cleanly() -> None:
    async with running() as d:

        def broken(text: str) -> Choice:
            raise RuntimeError(f"cannot submit {text}")

        d.console.session.submit = broken  # type: ignore[method-assign]
        entry = first_spawn(d)[0]
        await d.keys(entry + ENTER)
        assert await d.finish() == EXIT_ERROR
        assert d.console.error is not None
        assert f"RuntimeError: cannot submit {entry}" in d.console.error


# --- colour ---------------------------------------------------------------------------


def colour_codes(written: str) -> list[str]:
    """The SGR escape sequences in ``written`` that set a colour (foreground or background)."""
    found = []
    for params in re.findall(r"\x1b\[([0-9;]*)m", written):
        numbers = [int(p) for p in params.split(";") if p]
        if any(30 <= n <= 49 or 90 <= n <= 107 for n in numbers):
            found.append(params)
    return found


def draw(colour: bool | None) -> str:
    """Everything the client writes to an xterm while a game starts, as one string."""

    async def scenario() -> str:
        sink = io.StringIO()
        output = Vt100_Output(sink, lambda: Size(rows=24, columns=80), term="xterm")
        with create_pipe_input() as pipe:
            console = ConsoleApp(bot_session(), input=pipe, output=output, colour=colour)
            task = asyncio.create_task(console.run_async())
            for _ in range(500):
                if console.session.local_player() is not None and sink.getvalue():
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # let it draw the first decision
            pipe.send_text(CTRL_C)
            await asyncio.wait_for(task, 10)
        return sink.getvalue()

    return asyncio.run(scenario())


def test_colour_is_used_by_default() -> None:
    written = draw(colour=True)
    assert "B portal" in written
    assert colour_codes(written)


def test_no_color_means_no_colour_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    written = draw(colour=None)  # the client reads NO_COLOR itself
    assert "B portal" in written
    assert "\x1b[" in written  # it did draw, with bold and reverse video
    assert re.search(r"\x1b\[0;[0-9;]*7m", written)  # reverse video, for the top bar
    assert colour_codes(written) == []


def test_empty_no_color_keeps_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset
    assert colour_codes(draw(colour=None)) != []


@run
async def test_show_takes_the_name_as_the_screen_shows_it() -> None:
    from dbnet.console.view import NARROW_CELL, compact_token
    from dbnet.match.render import short_names

    async with running() as d:
        game = d.session.game
        names = short_names(game)
        on_board = [m for m in game.minis if m.owner is Player.B and m.cell >= 0]
        for m in on_board:  # the board's token, e.g. B:t-firebr
            token = compact_token(m, names[m.id], NARROW_CELL)
            assert token in d.screen()
            await d.keys(CTRL_U + f"show {token}" + ENTER)
            assert d.console.card == [m.id], token
        beacon = next(m for m in game.minis if m.handle == "rallying-beacon")
        await d.keys(f"show {beacon.defn.name}" + ENTER)  # 'Rallying Beacon', as on its card
        assert d.console.card == [beacon.id]
        assert d.console.tab is Tab.CARD
        await d.keys("show beacon" + ENTER)  # a word of the name
        assert d.console.card == [beacon.id]
