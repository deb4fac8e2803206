"""RULES.md §2 (nanning-fan): fan elements, limits, points, ghosts."""

from __future__ import annotations

from tests.helpers import elements, meld, score

NF = "nanning-fan"
B10 = {"base": 10}


def test_pinghu_with_chow_from_left_is_1_fan():
    r = score(NF, "456p 789s 22s 56m", "7m", [meld("chow", "123m", 0)], options=B10, winner=1, win_type="discard",
              discarder=3)
    assert elements(r) == {"pinghu": 1} and r["points"] == 10


def test_chow_from_other_than_left_is_rejected():
    r = score(NF, "456p 789s 22s 56m", "7m", [meld("chow", "123m", 2)], winner=1, win_type="discard", discarder=3)
    assert r["error"] == "invalid_input" and "left player" in r["message"]


def test_half_flush_all_pungs_self_draw():
    r = score(NF, "666s 99s CC", "C", [meld("pung", "333s", 0), meld("pung", "EEE", 1)], options=B10, winner=2)
    assert elements(r) == {"duiduihu": 2, "hunyise": 3}
    assert r["fan"] == 5 and r["points"] == 160 and r["net"] == [-160, -160, 480, -160]


def test_full_flush_and_seven_pairs_self_drawn_stack():
    r = score(NF, "1122m 3344m 5566m 9m", "9m", winner=0)
    assert elements(r) == {"qixiaodui": 4, "qingyise": 5, "qixiaodui_zimo": 1}
    assert r["fan"] == 10 and r["points"] == 2 ** 9


def test_thirteen_orphans_is_a_limit_of_13_or_the_cap():
    hand = "119m 19p 19s ESWNCF"
    assert elements(score(NF, hand, "P", winner=0, win_type="discard", discarder=1)) == {"shisanyao": 13}
    r = score(NF, hand, "P", options={"fan_cap": 8}, winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"shisanyao": 8} and r["fan"] == 8


def test_tianhu_is_manguan_and_ignores_everything_else():
    r = score(NF, "1122m 3344m 5566m 9m", "9m", winner=0, dealer=0, heavenly=True)
    assert elements(r) == {"tianhu": 6}


def test_fan_cap_limits_the_total():
    r = score(NF, "1122m 3344m 5566m 9m", "9m", options={"fan_cap": 6}, winner=0)
    assert r["fan"] == 6


def test_rob_kong_and_last_tile_bonuses():
    r = score(NF, "23m 567p 123s 789s NN", "4m", winner=1, dealer=0, win_type="rob_kong", discarder=3)
    assert elements(r) == {"pinghu": 1, "qiangganghu": 1} and r["settlement"]["payer"] == 3
    r = score(NF, "23m 567p 123s 789s NN", "4m", winner=1, dealer=0, last_tile=True)
    assert elements(r) == {"pinghu": 1, "haidilaoyue": 1}


def test_false_win_pays_manguan_to_each():
    r = score(NF, "23m 567p 123s 789s NN", "9m", options=B10, winner=1, dealer=0)
    assert r["valid"] is False and r["error"] == "not_a_winning_hand"
    assert r["penalty_payments"] == [{"from": 1, "to": s, "amount": 320} for s in (0, 2, 3)]


def test_ghost_flip_stands_for_the_missing_tile():
    opts = {"base": 10, "ghost": {"mode": "flip", "indicator": "5m"}}
    r = score(NF, "12m 6m 456p 789s 33s 23p", "4p", options=opts, winner=0, dealer=1, win_type="discard",
              discarder=2)
    assert elements(r) == {"pinghu": 1} and r["ghost_substitution"] == ["3m"]


def test_ghost_completes_a_full_flush():
    opts = {"ghost": {"mode": "extra4"}}
    r = score(NF, "123p 456p 789p 5p 99p G", "5p", options=opts, winner=0, win_type="discard", discarder=1)
    assert elements(r) == {"qingyise": 5}


def test_ghost_pair_alone_is_not_allowed_by_default():
    opts = {"ghost": {"mode": "extra4"}}
    r = score(NF, "EEE SSS WWW NNN G", "G", options=opts, winner=0)
    assert r["error"] == "not_a_winning_hand"
    r = score(NF, "EEE SSS WWW NNN G", "G", options=opts | {"ghost_pair_allowed": True}, winner=0)
    assert r["valid"] is True


def test_ghost_won_from_a_discard_is_face_value():
    opts = {"ghost": {"mode": "flip", "indicator": "5m"}}  # ghost 6m
    r = score(NF, "123m 45m 456p 789s 33s", "6m", options=opts, winner=0, win_type="discard", discarder=1)
    assert r["valid"] is True and "ghost_substitution" not in r


def test_ghost_penalty_and_bonus_options():
    opts = {"ghost": {"mode": "extra4"}, "ghost_fan_penalty": 1, "ghost_selfdraw_bonus": 2}
    r = score(NF, "123p 456p 789p 55s 67s", "G", options=opts, winner=0)
    assert elements(r)["ghost_penalty"] == -1 and elements(r)["ghost_zimo"] == 2


def test_four_ghosts_fill_four_gaps():
    opts = {"ghost": {"mode": "extra4"}}
    r = score(NF, "GGGG 13m 79p 246s EE", "8s", options=opts, winner=0)
    assert elements(r) == {"pinghu": 1}
    assert len(r["ghost_substitution"]) == 4
