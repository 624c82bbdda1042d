"""The direct legality checks agree with the legal-choice lists.

``check_choice`` validates spawn, shift and strike choices, and the places of combat
step 7, without building the (long) lists of every legal choice, and ``_advance`` asks
whether such a decision offers anything besides DONE without building them either. These tests play
random games and, at every such decision, compare both against the lists over
a candidate space much larger than the legal moves: every miniature with every
cell, and attacks with every cell and unordered, repeated or foreign attackers.
"""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from dbnet.engine import board, legality
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
            legal = legality.make_choices(game)
            assert legal is not None
            assert len(legal) > 1, "a decision with only DONE is never asked"
            for choice in candidates(game):
                legal_now = legality.is_legal(game, choice, pending)
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
            legal = legality.make_choices(game)
            assert legal is not None
            assert len(legal) > 1, "a decision with one choice is never asked"
            for mini in range(-1, len(game.minis) + 1):
                for cell in range(-1, board.CELL_COUNT + 1):
                    choice = PlaceChoice(mini, cell)
                    assert legality.is_legal(game, choice, pending) == (choice in legal), choice
            compared += 1
    assert compared, "no place decision was met in these games"


@pytest.mark.parametrize("seed", range(12))
def test_options_agree_with_the_lists(seed: int) -> None:
    """Each step's check for options (``spawn_choices``, ``shift_choices``,
    ``may_still_strike``) is what ``len(list) > 1`` was, at every state of the step."""
    game = Game(VANILLA_SETUP)
    seen = {True: 0, False: 0}
    for _ in play(game, random.Random(1000 + seed)):
        if game.rolling is not None:
            continue  # a roll interrupts whatever the step is
        for step, has_options in (
            (Step.SPAWN, lambda game: legality.spawn_choices(game) is not None),
            (Step.SHIFT, lambda game: legality.shift_choices(game) is not None),
            (Step.STRIKE, legality.may_still_strike),
        ):
            saved = game.step
            game.step = step
            try:
                lists = legality.make_choices(game)
                assert lists is not None
                has = has_options(game)
            finally:
                game.step = saved
            assert has == (len(lists) > 1), step
            seen[has] += 1
    assert seen[True], seen
    assert seen[False], seen
