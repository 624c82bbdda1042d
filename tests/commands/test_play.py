"""``dbnet play`` as a user meets it: a real process, its stdin and stdout as pipes."""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
from pathlib import Path

from dbnet.catalog import default_warbands, load_catalog
from dbnet.protocol.identity import Identity
from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus, verify_replay

from .terminal import Terminal, isolated_env, listed_choices

TURNS_TO_WIN = 6  # the default option (rule 803.3)


REPLAY_LINE = re.compile(r"^Replay: (.+)$", re.MULTILINE)


def replay_path(out: str) -> Path:
    """The replay file the output names at the start."""
    found = REPLAY_LINE.search(out)
    assert found, out[:1000]
    return Path(found.group(1))


def without_replay_lines(out: str) -> str:
    return "\n".join(
        line for line in out.splitlines() if not line.startswith(("Replay", "Go on with it"))
    )


def run_play(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env=isolated_env(tmp_path),
    )


def test_illegal_entry_is_explained_and_the_game_goes_on(tmp_path: Path) -> None:
    term = Terminal("--seed", "3", cwd=tmp_path)
    first, prompted = term.read()
    assert prompted
    assert "Legal choices" in first
    term.send("spawn nonsense e1")
    answer, prompted = term.read()
    assert prompted
    lines = [line for line in answer.splitlines() if line.startswith("not played:")]
    assert len(lines) == 1
    assert lines[0].startswith(
        "not played: you cannot spawn nonsense e1: 'nonsense' names no miniature of A in "
        "reserves; legal: spawn "
    )
    # the same decision is asked again, and a legal choice is then played
    choice = listed_choices(first)[0]
    term.send(choice)
    after, prompted = term.read()
    assert prompted
    assert "not played" not in after
    assert "A> " in after
    term.send("quit")
    code, rest, err = term.finish()
    assert code == 0
    assert "game adjourned" in rest
    assert err == ""


def test_help_board_show_choices_and_log(tmp_path: Path) -> None:
    lantern = load_catalog().get("lantern-page")
    script = "\n".join(["help", "board", "show lantern-page", "show B:nobody", "choices", "log"])
    result = run_play(tmp_path, "--seed", "3", stdin=script + "\n")
    out = result.stdout
    assert "Spawn phase: spend spawn points" in out  # help explains the pending decision
    assert "(Rules 801, 801.4-801.9, 303.2a.)" in " ".join(out.split())  # its rules last
    assert "Commands: help" in out
    assert out.count("   +--------------+") >= 2 * 6  # the board was drawn at least twice
    assert f"{lantern.name} (creature" in out
    assert f"power {lantern.power}, defense {lantern.defense}, life {lantern.life}" in out
    assert "no miniature in this game is called 'B:nobody'" in out
    assert out.count("Legal choices (") >= 2
    assert re.search(r"\s1\.\s+roll \d \d\n", out)  # the log starts with the initiative roll
    assert result.returncode == 1  # input ended before the game did
    assert "input ended before the game was over" in out
    assert "Traceback" not in result.stderr


def test_resign_ends_the_game_with_the_bot_winning(tmp_path: Path) -> None:
    result = run_play(tmp_path, "--seed", "4", "--side", "B", "--bot", "random", stdin="resign\n")
    assert result.returncode == 0
    assert "You are B" in result.stdout
    assert "A wins: B resigned." in result.stdout
    assert "The bot wins." in result.stdout
    assert "Score by turn" in result.stdout


def test_a_search_level_plays_first_with_a_playout_budget(tmp_path: Path) -> None:
    """The hard bot seated A with --playouts decides its spawns before B is asked; the same
    seed and budget give the same game."""
    args = ("--seed", "7", "--side", "B", "--bot", "hard", "--playouts", "20")
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    first = run_play(tmp_path / "1", *args, stdin="resign\n")
    again = run_play(tmp_path / "2", *args, stdin="resign\n")
    assert first.returncode == 0, first.stderr
    assert "against the hard bot as A" in first.stdout
    assert "A wins: B resigned." in first.stdout
    assert "A (hard): spawn " in first.stdout
    assert without_replay_lines(first.stdout) == without_replay_lines(again.stdout)


def test_end_of_input_ends_cleanly(tmp_path: Path) -> None:
    result = run_play(tmp_path, "--seed", "1", stdin="")
    assert result.returncode == 1
    assert "game adjourned" in result.stdout
    assert result.stderr == ""


def test_ctrl_c_ends_without_a_traceback(tmp_path: Path) -> None:
    term = Terminal("--seed", "2", cwd=tmp_path)
    _, prompted = term.read()
    assert prompted
    term.proc.send_signal(signal.SIGINT)
    code, rest, err = term.finish()
    assert code == 130
    assert "interrupted" in rest
    assert "Traceback" not in err


def test_a_bad_warband_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "mine.toml"
    bad.write_text('name = "Oops"\nminis = ["No Such Creature"]\n')
    result = run_play(tmp_path, "--warband", str(bad), stdin="")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "mine.toml" in lines[0]
    assert "Traceback" not in result.stderr
    missing = run_play(tmp_path, "--opponent", str(tmp_path / "absent.toml"), stdin="")
    assert missing.returncode == 2
    assert "absent.toml" in missing.stderr


