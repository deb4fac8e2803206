"""A crop with no ivory on it is read as a tile's back, whatever face the classifier guessed; faces, dark or
densely inked, keep their reading (``vision.backs``)."""

from __future__ import annotations

import numpy as np

from vision.backs import BACK_MIX, back_coloured, backs_where_coloured, sure_backs
from vision.classes import BACK, CLASS_INDEX, CLASSIFIER_CODES

IVORY = (200, 222, 232)  # B, G, R: a face's ivory in a dim photo
INK = (150, 60, 40)  # a blue character


def crop(body: tuple[int, int, int], marks: int = 1, light: float = 1.0) -> np.ndarray:
    """A 64-px crop: a table edge around a tile of ``body`` colour with ``marks`` ink strokes across it."""
    c = np.zeros((64, 64, 3), np.uint8)
    c[:] = (30, 40, 60)
    c[5:59, 5:59] = body
    for k in range(marks):
        y = 12 + 40 * k // max(marks, 1)
        c[y:y + 40 // max(marks, 1) - 3, 14:50] = INK
    return np.clip(c.astype(np.float32) * light, 0, 255).astype(np.uint8)


def test_a_plain_coloured_back_is_told_from_faces_densely_inked_or_dim() -> None:
    faces = [crop(IVORY), crop(IVORY, marks=4), crop(IVORY, light=0.9), crop(IVORY, marks=2)]
    backs = [crop((120, 80, 20), marks=0), crop((40, 110, 40), marks=0)]  # a blue back, a green one
    out = back_coloured(faces + backs, np.arange(len(faces) + len(backs)))
    assert out.tolist() == [False] * len(faces) + [True] * len(backs)


def test_no_back_is_told_where_too_few_faces_measure_the_ivory() -> None:
    crops = [crop(IVORY), crop((120, 80, 20), marks=0)]
    assert not back_coloured(crops, np.arange(2)).any()


def test_a_back_read_as_the_blank_dragon_is_read_as_a_back_and_the_faces_keep_theirs() -> None:
    crops = [crop(IVORY) for _ in range(4)] + [crop((120, 80, 20), marks=0)]
    probs = np.full((5, len(CLASSIFIER_CODES)), 0.001, np.float32)
    for i, code in enumerate(("E", "E", "E", "2s", "P")):
        probs[i, CLASS_INDEX[code]] = 0.9
    probs /= probs.sum(1, keepdims=True)
    out = backs_where_coloured(probs, crops, np.ones(5, bool))
    assert [CLASSIFIER_CODES[i] for i in out.argmax(1)] == ["E", "E", "E", "2s", "back"]
    assert np.allclose(out.sum(1), 1.0, atol=1e-5)
    assert out[4, BACK] >= BACK_MIX * 0.9
    assert np.array_equal(out[:4], probs[:4])


def test_a_back_both_models_read_face_down_is_not_vetoed_as_a_patch_of_table() -> None:
    # held-out handheld hand 26 (seed 0): a concealed kong's back, finder 0.93 and face down 1.0, classifier "back",
    # "not a tile" 0.57; a real photo's patch of tray the finder scored face down but the class is sure of (0.87)
    # and a plain patch the finder does not call a back stay vetoed
    probs = np.full((4, len(CLASSIFIER_CODES)), 0.001, np.float32)
    probs[:3, BACK] = 0.95
    probs[3, CLASS_INDEX["P"]] = 0.95
    back_score = np.array([1.0, 0.97, 0.0, 1.0], np.float32)
    not_tile = np.array([0.57, 0.87, 0.6, 0.6], np.float32)
    assert sure_backs(probs, back_score, not_tile).tolist() == [True, False, False, False]
    assert not sure_backs(probs, None, not_tile).any()
