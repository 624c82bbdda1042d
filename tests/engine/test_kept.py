"""``Kept``: the last few values made, the oldest dropped first."""

from dbnet.engine.kept import Kept


def test_the_last_values_are_kept_and_the_oldest_goes_first() -> None:
    kept = Kept[str, int](2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert (kept.get("a"), kept.get("b")) == (1, 2)
    kept.put("c", 3)
    assert kept.get("a") is None  # the oldest
    assert (kept.get("b"), kept.get("c"), len(kept)) == (2, 3, 2)


def test_a_key_put_again_holds_the_new_value() -> None:
    kept = Kept[str, int](2)
    kept.put("a", 1)
    kept.put("a", 5)
    assert (kept.get("a"), len(kept)) == (5, 1)
