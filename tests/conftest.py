from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "data" / "traces"
FIXTURES = ROOT / "crates" / "fcsim" / "tests" / "fixtures"


@pytest.fixture
def traces() -> Path:
    return TRACES


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
