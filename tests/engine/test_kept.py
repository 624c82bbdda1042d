"""``Kept``: the last few values made, the oldest dropped first."""

from dbnet.engine.kept import Kept, KeptFor


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


def test_kept_for_finds_the_very_object_and_its_key_only() -> None:
    """``KeptFor`` keys by identity: an equal but distinct object, or another key beside
    the same object, finds nothing."""
    kept = KeptFor[list[int], str](2)
    first, twin = [1, 2], [1, 2]
    kept.put(first, "made")
    kept.put(first, "made with a clock", (60, 5))
    assert kept.get(first) == "made"
    assert kept.get(first, (60, 5)) == "made with a clock"
    assert kept.get(twin) is None
    assert kept.get(first, (60, 0)) is None
    kept.put(twin, "the twin's")
    assert (kept.get(first), kept.get(twin), len(kept)) == (None, "the twin's", 2)