def test_a_warband_file_is_used(tmp_path: Path) -> None:
    catalog = load_catalog()
    theirs = default_warbands(catalog)[1]
    path = tmp_path / "swarm.toml"
    names = sorted({d.name for d in theirs.minis})
    path.write_text(f'name = "Mine"\nminis = [{", ".join(repr(n) for n in names)}]\n')
    result = run_play(tmp_path, "--seed", "5", "--warband", str(path), stdin="quit\n")
    assert result.returncode == 0
    assert "You are A ('Mine'" in result.stdout
    first = catalog.get(names[0])
    assert f"{first.slug} " in result.stdout.split("A reserves", 1)[1]


def test_a_whole_game_through_the_pipes(tmp_path: Path) -> None:
    """Answer every prompt with one of the listed choices until the game ends."""
    rng = random.Random(7)
    term = Terminal("--seed", "11", cwd=tmp_path)
    answers = 0
    while True:
        text, prompted = term.read()
        if not prompted:
            break
        assert "not played" not in text, "a listed choice was refused"
        assert text.rstrip().endswith("A>")
        term.send(rng.choice(listed_choices(text)))
        answers += 1
    code, rest, err = term.finish()
    out = "".join(term.transcript) + rest
    assert code == 0, err
    assert err == ""
    assert answers > 20
    assert "B (greedy): " in out  # the bot's decisions are shown
    assert re.search(r"rolls \d+ attack dice in [a-e][1-5]: \[(?:[123 -]|blade)+\]", out)
    result = re.search(r"([AB]) wins, (\d+) turns won to (\d+)\.", out)
    assert result, out[-2000:]
    winner, won, lost = result.group(1), int(result.group(2)), int(result.group(3))
    table = out.split("Score by turn (conquest points):", 1)[1]
    rows = re.findall(r"turn +\d+: A +(\d+) - B +(\d+) +(A|B|tie)", table)
    assert rows
    for a, b, who in rows:  # each row's verdict follows from its points (803.3)
        assert who == ("tie" if a == b else ("A" if int(a) > int(b) else "B"))
    wins = {p: sum(1 for *_, who in rows if who == p) for p in "AB"}
    loser = "B" if winner == "A" else "A"
    assert (wins[winner], wins[loser]) == (won, lost)
    assert won == TURNS_TO_WIN
    # the whole game is in the replay, signed by both sides, and verifies
    path = replay_path(out)
    assert path.parent == tmp_path / "dbnet-home" / "replays"
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{8}\.dbnr", path.name)
    assert f"Replay saved: {path}" in out
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert (verdict.winner, verdict.reason) == (winner, "victory")
    assert verdict.game_id is not None
    assert path.name.split("-")[2].startswith(verdict.game_id[:8])


def test_the_same_seed_and_entries_give_the_same_game(tmp_path: Path) -> None:
    script = "board\nlog\nquit\n"
    first = run_play(tmp_path, "--seed", "9", "--side", "B", stdin=script)
    again = run_play(tmp_path, "--seed", "9", "--side", "B", stdin=script)
    other = run_play(tmp_path, "--seed", "10", "--side", "B", stdin=script)
    assert first.returncode == again.returncode == 0
    assert re.search(r"Initiative: A \d, B \d\.", first.stdout)
    # only the replay's file name differs (it holds the time, and a second game the same
    # second gets another name); the replays hold the same entries
    paths = [replay_path(r.stdout) for r in (first, again)]
    assert paths[0] != paths[1]
    assert without_replay_lines(first.stdout) == without_replay_lines(again.stdout)
    assert without_replay_lines(first.stdout) != without_replay_lines(other.stdout)
    records = [load_replay(p).records for p in paths]
    assert records[0] == records[1]
    assert len(records[0]) >= 3


def test_a_resignation_leaves_a_complete_replay(tmp_path: Path) -> None:
    path = tmp_path / "games" / "resigned.dbnr"
    result = run_play(tmp_path, "--seed", "4", "--replay", str(path), stdin="board\nresign\n")
    assert result.returncode == 0, result.stderr
    assert replay_path(result.stdout) == path
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert (verdict.winner, verdict.reason) == ("B", "resignation")


def test_an_abandoned_game_leaves_a_valid_unfinished_replay(tmp_path: Path) -> None:
    path = tmp_path / "quit.dbnr"
    played = listed_first_choice(tmp_path)
    result = run_play(tmp_path, "--seed", "3", "--replay", str(path), stdin=f"{played}\nquit\n")
    assert result.returncode == 0
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.UNFINISHED, verdict.summary()
    assert verdict.owed is not None
    assert verdict.owed.player == "A"  # the person was asked, and quit
    assert verdict.entries > 3  # the OFFER, the ACCEPT, the initiative, A's choice


