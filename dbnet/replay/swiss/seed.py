"""Ties broken from the event's id: each player's place in a seeded shuffle, the same on
every machine (SHA-256 of the event id, what is being ordered, and the fingerprint)."""

from __future__ import annotations

import hashlib

__all__ = ["draw"]


def draw(event_id: str, purpose: str, item: str) -> bytes:
    """``item``'s lot for ``purpose`` (``round 3``, ``standings``): sort by it."""
    return hashlib.sha256(f"dbnet event {event_id}|{purpose}|{item}".encode()).digest()
