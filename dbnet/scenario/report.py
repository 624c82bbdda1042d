"""Scenario results as the lines people read: one per scenario, then each mismatch."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from dbnet.scenario.model import ScenarioResult

INDENT = "    "


def result_lines(result: ScenarioResult) -> Iterator[str]:
    """``PASS path: title``, or ``FAIL path: title`` followed by one indented line per problem."""
    verdict = "PASS" if result.passed else "FAIL"
    title = result.title or "(not loaded)"
    yield f"{verdict} {result.path}: {title}"
    if result.error is not None:
        yield f"{INDENT}malformed: {result.error}"
    for mismatch in result.mismatches:
        yield f"{INDENT}{mismatch}"


def summary_line(results: Iterable[ScenarioResult]) -> str:
    """``12 scenarios: 11 passed, 1 failed``."""
    items = list(results)
    failed = sum(1 for r in items if not r.passed)
    noun = "scenario" if len(items) == 1 else "scenarios"
    return f"{len(items)} {noun}: {len(items) - failed} passed, {failed} failed"
