"""Ed25519 signing and verifying by each binding, interleaved in one run, with the ratios.

Times ``cryptography`` (OpenSSL) and PyNaCl (libsodium, what ``dbnet.protocol.identity``
uses), and, when they are installed, pysodium and libnacl (ctypes bindings to the
system's libsodium: they need it installed apart, so dbnet does not depend on them).
Every binding signs and verifies the same entry-sized message with the same key; each
slice times every binding in turn (the order changing every slice), so drift of the
shared machine falls on all alike. Prints each binding's best slice and median slice in
microseconds an operation, and the median of the per-slice ratios to ``cryptography``
with their spread (lowest and highest). Asserts only that every binding makes the same
signature (Ed25519 is deterministic) and accepts it. Times are this process's CPU time
(``time.process_time``): other programs on a shared machine count against no binding.

    python benchmarks/ed25519.py [--slices N] [--per-slice N] [--size BYTES]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any

import nacl.bindings
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dbnet.protocol import identity

SEED = bytes(range(32))
Operation = Callable[[], object]


def _detached(
    sign: Callable[[bytes, bytes], bytes], check: Callable[[bytes, bytes, bytes], object]
) -> Callable[[bytes, bytes, bytes, bytes], tuple[Operation, Operation]]:
    """A ctypes binding's detached sign and verify, bound to the arguments later."""

    def bind(
        message: bytes, secret: bytes, signature: bytes, public: bytes
    ) -> tuple[Operation, Operation]:
        return (lambda: sign(message, secret), lambda: check(signature, message, public))

    return bind


def bindings(message: bytes) -> dict[str, tuple[Operation, Operation]]:
    """Each binding's (sign, verify) of ``message``, as dbnet would call them."""
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    public = key.public_key()
    signature = key.sign(message)
    raw_public, secret = nacl.bindings.crypto_sign_seed_keypair(SEED)
    me = identity.Identity.from_private_bytes(SEED)
    found: dict[str, tuple[Operation, Operation]] = {
        "cryptography": (lambda: key.sign(message), lambda: public.verify(signature, message)),
        "pynacl": (
            lambda: nacl.bindings.crypto_sign(message, secret)[:64],
            lambda: nacl.bindings.crypto_sign_open(signature + message, raw_public),
        ),
        "dbnet (pynacl)": (
            lambda: me.sign(message),
            lambda: identity.verify(raw_public, signature, message),
        ),
    }
    for name, sign_name, verify_name in (
        ("pysodium", "crypto_sign_detached", "crypto_sign_verify_detached"),
        ("libnacl", "crypto_sign_detached", "crypto_sign_verify_detached"),
    ):
        try:
            module: Any = importlib.import_module(name)
        except (ImportError, OSError, ValueError):  # absent, or no system libsodium
            continue
        bind = _detached(getattr(module, sign_name), getattr(module, verify_name))
        found[name] = bind(message, secret, signature, raw_public)
    for name, (sign, check) in found.items():
        made = sign()
        assert isinstance(made, bytes), name
        assert made[:64] == signature, f"{name} signs otherwise"
        check()  # raises if it refuses
    return found


def timed(operation: Operation, count: int) -> float:
    """Microseconds of this process's CPU time an operation, over ``count`` calls."""
    started = time.process_time()
    for _ in range(count):
        operation()
    return (time.process_time() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slices", type=int, default=30, help="interleaved slices (30)")
    parser.add_argument("--per-slice", type=int, default=300, help="calls a slice (300)")
    parser.add_argument("--size", type=int, default=200, help="message bytes (200)")
    args = parser.parse_args()
    found = bindings(bytes(range(256)) * (args.size // 256) + bytes(args.size % 256))
    names = list(found)
    times: dict[tuple[str, str], list[float]] = {
        (name, what): [] for name in names for what in ("sign", "verify")
    }
    for index in range(args.slices):
        order = names[index % len(names) :] + names[: index % len(names)]
        for name in order:
            sign, check = found[name]
            times[name, "sign"].append(timed(sign, args.per_slice))
            times[name, "verify"].append(timed(check, args.per_slice))
    print(
        f"Ed25519, {args.size}-byte message: {args.slices} interleaved slices of "
        f"{args.per_slice} calls (us an operation; ratio: cryptography's time / this one's, "
        "median of the slices [lowest, highest])"
    )
    for what in ("sign", "verify"):
        base = times["cryptography", what]
        for name in names:
            mine = times[name, what]
            ratios = sorted(b / m for b, m in zip(base, mine, strict=True))
            print(
                f"  {what:6} {name:15} best {min(mine):6.1f}  median {statistics.median(mine):6.1f}"
                f"  ratio {statistics.median(ratios):.2f} [{ratios[0]:.2f}, {ratios[-1]:.2f}]"
            )


if __name__ == "__main__":
    main()
