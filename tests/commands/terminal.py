"""Drive a real ``dbnet play`` process through pipes, one prompt at a time."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

PROMPT = re.compile(rb"(?:^|\n)[AB]> $")
TIMEOUT = 30.0


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """The environment with dbnet's configuration folder (identity, replays) in ``tmp_path``."""
    return {**os.environ, "DBNET_HOME": str(tmp_path / "dbnet-home")}


class Terminal:
    """``dbnet play ARGS`` with stdin and stdout as pipes; reads up to each prompt."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dbnet", "play", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=isolated_env(cwd),
        )
        self.transcript: list[str] = []

    def read(self) -> tuple[str, bool]:
        """The output up to the next prompt, and whether a prompt (not the end) came."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buffer = b""
        deadline = time.monotonic() + TIMEOUT
        while not PROMPT.search(buffer):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                self.proc.kill()
                raise AssertionError(f"no prompt after {TIMEOUT} s; output so far:\n{buffer!r}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                text = buffer.decode()
                self.transcript.append(text)
                return text, False
            buffer += chunk
        text = buffer.decode()
        self.transcript.append(text)
        return text, True

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def close_input(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def finish(self) -> tuple[int, str, str]:
        """Wait for the end: exit code, the rest of stdout, all of stderr."""
        out, err = self.proc.communicate(timeout=TIMEOUT)
        return self.proc.returncode, out.decode(), err.decode()


def listed_choices(text: str) -> list[str]:
    """The legal choices the output before a prompt lists, or its damage example."""
    if "Legal choices (" not in text:
        examples = [line for line in text.splitlines() if line.startswith("Example: ")]
        assert examples, f"neither choices nor an example before the prompt:\n{text}"
        return [examples[-1].removeprefix("Example: ")]
    _, _, block = text.rpartition("Legal choices (")
    count, _, rest = block.partition("):")
    lines = [line.strip() for line in rest.splitlines()[1:] if not PROMPT.search(line.encode())]
    choices = [c.strip() for c in " ".join(lines).split("|") if c.strip()]
    assert len(choices) == int(count), f"listed {count} choices but found {choices}"
    return choices
