"""The direct checks (``checking``) agree with the legal-choice lists (``listing``).

``check_choice`` validates spawn, shift and strike choices, and the places of combat
step 7, without building the (long) lists of every legal choice, and ``_advance`` asks
whether a strike offers anything besides DONE without building its list (a spawn or
a shift lists its choices then, and keeps them). These tests play random games and, at
every such decision, compare both against the lists over a candidate space much larger
than the legal moves: every miniature with every cell, and attacks with every cell and
unordered, repeated or foreign attackers. ``Game.apply`` takes a choice listed by
``legal_choices`` without checking it again; the last tests show that this changes
nothing: an equal choice made anew plays the same, and a listed choice of an earlier
decision is checked.
"""

from __future__ import annotations

import dataclasses
import random
from itertools import permutations

import pytest

from dbnet.engine import board, checking, listing
from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    AttackChoice,
    Choice,
    Decision,
    DecisionKind,
    MoveChoice,
    PlaceChoice,
    SpawnChoice,
)
from dbnet.engine.game import Game, Step
from dbnet.engine.notation import format_choice, parse_choice
from dbnet.errors import IllegalChoiceError

from .conftest import VANILLA_SETUP
from .randomgame import play

LIST_KINDS = (DecisionKind.SPAWN, DecisionKind.SHIFT, DecisionKind.STRIKE)


def candidates(game: Game) -> list[Choice]:
    """Choices of every shape the pending decision takes, legal or not."""
    ids = range(-1, len(game.minis) + 1)
    cells = range(-1, board.CELL_COUNT + 1)
    out: list[Choice] = [DONE, SHIFT, STRIKE]
    out += [SpawnChoice(m, c) for m in ids for c in cells]
    out += [MoveChoice(m, c) for m in ids for c in cells]
    for cell in cells:
        here = [m.id for m in game.minis if m.cell == cell]
        out.append(AttackChoice(cell, ()))
        out += [AttackChoice(cell, (m,)) for m in here]
        out += [AttackChoice(cell, pair) for pair in permutations(here[:4], 2)]
        out += [AttackChoice(cell, (m, m)) for m in here[:2]]
        out += [AttackChoice(cell, (m.id,)) for m in game.minis[:3]]
    return out


@pytest.mark.parametrize("seeds", [range(6), range(6, 12)])
def test_direct_checks_agree_with_the_lists(seeds: range) -> None:
    compared = dict.fromkeys(LIST_KINDS, 0)
    for seed in seeds:
        game = Game(VANILLA_SETUP)
        for _ in play(game, random.Random(seed)):
            pending = game.pending
            if not isinstance(pending, Decision) or pending.kind not in LIST_KINDS:
                continue
            legal = listing.make_choices(game)
            assert legal is not None
            assert len(legal) > 1, "a decision with only DONE is never asked"
            for choice in candidates(game):
                legal_now = checking.is_legal(game, choice, pending)
                assert legal_now == (choice in legal), (choice, game.step)
            compared[pending.kind] += 1
    assert all(compared.values()), compared  # every kind was met in these games


@pytest.mark.parametrize("seeds", [range(6), range(6, 12)])
def test_place_checks_agree_with_the_lists(seeds: range) -> None:
    """Combat step 7: ``is_legal`` on every miniature and cell, out of range included, is
    membership in the list; and the decision is asked only with more than one choice."""
    compared = 0
    for seed in seeds:
        game = Game(VANILLA_SETUP)
        for _ in play(game, random.Random(seed)):
            pending = game.pending
            if not isinstance(pending, Decision) or pending.kind is not DecisionKind.RESOLVE:
                continue
            legal = listing.make_choices(game)
            assert legal is not None
            assert len(legal) > 1, "a decision with one choice is never asked"
            for mini in range(-1, len(game.minis) + 1):
                for cell in range(-1, board.CELL_COUNT + 1):
                    choice = PlaceChoice(mini, cell)
                    assert checking.is_legal(game, choice, pending) == (choice in legal), choice
            compared += 1
    assert compared, "no place decision was met in these games"


