"""Hole punching's rules, without I/O: what a side tells the other, what it sends where,
and for how long (docs/network.md, section 14). The trio part is ``net.holepunch``.

When the first path two players found is the relay, each side learns where its UDP
socket is seen from the internet (its STUN answer: ``net.stun``; and its own global
IPv6 addresses, which no NAT rewrites) and tells the other in a PUNCH message inside
the authenticated channel they already share. Then both send small probes to the
other's candidates from that socket: a probe going out opens this side's NAT (or
stateful firewall) to the other's endpoint, so the other's probes and packets come in.
The joiner opens a QUIC connection (``net.quic``) to a candidate only once a probe from
it has come in: that proves both sides' doors are open to each other, and it means no
QUIC packet is ever sent to an address that merely was named. The host only answers.
dbnet's own handshake then runs over it, exactly as on every other path.

The host speaks first: it sends its PUNCH as soon as it knows its candidates; the joiner
answers with its own and starts probing at once, and the host starts when the answer
comes, half a round trip later. So the joiner's NAT is open first, the host's probes
get in, and the joiner hears one within a one-way trip of the host's start: the probes
synchronise the two sides on evidence, where DCUtR's timer would estimate it from the
relay's round trip (which says little of the direct path's).

Bounds: at most ``MAX_PUNCH_CANDIDATES`` candidates, each probed at most ``PROBES``
times, ``PROBE_INTERVAL`` apart; the attempt ends after ``PUNCH_TIMEOUT`` whatever
happens; a peer's PUNCH is used once per relayed connection.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from dbnet.net.hosting import with_port
from dbnet.net.invite import IPAddress, address_problem

__all__ = [
    "MAX_PUNCH_CANDIDATES",
    "PROBE",
    "PROBES",
    "PROBE_INTERVAL",
    "PUNCHED_PATH",
    "PUNCHED_PATH6",
    "PUNCH_TIMEOUT",
    "PUNCH_VERSION",
    "PunchCandidate",
    "PunchCandidateError",
    "is_probe",
    "own_ipv6_candidates",
    "punched_path",
]

PUNCH_VERSION: Final = 5
"""The first channel version that carries PUNCH."""
MAX_PUNCH_CANDIDATES: Final = 4
"""The most candidates one PUNCH may list (and the most a side probes)."""
PROBE: Final = b"\x0fdbnet punch\x00"
"""A probe datagram. Its first byte (15) is neither STUN's (0-3) nor QUIC's (64-255,
RFC 9443), so the socket's reader tells them apart at once."""
PROBE_INTERVAL: Final = 0.1
"""Seconds between two probes to one candidate."""
PROBES: Final = 30
"""The most probes sent to one candidate in one attempt (3 s of probing)."""
PUNCH_TIMEOUT: Final = 8.0
"""The most one attempt takes once this side's PUNCH is sent: the other's PUNCH, the
probes, QUIC's handshake and dbnet's."""
PUNCHED_PATH: Final = "direct (hole punched)"
PUNCHED_PATH6: Final = "direct (hole punched, IPv6)"


class PunchCandidateError(ValueError):
    """An address and port no PUNCH can name; says why."""


@dataclass(frozen=True, slots=True)
class PunchCandidate:
    """Where a side's hole-punching socket is seen: its STUN-learned public endpoint, or
    one of its global IPv6 addresses with the socket's port."""

    address: IPAddress
    port: int

    def __post_init__(self) -> None:
        problem = address_problem(self.address)
        if problem is None and not 1 <= self.port <= 65535:
            problem = f"the port must be from 1 to 65535, not {self.port}"
        if problem is not None:
            raise PunchCandidateError(problem)

    @property
    def endpoint(self) -> tuple[str, int]:
        """The address as a socket takes it."""
        return (str(self.address), self.port)

    def __str__(self) -> str:
        return with_port(str(self.address), self.port)


def is_probe(data: bytes) -> bool:
    """Whether a datagram is a hole punch's probe."""
    return data == PROBE


def punched_path(candidate: PunchCandidate) -> str:
    """What the players are told of a path punched to ``candidate``."""
    return PUNCHED_PATH6 if candidate.address.version == 6 else PUNCHED_PATH


def own_ipv6_candidates(addresses: Iterable[str], port: int) -> tuple[PunchCandidate, ...]:
    """The candidates of this side's IPv6 ``addresses`` (those a peer may reach, from
    ``hosting.reachable_addresses``) on ``port``, at most ``MAX_PUNCH_CANDIDATES - 1``
    (room for the IPv4 one)."""
    found: list[PunchCandidate] = []
    for text in addresses:
        address = ipaddress.ip_address(text)
        if address.version == 6 and address_problem(address) is None:
            found.append(PunchCandidate(address, port))
    return tuple(found[: MAX_PUNCH_CANDIDATES - 1])
