"""The dependency floors in pyproject.toml: none admits a release with a known advisory."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
FLOOR = re.compile(r"cryptography>=(\d+)\.(\d+)\.(\d+)")
# cryptography 41-49 have published advisories, the last CVE-2026-69247 (44-49, fixed in
# 50.0.0); keep this at or above the newest fixed release when a new advisory appears.
FIRST_RELEASE_WITHOUT_ADVISORY = (50, 0, 0)


# PyNaCl before 1.6.2 bundles a libsodium with CVE-2025-69277 (PYSEC-2026-3002: points
# outside the main subgroup pass crypto_core_ed25519_is_valid_point), fixed in 1.6.2.
PYNACL_FLOOR = re.compile(r"pynacl>=(\d+)\.(\d+)\.(\d+)")
PYNACL_FIRST_RELEASE_WITHOUT_ADVISORY = (1, 6, 2)


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_the_cryptography_floor_has_no_known_advisory() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["dependencies"]
    [spec] = [d for d in dependencies if d.startswith("cryptography")]
    match = FLOOR.fullmatch(spec)
    assert match, f"expected cryptography>=X.Y.Z, got {spec!r}"
    assert _numbers(spec) >= FIRST_RELEASE_WITHOUT_ADVISORY
    assert _numbers(version("cryptography")) >= _numbers(spec)  # the one installed fits


def test_the_pynacl_floor_has_no_known_advisory() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["dependencies"]
    [spec] = [d for d in dependencies if d.lower().startswith("pynacl")]
    assert PYNACL_FLOOR.fullmatch(spec), f"expected pynacl>=X.Y.Z, got {spec!r}"
    assert _numbers(spec) >= PYNACL_FIRST_RELEASE_WITHOUT_ADVISORY
    assert _numbers(version("pynacl")) >= _numbers(spec)  # the one installed fits
