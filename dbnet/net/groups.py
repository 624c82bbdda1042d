"""An error out of a task group as if no group were there: a nursery that wraps a body
(a context manager's ``yield``) would otherwise turn the body's own error into an
exception group."""

from __future__ import annotations

__all__ = ["raise_single"]


def raise_single(group: BaseExceptionGroup[BaseException]) -> None:
    """Raise the group's only exception, keeping its own cause; return when the group
    holds several (the caller re-raises the group)."""
    if len(group.exceptions) == 1:
        only = group.exceptions[0]
        raise only from only.__cause__
