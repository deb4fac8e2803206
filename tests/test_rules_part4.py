"""RULES.md §0.8 and D-J17: kongs, flowers and drawn hands must agree with the tiles; kong money on a drawn hand;
the next dealer from the engine (a Nanjing 大胡 keeps the deal), through the engine, the CLI and the ledger."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import Ledger
from scoring import event_net, score_case
from tests.helpers import case, elements, meld, score

N, NF, NJ = "nanning", "nanning-fan", "nanjing"
ROOT = Path(__file__).resolve().parents[1]
MENQING_NJ = "123m 456m 789p 11s 23s"  # a 門清 Nanjing hand waiting on 1s/4s


def draw(ruleset: str, dealer: int, kongs: list[dict], penalties: list[dict] | None = None,
         options: dict | None = None) -> dict:
    ctx: dict = {"dealer": dealer, "kong_events": kongs}
    if penalties is not None:
        ctx["penalty_events"] = penalties
    return {"ruleset": ruleset, "kind": "draw", "options": options or {}, "context": ctx}


def rejected(result: dict, field: str) -> None:
    assert result["valid"] is False and result["error"] == "invalid_input", result
    assert field in result["message"], result["message"]


# ---------------------------------------------------------------- D-C9: a flower kong needs four of one face

def test_a_flower_kong_without_four_of_a_face_is_rejected_naming_the_field():
    # seed 003 "一人同時抓到四個相同的花": 中中中 + 春 is no flower kong, and nobody pays 5 for it
    r = score(NJ, MENQING_NJ, "4s", flowers="C C C f1", kong_events=[{"seat": 0, "kind": "flower"}])
    rejected(r, "context.kong_events[0]")
    assert "four of one flower" in r["message"]


def test_a_declared_flower_kong_with_four_of_a_face_is_paid_once():
    r = score(NJ, MENQING_NJ, "4s", flowers="C C C C f1", kong_events=[{"seat": 0, "kind": "flower"}])
    assert r["valid"] and "implied_events" not in r
    assert r["kong_payments"] == [{"from": s, "to": 0, "amount": 5} for s in (1, 2, 3)]


def test_too_many_flower_kongs_for_the_whole_set_are_rejected():
    kongs = [{"seat": s, "kind": "flower"} for s in (1, 2, 3, 1)]  # three dragons make at most three 花槓
    rejected(score_case(draw(NJ, 0, kongs)), "context.kong_events[3]")


# ---------------------------------------------------------------- D-C10: four of one face imply the kong

@pytest.mark.parametrize("events", [None, [], [{"seat": 2, "kind": "concealed"}]])
def test_four_of_one_flower_imply_the_flower_kong_and_say_so(events):
    kw = {} if events is None else {"kong_events": events}
    r = score(NJ, MENQING_NJ, "4s", flowers="P P P P f2", **kw)
    assert r["valid"]
    flower_money = [{"from": s, "to": 0, "amount": 5} for s in (1, 2, 3)]
    if events:  # seat 2's concealed kong: 5 from each of the others
        assert r["kong_payments"] == [{"from": 0, "to": 2, "amount": 5}, {"from": 1, "to": 0, "amount": 5},
                                      {"from": 1, "to": 2, "amount": 5}, {"from": 2, "to": 0, "amount": 5},
                                      {"from": 3, "to": 0, "amount": 5}, {"from": 3, "to": 2, "amount": 5}]
    else:
        assert r["kong_payments"] == flower_money
    assert r["implied_events"] == [{"seat": 0, "kind": "flower", "tiles": ["P"] * 4,
                                    "reason": "flower kong of 白 counted: four 白 among the flowers",
                                    "reason_zh": "花槓：花牌中有四張白，已計"}]


def test_a_seasons_set_is_implied_only_where_the_option_makes_it_a_kong():
    r = score(NJ, MENQING_NJ, "4s", flowers="f1 f2 f3 f4")
    assert r["valid"] and r["kong_payments"] == [] and "implied_events" not in r
    r = score(NJ, MENQING_NJ, "4s", flowers="f1 f2 f3 f4", options={"seasons_sets_as_flower_kong": True})
    assert r["kong_payments"] == [{"from": s, "to": 0, "amount": 5} for s in (1, 2, 3)]
    assert r["implied_events"][0]["tiles"] == ["f1", "f2", "f3", "f4"]


# ---------------------------------------------------------------- D-C11: 槓上炮 needs the discarder's kong

PUNGS = [meld("pung", "111m", 1), meld("pung", "555p", 3)]


@pytest.mark.parametrize("events", [None, [], [{"seat": 1, "kind": "concealed"}],
                                    [{"seat": 2, "kind": "concealed"}, {"seat": 3, "kind": "exposed", "from": 1}]])
def test_gangshangpao_without_the_discarders_last_kong_is_rejected(events):
    kw = {} if events is None else {"kong_events": events}
    r = score(N, "999s EE 22m", "2m", PUNGS, winner=0, win_type="discard", discarder=2, after_kong=True, **kw)
    rejected(r, "context.after_kong")


def test_gangshangpao_after_the_discarders_kong_is_paid_by_him():
    r = score(N, "999s EE 22m", "2m", PUNGS, winner=0, win_type="discard", discarder=2, after_kong=True,
              kong_events=[{"seat": 3, "kind": "concealed"}, {"seat": 2, "kind": "exposed", "from": 1}])
    assert elements(r) == {"gangshangpao": 9, "duiduihu": 9}
    assert r["hand_payments"] == [{"from": 2, "to": 0, "amount": 18}]
    # seat 3's concealed kong: 1 from each; seat 2's direct kong: 1 from its feeder, seat 1
    assert r["kong_payments"] == [{"from": 0, "to": 3, "amount": 1}, {"from": 1, "to": 2, "amount": 1},
                                  {"from": 1, "to": 3, "amount": 1}, {"from": 2, "to": 3, "amount": 1}]


# ---------------------------------------------------------------- D-C12: 槓上開花 needs the winner's kong

def test_a_bloom_without_a_kong_meld_is_rejected():
    r = score(N, "123m 456m 234p 678s 9s", "9s", winner=0, replacement="kong", bloom_chain=[{"kind": "concealed"}])
    rejected(r, "context.bloom_chain")


def test_a_bloom_feeder_that_differs_from_the_melds_is_rejected():
    melds = [meld("kong_added", "6666m", 2), meld("pung", "999p", 1)]
    r = score(N, "123s 456s 7p", "7p", melds, winner=0, replacement="kong", bloom_chain=[{"kind": "added", "from": 3}])
    rejected(r, "context.bloom_chain")
    assert "cannot be charged to two seats" in r["message"]
    # the same kong named with another feeder in kong_events
    r = score(N, "123s 456s 7p", "7p", melds, winner=0, replacement="kong", bloom_chain=[{"kind": "added", "from": 2}],
              kong_events=[{"seat": 0, "kind": "added", "from": 3}])
    rejected(r, "context.kong_events[0]")
    # a bloom kong the kong events do not give the winner
    r = score(N, "123s 456s 7p", "7p", melds, winner=0, replacement="kong", bloom_chain=[{"kind": "added", "from": 2}],
              kong_events=[{"seat": 1, "kind": "concealed"}])
    rejected(r, "context.bloom_chain")


def test_a_bloom_chain_longer_than_the_winners_kongs_is_rejected():
    melds = [meld("kong_added", "6666m", 2), meld("pung", "999p", 1)]
    r = score(N, "123s 456s 7p", "7p", melds, winner=0, replacement="kong",
              bloom_chain=[{"kind": "added", "from": 2}, {"kind": "added", "from": 2}])
    rejected(r, "context.bloom_chain")


def test_a_matching_bloom_charges_the_kong_and_the_bloom_to_the_same_seat():
    melds = [meld("kong_added", "6666m", 2), meld("pung", "999p", 1)]
    r = score(N, "123s 456s 7p", "7p", melds, winner=0, replacement="kong", bloom_chain=[{"kind": "added", "from": 2}],
              kong_events=[{"seat": 0, "kind": "added", "from": 2}])
    assert r["settlement"] == {"mode": "single", "payer": 2, "amount": 18}
    assert r["kong_payments"] == [{"from": 2, "to": 0, "amount": 1}]


def test_a_nanjing_bloom_kong_with_another_feeder_is_rejected():
    r = score(NJ, "345m 789m 345s 1m", "1m", [meld("kong_exposed", "5555p", 2)], winner=0, replacement="kong",
              bloom_kong={"kind": "exposed", "from": 3})
    rejected(r, "context.bloom_kong")


# ---------------------------------------------------------------- D-C13: drawn hands settle their kongs

def test_a_nanning_draw_settles_every_kong_with_chain_liability():
    kongs = [{"seat": 2, "kind": "concealed"}, {"seat": 0, "kind": "added", "from": 3},
             {"seat": 3, "kind": "exposed", "from": 1, "chain": "a"}, {"seat": 3, "kind": "concealed", "chain": "a"}]
    r = score_case(draw(N, 1, kongs))
    assert r["valid"] and r["kind"] == "draw" and r["elements"] == [] and r["hand_payments"] == []
    # seat 2's concealed kong 1 from each; seat 0's added kong 1 from seat 3; seat 3's chain: seat 1 fed its
    # first kong and pays the chain, 1 + 3 (seed 000 連槓)
    assert r["kong_payments"] == [{"from": 0, "to": 2, "amount": 1}, {"from": 1, "to": 2, "amount": 1},
                                  {"from": 1, "to": 3, "amount": 4}, {"from": 3, "to": 0, "amount": 1},
                                  {"from": 3, "to": 2, "amount": 1}]
    assert r["net"] == [0, -5, 3, 2] and r["next_dealer"] == 1
    assert "diaoyu" not in r  # 荒莊不釣


def test_a_nanjing_draw_settles_kongs_flower_kongs_and_penalties():
    r = score_case(draw(NJ, 2, [{"seat": 1, "kind": "flower"}, {"seat": 0, "kind": "exposed", "from": 3}],
                        [{"kind": "follow", "seat": 2}]))
    assert r["kong_payments"] == [{"from": 0, "to": 1, "amount": 5}, {"from": 2, "to": 1, "amount": 5},
                                  {"from": 3, "to": 0, "amount": 10}, {"from": 3, "to": 1, "amount": 5}]
    assert r["penalty_payments"] == [{"from": 2, "to": t, "amount": 5} for t in (0, 1, 3)]
    assert r["net"] == [10, 20, -20, -10] and r["next_dealer"] == 2


def test_a_nanning_fan_draw_pays_the_kong_money_option():
    opts = {"kong_payment": {"exposed": 2, "added": 1, "concealed_each": 1}}
    r = score_case(draw(NF, 3, [{"seat": 3, "kind": "exposed", "from": 0}], options=opts))
    assert r["kong_payments"] == [{"from": 0, "to": 3, "amount": 2}] and r["next_dealer"] == 3
    assert score_case(draw(NF, 3, [{"seat": 3, "kind": "exposed", "from": 0}]))["net"] == [0, 0, 0, 0]


@pytest.mark.parametrize("ctx, field", [
    ({"kong_events": []}, "context"),  # no dealer
    ({"dealer": 0, "kong_events": [{"seat": 1, "kind": "added", "from": 2, "robbed": True}]}, "robbed"),
    ({"dealer": 0, "kong_events": [{"seat": 1, "kind": "flower"}]}, "context.kong_events[0]"),
    ({"dealer": 0, "kong_events": [{"seat": 1, "kind": "exposed", "from": 1}]}, "context.kong_events[0].from"),
    ({"dealer": 0, "kong_events": [{"seat": 1, "kind": "concealed"}] * 5}, "context.kong_events[4]"),
])
def test_an_impossible_draw_is_rejected_naming_the_field(ctx, field):
    rejected(score_case({"ruleset": N, "kind": "draw", "context": ctx}), field)


def test_a_kongs_face_where_given_is_checked():
    ok = [{"seat": 1, "kind": "concealed", "tile": "5m"}, {"seat": 2, "kind": "flower", "tile": "C"}]
    assert score_case(draw(NJ, 0, ok))["valid"]
    rejected(score_case(draw(NJ, 0, [{"seat": 1, "kind": "concealed", "tile": "5m"},
                                     {"seat": 3, "kind": "exposed", "from": 0, "tile": "5m"}])), "kong_events[1].tile")
    rejected(score_case(draw(NJ, 0, [{"seat": 1, "kind": "flower", "tile": "E"}])), "kong_events[0].tile")
    rejected(score_case(draw(NJ, 0, [{"seat": 1, "kind": "concealed", "tile": "C"}])), "kong_events[0].tile")


def test_the_cli_scores_a_draw_case():
    c = draw(N, 2, [{"seat": 0, "kind": "concealed"}])
    p = subprocess.run([sys.executable, "-m", "scoring", "-", "--compact"], input=json.dumps(c),
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0
    assert json.loads(p.stdout) == score_case(c)
    assert json.loads(p.stdout)["net"] == [3, -1, -1, -1]


def test_a_draw_with_kongs_is_settled_and_recorded_and_keeps_the_dealer(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    led.save_settings({"dealer": 3})
    c = draw(N, 3, [{"seat": 1, "kind": "exposed", "from": 2}, {"seat": 0, "kind": "concealed"}])
    hid = led.record_draw(c, key="draw-1")
    assert led.record_draw(c, key="draw-1") == hid  # a double press
    rec = led.get(hid)
    assert rec is not None and rec.kind == "draw" and rec.results == [score_case(c)]
    assert led.totals() == [3, 0, -2, -1] and led.dealer() == 3
    with pytest.raises(ValueError, match="robbed"):
        led.record_draw(draw(N, 3, [{"seat": 1, "kind": "added", "from": 2, "robbed": True}]))


# ---------------------------------------------------------------- D-J17: the next dealer from the engine

DUIDUI = "111m 333p 555s 777m N"  # 對對胡 on N: a 大胡


def test_a_nanjing_big_hand_by_a_non_dealer_keeps_the_dealer_in_the_ledger(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    led.save_settings({"dealer": 0})
    big = case(NJ, DUIDUI, "N", winner=1, dealer=0)
    r = score_case(big)
    assert r["dahu"] is True and r["next_dealer"] == 0
    led.record(big, r)
    assert led.dealer() == 0  # 大胡不改變莊家: 連莊
    small = case(NJ, MENQING_NJ, "4s", winner=1, dealer=0)
    r = score_case(small)
    assert r["dahu"] is False and r["next_dealer"] == 1
    led.record(small, r)
    assert led.dealer() == 1  # a small hand by a non-dealer passes the deal on


def test_every_result_carries_the_next_dealer():
    assert score(N, "123m 456m 234p 678s 9s", "9s", winner=2, dealer=0)["next_dealer"] == 2  # the winner deals
    assert score(NF, "123m 456m 234p 678s 9s", "9s", winner=3, dealer=1)["next_dealer"] == 3
    assert score(NJ, MENQING_NJ, "4s", winner=2, dealer=2)["next_dealer"] == 2  # the dealer won: he keeps it


def test_several_winners_on_one_nanjing_discard_keep_the_deal_after_a_big_hand(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    a = case(NJ, MENQING_NJ, "4s", winner=1, dealer=3, win_type="discard", discarder=0)
    b = case(NJ, DUIDUI, "N", winner=2, dealer=3, win_type="discard", discarder=0)
    led.record_event("multi", [a, b], [score_case(a), score_case(b)])
    assert led.dealer() == 3


# ---------------------------------------------------------------- from the seeds

def test_several_winners_on_one_discard_are_each_settled_and_each_kong_paid_once(tmp_path: Path):
    # seed 000 一炮多響: each winner is settled against the discarder; the hand's kongs are paid once
    kongs = [{"seat": 3, "kind": "concealed"}]
    a = case(N, "123m 456s 23p 99m 789s", "4p", winner=1, dealer=2, win_type="discard", discarder=0,
             kong_events=kongs)
    b = case(N, "123m 456p 789s 11p 46s", "5s", winner=2, dealer=2, win_type="discard", discarder=0,
             kong_events=kongs)
    ra, rb = score_case(a), score_case(b)
    assert ra["hand_payments"] == [{"from": 0, "to": 1, "amount": 3}]  # 門清 推倒胡 on a discard: 2 + 1
    assert rb["hand_payments"] == [{"from": 0, "to": 2, "amount": 3}]
    assert ra["kong_payments"] == rb["kong_payments"]  # each case lists the hand's every kong
    assert event_net([a, b], [ra, rb]) == [-3 - 3 - 1, 3 - 1, 3 - 1, 3]  # seat 3's kong: 1 from each, once
    led = Ledger(tmp_path / "l.sqlite3")
    led.record_event("multi", [a, b], [ra, rb])
    assert led.totals() == [-7, 2, 2, 3] and led.dealer() == 1  # the first winner after the discarder deals


def test_penalties_are_the_callers_follow_broken_by_a_pung_pays_nothing():
    # seed 003 跟牌: four same discards in a row with no pung or direct kong between. The engine cannot see the
    # discards: a 跟牌 broken by a pung is simply not entered, and pays nothing; one entered pays 5 to each
    plain = score(NJ, MENQING_NJ, "4s", winner=0)
    fined = score(NJ, MENQING_NJ, "4s", winner=0, penalty_events=[{"kind": "follow", "seat": 2}])
    assert plain["penalty_payments"] == []
    assert fined["penalty_payments"] == [{"from": 2, "to": t, "amount": 5} for t in (0, 1, 3)]
    assert [f - p for f, p in zip(fined["net"], plain["net"])] == [5, 5, -15, 5]


def test_chengbei_rob_kong_is_paid_three_shares_by_the_robbed_player():
    # seed 003 搶杠 in 城北: the robbed player pays for all three; 外包 is not modelled (D-J7)
    r = score(NJ, "234m 678m 11m 345s 45p", "6p", winner=0, win_type="rob_kong", discarder=3, flowers="f1",
              options={"variant": "chengbei"}, kong_events=[{"seat": 3, "kind": "added", "from": 1, "robbed": True}])
    t = r["total"]
    assert r["liability"] == {"type": "qianggang", "liable": 3}
    assert r["hand_payments"] == [{"from": 3, "to": 0, "amount": 3 * t}] and r["kong_payments"] == []


def test_menqing_kongs_none_breaks_menqing_with_any_kong():
    melds = [meld("kong_concealed", "5555p")]
    kw = dict(winner=0, kong_events=[{"seat": 0, "kind": "concealed"}])
    assert "menqing" in elements(score(NJ, "345m 789m 345s 1m", "1m", melds, **kw))
    r = score(NJ, "345m 789m 345s 1m", "1m", melds, options={"menqing_kongs": "none"}, flowers="f1 f2 f3 f4", **kw)
    assert "menqing" not in elements(r)
    r = score(NJ, "345m 789m 345s 1m", "1m", melds, options={"menqing_kongs": "none"}, **kw)
    assert r["error"] == "illegal_small_hand"  # no 門清, no big hand, no hard flower


def test_min_hard_flowers_small_decides_a_small_hand():
    melds = [meld("pung", "999p", 2)]
    hand = "123m 456m 11s 23s"
    assert score(NJ, hand, "4s", melds, flowers="f1 f2 f3")["error"] == "illegal_small_hand"
    assert score(NJ, hand, "4s", melds, flowers="f1 f2 f3 f4")["valid"]
    assert score(NJ, hand, "4s", melds, flowers="f1 f2 f3", options={"min_hard_flowers_small": 3})["valid"]


def test_shuangqidui_any_quad_option():
    # four 2m held before the win: a plain 七對, or 雙七對 with the older reading
    r = score(NJ, "2m 2m 2m 2m 5p 5p 7s 7s E E 9m 9m 3p", "3p")
    assert "qidui" in elements(r) and "shuangqidui" not in elements(r)
    r = score(NJ, "2m 2m 2m 2m 5p 5p 7s 7s E E 9m 9m 3p", "3p", options={"shuangqidui_any_quad": True})
    assert "shuangqidui" in elements(r) and "qidui" not in elements(r)


def test_a_pair_of_two_ghosts_inside_seven_pairs():
    # seed 002 ghosts: two ghosts alone may form one of the seven pairs (D-F4 speaks of a standard hand's 將)
    r = score(NF, "G G 1m 1m 3p 3p 5s 5s 7m 7m E E 9p", "9p", options={"ghost": {"mode": "extra4"}})
    assert r["valid"] and "qixiaodui" in elements(r)


def test_a_robbed_kong_earns_no_kong_money_in_nanning_fan():
    # seed 002: the robbed added kong never completed; the other kongs are paid by the kong_payment option
    opts = {"kong_payment": {"exposed": 2, "added": 2, "concealed_each": 1}}
    r = score(NF, "123m 456m 789s 11p 46s", "5s", options=opts, winner=0, win_type="rob_kong", discarder=2,
              kong_events=[{"seat": 1, "kind": "concealed"}, {"seat": 2, "kind": "added", "from": 3, "robbed": True}])
    assert r["valid"] and "qiangganghu" in elements(r)
    assert r["kong_payments"] == [{"from": s, "to": 1, "amount": 1} for s in (0, 2, 3)]


# ---------------------------------------------------------------- property: nobody pays for a kong he did not feed

def with_kongs(seed: int, ruleset: str) -> dict:
    """A random winning case whose kong_events list the winner's kongs (a bloom's as one chain at the end) and
    other seats' kongs and chains; sometimes a bloom or an event names a seat that fed nothing (which the engine
    must refuse, or charge nobody for)."""
    import random

    from scoring.generate import random_case
    from scoring.hand import MELD_KIND

    rng = random.Random(seed)
    c = random_case(rng, ruleset)
    ctx, w = c["context"], c["context"]["winner"]
    own = [{"seat": w, "kind": MELD_KIND[m["type"]], **({} if m["from"] is None else {"from": m["from"]})}
           for m in c["hand"]["melds"] if m["type"] in MELD_KIND]
    chain = ctx.get("bloom_chain") or []
    if chain:
        for e in own[-len(chain):]:
            e["chain"] = "bloom"
    others = []
    for _ in range(rng.randrange(4)):
        seat = rng.choice([s for s in range(4) if s != w])
        kind = rng.choice(["concealed", "exposed", "added"] + (["flower"] if ruleset == NJ else []))
        e = {"seat": seat, "kind": kind, "chain": rng.choice([None, "x"])}
        if kind in ("exposed", "added"):
            e["from"] = rng.choice([s for s in range(4) if s != seat])
        others.append(e)
    if not ctx.get("after_kong"):
        ctx["kong_events"] = others + own
    else:  # the generator put the discarder's kong last
        ctx["kong_events"] = others + ctx["kong_events"]
    if rng.random() < 0.3 and chain and chain[0].get("from") is not None:  # a bloom charged to another seat
        chain[0]["from"] = rng.choice([s for s in range(4) if s not in (w, chain[0]["from"])])
        ctx["bloom_kong"] = chain[-1]
    if rng.random() < 0.2 and ctx["kong_events"]:  # an event's feeder changed
        e = rng.choice(ctx["kong_events"])
        if "from" in e:
            e["from"] = rng.choice([s for s in range(4) if s not in (e["seat"], e["from"])])
    return c


def feeders(c: dict) -> dict[int, set[int]]:
    """Per kong maker, every seat the input names as a feeder of one of his kongs; each other seat where he has
    a concealed or a flower kong (each pays those)."""
    ctx = c["context"]
    out: dict[int, set[int]] = {s: set() for s in range(4)}
    named = [(e["seat"], e["kind"], e.get("from")) for e in ctx.get("kong_events") or []]
    w = ctx["winner"]
    named += [(w, "concealed" if m["from"] is None else "fed", m["from"]) for m in c["hand"]["melds"]
              if m["type"].startswith("kong")]
    named += [(w, "flower", None)] * 3  # the winner's implied flower kongs are paid by each
    for seat, kind, frm in named:
        out[seat] |= {s for s in range(4) if s != seat} if kind in ("concealed", "flower") else {frm}
    return out


@pytest.mark.parametrize("ruleset", [N, NJ, NF])
def test_no_seat_pays_for_a_kong_it_did_not_feed(ruleset):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(0, 2**32 - 1))
    def check(seed: int) -> None:
        c = with_kongs(seed, ruleset)
        if ruleset == NF:
            c["options"]["kong_payment"] = {"exposed": 2, "added": 2, "concealed_each": 1}
        r = score_case(c)
        if not r["valid"]:
            return
        ctx = c["context"]
        allowed = feeders(c)
        for p in r["kong_payments"]:
            assert p["from"] in allowed[p["to"]], (c, p)
        melds_fed = {m["from"] for m in c["hand"]["melds"] if m["type"] in ("kong_exposed", "kong_added")}
        ids = {e["id"] for e in r["elements"]}
        if "gangkai_exposed" in ids:  # the bloom's single payer fed one of the winner's kongs
            assert r["settlement"]["payer"] in melds_fed, c
        if (r.get("liability") or {}).get("type") == "dagangkaihua":
            assert r["liability"]["liable"] in melds_fed, c
        if "gangshangpao" in ids or "gangchong_double" in ids:  # 槓上炮: the discarder made the last kong
            assert ctx["kong_events"][-1]["seat"] == ctx["discarder"] == r["settlement"]["payer"], c

    check()
