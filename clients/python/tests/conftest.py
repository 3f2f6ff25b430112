"""Shared helpers of the package's unit tests: the protocol vectors every Rollcall client checks against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

VECTORS = Path(__file__).resolve().parents[3] / "Tests" / "Vectors"


def load_vectors(name: str) -> Any:
    """A vector file of Tests/Vectors, parsed."""
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@pytest.fixture
def two_participants() -> dict[str, Any]:
    """The roster of the 'two participants' checksum vector, with its checksum."""
    cases = load_vectors("roster-checksum.json")["cases"]
    case = next(case for case in cases if case["name"] == "two participants")
    return {"roster": case["roster"], "checksum": case["checksum"]}