def listed_first_choice(tmp_path: Path) -> str:
    term = Terminal("--seed", "3", "--replay", str(tmp_path / "probe.dbnr"), cwd=tmp_path)
    text, prompted = term.read()
    assert prompted
    term.send("quit")
    assert term.finish()[0] == 0
    return listed_choices(text)[0]


def test_an_existing_replay_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "taken.dbnr"
    path.write_bytes(b"precious")
    result = run_play(tmp_path, "--seed", "1", "--replay", str(path), stdin="quit\n")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"dbnet play: {path}: already exists")
    assert "Traceback" not in result.stderr
    assert path.read_bytes() == b"precious"


def test_without_a_seed_the_person_signs_with_their_identity(tmp_path: Path) -> None:
    result = run_play(tmp_path, "--side", "B", stdin="quit\n")
    assert result.returncode == 0, result.stderr
    key_file = tmp_path / "dbnet-home" / "identity.key"
    assert key_file.exists()
    mine = Identity.load_or_create(key_file.parent)
    path = replay_path(result.stdout)
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.players is not None
    assert verdict.players[1] == mine.fingerprint
    assert verdict.players[0] != mine.fingerprint
    again = run_play(tmp_path, "--side", "B", stdin="quit\n")
    other = load_replay(replay_path(again.stdout))
    assert other.header.keys[1] == mine.public_key
    assert other.header.game_id != load_replay(path).header.game_id  # fresh nonce and secrets


RESUME_LINE = re.compile(r"^Go on with it: (.+)$", re.MULTILINE)


def play_listed_choices(term: Terminal, rng: random.Random, limit: int) -> int:
    """Answer up to ``limit`` prompts with listed choices; how many were answered."""
    answers = 0
    while answers < limit:
        text, prompted = term.read()
        if not prompted:
            break
        assert "not played" not in text, "a listed choice was refused"
        term.send(rng.choice(listed_choices(text)))
        answers += 1
    return answers


def test_a_quit_game_resumes_from_its_replay_and_ends_complete(tmp_path: Path) -> None:
    """Without --seed, the game is the person's (their identity, a bot key derived from
    it): quitting prints the command that goes on; that command finds the seats and the
    chains again from the replay alone, tells the game so far, and plays it to the end in
    the same file, which then verifies complete (every record of the first part kept)."""
    rng = random.Random(5)
    term = Terminal("--side", "B", cwd=tmp_path)
    assert play_listed_choices(term, rng, 6) == 6
    term.read()
    term.send("quit")
    code, rest, err = term.finish()
    out = "".join(term.transcript) + rest
    assert (code, err) == (0, "")
    path = replay_path(out)
    hint = RESUME_LINE.search(out)
    assert hint, out[-500:]
    home = tmp_path / "dbnet-home"
    assert hint.group(1) == f"DBNET_HOME={home} dbnet play --resume {path}"
    first_part = load_replay(path).records
    assert verify_replay(path.read_bytes(), where=str(path)).status is VerdictStatus.UNFINISHED

    term = Terminal("--resume", str(path), "--bot", "random", cwd=tmp_path)
    first, prompted = term.read()
    assert prompted
    assert "You are B (" in first
    assert "against the random bot as A" in first
    assert "Initiative: " in first  # the story so far is told again
    term.send(rng.choice(listed_choices(first)))
    play_listed_choices(term, rng, 2000)
    code, rest, err = term.finish()
    assert code == 0, err
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()
    assert load_replay(path).records[: len(first_part)] == first_part


def test_resume_refusals_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    """A game saved with its terms (FILE.game) resumes from its file alone; one whose
    terms are lost (or saved by an older dbnet) needs its --seed again. A seed that did
    not make the game is refused either way, in one line, changing nothing."""
    path = tmp_path / "seeded.dbnr"
    assert run_play(tmp_path, "--seed", "3", "--replay", str(path), stdin="quit\n").returncode == 0
    before = path.read_bytes()
    alone = run_play(tmp_path, "--plain", "--resume", str(path), stdin="quit\n")
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.endswith(f"Go on with it: dbnet play --resume {path}\n")
    assert path.read_bytes() == before
    refused = run_play(tmp_path, "--plain", "--resume", str(path), "--seed", "4", stdin="quit\n")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "dbnet play: this game was played with --seed 3, which made its keys: drop --seed 4\n"
    )
    terms = path.with_name(path.name + ".game")
    terms.unlink()
    cases = [
        (("--resume", str(path)), "dbnet play: " + str(path) + ": cannot resume here: "),
        (("--resume", str(path), "--seed", "4"), f"dbnet play: {path}: this game was not"),
        (("--resume", str(path), "--warband", "x.toml"), "dbnet play: --resume goes on"),
        (("--resume", str(tmp_path / "missing.dbnr")), "dbnet play: "),
    ]
    for args, start in cases:
        result = run_play(tmp_path, "--plain", *args, stdin="quit\n")
        assert result.returncode == 2, result
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(start), lines
        assert path.read_bytes() == before
    again = run_play(tmp_path, "--plain", "--resume", str(path), "--seed", "3", stdin="quit\n")
    assert again.returncode == 0, again.stderr
    assert f"Go on with it: dbnet play --resume {path} --seed 3" in again.stdout
