"""Every worked example of ../shared/rules/examples.json, compared on what RULES.md says must be exact."""

from __future__ import annotations

import json

import pytest

from scoring import score_case
from tests.helpers import SHARED

EXAMPLES = SHARED / "rules" / "examples.json"
CASES = json.loads(EXAMPLES.read_text())["cases"] if EXAMPLES.exists() else []


def element_set(result: dict) -> list[tuple]:
    return sorted((e["id"], e.get("value"), e.get("fan"), e.get("multiplier"), e.get("count"))
                  for e in result.get("elements", []))


@pytest.mark.skipif(not CASES, reason=f"{EXAMPLES} not found (set MAHJONG_SHARED to the shared folder)")
@pytest.mark.parametrize("example", CASES, ids=[c["id"] for c in CASES])
def test_example(example: dict) -> None:
    got = score_case(example)
    want = example["expected"]
    assert got["valid"] == want["valid"], got
    if not want["valid"]:
        assert got["error"] == want["error"]
        return
    assert element_set(got) == element_set(want)
    for key in ("settlement", "hand_payments", "kong_payments", "penalty_payments", "net", "fan", "points", "total",
                "dahu"):
        if key in want:
            assert got[key] == want[key], key
    if "ghost_substitution_example" in want:
        assert len(got["ghost_substitution"]) == len(want["ghost_substitution_example"])
