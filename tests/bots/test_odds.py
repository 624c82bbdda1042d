"""Attack-dice odds and damage plans, checked against brute force."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbnet.bots.odds import (
    Outcome,
    Target,
    all_plans,
    assign,
    best_plan,
    damage_distribution,
    expected_value,
    make_target,
)

FACE_DAMAGE = (1, 2, 3, 0, 0, 0)  # 302


@pytest.mark.parametrize("dice", [0, 1, 2, 3, 4])
def test_distribution_matches_enumerating_every_roll(dice: int) -> None:
    counts: dict[int, int] = {}
    for roll in product(range(6), repeat=dice):
        total = sum(FACE_DAMAGE[face] for face in roll)
        counts[total] = counts.get(total, 0) + 1
    distribution = damage_distribution(dice)
    for total, p in enumerate(distribution):
        assert p == pytest.approx(counts.get(total, 0) / 6**dice)
    assert sum(distribution) == pytest.approx(1.0)


def test_target_needs_follow_the_stats() -> None:
    t = make_target(7, defense=3, life=5, damage=1, disrupt_value=0.5, destroy_value=2.0)
    assert (t.disrupt_need, t.destroy_need) == (2, 4)
    # life no more than defense: enough damage to disrupt also destroys, so no disrupt plan
    t = make_target(7, defense=4, life=4, damage=0, disrupt_value=0.5, destroy_value=2.0)
    assert (t.disrupt_need, t.destroy_need) == (0, 4)
    # already marked this combat: nothing more to gain
    t = make_target(7, defense=3, life=5, damage=3, disrupt_value=0.5, destroy_value=2.0)
    assert (t.disrupt_need, t.destroy_need) == (0, 0)


targets_strategy = st.lists(
    st.builds(
        make_target,
        mini=st.integers(0, 31),
        defense=st.integers(1, 9),
        life=st.integers(1, 12),
        damage=st.integers(0, 4),
        disrupt_value=st.floats(0, 3),
        destroy_value=st.floats(0, 5),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda t: t.mini,
)


@given(targets=targets_strategy, total=st.integers(1, 30))
def test_plans_are_affordable_and_assignments_deliver_them(
    targets: list[Target], total: int
) -> None:
    plans = all_plans(targets, bonus_if_cleared=1.0)
    plan = best_plan(plans, total)
    assert plan.need <= total
    assert all(plan.value >= p.value for p in plans if p.need <= total) or len(targets) > 6
    pairs = assign(targets, plan, total)
    assert [m for m, _ in pairs] == sorted({m for m, _ in pairs})
    assert all(n > 0 for _, n in pairs)
    assert sum(n for _, n in pairs) == total
    given_ = dict(pairs)
    for t, o in zip(targets, plan.outcomes, strict=True):
        if o is Outcome.DESTROY:
            assert given_.get(t.mini, 0) >= t.destroy_need
        if o is Outcome.DISRUPT:
            assert given_.get(t.mini, 0) >= t.disrupt_need


def test_expected_value_averages_the_best_plan_over_the_dice() -> None:
    target = make_target(1, defense=2, life=3, damage=0, disrupt_value=0.5, destroy_value=2.0)
    plans = all_plans([target])
    # one die: 1 damage (1/6) does nothing, 2 (1/6) disrupts, 3 (1/6) destroys
    assert expected_value(plans, 1) == pytest.approx(0.5 / 6 + 2.0 / 6)
    assert expected_value(plans, 0) == 0.0
