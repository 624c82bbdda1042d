"""The versions of the wire format this dbnet writes and reads: the protocol version of
the entries (docs/entries.md) and the replay file's format (docs/replay-format.md)."""

from __future__ import annotations

from typing import Final

PROTOCOL_VERSION: Final = 3
"""The protocol version this dbnet writes for a game without a clock (``DISPUTE_VERSION``
for a game with one). Version 2 (2026-11) adds the joiner's nonce to the OFFER and the
game id; version 3 (2026-11) each player's name, signed by that player, in the OFFER (A's)
and the ACCEPT (B's), and the optional clock; version 4 (2026-11) the DISPUTE entry
(docs/entries.md, section 7). Versions 1 and 2 are still read."""
PROTOCOL_VERSIONS: Final = (1, 2, 3, 4)
"""Every protocol version this dbnet reads (and so verifies)."""
REPLAY_FORMAT: Final = 3
"""The replay format this dbnet writes for a game without a clock: format N holds entries
of protocol version N (a game with a clock: ``DISPUTE_VERSION``)."""
REPLAY_FORMATS: Final = {1: 1, 2: 2, 3: 3, 4: 4}
"""Every replay format this dbnet reads, with the protocol version of its entries."""
CLOCK_VERSION: Final = 3
"""The first protocol version (and replay format) with clocks."""
DISPUTE_VERSION: Final = 4
"""The first protocol version (and replay format) with the DISPUTE entry, which answers a
clock claim its flagged player's own measurement refutes: what dbnet writes for a game with
a clock (docs/protocol.md, "Clocks")."""
