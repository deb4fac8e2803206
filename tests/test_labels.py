"""Label files and the list of known label defects, without the shared data."""

from __future__ import annotations

from pathlib import Path

from training.labels import RF_CODES, VALID_LABEL_FIXES, fix_labels, read_yolo


def test_boxes_and_polygons_become_pixel_boxes(tmp_path: Path):
    label = tmp_path / "a.txt"
    label.write_text("2 0.5 0.5 0.2 0.4\n\n6 0.1 0.1 0.3 0.1 0.3 0.2 0.1 0.2\n")
    boxes, codes = read_yolo(label, 100, 200, RF_CODES)
    assert codes == ["1p", "2m"]
    assert boxes.tolist() == [[40.0, 60.0, 60.0, 140.0], [10.0, 20.0, 30.0, 40.0]]
    assert read_yolo(tmp_path / "missing.txt", 100, 100, RF_CODES)[0].shape == (0, 4)


def test_a_fix_applies_only_to_its_photo_and_only_where_the_wrong_label_is():
    name, index, given, shown = VALID_LABEL_FIXES[0]
    codes = ["1m"] * index + [given]
    assert fix_labels(name + ".rf.abc.jpg", codes) == 1 and codes[index] == shown
    assert fix_labels(name + ".rf.abc.jpg", codes) == 0  # already right: nothing forced
    other = ["1m"] * index + [given]
    assert fix_labels("another_photo.rf.abc.jpg", other) == 0 and other[index] == given
