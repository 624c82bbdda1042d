"""The ``dbnet`` command: one subcommand per module in ``dbnet.commands``.

Every subcommand's arguments and help are declared in ``dbnet.commands.arguments``,
which sets ``func`` to a callable taking the parsed arguments and returning the exit
code. That callable imports the module that runs the command (``dbnet.commands.play``
and the others) when it is called, so ``dbnet --help``, a command's ``--help`` and a
usage error never import the engine, trio, cryptography or prompt-toolkit. Errors dbnet
raises on purpose are printed as one line and give exit code 2 (usage or input) unless
the command chose another; a traceback means a bug.

``dbnet`` with no command opens the full-screen main menu (``dbnet.console.home``) when
stdin and stdout are terminals; otherwise it prints the usage (exit code 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from dbnet import __version__
from dbnet.commands.arguments import add_commands
from dbnet.commands.helptext import HOME_HELP
from dbnet.errors import DbnetError
from dbnet.interrupts import EXIT_INTERRUPTED
from dbnet.text import printable

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dbnet",
        description="Play Dreamblade: against the computer, or replay and check games.\n"
        "With no command, at a terminal, dbnet opens its full-screen main menu.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dbnet {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_commands(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        if not _at_terminal():
            parser.print_help()
            return EXIT_USAGE
        func = _menu
    try:
        return func(args)
    except DbnetError as exc:
        # A message may quote a file's or the peer's text: every line of it is escaped
        # (a few messages have lines of their own, e.g. what to do about a changed key).
        text = f"dbnet {args.command or 'menu'}: {exc}"
        print("\n".join(printable(line) for line in text.split("\n")), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"dbnet {args.command or 'menu'}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


def _at_terminal() -> bool:
    """Whether stdin and stdout are both terminals (the main menu needs them)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced by None, or closed
        return False


def _menu(args: argparse.Namespace) -> int:
    """``dbnet`` with no command at a terminal: the full-screen main menu."""
    from dbnet.commands.menu import run  # prompt-toolkit only when it is wanted

    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
