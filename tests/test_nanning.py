"""RULES.md §1 (nanning), one rule per test."""

from __future__ import annotations

from tests.helpers import elements, meld, score

N = "nanning"


def test_plain_discard_win_is_tuidaohu_2_paid_by_discarder():
    r = score(N, "123m 456s 23p 99m", "4p", [meld("pung", "777p", 0)], winner=1, win_type="discard", discarder=3)
    assert elements(r) == {"tuidaohu": 2}
    assert r["net"] == [0, 2, 0, -2]


def test_menqing_adds_one_to_the_base_on_discard_by_default():
    r = score(N, "123m 456m 234p 678s 9s", "9s", winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"tuidaohu": 2, "menqing": 1}


def test_menqing_on_discard_can_be_switched_off():
    r = score(N, "123m 456m 234p 678s 9s", "9s", options={"menqing_on_discard": False}, winner=0,
              win_type="discard", discarder=1)
    assert elements(r) == {"tuidaohu": 2}


def test_concealed_kong_keeps_menqing():
    r = score(N, "123m 456m 678s 9s", "9s", [meld("kong_concealed", "EEEE")], winner=0, kong_events=[])
    assert elements(r) == {"tuidaohu": 3, "menqing": 1}


def test_menqing_qingyise_self_draw_is_8_each():
    r = score(N, "123m 456m 789m 234m 5m", "5m", winner=2, dealer=0)
    assert elements(r) == {"qingyise": 6, "menqing": 2}
    assert r["settlement"] == {"mode": "each", "amount": 8}


def test_menqing_duiduihu_qingyise_discard_is_24():
    r = score(N, "111p 333p 555p 777p 9p", "9p", winner=0, win_type="discard", discarder=2)
    assert elements(r) == {"duiduihu": 9, "qingyise": 9, "menqing": 6}
    assert r["settlement"]["amount"] == 24


def test_seven_pairs_family_by_quads_and_no_menqing():
    assert elements(score(N, "1122m 4477p 2299s E", "E", winner=0, win_type="discard", discarder=1)) == {
        "qixiaodui": 12}
    assert elements(score(N, "1111m 4477p 2299s E", "E", winner=0, win_type="self_draw")) == {"qidadui": 16}
    assert elements(score(N, "1111m 4444p 2299s E", "E", winner=0, win_type="discard", discarder=1)) == {
        "chaohaohua_qidui": 48}
    assert elements(score(N, "1111m 4444p 9999s E", "E", winner=0, win_type="self_draw")) == {
        "chaochaohaohua_qidui": 64}


def test_qingyise_adds_plain_to_seven_pairs():
    r = score(N, "1122m 3344m 5566m 9m", "9m", winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"qixiaodui": 12, "qingyise": 9}


def test_engine_keeps_the_division_that_pays_most():
    # 112233 can be three runs or seven pairs: seven pairs + flush pays more than runs
    r = score(N, "112233m 445566m 7m", "7m", winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"qixiaodui": 12, "qingyise": 9}


def test_quanqiuren_replaces_duiduihu_on_discard():
    melds = [meld("pung", "111m", 1), meld("pung", "555p", 3), meld("pung", "999s", 1), meld("pung", "SSS", 0)]
    r = score(N, "7m", "7m", melds, winner=2, win_type="discard", discarder=3)
    assert elements(r) == {"quanqiuren": 18}


def test_self_drawn_quanqiuren_is_duiduihu_or_12_by_option():
    melds = [meld("pung", "111m", 1), meld("pung", "555p", 3), meld("pung", "999s", 1), meld("pung", "SSS", 0)]
    assert elements(score(N, "7m", "7m", melds, winner=2)) == {"duiduihu": 6}
    assert elements(score(N, "7m", "7m", melds, options={"quanqiuren_selfdraw": "12"}, winner=2)) == {
        "quanqiuren": 12}


def test_four_concealed_kongs_is_menqing_duiduihu_not_quanqiuren():
    melds = [meld("kong_concealed", k) for k in ("1111m", "5555p", "9999s", "SSSS")]
    r = score(N, "7m", "7m", melds, winner=2, win_type="discard", discarder=3, kong_events=[])
    assert elements(r) == {"duiduihu": 9, "menqing": 3}


def test_gangkai_concealed_is_9_each_plus_hand_types():
    melds = [meld("kong_concealed", "EEEE")]
    r = score(N, "111p 333p 555p 9p", "9p", melds, winner=0, replacement="kong",
              bloom_chain=[{"kind": "concealed"}], kong_events=[{"seat": 0, "kind": "concealed"}])
    assert elements(r) == {"gangkai_concealed": 9, "duiduihu": 6, "menqing": 2}
    assert r["settlement"] == {"mode": "each", "amount": 17}
    assert r["kong_payments"] == [{"from": s, "to": 0, "amount": 1} for s in (1, 2, 3)]


def test_gangkai_concealed_option_amount():
    melds = [meld("kong_concealed", "EEEE")]
    r = score(N, "123p 345s 567m 9p", "9p", melds, options={"gangkai_concealed_each": 6}, winner=0,
              replacement="kong", bloom_chain=[{"kind": "concealed"}])
    assert elements(r) == {"gangkai_concealed": 6}


def test_lian_gang_three_added_kongs_tuidaohu_is_72_from_first_feeder():
    melds = [meld("kong_added", "1111m", 2), meld("kong_added", "5555p", 3), meld("kong_added", "9999s", 1)]
    chain = [{"kind": "added", "from": 2}, {"kind": "added", "from": 3}, {"kind": "added", "from": 1}]
    events = [{"seat": 0, "kind": "added", "from": f, "chain": 1} for f in (2, 3, 1)]
    r = score(N, "23p 66s", "4p", melds, winner=0, replacement="kong", bloom_chain=chain, kong_events=events)
    assert elements(r) == {"gangkai_exposed": 18, "liangang": 4}
    assert r["settlement"] == {"mode": "single", "payer": 2, "amount": 72}
    assert r["kong_payments"] == [{"from": 2, "to": 0, "amount": 3}]  # the chain's first feeder pays all 3


