"""Waits checked against brute force: the winning tiles of a 13-tile hand are exactly the tiles whose 14-tile hand
scores as a valid win, each listed value is score() of that completed hand, and the tiles-from-ready count
matches a search over every draw and discard on small hands."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from scoring import RULESETS, score_case
from scoring.generate import random_case
from scoring.tiles import CODES, INDEX, N_KINDS
from scoring.waits import _candidates, _variants, distance, waits
from tests.helpers import case

ROOT = Path(__file__).resolve().parents[1]


def question(full: dict) -> dict:
    """The 13-tile question of a generated winning case: its winning tile taken away."""
    q = copy.deepcopy(full)
    q["hand"]["winning_tile"] = None
    return q


def brute(q: dict) -> tuple[set[str], dict[str, dict]]:
    """Every tile whose completed hand scores as a valid win in some situation, with those results."""
    rules = RULESETS[q["ruleset"]]
    wins, results = set(), {}
    for code in _candidates(rules, q.get("options") or {}):
        for label, ctx in _variants(rules, q["context"]):
            trial = copy.deepcopy(q)
            trial["hand"]["winning_tile"] = code
            trial["context"] = ctx
            r = score_case(trial)
            results[(code, label)] = r
            if r.get("valid"):
                wins.add(code)
    return wins, results


CASES = [random_case(random.Random(seed), rs, ghosts=True)
         for seed in range(14) for rs in RULESETS]


@pytest.mark.parametrize("full", CASES, ids=[f"{c['ruleset']}-{i}" for i, c in enumerate(CASES)])
def test_waits_equal_brute_force_and_values_equal_score(full: dict) -> None:
    q = question(full)
    table = waits(q)
    assert table["valid"], table
    want, results = brute(q)
    assert {w["tile"] for w in table["waits"]} == want
    for w in table["waits"]:
        for label, r in w["results"].items():
            assert r == results[(w["tile"], label)]  # the listed value is score() of that completed hand
    if score_case(full).get("valid"):
        assert full["hand"]["winning_tile"] in want  # the tile that really won is among the waits


@pytest.mark.parametrize("q, want", [
    (case("nanning", "1122m 4477p 2299s E", None), {"E"}),  # seven pairs: a single wait
    (case("nanning", "1111m 4477p 2299s E", None), {"E"}),  # seven pairs with a quad held
    (case("nanning-fan", "19m 19p 19s ESWNCF P", None), {"1m", "9m", "1p", "9p", "1s", "9s", "E", "S", "W", "N",
                                                         "C", "F", "P"}),  # thirteen orphans, thirteen-sided
    (case("nanning-fan", "19m 19p 19s ESWNC PP", None), {"F"}),
])
def test_special_shapes(q: dict, want: set[str]) -> None:
    q["hand"]["winning_tile"] = None
    assert {w["tile"] for w in waits(q)["waits"]} == want == brute(q)[0]


def test_ghost_hands_wait_on_anything_the_ghost_completes() -> None:
    q = case("nanning-fan", "123m 456p 789s 11s 5m G", None, options={"ghost": {"mode": "extra4"}})
    q["hand"]["winning_tile"] = None
    table = waits(q)
    assert {w["tile"] for w in table["waits"]} == brute(q)[0]
    assert len(table["waits"]) >= 5  # the ghost joins many tiles


def test_a_nanjing_small_hand_completes_the_shape_but_does_not_score() -> None:
    q = case("nanjing", "123p 456s 78s 22s", None, [{"type": "pung", "tiles": ["9m"] * 3, "from": 2}],
             flowers="f1")
    q["hand"]["winning_tile"] = None
    table = waits(q)
    assert table["ready"] and table["waits"] == []
    nos = table["completes_but_does_not_score"]
    assert {n["tile"] for n in nos} == {"3s", "6s", "9s"} and all(n["error"] == "illegal_small_hand" for n in nos)


def test_not_ready_says_how_far_and_which_draws_help() -> None:
    q = case("nanning", "1m 4m 7m 2p 5p 8p 3s 6s 9s E S W N", None)
    q["hand"]["winning_tile"] = None
    table = waits(q)
    assert not table["ready"] and table["tiles_from_ready"] == min(table["by_shape"].values()) >= 5
    assert table["improving_draws"]


def test_a_hand_one_tile_over_lists_the_best_discards() -> None:
    q = case("nanning", "123m 456p 789s EE 23m N", None)
    q["hand"]["winning_tile"] = None
    table = waits(q)
    assert table["best_discards"] == ["N"] and table["discards"][0]["waits"] == ["1m", "4m"]


# ---------------------------------------------------------------- the distance against brute force


@cache
def brute_distance(counts: tuple[int, ...], n_melds: int, ruleset: str, depth: int) -> int:
    """Fewest draw-then-discard exchanges until the 13-tile hand is ready (within depth; beyond: depth + 1)."""
    rules = RULESETS[ruleset]
    c = list(counts)
    for k in range(N_KINDS):
        if c[k] < 4:
            c[k] += 1
            if rules.is_complete(c, n_melds):
                return 0
            c[k] -= 1
    if depth == 0:
        return 1
    best = depth + 1
    kinds = [k for k in range(N_KINDS) if counts[k]]
    near = sorted({j for k in kinds for j in range(max(0, k - 2), min(N_KINDS, k + 3))})
    for d in near:
        if counts[d] >= 4:
            continue
        c = list(counts)
        c[d] += 1
        for x in kinds + [d]:
            if c[x] and x != d:
                c[x] -= 1
                best = min(best, 1 + brute_distance(tuple(c), n_melds, ruleset, depth - 1))
                c[x] += 1
                if best == 1:
                    return 1
    return best


SMALL = ["123m 4m", "13m 58m 9m 2p 2p", "1m 3m 5p 7p", "2p 2p 5s 8s", "EE 1m 9m", "147m 2p 5p 8p 3s",
         "1m 5m 9m E", "1379m 1p 5s E", "2468m 2p 5s S"]


@pytest.mark.parametrize("tiles", SMALL)
def test_the_distance_matches_a_search_over_draws_and_discards(tiles: str) -> None:
    from scoring.tiles import split_notation

    concealed = [INDEX[c] for c in split_notation(tiles)]
    n_melds = (13 - len(concealed)) // 3
    counts = [0] * N_KINDS
    for t in concealed:
        counts[t] += 1
    got = min(distance(RULESETS["nanning"], tuple(counts), n_melds).values())
    assert got == brute_distance(tuple(counts), n_melds, "nanning", 3), (tiles, got)


def test_the_cli_prints_json_and_a_table_on_a_terminal(tmp_path: Path) -> None:
    q = case("nanning", "123m 456p 789s EE 23m", None)
    q["hand"]["winning_tile"] = None
    f = tmp_path / "q.json"
    f.write_text(json.dumps(q))
    p = subprocess.run([sys.executable, "-m", "scoring", "--waits", str(f), "--compact"], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0 and [w["tile"] for w in json.loads(p.stdout)["waits"]] == ["1m", "4m"]
    bad = subprocess.run([sys.executable, "-m", "scoring", "--waits", "-"], input='{"ruleset": "x"}',
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"] == "invalid_input"
    assert CODES  # the codes the table prints are RULES.md codes


def test_the_page_shows_what_wins_sorted_by_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.toggle(key="waits_mode").set_value(True).run()
    at.text_input(key="concealed_txt").input("123m 456p 789s EE 23m").run()
    assert not at.exception and "Ready: 2 tile(s) win" in at.success[0].value
    titles = [e.label for e in at.expander if "live" in e.label]
    assert len(titles) == 2 and titles[0].split()[0] in ("1m", "4m")
    values = [int(t.split("·")[1].split()[0]) for t in titles]
    assert values == sorted(values, reverse=True)
    at.text_input(key="concealed_txt").input("147m 258p 369s ESWN").run()
    assert "Not ready yet" in at.info[0].value
    at.radio(key="lang").set_value("zh").run()
    assert "還沒聽牌" in at.info[0].value
