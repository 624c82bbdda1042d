"""Fixtures for the catalog tests."""

from __future__ import annotations

import pytest

from dbnet.catalog import Catalog, load_catalog


@pytest.fixture
def catalog() -> Catalog:
    """The shipped catalog."""
    return load_catalog()
