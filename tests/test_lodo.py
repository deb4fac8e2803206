"""The leave-one-design-out table from the folds' training logs (no training: hand-written logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.training.lodo import print_tables, table


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
