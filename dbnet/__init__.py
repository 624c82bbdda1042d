"""dbnet: play Dreamblade peer to peer, with a deterministic engine and verifiable replays."""

__version__ = "0.1.0"
