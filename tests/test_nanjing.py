"""RULES.md §3 (nanjing, main and 城北): elements, soft flowers, legality, liability, side payments."""

from __future__ import annotations

from tests.helpers import elements, meld, score

NJ = "nanjing"
CB = {"variant": "chengbei"}


def soft(r: dict) -> dict[str, int]:
    e = next(e for e in r["elements"] if e["id"] == "soft_flowers")
    return {i["id"]: i["count"] for i in e["items"]}


def test_menqing_small_hand_is_legal_and_counts_20():
    r = score(NJ, "234m 678p 345s 22s 67m", "8m", flowers="f1", winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"paohu": 20, "menqing": 20, "hard_flowers": 2, "soft_flowers": 0}
    assert r["dahu"] is False


def test_queyi_is_exactly_two_suits():
    r = score(NJ, "234m 678m 345s 22s 67m", "8m", flowers="f1", winner=0, win_type="discard", discarder=1)
    assert soft(r) == {"queyi": 1}


def test_small_hand_needs_menqing_big_hand_or_four_hard_flowers():
    pung = [meld("pung", "999m", 2)]
    r = score(NJ, "123p 456s 78s 22s", "9s", pung, flowers="f1 f2", winner=0, win_type="discard", discarder=1)
    assert r["error"] == "illegal_small_hand"
    r = score(NJ, "123p 456s 78s 22s", "9s", pung, flowers="f1 f2 C C", winner=0, win_type="discard", discarder=1)
    assert r["valid"] is True and elements(r)["hard_flowers"] == 8


def test_dragons_are_flowers_and_never_in_the_hand():
    r = score(NJ, "234m 678p 345s 22s CC", "C", winner=0)
    assert r["error"] == "invalid_input" and "flower" in r["message"]


def test_single_wait_flowers():
    # 6p8p waiting on 7p only: 壓檔
    r = score(NJ, "234m 345s 22s 678m 68p", "7p", winner=0, win_type="discard", discarder=1, flowers="f1")
    assert soft(r).get("yadang") == 1
    # 12s waiting on 3s: 邊枝
    r = score(NJ, "234m 345p 22p 678m 12s", "3s", winner=0, win_type="discard", discarder=1, flowers="f1")
    assert soft(r).get("bianzhi") == 1
    # single tile waiting on its pair: 獨占
    r = score(NJ, "234m 345p 678m 567s E", "E", winner=0, win_type="discard", discarder=1, flowers="f1")
    assert soft(r) == {"feng_dui": 1, "duzhan": 1}
    # a two-sided wait gets no wait flower
    r = score(NJ, "234m 345s 22s 678m 56p", "7p", winner=0, win_type="discard", discarder=1, flowers="f1")
    assert "yadang" not in soft(r) and "bianzhi" not in soft(r)


def test_yajue_replaces_the_wait_flower_and_is_a_big_hand_in_main_only():
    melds = [meld("pung", "777p", 2)]
    r = score(NJ, "234m 345s 22s 68p", "7p", melds, winner=0, win_type="discard", discarder=1)
    assert elements(r)["yajue"] == 40 and "yadang" not in soft(r) and r["dahu"] is True
    r = score(NJ, "234m 345s 22s 68p", "7p", melds, options=CB, flowers="f1 f2 f3 f4", winner=0,
              win_type="discard", discarder=1)
    assert elements(r)["yajue"] == 30 and r["dahu"] is False
    r = score(NJ, "234m 345s 22s 68p", "7p", melds, options=CB, winner=0, win_type="discard", discarder=1)
    assert r["error"] == "illegal_small_hand"


def test_quanqiududiao_stacks_with_duiduihu_and_removes_duzhan():
    melds = [meld("pung", "111m", 1), meld("pung", "555p", 3), meld("pung", "999s", 1), meld("pung", "EEE", 3)]
    r = score(NJ, "7m", "7m", melds, flowers="f1", winner=2, win_type="discard", discarder=0)
    assert elements(r) == {"paohu": 20, "duiduihu": 40, "quanqiududiao": 60, "hard_flowers": 2, "soft_flowers": 2}
    assert soft(r) == {"feng_peng": 1}


def test_seven_pairs_count_only_feng_dui_and_queyi_and_no_menqing():
    r = score(NJ, "1122m 4477p 5599m E", "E", winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"paohu": 20, "qidui": 40, "wuhuaguo": 40, "hard_flowers": 0, "soft_flowers": 4}
    assert soft(r) == {"feng_dui": 1, "queyi": 1}
    r = score(NJ, "111m 4477p 2299m EE", "1m", winner=0, win_type="discard", discarder=1)
    assert elements(r)["shuangqidui"] == 80
    r = score(NJ, "111m 4477p 2299m EE", "1m", options=CB, winner=0, win_type="discard", discarder=1)
    assert elements(r)["shuangqidui"] == 100


def test_shuangqidui_needs_the_winning_tile_to_be_the_fourth_of_three_held():
    """D-J16: "自己有三張同樣的牌，聽七對時單聽絕張" - the quad is completed by the winning tile."""
    won_on_fourth = score(NJ, "111m 4477p 2299m EE", "1m", winner=0, win_type="self_draw")
    assert "shuangqidui" in elements(won_on_fourth) and "qidui" not in elements(won_on_fourth)
    held_before = score(NJ, "1111m 4477p 2299m E", "E", winner=0, win_type="discard", discarder=1)
    assert elements(held_before)["qidui"] == 40 and "shuangqidui" not in elements(held_before)
    older = score(NJ, "1111m 4477p 2299m E", "E", options={"shuangqidui_any_quad": True}, winner=0,
                  win_type="discard", discarder=1)
    assert elements(older)["shuangqidui"] == 80 and "qidui" not in elements(older)


