"""Leave-one-design-out: how well the classifier reads a tile set it has never seen.

The shared photos are grouped by tile set (``data.DESIGNS``, from the photos' names). For each set with `train`
photos and `valid` photos, a classifier is trained from scratch without that set's photos and reads that set's
`valid` crops; the sets that only `valid` has (IMG_27xx, the screenshots) are read by the classifier trained on
every `train` set, which never saw them either. Epochs are kept by the `valid` crops of the sets trained on.

    python -m training.lodo --epochs 6 --work build/lodo            # ~8 min a fold on 2 CPU threads
    python -m training.lodo --epochs 6 --work build/lodo_faces --synth-faces 6000
    python -m training.lodo --epochs 6 --work build/lodo_full --synth-faces 6000 \
        --recipe "--stretched-copies 3 --coarse 0.3 --extra-copies P=3 --turned-copies 1 --glare 0.15 ..."
    python -m training.lodo --table build/lodo build/lodo_faces     # the table of both
    python -m training.lodo --read build/lodo_full                  # each held-out set read as the reader does

Training needs the `train` extra (torch); ``--read`` does not: it reads each held-out set with its fold's
classifier the way the reader uses one (a second look at unsure crops, and the whole photos read with the shipped
finder, which saw every set). A short schedule from scratch, the same for every fold: the figures compare sets
and recipes, they are not the shipped classifier's (which trains in six stages, every set included).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

FOLDS = ("", "IMG_2023", "fb", "hand")  # "": every train set; then each set that train and valid both have
VALID_ONLY = ("IMG_27xx", "screenshot")
HELD_OUT_SETS = tuple(f for f in FOLDS if f) + VALID_ONLY  # the table's rows: every set read held out


def fold_dir(work: Path, fold: str) -> Path:
    """Where a fold's classifier, log and ``done`` mark live: ``work/<set left out>``, or ``work/all``."""
    return work / (fold or "all")


def run_folds(work: Path, epochs: int, extra: list[str], folds: tuple[str, ...] = FOLDS) -> None:
    """Train one classifier per fold of ``folds`` (skipping folds already done) into ``work/<fold>``."""
    for fold in folds:
        out = fold_dir(work, fold)
        if (out / "done").exists():
            continue
        cmd = [sys.executable, "-m", "training.train_classifier", "--epochs", str(epochs),
               "--work", str(out), "--out", str(out / "classifier.onnx"), *extra]
        if fold:
            cmd += ["--leave-out", fold]
        else:  # the sets only valid has are held out of this fold: they never choose its epoch
            cmd += ["--report-only", ",".join(VALID_ONLY)]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        (out / "done").write_text("ok")


def kept_epoch(log_path: Path) -> dict:
    """The log entry of the epoch whose weights were kept (the last one marked)."""
    log = json.loads(log_path.read_text())
    kept = [e for e in log if e.get("kept")]
    return kept[-1] if kept else log[-1]


def table(work: Path) -> dict[str, dict]:
    """Per design: tiles, top-1 and top-3 when held out, and top-1 when trained on (the ``all`` fold); the
    folds not run (yet) are left out."""
    logs = {f: fold_dir(work, f) / "log.json" for f in FOLDS}
    everything = kept_epoch(logs[""])["designs"] if logs[""].exists() else {}
    rows = {}
    for fold in HELD_OUT_SETS:
        if fold not in VALID_ONLY and not logs[fold].exists():
            continue
        source = everything if fold in VALID_ONLY else kept_epoch(logs[fold])["designs"]
        if fold not in source:
            continue
        on = everything.get(fold, {}).get("top1") if fold not in VALID_ONLY else None
        rows[fold] = {"tiles": source[fold]["tiles"], "held_out_top1": source[fold]["top1"],
                      "held_out_top3": source[fold]["top3"], "trained_on_top1": on}
    return rows


def fold_models(work: Path, fold: str) -> Path:
    """A models folder that reads with the fold's classifier and the shipped finder (no calibration file: the raw
    probabilities, since no fold has data of its own to fit one on)."""
    from vision.models import MODELS_DIR

    out = fold_dir(work, fold) / "models"
    out.mkdir(exist_ok=True)
    for name, src in (("detector.onnx", MODELS_DIR / "detector.onnx"),
                      ("classifier.onnx", fold_dir(work, fold) / "classifier.onnx")):
        link = out / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(src.resolve())
    return out


def valid_crops() -> dict[str, tuple[list[np.ndarray], np.ndarray, np.ndarray]]:
    """Per tile set: the `valid` crops (cut as the training's are), their classes, and which of them the reader
    would also read a quarter turned (``crops.quarter_turnable`` of their photo's boxes)."""
    from training.data import labelled_tiles
    from vision.classes import CLASS_INDEX
    from vision.crops import quarter_turnable, tile_crop

    crops: dict[str, list[np.ndarray]] = defaultdict(list)
    classes: dict[str, list[int]] = defaultdict(list)
    turnable: dict[str, list[bool]] = defaultdict(list)
    photo, turns = None, np.zeros(0, bool)
    for li, img, box, code in labelled_tiles("valid"):
        if li is not photo:  # (the tiles of one photo come one after another)
            photo, turns = li, quarter_turnable(li.boxes)
        crops[li.design].append(tile_crop(img, box)[0])
        classes[li.design].append(CLASS_INDEX[code])
        turnable[li.design].append(bool(turns[int(np.flatnonzero((li.boxes == box).all(1))[0])]))
    return {d: (crops[d], np.array(classes[d]), np.array(turnable[d])) for d in crops}


