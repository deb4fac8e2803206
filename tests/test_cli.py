"""`python -m scoring` as a user runs it: files, stdin, arrays, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .helpers import case

ROOT = Path(__file__).resolve().parents[1]
GOOD = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_one_case_from_stdin():
    p = run("-", stdin=json.dumps(GOOD))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["valid"] is True and out["net"] == [0, 3, 0, -3]


def test_array_of_cases_from_a_file(tmp_path: Path):
    f = tmp_path / "cases.json"
    bad_win = case("nanning", "123m 456s 23p 99m 789s", "9s", winner=1)
    f.write_text(json.dumps([GOOD, bad_win]))
    p = run(str(f))
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert [r["valid"] for r in out] == [True, False] and out[1]["error"] == "not_a_winning_hand"


def test_malformed_json_exits_2_with_a_message():
    p = run("-", stdin='{"ruleset": "nanning", ')
    assert p.returncode == 2 and "Traceback" not in p.stderr
    out = json.loads(p.stdout)
    assert out["error"] == "invalid_input" and "line 1" in out["message"]


def test_bad_cases_exit_2_and_name_the_problem():
    for mutate, needle in [
        (lambda c: c.update(ruleset="riichi"), "unknown ruleset"),
        (lambda c: c["options"].update(foo=1), "unknown option"),
        (lambda c: c["hand"]["concealed"].pop(), "13 tiles"),
        (lambda c: c["hand"].update(melds=[{"type": "pung", "tiles": ["1m", "1m", "2m"], "from": 0}]), "identical"),
        (lambda c: c["hand"].update(melds=[{"type": "pung", "tiles": ["1m"] * 3, "from": 1}]), "winner"),
        (lambda c: c["context"].pop("discarder"), "discarder"),
        (lambda c: c["hand"]["concealed"].__setitem__(0, "1x"), "unknown tile code"),
    ]:
        c = json.loads(json.dumps(GOOD))
        mutate(c)
        p = run("-", stdin=json.dumps(c))
        assert p.returncode == 2, needle
        assert needle in json.loads(p.stdout)["message"], (needle, p.stdout)


def test_missing_file_exits_2():
    p = run("/nonexistent/case.json")
    assert p.returncode == 2 and json.loads(p.stdout)["error"] == "invalid_input"
