"""Driving a game, sans-IO: the one driver for local and network play (``driver``), both
players on one machine (``peers``, ``local``), the keys that make a game (``keys``), and
the story of a game in words (``story``, ``render``)."""
