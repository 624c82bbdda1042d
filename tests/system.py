"""The parts of the system some tests need besides the Python packages, decided here alone.

A part is a program (from a Debian package), root, or a Python package of the test
extra. ``require(parts, who)`` lets the test run when every part is present; else it
skips the test with one line that says what is missing and how to install it, except
under CI (``CI=true``), where a missing part fails the test: CI installs every part
(``.ci/setup-and-test``), so a missing one there is a broken set-up, never a reason to
test less.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

SETUP = ".ci/setup-and-test"
"""The script that installs every part (as root, on Debian or Ubuntu) and runs the tests."""


def which(program: str) -> str | None:
    """The path of ``program``: on ``$PATH``, or in the system folders a user's ``$PATH``
    may leave out (Debian puts ``nft`` and ``miniupnpd`` in ``/usr/sbin``)."""
    return shutil.which(program) or shutil.which(program, path="/usr/sbin:/sbin")


@dataclass(frozen=True, slots=True)
class Part:
    """One thing a test needs: its name, how to tell it is here, how to get it."""

    name: str
    present: Callable[[], bool]
    install: str
    """The Debian package that holds it, or else what to do to get it."""
    package: bool = False
    """Whether ``install`` is a Debian package (``apt-get install -y PACKAGE``)."""


def program(name: str, package: str) -> Part:
    return Part(name, lambda: which(name) is not None, package, package=True)


ROOT = Part(
    "root",
    lambda: os.geteuid() == 0,
    "run the tests as root or in a container (they make network namespaces)",
)
TMUX = (program("tmux", "tmux"),)
BROWSER = (
    program("chromium", "chromium"),
    program("unshare", "util-linux"),
    program("ip", "iproute2"),
    ROOT,
)
LAB = (
    ROOT,
    program("ip", "iproute2"),
    program("nft", "nftables"),
    program("miniupnpd", "miniupnpd-nftables"),
    program("turnserver", "coturn"),
    Part(
        "magic-wormhole-transit-relay",
        lambda: importlib.util.find_spec("wormhole_transit_relay") is not None,
        "pip install '.[test]'",
    ),
)


def under_ci() -> bool:
    """Whether this is a CI run (``CI=true``, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def missing(parts: Sequence[Part], who: str) -> str | None:
    """The one line that says what of ``parts`` is missing and how to get it, or None."""
    absent = [part for part in parts if not part.present()]
    if not absent:
        return None
    packages = list(dict.fromkeys(part.install for part in absent if part.package))
    installs = [f"apt-get install -y {' '.join(packages)}"] if packages else []
    installs += [part.install for part in absent if not part.package]
    return (
        f"{who} need {', '.join(part.name for part in absent)}: {'; '.join(installs)} "
        f"(as root, {SETUP} installs every part)"
    )


def require(parts: Sequence[Part], who: str) -> None:
    """Skip the test (fail it under CI) with one line when a part of ``parts`` is missing."""
    line = missing(parts, who)
    if line is None:
        return
    if under_ci():
        pytest.fail(f"{line}; CI=true: a missing part fails the run", pytrace=False)
    pytest.skip(line)