def test_kong_chain_liability_seed_checks():
    tiles = ("1111m", "5555p", "9999s", "EEEE")

    def chain_money(kinds: list[str]) -> list[dict]:
        events = [{"seat": 0, "kind": k, "from": None if k == "concealed" else 2, "chain": "a"} for k in kinds]
        melds = [meld("kong_concealed", t) if k == "concealed" else meld("kong_added", t, 2)
                 for k, t in zip(kinds, tiles)]
        concealed, win = ("234p 5s", "5s") if len(kinds) == 3 else ("2p", "2p")
        r = score(N, concealed, win, melds, winner=0, win_type="discard", discarder=3, kong_events=events)
        return r["kong_payments"]

    assert chain_money(["added", "added", "added"]) == [{"from": 2, "to": 0, "amount": 3}]
    assert chain_money(["added", "concealed", "concealed"]) == [{"from": 2, "to": 0, "amount": 7}]
    # (concealed), added, added, concealed: 5 from the feeder plus 1 from each for the first concealed kong
    assert chain_money(["concealed", "added", "added", "concealed"]) == [
        {"from": 1, "to": 0, "amount": 1}, {"from": 2, "to": 0, "amount": 6}, {"from": 3, "to": 0, "amount": 1}]


def test_qianggang_robbed_player_pays_9_plus_hand_types_and_no_kong_money():
    r = score(N, "123m 456p 789s 11p 46s", "5s", [], winner=0, win_type="rob_kong", discarder=2,
              kong_events=[{"seat": 2, "kind": "added", "from": 1, "robbed": True}])
    assert "qianggang" in elements(r)
    assert r["kong_payments"] == []
    assert r["settlement"]["payer"] == 2


def test_gangshangpao_additive_and_double_mode():
    melds = [meld("pung", "111m", 1), meld("pung", "555p", 3)]
    kong = [{"seat": 2, "kind": "concealed"}]  # D-C11: the discarder's kong, just declared
    r = score(N, "999s EE 22m", "2m", melds, winner=0, win_type="discard", discarder=2, after_kong=True,
              kong_events=kong)
    assert elements(r) == {"gangshangpao": 9, "duiduihu": 9}
    r = score(N, "999s EE 22m", "2m", melds, options={"gangchong_mode": "double"}, winner=0, win_type="discard",
              discarder=2, after_kong=True, kong_events=kong)
    assert elements(r) == {"duiduihu": 9, "gangchong_double": 2}
    assert r["settlement"]["amount"] == 18


def test_haidi_wins_replace_the_base_and_its_menqing():
    r = score(N, "123m 456m 234p 678s 9s", "9s", winner=0, last_tile=True)
    assert elements(r) == {"haidilaoyue": 6}
    r = score(N, "123m 456m 234p 678s 9s", "9s", winner=0, win_type="discard", discarder=1, last_tile=True)
    assert elements(r) == {"haidipao": 9}


def test_tianhu_is_flat_100_each():
    r = score(N, "111p 333p 555p 777p 9p", "9p", winner=0, dealer=0, heavenly=True)
    assert elements(r) == {"tianhu": 100}
    assert r["net"] == [300, -100, -100, -100]


def test_fenghu_liable_feeder_pays_for_others_discard_too():
    melds = [meld("pung", "222m", 3), meld("pung", "555p", 3), meld("pung", "888s", 3)]
    r = score(N, "999m N", "N", melds, winner=1, win_type="discard", discarder=2)
    assert r["liability"] == {"type": "fenghu", "liable": 3}
    assert r["hand_payments"] == [{"from": 2, "to": 1, "amount": 9}, {"from": 3, "to": 1, "amount": 9}]
    r = score(N, "999m N", "N", melds, winner=1, win_type="discard", discarder=3)
    assert r["hand_payments"] == [{"from": 3, "to": 1, "amount": 18}]


def test_fenghu_seat_may_not_win():
    other = {"1": [meld("pung", "222m", 3), meld("pung", "555p", 3), meld("kong_exposed", "8888s", 3)]}
    r = score(N, "123m 456m 234p 678s 9s", "9s", winner=3, dealer=0, other_melds=other)
    assert r == {"valid": False, "error": "fenghu", "message": r["message"]}


def test_diaoyu_hits_and_misses():
    # previous winner 1, winner 0 self-draws 4 each (門清 推倒胡); fish 4m (1+3 -> seat 0: hit), 2p (seat 2: miss)
    r = score(N, "123m 456m 234p 678s 9s", "9s", options={"diaoyu": True}, winner=0, previous_winner=1,
              fish_tiles=["4m", "2p"])
    assert r["diaoyu"]["hits"] == 1 and r["diaoyu"]["misses"] == 1
    # settlement: 1, 2, 3 pay 4 each; hit: 0, 2, 3 each pay seat 1 one unit (4); miss: seat 1 pays the winner 4
    assert r["net"] == [12 - 4 + 4, -4 + 12 - 4, -4 - 4, -4 - 4]


def test_no_chow_in_nanning():
    r = score(N, "123m 456m 678s 9s", "9s", [meld("chow", "123p", 3)], winner=0)
    assert r["error"] == "invalid_input" and "chow" in r["message"]


def test_not_a_winning_hand():
    r = score(N, "123m 456m 234p 678s 1s", "9s", winner=0)
    assert r["valid"] is False and r["error"] == "not_a_winning_hand"
