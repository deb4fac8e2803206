"""The held-out evaluation (``python -m vision.evaluate_hands``): its photos are what it says they are, its
conditions have issue 39's parameters, and its design stays out of training."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation.conditions import glare_spot, motion_blur, tile_width
from evaluation.hands import table_groups, truth_case
from evaluation.held_out import (
    CONDITIONS,
    NAMES,
    TileSet,
    held_out_cases,
    lay_out,
    load_design,
)

ROOT = Path(__file__).resolve().parents[1]


def test_every_condition_of_issue_39_is_there() -> None:
    assert set(NAMES) >= {"upright", "neighbours", "discards", "pitch45", "pitch30", "handheld", "motion15", "glare",
                          "rot90", "rot270", "blur2", "dim", "rot10"}


def test_a_composed_hand_lays_every_tile_of_the_hand_on_the_table() -> None:
    rng, nrng = random.Random(3), np.random.default_rng(3)
    hand, winner = truth_case(rng, "nanning")
    hand["flowers"] = []
    groups = table_groups(hand, winner, rng)
    img, placed = lay_out(groups, TileSet(load_design(), nrng), nrng, (1200, 900))
    assert [p.code for p in placed] == [c for g in groups for c, _ in g]
    assert [p.sideways for p in placed] == [s for g in groups for _, s in g]
    boxes = np.array([p.box for p in placed])
    assert (boxes[:, 0] >= 0).all() and (boxes[:, 2] <= 1200).all() and (boxes[:, 3] <= 900).all()
    # a tile is brighter than the drawn table around it (ivory faces, or a back's edge), and boxes do not overlap
    for p in placed:
        x1, y1, x2, y2 = (int(v) for v in p.box)
        assert img[y1:y2, x1:x2].std() > 5
    order = np.argsort(boxes[:, 0])
    same_row = np.abs(boxes[order][1:, 3] - boxes[order][:-1, 3]) < 2
    assert (boxes[order][1:, 0][same_row] >= boxes[order][:-1, 2][same_row] - 1).all()


def test_the_glare_spot_adds_230_at_its_peak_with_sigma_of_0_9_tile_widths() -> None:
    img = np.full((400, 600, 3), 10, np.uint8)
    boxes = np.float32([[100, 100, 150, 170], [150, 100, 200, 170]])
    out, _ = glare_spot(img, boxes, np.random.default_rng(0))
    rise = out[..., 0].astype(float) - 10
    ys, xs = np.nonzero(rise >= rise.max() - 0.5)
    y, x = int(round(ys.mean())), int(round(xs.mean()))  # the middle of the spot's flat top
    assert rise.max() == pytest.approx(230, abs=1)
    assert any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes)  # centred on one tile
    sigma = 0.9 * tile_width(boxes)  # 45 px
    assert rise[y, min(599, int(x + sigma))] == pytest.approx(230 * np.exp(-0.5), abs=3)


def test_motion_blur_spreads_a_point_over_its_length() -> None:
    img = np.zeros((61, 61), np.float32)
    img[30, 30] = 1.0
    out = motion_blur(img, 20, 0.0)
    row = np.flatnonzero(out[30] > 1e-4)
    assert 19 <= row.max() - row.min() + 1 <= 23 and out[:28].max() < 1e-4


def test_the_same_seed_gives_the_same_photos_and_conditions_change_only_the_photo() -> None:
    first = list(held_out_cases(2, 5, "handheld", (800, 600)))
    again = list(held_out_cases(2, 5, "handheld", (800, 600)))
    upright = list(held_out_cases(2, 5, "upright", (800, 600)))
    assert all(np.array_equal(a[4], b[4]) for a, b in zip(first, again))
    assert [c[2] for c in first] == [c[2] for c in upright]  # the same hands under every condition
    assert not np.array_equal(first[0][4], upright[0][4])
    assert set(CONDITIONS) | {"neighbours", "discards"} == set(NAMES)


def test_the_held_out_design_is_in_no_training_code() -> None:
    """The design is held out only while no training code reads it (``make_tiles`` builds the page's pictures)."""
    users = [p.name for p in (ROOT / "training").glob("*.py") if p.name != "make_tiles.py"
             and any(s in p.read_text() for s in ("webapp/tiles", '"webapp" / "tiles"', "evaluation.held_out"))]
    assert users == []


def test_the_command_runs_from_the_vision_package() -> None:
    out = subprocess.run([sys.executable, "-m", "vision.evaluate_hands", "--condition", "nosuch"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 2 and "unknown condition nosuch" in out.stderr and "handheld" in out.stderr


def test_the_evaluation_counts_tiles_missed_and_names_its_misreadings() -> None:
    """What a condition's JSON says about its tiles adds up: every tile found or missed, and the misreadings
    listed as true>read among the wrong tiles (the analysis the model card quotes)."""
    import argparse

    from evaluation.hands import evaluate
    from vision.reader import TileReader

    args = argparse.Namespace(size="1008x756", seed=3, save=None, n=3)
    r = evaluate(args, TileReader(threads=2), None, "motion15", held_out_cases(3, 3, "motion15", (1008, 756)))
    tiles = sum(len(p) for *_, p in held_out_cases(3, 3, "motion15", (1008, 756)))
    assert 0 <= r["tiles_missed"] <= tiles
    named = r["commonest_misreadings"]
    assert all(">" in k and v > 0 for k, v in named.items())
    assert sum(named.values()) <= r["doubt_flags"]["wrong_tiles"]
    assert len(named) == 8 or sum(named.values()) == r["doubt_flags"]["wrong_tiles"]
    # (no condition here turns the photo: a photo read turned by a half or a quarter is taken as turned wrongly)
    assert r["photos_read_turned_by_a_quarter"] == 0 and r["photos_read_turned_by_a_half"] == 0
