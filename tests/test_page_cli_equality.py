"""The page and `python -m scoring` agree: generated cases go through the page's hand state and case builder and
score exactly as the CLI scores the original, field by field (RULES.md §0.4 output)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import scoring
from scoring import score_case
from scoring.generate import random_case
from webapp.case import build_case, state_from_case

ROOT = Path(__file__).resolve().parents[1]
RULESETS = tuple(scoring.RULESETS)  # every ruleset the engine has


def page_case(case: dict) -> dict:
    hand, sit, dealer = state_from_case(case)
    return build_case(case["ruleset"], case["options"], hand, sit, dealer)


def generated(n_per_ruleset: int) -> list[dict]:
    rng = random.Random(2026)
    return [random_case(rng, rs, ghosts=True) for rs in RULESETS for _ in range(n_per_ruleset)]


def test_the_page_scores_300_generated_cases_exactly_as_the_cli() -> None:
    cases = generated(110)
    p = subprocess.run([sys.executable, "-m", "scoring", "-", "--compact"], input=json.dumps(cases),
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    cli = json.loads(p.stdout)
    assert len(cli) == len(cases) >= 300
    for case, want in zip(cases, cli):
        got = score_case(page_case(case))
        assert got == want, (case, got, want)


@pytest.mark.parametrize("winner", range(4))
def test_a_meld_keeps_its_feeder_relative_to_whoever_wins(winner: int) -> None:
    """A meld read from a photo is 'fed by the left player'; choosing the winner later never breaks it."""
    from webapp.state import HandState, MeldState, Situation

    hand = HandState(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], "4p",
                     [MeldState("pung", ["7p"] * 3, "left")])
    case = build_case("nanning", {}, hand, Situation(winner=winner, win_type="self_draw"), dealer=0)
    assert case["hand"]["melds"][0]["from"] == (winner + 3) % 4
    assert score_case(case)["valid"] is True
