"""The full-screen console client: play and watch replays in a terminal with prompt-toolkit.

``run_local`` plays a local game (against a bot, or hotseat) through the signed
log, saving its replay as it goes; the client talks to a ``Session``
(``dbnet.console.session``) so network games can use the same screen. The
replay viewer is ``dbnet.console.replay_app`` (``run_viewer``) over the model in
``dbnet.console.replay_view``; both screens draw with ``dbnet.console.view``. The
main menu (``dbnet`` with no command) is ``dbnet.console.home`` (``run_home``), over the
screen models of ``menu`` and ``pregame``; the warband builder is ``builder``.
"""

from dbnet.console.app import ConsoleApp
from dbnet.console.launch import run_local
from dbnet.console.session import LocalSession, LogKind, LogLine, Session

__all__ = ["ConsoleApp", "LocalSession", "LogKind", "LogLine", "Session", "run_local"]
