"""RULES.md §0.7: a case whose own fields contradict each other is invalid_input, with a message that names the
field and the reason (D-C1 .. D-C8), and D-J16."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scoring import score_case
from tests.helpers import case, elements, meld, score

N, NF, NJ = "nanning", "nanning-fan", "nanjing"
RULESETS = (N, NF, NJ)
PLAIN = "123m 456p 789s 11p 46s"  # waits on 5s, holds no other 5s


def rejected(r: dict, *words: str) -> None:
    assert r["valid"] is False and r["error"] == "invalid_input", r
    for w in words:
        assert w in r["message"], r["message"]


# ---------------------------------------------------------------- D-C1: only an added kong can be robbed

@pytest.mark.parametrize("rs", RULESETS)
@pytest.mark.parametrize("kind", ["concealed", "exposed"])
def test_a_robbed_concealed_or_direct_kong_is_invalid_input(rs: str, kind: str) -> None:
    ev = {"seat": 2, "kind": kind, "robbed": True}
    if kind == "exposed":
        ev["from"] = 1
    r = score(rs, PLAIN, "5s", winner=0, win_type="rob_kong", discarder=2, kong_events=[ev],
              flowers="f1" if rs == NJ else "")
    rejected(r, "rob_kong", "seat 2", "only an added kong")


@pytest.mark.parametrize("rs", RULESETS)
def test_the_robbed_kong_is_the_discarders_and_only_one(rs: str) -> None:
    fl = "f1" if rs == NJ else ""
    r = score(rs, PLAIN, "5s", winner=0, win_type="rob_kong", discarder=2, flowers=fl,
              kong_events=[{"seat": 3, "kind": "added", "from": 1, "robbed": True}])
    rejected(r, "seat 3", "seat 2")
    two = [{"seat": 2, "kind": "added", "from": 1, "robbed": True}] * 2
    r = score(rs, PLAIN, "5s", winner=0, win_type="rob_kong", discarder=2, flowers=fl, kong_events=two)
    rejected(r, "at most one")
    r = score(rs, PLAIN, "5s", winner=0, win_type="discard", discarder=2, flowers=fl,
              kong_events=[{"seat": 2, "kind": "added", "from": 1, "robbed": True}])
    rejected(r, "robbed", "rob_kong win")


@pytest.mark.parametrize("rs", RULESETS)
def test_robbing_the_discarders_added_kong_scores(rs: str) -> None:
    r = score(rs, PLAIN, "5s", winner=0, win_type="rob_kong", discarder=2, flowers="f1" if rs == NJ else "",
              kong_events=[{"seat": 2, "kind": "added", "from": 1, "robbed": True}])
    assert r["valid"] is True and r["kong_payments"] == []


# ---------------------------------------------------------------- D-C2: the robbed tile's copies count

@pytest.mark.parametrize("rs", RULESETS)
def test_the_winner_may_hold_no_other_copy_of_a_robbed_tile(rs: str) -> None:
    fl = "f1 f2 f3 f4" if rs == NJ else ""
    r = score(rs, "123m 456p 789s 11p 55s", "5s", winner=0, win_type="rob_kong", discarder=2, flowers=fl)
    rejected(r, "5s", "robbed kong", "other three copies")
    pung = [meld("pung", "555s", 1)]
    r = score(rs, "123m 456p 11p 78s", "9s", pung, winner=0, win_type="rob_kong", discarder=2, flowers=fl)
    assert r["valid"] is True, r  # copies of other tiles are fine
    r = score(rs, "123m 456p 11p 78s", "5s", pung, winner=0, win_type="rob_kong", discarder=2, flowers=fl)
    rejected(r, "5s", "other three copies")


# ---------------------------------------------------------------- D-C3: 天胡 / 地胡 flags the input refutes

@pytest.mark.parametrize("rs", RULESETS)
def test_heavenly_needs_the_dealers_self_draw_without_any_meld(rs: str) -> None:
    fl = "f1" if rs == NJ else ""
    ok = score(rs, PLAIN, "5s", winner=0, dealer=0, heavenly=True, flowers=fl)
    assert ok["valid"] is True
    rejected(score(rs, PLAIN, "5s", winner=1, dealer=0, heavenly=True, flowers=fl), "heavenly", "not the dealer")
    rejected(score(rs, PLAIN, "5s", winner=0, dealer=0, heavenly=True, win_type="discard", discarder=1, flowers=fl),
             "heavenly", "discard")
    pung = [meld("pung", "EEE", 2)]
    r = score(rs, "123m 456p 11p 46s", "5s", pung, winner=0, dealer=0, heavenly=True, flowers=fl)
    rejected(r, "heavenly", "pung")
    kong = [meld("kong_concealed", "EEEE")]
    r = score(rs, "123m 456p 11p 46s", "5s", kong, winner=0, dealer=0, heavenly=True, flowers=fl)
    rejected(r, "heavenly", "kong_concealed")


def test_nanning_earthly_is_a_self_draw_before_any_claim_by_anyone() -> None:
    assert score(N, PLAIN, "5s", winner=1, dealer=0, earthly=True)["valid"] is True
    rejected(score(N, PLAIN, "5s", winner=1, dealer=0, earthly=True, win_type="discard", discarder=2),
             "earthly", "self_draw")
    r = score(N, "123m 456p 11p 46s", "5s", [meld("pung", "EEE", 2)], winner=1, dealer=0, earthly=True)
    rejected(r, "earthly", "pung")
    r = score(N, PLAIN, "5s", winner=1, dealer=0, earthly=True, kong_events=[{"seat": 3, "kind": "concealed"}])
    rejected(r, "earthly", "seat 3", "kong")
    r = score(N, PLAIN, "5s", winner=1, dealer=0, earthly=True, other_melds={"2": [meld("pung", "NNN", 3)]})
    rejected(r, "earthly", "seat 2")


def test_nanning_fan_earthly_may_be_won_on_a_discard_but_not_after_a_chow() -> None:
    assert score(NF, PLAIN, "5s", winner=1, dealer=0, earthly=True, win_type="discard", discarder=2)["valid"]
    r = score(NF, "456p 789s 11p 46s", "5s", [meld("chow", "123m", 0)], winner=1, dealer=0, earthly=True,
              win_type="discard", discarder=2)
    rejected(r, "earthly", "chow")
    rejected(score(NF, PLAIN, "5s", winner=1, dealer=0, earthly=True, win_type="rob_kong", discarder=2),
             "earthly", "rob_kong")


def test_nanjing_earthly_allows_kongs_but_no_pung() -> None:
    kong = [meld("kong_concealed", "EEEE")]
    r = score(NJ, "123m 456p 11p 46s", "5s", kong, winner=1, dealer=0, earthly=True, win_type="discard",
              discarder=2)
    assert r["valid"] is True and "dihu" in elements(r)
    for m in (meld("pung", "EEE", 2), meld("kong_added", "EEEE", 2)):
        r = score(NJ, "123m 456p 11p 46s", "5s", [m], winner=1, dealer=0, earthly=True, win_type="discard",
                  discarder=2)
        rejected(r, "earthly", m["type"])


# ---------------------------------------------------------------- D-C4: 快照 needs four mouths from the feeder

def test_quick_shot_needs_all_four_melds_fed_by_the_feeder() -> None:
    four = [meld("pung", t, 2) for t in ("111m", "555p", "999s", "EEE")]
    ok = score(NJ, "2m 7p", None, four, winner=0, win_type="quick_shot", discarder=2)
    assert ok["valid"] is True and ok["liability"]["type"] == "sanzui_kuaizhao"
    three = four[:3] + [meld("pung", "EEE", 1)]
    rejected(score(NJ, "2m 7p", None, three, winner=0, win_type="quick_shot", discarder=2), "seat 2", "fed by seat 1")
    conc = four[:3] + [meld("kong_concealed", "EEEE")]
    rejected(score(NJ, "2m 7p", None, conc, winner=0, win_type="quick_shot", discarder=2), "concealed kong")


@pytest.mark.parametrize("rs", [N, NF])
def test_a_quick_shot_exists_only_where_the_ruleset_has_it(rs: str) -> None:
    four = [meld("pung", t, 2) for t in ("111m", "555p", "999s", "EEE")]
    rejected(score(rs, "2m", "2m", four, winner=0, win_type="quick_shot", discarder=2), "quick_shot")


# ---------------------------------------------------------------- D-C5: fields a ruleset never uses are ignored

def test_fields_a_ruleset_never_uses_are_ignored() -> None:
    base = score(NJ, PLAIN, "5s", winner=0, flowers="f1")
    for extra in ({"last_tile": True}, {"after_kong": "yes"}, {"fish_tiles": 7}, {"other_melds": []},
                  {"bloom_chain": "nonsense"}, {"previous_winner": 9}):
        assert score(NJ, PLAIN, "5s", winner=0, flowers="f1", **extra) == base, extra
    base = score(N, PLAIN, "5s", winner=0)
    for extra in ({"penalty_events": 2}, {"bloom_kong": {"kind": "concealed"}}):
        assert score(N, PLAIN, "5s", winner=0, **extra) == base, extra
    base = score(NF, PLAIN, "5s", winner=0)
    assert score(NF, PLAIN, "5s", winner=0, after_kong=True, penalty_events=[1]) == base


def test_a_used_field_of_the_wrong_type_is_still_rejected() -> None:
    rejected(score(NJ, PLAIN, "5s", winner=0, flowers="f1", penalty_events=2), "penalty_events")
    rejected(score(N, PLAIN, "5s", winner=0, last_tile="yes"), "last_tile")


# ---------------------------------------------------------------- D-C6: sizes

@pytest.mark.parametrize(("rs", "opts", "name"), [
    (NF, {"duiduihu_fan": 65}, "duiduihu_fan"), (NF, {"qingyise_fan": -1}, "qingyise_fan"),
    (NF, {"base": 0}, "base"), (NF, {"base": 10**6 + 1}, "base"), (NF, {"fan_cap": 65}, "fan_cap"),
    (NF, {"kong_payment": {"exposed": 10**7}}, "exposed"), (NJ, {"kong_pay_exposed": 10**6 + 1}, "kong_pay_exposed"),
    (NJ, {"penalty_follow": -5}, "penalty_follow"), (N, {"gangkai_concealed_each": 10**9}, "gangkai"),
])
def test_option_values_are_bounded(rs: str, opts: dict, name: str) -> None:
    rejected(score(rs, PLAIN, "5s", winner=0, options=opts, flowers="f1" if rs == NJ else ""), name)


def test_every_amount_fits_a_signed_64_bit_integer() -> None:
    # the largest fan values and base allowed still give a result, or a clear rejection, never a huge number
    opts = {"base": 10**6, "qingyise_fan": 64, "duiduihu_fan": 64}
    r = score(NF, "111m 222m 333m 555m 9m", "9m", winner=0, options=opts)
    rejected(r, "64-bit")
    r = score(NF, "111m 222m 333m 555m 9m", "9m", winner=0, options={"qingyise_fan": 40, "duiduihu_fan": 10})
    assert r["valid"] is True and max(abs(n) for n in r["net"]) < 2**63


def run_cli(text: str) -> tuple[int, str]:
    p = subprocess.run([sys.executable, "-m", "scoring", "-", "--compact"], input=text, capture_output=True,
                       text=True, timeout=60)
    assert p.stderr == "", p.stderr
    return p.returncode, p.stdout


@pytest.mark.parametrize(("text", "words"), [
    ("[" * 1000 + "]" * 1000, "nested deeper than 64"),
    ('{"ruleset": "nanning", "options": {"base": ' + "9" * 4301 + "}}", "4301 digits"),
    ('{"ruleset": "' + "x" * 5000 + '"}', "string of 5000"),
], ids=["deep", "long-number", "long-string"])
def test_deep_json_long_numbers_and_long_strings_are_rejected_early(text: str, words: str) -> None:
    code, out = run_cli(text)
    assert code == 2
    r = json.loads(out)
    rejected(r, words)
    assert len(out) < 500  # the message quotes no huge value


def test_a_huge_house_rule_fan_is_a_clear_rejection_not_a_crash() -> None:
    c = case(NF, "111m 222m 333m 555m 9m", "9m", options={"qingyise_fan": 15000})
    code, out = run_cli(json.dumps(c))
    assert code == 2 and "qingyise_fan" in json.loads(out)["message"]


def test_penalty_events_of_the_wrong_type_is_a_clear_rejection() -> None:
    c = case(NJ, PLAIN, "5s", flowers="f1", penalty_events=2)
    code, out = run_cli(json.dumps(c))
    assert code == 2 and "penalty_events" in json.loads(out)["message"]


# ---------------------------------------------------------------- D-C7 / D-C8: what the engine does, written down

def test_without_lian_gang_only_the_last_kong_of_the_chain_decides() -> None:
    """D-C7: exposed/added last kong -> its feeder pays alone; concealed last kong -> each pays."""
    melds = [meld("kong_concealed", "1111m"), meld("kong_added", "5555p", 3)]
    chain = [{"kind": "concealed"}, {"kind": "added", "from": 3}]
    r = score(N, "23p 66s 789s", "4p", melds, winner=0, replacement="kong", bloom_chain=chain,
              options={"lian_gang": False})
    assert "gangkai_exposed" in elements(r) and "liangang" not in elements(r)
    assert r["settlement"] == {"mode": "single", "payer": 3, "amount": 18}
    melds = [meld("kong_added", "5555p", 3), meld("kong_concealed", "1111m")]
    chain = [{"kind": "added", "from": 3}, {"kind": "concealed"}]
    r = score(N, "23p 66s 789s", "4p", melds, winner=0, replacement="kong", bloom_chain=chain,
              options={"lian_gang": False})
    assert "gangkai_concealed" in elements(r) and r["settlement"]["mode"] == "each"


def test_a_wind_kong_keeps_its_wind_pung_without_kong_soft_flowers() -> None:
    """D-C8: kong_soft_flowers=false switches off the kong's own soft flowers, not its 風碰."""
    melds = [meld("kong_exposed", "EEEE", 1)]
    r = score(NJ, "234m 678m 345s 2s", "2s", melds, winner=0, win_type="discard", discarder=2, flowers="f1",
              options={"kong_soft_flowers": False})
    items = next(e for e in r["elements"] if e["id"] == "soft_flowers")["items"]
    assert {i["id"]: i["count"] for i in items}.get("feng_peng") == 1
    assert not any(i["id"].startswith("kong") for i in items)
    r = score(NJ, "234m 678m 345s 2s", "2s", melds, winner=0, win_type="discard", discarder=2, flowers="f1")
    items = next(e for e in r["elements"] if e["id"] == "soft_flowers")["items"]
    assert {i["id"]: i["count"] for i in items} == {"kong_exposed": 2, "queyi": 1}


def test_every_reason_is_given_in_chinese_too() -> None:
    for c in (case(N, PLAIN, "5s"), case(NF, PLAIN, "5s"), case(NJ, PLAIN, "5s", flowers="f1 f2")):
        r = score_case(c)
        for e in r["elements"]:
            assert e["reason_zh"] and e["reason_zh"] != e["reason"], e
