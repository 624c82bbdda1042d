"""The network layer: an encrypted, mutually authenticated channel between two peers.

``framing`` cuts a byte stream into length-prefixed frames, ``handshake`` is the
sans-IO handshake and the encrypted ``Channel`` it yields, and ``stream`` runs
them over a trio stream. The wire format is specified in ``docs/channel.md``.
"""
