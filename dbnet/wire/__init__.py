"""The wire format: strict msgpack decoding with limits into typed messages and entries
(``codec``), and which bytes can be a player's key (``keys``)."""
