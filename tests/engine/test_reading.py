"""People's entries (``read_choice``) and names (``find_minis``): the legal choices are
matched first, names by a beginning or their words, a bare verb when one legal choice has
it, and every refusal says what was wrong and what is legal, the rule numbers last."""

from __future__ import annotations

import pytest

from dbnet.engine.choices import FateChoice, SpawnChoice
from dbnet.engine.game import Game
from dbnet.engine.notation import format_choice, parse_choice
from dbnet.engine.reading import find_minis, read_choice
from dbnet.errors import DbnetError, IllegalChoiceError
from dbnet.scenario.load import parse_scenario
from dbnet.scenario.run import start_game

DEFINITIONS = """
[[define]]
name = "Grunt"
type = "creature"
spawn_cost = 2
aspects = []
power = 2
defense = 2
life = 4

[[define]]
name = "Griffin Rider"
type = "creature"
spawn_cost = 9
aspects = []
power = 3
defense = 3
life = 5

[[define]]
name = "Brute"
type = "creature"
spawn_cost = 4
aspects = []
power = 4
defense = 4
life = 6

[[define]]
name = "Rallying Beacon"
type = "location"
spawn_cost = 2
aspects = []
"""


def position(body: str) -> Game:
    # start_game plays none of the steps: the one here only makes the file whole
    text = f'title = "read_choice"\n{DEFINITIONS}\n{body}\n[[step]]\nplay = "done"\n'
    return start_game(parse_scenario(text, "read_choice.toml"))


def spawning() -> Game:
    """A's spawn phase with 5 points: Grunt (2) and Griffin Rider (9) in reserves share
    the prefix 'gr'; only the Grunt is affordable."""
    return position(
        """
[position]
stage = "spawn"
turn = 2
first = "A"
active = "A"
initiative = { A = 3, B = 2 }

[A]
minis = [{ mini = "brute", at = "e1" }, { mini = "grunt" }, { mini = "griffin rider" },
         { mini = "rallying beacon" }]

[B]
minis = [{ mini = "grunt", at = "c4" }]
"""
    )


def fate() -> Game:
    """A's Brute has dealt 4 to B's Grunt #2 in c3: destroy or disrupt it."""
    game = position(
        """
[position]
stage = "strike"
turn = 3
first = "B"
active = "A"

[A]
minis = [{ mini = "brute", at = "c3" }]

[B]
minis = [{ mini = "grunt", at = "c3" }, { mini = "grunt", at = "c3" }]
"""
    )
    game.apply(parse_choice(game, "attack c3"))
    game.roll((3, 2, 1, 4))
    game.apply(parse_choice(game, "damage grunt#1=2 grunt#2=4"))
    return game


def test_a_shared_prefix_takes_the_one_legal_choice() -> None:
    game = spawning()
    with pytest.raises(DbnetError, match="ambiguous"):  # the strict notation cannot tell
        parse_choice(game, "spawn gr e1")
    choice = read_choice(game, "spawn gr e1")
    assert isinstance(choice, SpawnChoice)
    assert format_choice(game, choice) == "spawn grunt e1"


def test_names_match_by_their_words() -> None:
    game = spawning()
    with pytest.raises(IllegalChoiceError, match="costs 9"):  # found by a word, refused
        read_choice(game, "spawn rider e1")
    assert format_choice(game, read_choice(game, "spawn beacon e1")) == "spawn rallying-beacon e1"
    assert format_choice(game, read_choice(game, "SPAWN Grunt E1")) == "spawn grunt e1"


def test_a_bare_verb_is_the_one_legal_choice_it_begins() -> None:
    game = fate()
    assert [format_choice(game, c) for c in game.legal_choices() or []] == [
        "disrupt grunt#2",
        "destroy grunt#2",
    ]
    choice = read_choice(game, "destroy")
    assert isinstance(choice, FateChoice)
    assert choice.destroy
    assert game.minis[choice.mini].handle == "grunt#2"
    disrupt = read_choice(game, "disrupt")
    assert isinstance(disrupt, FateChoice)
    assert not disrupt.destroy


def test_a_refusal_says_why_and_what_is_legal_with_the_rule_last() -> None:
    game = spawning()
    with pytest.raises(IllegalChoiceError) as refused:
        read_choice(game, "spawn grunt a1")
    words = str(refused.value)
    assert words.startswith("you cannot spawn grunt a1: A:grunt can't be spawned in a1: ")
    assert "a creature goes to your portal" in words
    assert "; legal: spawn grunt e1" in words
    assert words.endswith("(rules 801.5, 801.6)")
    assert "801" not in words.split("; legal:")[0]  # words first, numbers only at the end

    with pytest.raises(IllegalChoiceError) as refused:
        read_choice(game, "spawn griffin-rider e1")
    assert "costs 9 and only 5 spawn points are left; legal: spawn griffin" not in str(
        refused.value
    )
    assert "legal: spawn grunt e1" in str(refused.value)


def test_an_attack_refusal_names_the_cells_that_can_be_attacked() -> None:
    game = position(
        """
[position]
stage = "strike"
turn = 3
first = "B"
active = "A"

[A]
minis = [{ mini = "brute", at = "c3" }, { mini = "grunt", at = "a1" }]

[B]
minis = [{ mini = "grunt", at = "c3" }, { mini = "grunt", at = "d4" }]
"""
    )
    with pytest.raises(IllegalChoiceError) as refused:
        read_choice(game, "attack d4")
    words = str(refused.value)
    assert words.startswith("you cannot attack d4: ")
    assert "legal: attack c3" in words
    assert words.endswith(")")
    assert "(rule" in words


def test_show_finds_a_miniature_by_the_name_on_screen() -> None:
    game = spawning()

    def labels(name: str) -> list[str]:
        return [game.minis[i].label for i in find_minis(game, name)]

    assert labels("Rallying Beacon") == ["A:rallying-beacon"]  # the card's display name
    assert labels("beacon") == ["A:rallying-beacon"]  # a word of it
    assert labels("A@r-beacon") == ["A:rallying-beacon"]  # the board's token
    assert labels("B:grunt*2") == ["B:grunt"]  # a token with its damage mark
    assert labels("Griffin Rider") == ["A:griffin-rider"]
    assert labels("gr") == ["A:grunt", "A:griffin-rider", "B:grunt"]  # beginnings
    assert labels("grunt") == ["A:grunt", "B:grunt"]  # exact names win
    assert labels("nothing") == []
