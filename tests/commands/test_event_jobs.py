"""``dbnet event --jobs``: the files are verified in worker processes, one per CPU by
default, and the event is the very same as in one process (real processes, real files:
the shipped replays and copies of them, more than the pool's threshold)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dbnet.commands.verify import jobs_for
from dbnet.commands.workers import PARALLEL_FROM

from .test_event import dbnet

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped replays, and a second copy of each in a subfolder (a game's copies
    count once): twice the pool's threshold, so the workers are used."""
    folder = tmp_path_factory.mktemp("event")
    shipped = sorted(REPLAYS.glob("*.dbnr"))
    (folder / "copies").mkdir()
    for path in shipped:
        shutil.copy(path, folder / path.name)
        shutil.copy(path, folder / "copies" / path.name)
    assert 2 * len(shipped) >= PARALLEL_FROM
    return folder


@pytest.mark.parametrize("output", [(), ("--json",), ("--html",)], ids=["text", "json", "html"])
def test_workers_give_the_event_of_one_process(folder: Path, output: tuple[str, ...]) -> None:
    serial = dbnet(folder, "event", *output, "--jobs", "1", str(folder), timeout=300)
    parallel = dbnet(folder, "event", *output, "--jobs", "2", str(folder), timeout=300)
    default = dbnet(folder, "event", *output, str(folder), timeout=300)
    assert serial.returncode == 0, serial.stderr
    assert "Traceback" not in serial.stderr + parallel.stderr + default.stderr
    assert parallel.returncode == default.returncode == serial.returncode
    assert parallel.stdout == serial.stdout
    assert default.stdout == serial.stdout


def test_the_default_is_one_worker_per_cpu_this_process_may_use() -> None:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert jobs_for(None) == cpus
    assert jobs_for(3) == 3
