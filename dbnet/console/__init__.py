"""The full-screen console client: play in a terminal with prompt-toolkit.

``run_local`` plays a local game (against a bot, or hotseat); the client talks
to a ``Session`` (``dbnet.console.session``) so network games and replays can
use the same screen.
"""

from dbnet.console.app import ConsoleApp, run_local
from dbnet.console.session import LocalSession, LogKind, LogLine, Session

__all__ = ["ConsoleApp", "LocalSession", "LogKind", "LogLine", "Session", "run_local"]
