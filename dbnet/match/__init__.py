"""Driving a game, sans-IO: the one driver for local and network play (``driver``), both
players on one machine (``peers``, ``local``), the keys that make a game (``keys``), the
story of a game in words (``story``), and the position and the help to decide as text
(``render``, ``decision_help``, ``ability_words``)."""