def read_held_out(work: Path, threads: int = 2) -> dict[str, dict]:
    """Each held-out set read by the classifier of the fold that never saw it, as the reader uses it: its `valid`
    crops alone (top-1) and with the reader's second look at unsure crops, and its `valid` photos read whole (class
    accuracy of the tiles found, tiles right of all labelled, photos entirely right)."""
    from evaluation.photos import evaluate
    from training.data import rf_dir
    from training.labels import RF_CODES
    from vision.reader import TileReader

    sets = valid_crops()
    rows = {}
    for tile_set in HELD_OUT_SETS:
        fold = "" if tile_set in VALID_ONLY else tile_set
        if not (fold_dir(work, fold) / "done").exists() or tile_set not in sets:
            continue
        reader = TileReader(fold_models(work, fold), threads=threads)
        crops, classes, turnable = sets[tile_set]
        alone = reader.classifier.logp(crops).argmax(1)
        looked = reader.classifier.probabilities(crops, turnable).argmax(1)
        photos = evaluate(rf_dir() / "valid" / "images", rf_dir() / "valid" / "labels", reader, RF_CODES,
                          tile_set=tile_set)
        rows[tile_set] = {"tiles": len(classes), "crops_top1": round(float((alone == classes).mean()), 4),
                          "crops_second_look": round(float((looked == classes).mean()), 4),
                          "photos": photos["images"], "photos_class_accuracy": photos["class_accuracy_matched"],
                          "photos_top3": photos["class_top3_matched"], "photos_recall": photos["tile_recall"],
                          "photos_tiles_right": photos["tiles_right_of_all_gt"],
                          "photos_entirely_right": photos["images_entirely_right"],
                          "top_confusions": photos["top_confusions"][:5]}
        print(tile_set, json.dumps(rows[tile_set]), flush=True)
    return rows


def print_read_table(rows: dict[str, dict]) -> None:
    """The held-out sets read as the reader reads, with the mean and worst of each column (also without the
    squashed screenshots, which no phone makes)."""
    cols = (("crops_top1", "crops, classifier alone"), ("crops_second_look", "crops, with the second look"),
            ("photos_class_accuracy", "photos read whole: tiles found named right"))
    print("\n| tile set | tiles | " + " | ".join(c for _, c in cols) + " |\n|---|---|" + "---|" * len(cols))
    for tile_set, r in rows.items():
        print(f"| {tile_set} | {r['tiles']} | " + " | ".join(f"{100 * r[k]:.1f}" for k, _ in cols) + " |")
    for label, keep in (("mean / worst", lambda s: True), ("without the screenshots", lambda s: s != "screenshot")):
        cells = []
        for k, _ in cols:
            vals = [r[k] for s, r in rows.items() if keep(s)]
            cells.append(f"{100 * sum(vals) / len(vals):.1f} / {100 * min(vals):.1f}" if vals else "–")
        print(f"| **{label}** | | " + " | ".join(cells) + " |")


def print_tables(works: list[Path]) -> None:
    results = {str(w): table(w) for w in works}
    print(json.dumps(results, indent=1))
    head = " | ".join(f"{w.name}: held out top-1 / top-3 / trained on" for w in works)
    print(f"\n| tile set | valid tiles | {head} |\n|---|---|" + "---|" * len(works))
    designs = [d for d in HELD_OUT_SETS if any(d in r for r in results.values())]
    for d in designs:
        cells = []
        for w in works:
            r = results[str(w)].get(d)
            if r is None:
                cells.append("not run")
                continue
            on = "–" if r["trained_on_top1"] is None else f"{100 * r['trained_on_top1']:.1f}"
            cells.append(f"{100 * r['held_out_top1']:.1f} / {100 * r['held_out_top3']:.1f} / {on}")
        tiles = next(r[d]["tiles"] for r in results.values() if d in r)
        print(f"| {d} | {tiles} | " + " | ".join(cells) + " |")
    summary = []
    for w in works:
        accs = [r["held_out_top1"] for r in results[str(w)].values()]
        summary.append(f"mean {100 * sum(accs) / len(accs):.1f}, worst {100 * min(accs):.1f} ({len(accs)} sets)"
                       if accs else "nothing run")
    print("| **held out: mean, worst** | | " + " | ".join(summary) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m training.lodo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--work", default="build/lodo")
    ap.add_argument("--synth-faces", type=int, default=0, help="add this many synthetic faces to every fold")
    ap.add_argument("--recipe", default="", metavar="ARGS",
                    help="more train_classifier arguments for every fold, e.g. the shipped augmentations")
    ap.add_argument("--folds", default=None, metavar="F,G",
                    help=f"only these folds ({', '.join(f or 'all' for f in FOLDS)}), e.g. fb,hand")
    ap.add_argument("--table", nargs="+", default=None, metavar="WORK", help="only print the table of these runs")
    ap.add_argument("--read", default=None, metavar="WORK",
                    help="only read each held-out set with its fold's classifier as the reader does (no torch)")
    args = ap.parse_args()
    if args.read:
        rows = read_held_out(Path(args.read))
        print(json.dumps(rows, indent=1))
        print_read_table(rows)
        return
    if args.table:
        print_tables([Path(w) for w in args.table])
        return
    extra = (["--synth-faces", str(args.synth_faces)] if args.synth_faces else []) + args.recipe.split()
    folds = FOLDS if args.folds is None else tuple("" if f == "all" else f for f in args.folds.split(","))
    unknown = [f for f in folds if f not in FOLDS]
    if unknown:
        ap.error(f"unknown fold {', '.join(unknown)}; known: {', '.join(f or 'all' for f in FOLDS)}")
    run_folds(Path(args.work), args.epochs, extra, folds)
    print_tables([Path(args.work)])


if __name__ == "__main__":
    main()
