"""How a dbnet process is stopped from outside, the same in every front end: Ctrl-C, and
the signals that stop it as Ctrl-C does (a service manager's SIGTERM, a closed terminal's
SIGHUP). The line interfaces handle them in ``commands.stopping``, the full-screen apps on
their event loop (``console.fullscreen``); either way the exit code is 128 plus the
signal's number, as a shell reports a process it ended. Every room may use this module
(``docs/architecture.md``)."""

from __future__ import annotations

import signal
from typing import Final

__all__ = ["EXIT_INTERRUPTED", "STOP_SIGNALS"]

EXIT_INTERRUPTED: Final = 130
"""The exit code after Ctrl-C: 128 plus SIGINT's number, as a shell reports it."""

STOP_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop dbnet as Ctrl-C does (SIGHUP does not exist on Windows)."""
