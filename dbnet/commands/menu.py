"""``dbnet`` with no command at a terminal: the full-screen main menu
(``dbnet.console.home``), imported only when it is wanted (prompt-toolkit is heavy)."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from dbnet.console.home import run_home

    return run_home()
