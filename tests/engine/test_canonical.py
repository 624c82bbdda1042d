"""The canonical state encoding's byte order (docs/state-hash.md): little-endian words
on every machine."""

from __future__ import annotations

import struct
import sys

import pytest

from dbnet.engine import canonical


@pytest.mark.parametrize("byteorder", ["little", "big"])
def test_words_are_little_endian_whatever_the_machine(
    monkeypatch: pytest.MonkeyPatch, byteorder: str
) -> None:
    values = [0, -1, 5, 2**40 + 3, -(2**63)]
    native = canonical.int_words(values)
    if byteorder != sys.byteorder:  # pretend to be the other kind of machine
        native.byteswap()
        monkeypatch.setattr(sys, "byteorder", byteorder)
    assert bytes(canonical.words_bytes(native)) == struct.pack("<5q", *values)
    assert bytes(canonical.words_bytes(native)) == canonical.pack_ints(values)
