"""What every test shares.

- The network rule (README, Development): every test, and every process a test starts,
  runs with the relay and router port mapping turned off: nothing may reach the default
  relay, the machine's router or a multicast group. The lab's tests turn them on inside
  the lab's own namespaces, with the lab's addresses.
- A run started in the background still lets its programs be interrupted (below).
- Each pytest process (one per pytest-xdist worker) has a configuration folder of its
  own (``XDG_CONFIG_HOME``, where dbnet's home is when ``DBNET_HOME`` is unset) and a
  hypothesis database of its own, so workers running side by side share no file.
- The system parts some tests need (tmux, chromium, root, the lab's programs) are decided
  here alone (``tests/system.py``), through the ``needs_*`` fixtures (and the browser
  helpers' ``chromium_command``): a missing part skips
  the test with one line that says what to install, except under CI (``CI=true``), where
  it fails the test.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase
from system import LAB, TMUX, require

os.environ["DBNET_RELAY"] = "off"
os.environ["DBNET_PORT_MAPPING"] = "off"
os.environ["DBNET_STUN"] = "off"  # no test may ask a public STUN server

# A run started in the background (``cmd &`` in a script, ``nohup``) begins with SIGINT
# and SIGHUP ignored, and every program a test starts would inherit that: the tests that
# interrupt one (Ctrl-C, a closed terminal) would fail only there. Take the defaults back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""This process's pytest-xdist worker (``gw0``, ``gw1``...), or "" when pytest runs alone."""


def pytest_configure(config: pytest.Config) -> None:
    if WORKER:  # one example database per worker: no two processes write one folder
        folder = config.rootpath / ".hypothesis" / f"examples-{WORKER}"
        settings.register_profile(
            "dbnet-worker", database=DirectoryBasedExampleDatabase(str(folder))
        )
        settings.load_profile("dbnet-worker")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``) one worker runs every lab test, one after
    another: a lab starts routers, miniupnpd and coturn in a dozen namespaces, which a
    small machine need not run twice at once, and a module's shared lab
    (``tests/lab/test_paths.py``) then stays on one worker."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("lab") is not None:
            item.add_marker(pytest.mark.xdist_group("lab"))


@pytest.fixture(autouse=True, scope="session")
def own_config_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``XDG_CONFIG_HOME`` of this pytest process (a worker's own): a test that leaves
    ``DBNET_HOME`` unset never writes the user's ``~/.config/dbnet``, nor a folder another
    worker writes at the same time."""
    folder = tmp_path_factory.mktemp("config-home")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    return folder


@pytest.fixture(scope="session")
def needs_tmux() -> None:
    """tmux, for the tests that drive the real program in a terminal."""
    require(TMUX, "the terminal tests")


@pytest.fixture(scope="session")
def needs_lab() -> None:
    """Root, iproute2, nftables, miniupnpd and coturn, for the network lab (tests/lab/)."""
    require(LAB, "the network lab's tests")


@pytest.fixture
def count_applies(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[int]]:
    """Start counting every ``Game.apply`` (random bots apply nothing of their own): each
    call starts a count from 0 and gives the list that holds it; ``monkeypatch.undo()``
    stops counting."""
    from dbnet.engine import Choice, Game

    def start() -> list[int]:
        calls = [0]
        real = Game.apply

        def counting(game: Game, choice: Choice) -> None:
            calls[0] += 1
            real(game, choice)

        monkeypatch.setattr(Game, "apply", counting)
        return calls

    return start


@pytest.fixture
def setup_encodings(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Counts every encoding of a game's setup to bytes (``wire.setup.encode_setup``, issue
    34): the list gets the setup of each call, from now until the test ends."""
    from dbnet.engine import GameSetup
    from dbnet.wire import setup

    encoded: list[object] = []
    real = setup.encode_setup

    def counting(game_setup: GameSetup, clock: tuple[int, int] | None = None) -> bytes:
        encoded.append(game_setup)
        return real(game_setup, clock)

    monkeypatch.setattr(setup, "encode_setup", counting)
    return encoded
