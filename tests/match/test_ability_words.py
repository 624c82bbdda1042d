"""Abilities in words: their names and headings escape what the warband chose."""

from __future__ import annotations

from dbnet.match.ability_words import ability_heading, ability_name
from dbnet.match.decision_help import explain_pending, pending_help
from dbnet.match.render import render_position

from .positions import SHOWN, assert_printable, hostile_game


def test_ability_names_and_the_help_escape_what_the_warband_chose() -> None:
    game = hostile_game()
    ability = game.minis[0].defn.abilities[0]
    assert ability_name(ability) == f"Wyrd{SHOWN} {SHOWN}"
    assert ability_heading(ability).isprintable()
    assert_printable(pending_help(game))
    assert_printable(render_position(game).splitlines())
    assert_printable(explain_pending(game))
