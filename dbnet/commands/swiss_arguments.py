"""The arguments of ``dbnet event``'s verbs (``new``, ``add``, ``drop``, ``pair``),
``--ratings``, and ``dbnet id``: argparse alone, like ``commands.arguments``.

``dbnet event FOLDER`` keeps its one positional; a verb is its first word followed by a
folder (``dbnet event pair FOLDER``), so a folder named like a verb is reached as
``./pair``. The options of the verbs are on ``dbnet event``'s parser; each verb checks
that it got only its own (``commands.swiss``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["VERBS", "add_event_options", "add_id"]

VERBS = ("new", "add", "drop", "pair")


def add_event_options(parser: argparse.ArgumentParser) -> None:
    """What ``dbnet event`` takes besides a folder."""
    parser.add_argument(
        "more",
        nargs="*",
        metavar="ARG",
        help="with a verb: new FOLDER --name NAME --rounds N [--top N]; add FOLDER "
        "FINGERPRINT [--name NAME]; drop FOLDER FINGERPRINT; pair FOLDER [--check] "
        "(a folder named like a verb: ./pair)",
    )
    parser.add_argument(
        "--name", metavar="NAME", help="new: the event's name; add: the name the player signs"
    )
    parser.add_argument("--rounds", type=int, metavar="N", help="new: the Swiss rounds")
    parser.add_argument(
        "--top", type=int, default=None, metavar="N", help="new: a top cut of N (2, 4, 8, ...)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="pair: pair every written round again from the results it records",
    )
    parser.add_argument(
        "--ratings",
        action="store_true",
        help="print Glicko-2 ratings from every counted game (each round a rating period)",
    )


def add_id(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    lazy: Callable[[str, str], Callable[[argparse.Namespace], int]],
) -> None:
    parser = subparsers.add_parser(
        "id",
        help="print your key's fingerprint (what an organiser adds to an event)",
        description="Print the fingerprint of your identity key (made at first use, kept in "
        "the config folder, $DBNET_HOME if set). It is who you are in an event: give it to "
        "the organiser ('dbnet event add FOLDER FINGERPRINT').",
    )
    parser.set_defaults(func=lazy("dbnet.commands.swiss", "run_id"))
