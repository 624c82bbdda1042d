"""The one exception root of dbnet and its precise subclasses.

This module imports nothing but the standard library so that every layer,
the engine included, can raise these errors.

Malformed input (it cannot even be read) is kept apart from input that is
well formed but not allowed now; both are also ``ValueError`` so callers that
only care about "bad value" can catch that.
"""

from __future__ import annotations


class DbnetError(Exception):
    """Root of every error dbnet raises on purpose."""


class InvalidChoiceError(DbnetError, ValueError):
    """A choice that cannot be parsed or does not fit the pending decision's shape."""


class IllegalChoiceError(DbnetError, ValueError):
    """A well-formed choice that the rules do not allow now."""


class GameOverError(IllegalChoiceError):
    """A choice or dice offered to a game that has already ended."""


class DataError(DbnetError, ValueError):
    """A catalog, map, warband or scenario file that is malformed or breaks a rule.

    The message names the file, the entry and the field.
    """

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


class DecodeError(DbnetError, ValueError):
    """Bytes that are not valid msgpack for dbnet, or a value that breaks a message's schema.

    ``path`` names the field (``entry.body.links[2][1]``); the message quotes the
    offending value where it is short enough to quote.
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}" if path else problem)


class IdentityError(DbnetError):
    """An identity key file or known-peers file that cannot be used; the message names the file."""


class WeakKeyError(IdentityError, ValueError):
    """A public key no private key matches (a small-order point) or that is not canonical."""


class KnownPeerMismatchError(IdentityError):
    """A known peer offered a different key from the one remembered for its name."""
