"""Every rule scenario in tests/scenarios (and the documented examples) is one test.

A scenario's expectations come from the rules texts, so a failure here means
the engine and the rules disagree (or the scenario is wrong): the message is
the runner's report, naming the step and the expected and actual values.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dbnet.engine.keywords import CUSTOM, KEYWORDS
from dbnet.scenario import load_scenario, result_lines, run_file

ROOT = Path(__file__).resolve().parents[2]
RULE_SCENARIOS = ROOT / "tests" / "scenarios"
EXAMPLE_SCENARIOS = ROOT / "examples" / "scenarios"
FILES = sorted(RULE_SCENARIOS.rglob("*.toml")) + sorted(EXAMPLE_SCENARIOS.rglob("*.toml"))

# Rules 800-803 that must each have a scenario named after them (801_5_....toml).
REQUIRED_RULES = (
    "800", "800.1",
    "801.1", "801.2", "801.3", "801.4", "801.5", "801.6", "801.7", "801.8", "801.9", "801.10",
    "802.1a", "802.1b", "802.1c",
    "802.2a", "802.2b", "802.2c", "802.2d", "802.2e", "802.2f", "802.2g", "802.2h", "802.2i",
    "802.2j",
    "803.1", "803.2", "803.3",
)  # fmt: skip


ABILITY_SCENARIOS = RULE_SCENARIOS / "abilities"
KEYWORD_NAMES = sorted([*KEYWORDS, *CUSTOM])


def keyword_file(keyword: str) -> Path:
    """``abilities/hells_fury.toml`` for Hell's Fury: the keyword in snake case."""
    words = re.findall(r"[a-z0-9]+", keyword.lower().replace("'", ""))
    return ABILITY_SCENARIOS / ("_".join(words) + ".toml")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_scenario(path: Path) -> None:
    result = run_file(str(path))
    assert result.passed, "\n".join(result_lines(result))


def test_scenario_file_names_are_unique() -> None:
    """Test ids are file names, so two files with one name would hide each other."""
    names = [p.name for p in FILES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("rule", REQUIRED_RULES)
def test_every_rule_of_800_to_803_has_a_scenario(rule: str) -> None:
    """A file named after the rule exists, and its title cites the rule."""
    prefix = rule.replace(".", "_") + "_"
    # "800_tie....toml" is about 800, "800_1_....toml" is about 800.1.
    own_file = re.compile(rf"{re.escape(prefix)}(?!\d+_)")
    named = [p for p in RULE_SCENARIOS.rglob("*.toml") if own_file.match(p.name)]
    assert named, f"no scenario file named {prefix}*.toml for rule {rule}"
    cited = re.compile(rf"(?<![\w.]){re.escape(rule)}(?!\w|\.\w)")
    for path in named:
        assert cited.search(load_scenario(path).title), f"{path.name}: title does not cite {rule}"


@pytest.mark.parametrize("keyword", KEYWORD_NAMES)
def test_every_ability_keyword_has_a_scenario(keyword: str) -> None:
    """Each glossary keyword (and custom effect) has abilities/<keyword>.toml citing it."""
    path = keyword_file(keyword)
    assert path.is_file(), f"no scenario {path.relative_to(ROOT)} for {keyword}"
    assert keyword.lower() in load_scenario(path).title.lower(), f"{path.name}: title"
