"""The ``dbnet`` command: one subcommand per module in ``dbnet.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser
and sets ``func`` to a callable taking the parsed arguments and returning the
exit code. Errors dbnet raises on purpose are printed as one line and give
exit code 2 (usage or input) unless the command chose another; a traceback
means a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from dbnet import __version__
from dbnet.commands.helptext import HOME_HELP
from dbnet.errors import DbnetError
from dbnet.text import printable

COMMAND_MODULES = (
    "dbnet.commands.play",
    "dbnet.commands.selfplay",
    "dbnet.commands.scenario",
    "dbnet.commands.catalog",
    "dbnet.commands.verify",
    "dbnet.commands.replay",
    "dbnet.commands.net",
)

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dbnet",
        description="Play Dreamblade: against the computer, or replay and check games.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dbnet {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return func(args)
    except DbnetError as exc:
        # A message may quote a file's or the peer's text: every line of it is escaped
        # (a few messages have lines of their own, e.g. what to do about a changed key).
        text = f"dbnet {args.command}: {exc}"
        print("\n".join(printable(line) for line in text.split("\n")), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"dbnet {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
