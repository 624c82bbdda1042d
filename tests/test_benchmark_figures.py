"""The figures the benchmarks print about their own spread (the benchmarks assert nothing
about timings; what they compute from them is checked here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_selfplay_prints_the_median_of_the_turns_ratios_and_their_spread() -> None:
    """One turn slowed on one side (4.2) moves the median no more than one slowed on the
    other (1.3): the median stays at the middle turns' ratio."""
    selfplay = benchmark("selfplay")
    line = selfplay.spread([3.1, 4.2, 2.9, 3.0, 1.3, 3.2, 3.0])
    assert line == (
        "median of the 7 turns' ratios 3.00x; spread: lowest 1.30x, highest 4.20x, middle "
        "half 2.95x to 3.15x (+/-3% of the median)"
    )


def test_one_turn_has_no_spread() -> None:
    selfplay = benchmark("selfplay")
    assert selfplay.spread([2.5]).endswith("middle half 2.50x to 2.50x (+/-0% of the median)")
