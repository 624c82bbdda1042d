"""Errors of the network layer: the frame, handshake message or stream they are about, and why.

Everything here is a ``NetError``. The peer's misbehaviour (a malformed frame, a
failed signature, a silence) and the network's (a closed connection) each have a
class of their own; ``LocalNetError`` is this side's misuse of the API, a bug.
"""

from __future__ import annotations

from collections.abc import Sequence

from dbnet.errors import DbnetError


class NetError(DbnetError):
    """Root of the network layer's errors."""


class LocalNetError(NetError):
    """This side used the API wrongly (bad arguments, a call in the wrong state): a bug."""


class FrameError(NetError):
    """A frame that is malformed or larger than the limit; the message gives size and limit."""


class HandshakeError(NetError):
    """The handshake failed: a malformed or unexpected handshake message."""


class VersionMismatchError(HandshakeError):
    """The two sides have no channel version in common; the message lists both sides'."""

    def __init__(self, ours: Sequence[int], theirs: Sequence[int], *, what: str = "") -> None:
        self.ours = tuple(ours)
        self.theirs = tuple(theirs)
        why = f" for what this connection needs ({what})" if what else ""
        super().__init__(
            f"handshake: no channel version in common{why}: this side speaks versions "
            f"[{_versions(self.ours)}], the peer speaks versions [{_versions(self.theirs)}]; "
            "one side must upgrade"
        )


class AuthenticationError(HandshakeError):
    """A handshake message failed authentication: a bad signature, a transcript that does
    not match (the handshake was tampered with or replayed) or an unusable key."""


class ChannelError(NetError):
    """An encrypted frame failed authentication, or a channel ran out of nonces."""


class PeerTimeoutError(NetError):
    """The peer did not finish a frame or the handshake in time.

    ``what`` says which, ``seconds`` the time limit.
    """

    def __init__(self, what: str, seconds: float) -> None:
        self.what = what
        self.seconds = seconds
        super().__init__(f"{what} did not complete within {seconds:g} s: the peer is too slow")


class ConnectionClosedError(NetError):
    """The connection ended: the peer closed it, or it broke. ``mid_frame`` tells whether a
    frame was cut off (bytes of it had arrived)."""

    def __init__(self, reason: str, *, mid_frame: bool = False) -> None:
        self.reason = reason
        self.mid_frame = mid_frame
        super().__init__(reason)


class WrongHostError(NetError):
    """No path can still reach the host an invite names: every address that answered has
    another key, and a key does not change by waiting (so nothing is retried)."""


class PortMappingError(NetError):
    """A router's port-mapping reply (NAT-PMP, PCP) that is malformed, answers another
    request, or refuses: the message names the field and why."""


def _versions(versions: Sequence[int]) -> str:
    return ", ".join(str(v) for v in versions)