def test_kong_soft_flowers_and_wind_bonus():
    melds = [meld("kong_concealed", "EEEE"), meld("kong_exposed", "5555p", 1)]
    r = score(NJ, "345m 789m 1m", "1m", melds, winner=0, win_type="discard", discarder=2, kong_events=[])
    assert soft(r) == {"kong_exposed": 1, "kong_concealed": 3, "queyi": 1, "duzhan": 1}
    assert "menqing" in elements(r)  # direct and concealed kongs keep 門清 (D-J1)


def test_added_kong_breaks_menqing():
    melds = [meld("kong_added", "5555p", 1)]
    r = score(NJ, "345m 789m 345s 1m", "1m", melds, flowers="f1 f2 f3 f4", winner=0, win_type="discard",
              discarder=2, kong_events=[])
    assert "menqing" not in elements(r)


def test_dagangkaihua_main_40_and_chengbei_doubles_the_total():
    melds = [meld("kong_concealed", "5555p")]
    kw = dict(winner=0, replacement="kong", bloom_kong={"kind": "concealed"},
              kong_events=[{"seat": 0, "kind": "concealed"}])
    r = score(NJ, "345m 789m 345s 1m", "1m", melds, **kw)
    assert elements(r)["dagangkaihua"] == 40
    r = score(NJ, "345m 789m 345s 1m", "1m", melds, options=CB, **kw)
    assert elements(r)["dagangkaihua"] == 2
    base = 10 + 10 + 30 + (2 + 1) * 2  # 跑, 門清, 無花果, soft: concealed kong 2 + 獨占 1
    assert r["total"] == 2 * base


def test_dagangkaihua_after_exposed_kong_feeder_pays_three_shares():
    melds = [meld("kong_exposed", "5555p", 2)]
    r = score(NJ, "345m 789m 345s 1m", "1m", melds, winner=0, replacement="kong",
              bloom_kong={"kind": "exposed", "from": 2}, kong_events=[{"seat": 0, "kind": "exposed", "from": 2}])
    t = r["total"]
    assert r["liability"] == {"type": "dagangkaihua", "liable": 2}
    assert r["hand_payments"] == [{"from": 2, "to": 0, "amount": 3 * t}]
    assert r["kong_payments"] == [{"from": 2, "to": 0, "amount": 10}]


def test_rob_kong_robbed_pays_three_shares_and_gets_no_kong_money():
    r = score(NJ, "234m 678m 11m 345s 45p", "6p", winner=0, win_type="rob_kong", discarder=3, flowers="f1",
              kong_events=[{"seat": 3, "kind": "added", "from": 1, "robbed": True}])
    assert r["hand_payments"] == [{"from": 3, "to": 0, "amount": 3 * r["total"]}]
    assert r["kong_payments"] == []


def test_sanzui_discard_by_other_with_duiduihu_moves_to_the_feeder():
    melds = [meld("pung", "444m", 3), meld("pung", "777p", 3), meld("pung", "WWW", 3)]
    r = score(NJ, "9p 2s 2s 9p", "9p", melds, winner=1, win_type="discard", discarder=2)
    assert r["liability"] == {"type": "sanzui", "liable": 3}
    assert r["hand_payments"] == [{"from": 3, "to": 1, "amount": r["total"]}]


def test_sanzui_discard_by_other_without_duiduihu_is_ordinary():
    melds = [meld("pung", "444m", 3), meld("pung", "777p", 3), meld("pung", "WWW", 3)]
    r = score(NJ, "23s 99p", "4s", melds, flowers="f1 f2 f3 f4", winner=1, win_type="discard", discarder=2)
    assert r["hand_payments"] == [{"from": 2, "to": 1, "amount": r["total"]}]


def test_quick_shot_settles_four_pungs_paid_by_the_feeder():
    melds = [meld("pung", "444m", 3), meld("pung", "777m", 3), meld("pung", "WWW", 3), meld("pung", "222m", 3)]
    r = score(NJ, "1p 9s", None, melds, winner=1, win_type="quick_shot", discarder=3)
    assert elements(r) == {"paohu": 20, "duiduihu": 40, "quanqiududiao": 60, "hunyise": 40, "wuhuaguo": 40,
                           "hard_flowers": 0, "soft_flowers": 2}
    assert r["liability"] == {"type": "sanzui_kuaizhao", "liable": 3}
    assert r["hand_payments"] == [{"from": 3, "to": 1, "amount": 3 * r["total"]}]


def test_side_payments_kongs_flower_kong_and_penalties():
    r = score(NJ, "234m 678m 11m 345s 45p", "6p", flowers="C C C C", winner=0, win_type="discard", discarder=1,
              kong_events=[{"seat": 2, "kind": "concealed"}, {"seat": 0, "kind": "flower"},
                           {"seat": 3, "kind": "exposed", "from": 1}],
              penalty_events=[{"kind": "follow", "seat": 1}, {"kind": "four_same", "seat": 2}])
    k = {(p["from"], p["to"]): p["amount"] for p in r["kong_payments"]}
    assert k[(0, 2)] == 5 and k[(1, 0)] == 5 and k[(1, 3)] == 10 and k[(2, 0)] == 5
    pen = {(p["from"], p["to"]): p["amount"] for p in r["penalty_payments"]}
    assert pen[(1, 0)] == 5 and pen[(1, 3)] == 5 and pen[(2, 1)] == 5
    assert sum(r["net"]) == 0


def test_tianhu_in_chengbei_carries_the_xiake_flag():
    r = score(NJ, "234m 678m 11m 345s 45p", "6p", options=CB, winner=0, dealer=0, heavenly=True)
    e = next(e for e in r["elements"] if e["id"] == "tianhu")
    assert e["value"] == 320 and e["chengbei_xiake"] is True
