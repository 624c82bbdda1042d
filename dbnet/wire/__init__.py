"""The wire format: strict msgpack decoding with limits into typed values, one module per
shape family (``values``, ``schema``, ``versions``, ``setup``, ``bodies``, ``entries``,
``replay_header``), and which bytes can be a player's key (``keys``)."""
