"""Rule scenarios: a TOML file sets up a position, plays decisions and dice, checks outcomes.

The format is documented in docs/scenarios.md. ``load_scenario`` reads and
checks a file, ``run_scenario`` plays it, ``run_file`` does both and turns a
malformed file into a failed result, and ``find_scenario_files`` expands
folders.
"""

from dbnet.scenario.files import find_scenario_files
from dbnet.scenario.load import load_scenario, parse_scenario
from dbnet.scenario.model import Mismatch, Scenario, ScenarioResult
from dbnet.scenario.report import result_lines, summary_line
from dbnet.scenario.run import run_file, run_scenario, start_game

__all__ = [
    "Mismatch",
    "Scenario",
    "ScenarioResult",
    "find_scenario_files",
    "load_scenario",
    "parse_scenario",
    "result_lines",
    "run_file",
    "run_scenario",
    "start_game",
    "summary_line",
]
