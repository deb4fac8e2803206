"""The photo conditions of the evaluation move the true boxes with the picture (a tile drawn in white stays inside
its transformed box), so a condition's score measures the reader, not a bookkeeping error."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from evaluation.conditions import CONDITIONS
from training.table_aug import AUGMENTATIONS, steep_turn, table_conditions


@pytest.mark.parametrize("name", sorted(CONDITIONS))
def test_a_condition_moves_the_boxes_with_the_picture(name: str) -> None:
    img, boxes = white_boxes()
    out, moved = CONDITIONS[name](img, boxes, np.random.default_rng(0))
    assert out.ndim == 3 and moved.shape == boxes.shape
    if name in ("dim", "glare", "glare_spot"):
        assert np.array_equal(moved, boxes)
        return  # light changes: the boxes stay, the picture is darker or washed out
    if name == "clutter":  # other tiles around the hand: the hand's boxes and pixels stay, the rest changes
        assert np.array_equal(moved, boxes)
        for x1, y1, x2, y2 in boxes.astype(int):
            assert np.array_equal(out[y1:y2, x1:x2], img[y1:y2, x1:x2])
        assert (out != img).any()
        return
    assert_boxes_hold_the_white(out, moved, name)


@pytest.mark.parametrize("name", sorted(AUGMENTATIONS))
@pytest.mark.parametrize("seed", range(3))
def test_a_finder_training_condition_carries_the_true_boxes(name: str, seed: int) -> None:
    """The finder learns from these boxes: after a warp they must still hold their tiles, and nothing else."""
    img, boxes = white_boxes()
    out, moved = AUGMENTATIONS[name](img, boxes, np.random.default_rng(seed))
    assert out.shape == img.shape and out.dtype == np.uint8 and moved.shape == boxes.shape
    if name in ("glare", "low_light", "cast"):
        assert np.array_equal(moved, boxes)  # light changes only
        return
    assert_boxes_hold_the_white(out, moved, name)


@pytest.mark.parametrize("seed", range(4))
def test_a_steep_turn_for_the_finder_turns_the_tiles_and_carries_their_boxes(seed: int) -> None:
    """The finder's turned copies: each tile turned 15-60 degrees, its box the box around the turned tile."""
    img, boxes = white_boxes()
    out, moved = steep_turn(img, boxes, np.random.default_rng(seed))
    assert out.shape == img.shape and moved.shape == boxes.shape
    assert_boxes_hold_the_white(out, moved, "steep_turn")
    contours, _ = cv2.findContours((out.mean(2) > 128).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    assert len(contours) == 2
    for contour in contours:
        (_, _), (w, h), angle = cv2.minAreaRect(contour)
        turn = min(angle % 90, 90 - angle % 90)  # the tile's turn from the axes, whichever side minAreaRect takes
        assert 14 <= turn <= 46, (seed, angle)  # 15-60 degrees either way is 15-45 from the nearer axis


def test_the_finder_training_conditions_are_drawn_at_random() -> None:
    img, boxes = white_boxes()
    seen = set()
    for seed in range(20):
        _, _, names = table_conditions(img, boxes, np.random.default_rng(seed))
        assert 1 <= len(names) <= 2 and len(set(names)) == len(names)
        seen.update(names)
    assert seen == set(AUGMENTATIONS)


def white_boxes() -> tuple[np.ndarray, np.ndarray]:
    """A black picture with two white tiles, and their boxes."""
    img = np.zeros((300, 400, 3), np.uint8)
    boxes = np.float32([[100, 120, 140, 176], [250, 60, 290, 116]])
    for x1, y1, x2, y2 in boxes.astype(int):
        img[y1:y2, x1:x2] = 255
    return img, boxes


def assert_boxes_hold_the_white(out: np.ndarray, moved: np.ndarray, name: str) -> None:
    """Each moved box is mostly white, and no white lies outside the moved boxes."""
    for x1, y1, x2, y2 in moved:
        inside = out[max(0, int(y1)):int(np.ceil(y2)), max(0, int(x1)):int(np.ceil(x2))].mean()
        assert inside > 90, (name, inside)
    mask = out.mean(2) > 128
    covered = np.zeros_like(mask)
    for x1, y1, x2, y2 in moved:
        covered[max(0, int(y1) - 2):int(np.ceil(y2)) + 2, max(0, int(x1) - 2):int(np.ceil(x2)) + 2] = True
    assert mask[~covered].mean() < 0.02  # no white outside the moved boxes