@pytest.mark.parametrize("seed", range(12))
def test_options_agree_with_the_lists(seed: int) -> None:
    """The strike's check for options (``may_still_strike``) is what ``len(list) > 1``
    was, at every state of the step, and so are the spawn's and the shift's (``may_spawn``,
    ``may_move``): the turn flow asks them, not the lists, after every spawn and move."""
    game = Game(VANILLA_SETUP)
    seen = {True: 0, False: 0}
    for _ in play(game, random.Random(1000 + seed)):
        if game.rolling is not None:
            continue  # a roll interrupts whatever the step is
        for step, has_options in (
            (Step.SPAWN, listing.may_spawn),
            (Step.SHIFT, listing.may_move),
            (Step.STRIKE, listing.may_still_strike),
        ):
            saved = game.step
            game.step = step
            try:
                lists = listing.make_choices(game)
                assert lists is not None
                has = has_options(game)
            finally:
                game.step = saved
            assert has == (len(lists) > 1), step
            seen[has] += 1
    assert seen[True], seen
    assert seen[False], seen


@pytest.mark.parametrize("seed", range(4))
def test_a_listed_choice_plays_as_an_equal_one_made_anew(seed: int) -> None:
    """``apply`` skips the checks for the very object ``legal_choices`` listed: playing
    an equal choice made anew (which is checked) leaves the same state, at every
    decision of random games."""
    game = Game(VANILLA_SETUP)
    rng = random.Random(2000 + seed)
    compared = 0
    for _ in play(game, rng):
        pending = game.pending
        legal = game.legal_choices()
        if not isinstance(pending, Decision) or not legal:
            continue
        listed = legal[rng.randrange(len(legal))]
        anew = dataclasses.replace(listed)
        assert anew == listed
        assert anew is not listed
        twin = game.copy()
        game_copy = game.copy()
        twin_legal = twin.legal_choices()
        assert twin_legal == legal
        game_copy.apply(anew)
        twin.apply(twin_legal[legal.index(listed)])
        assert twin.state_hash() == game_copy.state_hash(), listed
        compared += 1
    assert compared > 50


def test_a_choice_listed_at_an_earlier_decision_is_checked() -> None:
    """Spawns and moves are shared values (one ``MoveChoice(3, 7)`` per process): a move
    listed at one decision and played is refused at the next decision of the same shift,
    where it is no longer legal (802.1: a creature moves once a shift), though it is the
    same object."""
    game = Game(VANILLA_SETUP)
    for _ in play(game, random.Random(7)):
        legal = game.legal_choices() or []
        moves = [c for c in legal if isinstance(c, MoveChoice)] if game.step is Step.SHIFT else []
        if not moves:
            continue
        after = game.copy()
        after.apply(moves[0])
        if after.step is Step.SHIFT:
            break
    else:
        raise AssertionError("no shift with two moves in this game")
    move = moves[0]
    assert after.minis[move.mini].moved
    assert move not in (after.legal_choices() or [])
    with pytest.raises(IllegalChoiceError, match="not legal"):
        after.apply(move)


@pytest.mark.parametrize("seed", range(4))
def test_a_game_read_choice_by_choice_plays_as_one_picked_from_lists(seed: int) -> None:
    """A game whose choices are picked from their lists (a bot's) lists each spawn and
    shift as soon as it is reached; a twin given equal choices that are not the listed
    objects (read from notation, as a verifier reads them) only asks whether they offer
    anything (``State._lists_ahead``). Both pass the same states, hash for hash."""
    picked, read = Game(VANILLA_SETUP), Game(VANILLA_SETUP)
    listed_ahead = {True: 0, False: 0}
    for given in play(picked, random.Random(2000 + seed)):
        if given.dice is not None:
            read.roll(given.dice)
        else:
            assert given.choice is not None
            read.apply(parse_choice(read, format_choice(read, given.choice)))
        assert read.state_hash() == picked.state_hash()
        if picked.step in (Step.SPAWN, Step.SHIFT) and isinstance(picked.pending, Decision):
            listed_ahead[picked._choices is not None] += 1
            assert read._choices is None  # never listed: nobody asked
    assert listed_ahead[True] > 0, listed_ahead
