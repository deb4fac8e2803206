"""The leave-one-design-out table from the folds' training logs (no training: hand-written logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import SHARED
from training.lodo import fold_models, print_read_table, print_tables, read_held_out, table


def _log(path: Path, designs: dict[str, tuple[int, float]]) -> None:
    path.mkdir(parents=True)
    epochs = [{"epoch": 1, "kept": True, "designs": {d: {"tiles": n, "top1": a, "top3": round(min(1.0, a + 0.03), 4)}
                                                      for d, (n, a) in designs.items()}},
              {"epoch": 2, "designs": {d: {"tiles": n, "top1": 0.0, "top3": 0.0} for d, (n, a) in designs.items()}}]
    (path / "log.json").write_text(json.dumps(epochs))


def test_a_run_with_some_folds_not_run_yet_tables_the_folds_it_has(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Each held-out set is read from its own fold's kept epoch (not the last one), the sets only `valid` has from
    the all-sets fold; a fold not run is left out of the table and its summary, and shown as "not run" beside a
    run that has it."""
    full, part = tmp_path / "full", tmp_path / "part"
    _log(full / "all", {"fb": (100, 0.99), "hand": (10, 1.0), "IMG_27xx": (50, 0.9)})
    _log(full / "fb", {"fb": (100, 0.92)})
    _log(full / "hand", {"hand": (10, 0.97)})
    _log(part / "fb", {"fb": (100, 0.93)})
    rows = table(full)
    assert rows["fb"] == {"tiles": 100, "held_out_top1": 0.92, "held_out_top3": 0.95, "trained_on_top1": 0.99}
    assert rows["IMG_27xx"]["held_out_top1"] == 0.9 and rows["IMG_27xx"]["trained_on_top1"] is None
    assert set(table(part)) == {"fb"} and table(part)["fb"]["trained_on_top1"] is None
    print_tables([full, part])
    out = capsys.readouterr().out
    assert "| hand | 10 | 97.0 / 100.0 / 100.0 | not run |" in out
    assert "mean 93.0, worst 90.0 (3 sets)" in out and "mean 93.0, worst 93.0 (1 sets)" in out


def test_a_fold_reads_with_its_own_classifier_and_the_shipped_finder(tmp_path: Path) -> None:
    """``fold_models`` makes a models folder for the reader: the fold's classifier and the shipped finder, and no
    calibration (no fold has data of its own to fit one on); made again, it points at the same files."""
    from vision.models import MODELS_DIR

    (tmp_path / "fb").mkdir()
    (tmp_path / "fb" / "classifier.onnx").write_bytes(b"fold")
    for _ in range(2):
        out = fold_models(tmp_path, "fb")
    assert (out / "classifier.onnx").read_bytes() == b"fold"
    assert (out / "detector.onnx").resolve() == (MODELS_DIR / "detector.onnx").resolve()
    assert sorted(p.name for p in out.iterdir()) == ["classifier.onnx", "detector.onnx"]


def test_the_read_table_gives_mean_and_worst_with_and_without_the_screenshots(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each column's mean and worst over the held-out sets, and again without the squashed screenshots."""
    def row(n: int, alone: float, looked: float, photos: float) -> dict[str, float]:
        return {"tiles": n, "crops_top1": alone, "crops_second_look": looked, "photos_class_accuracy": photos}

    print_read_table({"fb": row(100, 0.92, 0.97, 0.96), "hand": row(10, 0.99, 0.99, 1.0),
                      "screenshot": row(5, 0.4, 0.5, 0.6)})
    out = capsys.readouterr().out
    assert "| fb | 100 | 92.0 | 97.0 | 96.0 |" in out
    assert "| **mean / worst** | | 77.0 / 40.0 | 82.0 / 50.0 | 85.3 / 60.0 |" in out
    assert "| **without the screenshots** | | 95.5 / 92.0 | 98.0 / 97.0 | 98.0 / 96.0 |" in out


def test_evaluation_can_take_the_photos_of_one_tile_set(tmp_path: Path) -> None:
    """``photo_files(tile_set=)`` keeps the photos whose names show that set (``data.DESIGNS``)."""
    from evaluation.photos import photo_files

    names = ["IMG_20230101_1_jpg.rf.a.jpg", "hand_3_jpg.rf.b.jpg", "12_34_56_n_jpg.rf.c.jpg", "xyz.rf.d.jpg"]
    for n in names:
        (tmp_path / n).write_bytes(b"")
    assert [p.name for p in photo_files(tmp_path, tile_set="hand")] == ["hand_3_jpg.rf.b.jpg"]
    assert [p.name for p in photo_files(tmp_path, tile_set="fb")] == ["12_34_56_n_jpg.rf.c.jpg"]
    assert [p.name for p in photo_files(tmp_path, tile_set="web")] == ["xyz.rf.d.jpg"]
    assert len(photo_files(tmp_path)) == 4


VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid"


@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_a_held_out_set_is_read_by_its_folds_classifier_as_the_reader_reads(tmp_path: Path) -> None:
    """With the shipped classifier standing in for the `hand` fold's (it saw that set, so it reads it well), the
    set's crops and whole photos are read through the reader: the second look never loses to the crops read
    alone by much, and the other folds, not run, are left out."""
    import shutil

    from vision.models import MODELS_DIR

    (tmp_path / "hand").mkdir()
    shutil.copy(MODELS_DIR / "classifier.onnx", tmp_path / "hand" / "classifier.onnx")
    (tmp_path / "hand" / "done").write_text("ok")
    rows = read_held_out(tmp_path)
    assert set(rows) == {"hand"}
    hand = rows["hand"]
    assert hand["tiles"] >= 200 and hand["photos"] >= 10
    assert hand["crops_top1"] >= 0.97 and hand["crops_second_look"] >= hand["crops_top1"] - 0.01
    assert hand["photos_class_accuracy"] >= 0.97 and hand["photos_recall"] >= 0.95
