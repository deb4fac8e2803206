"""Leave-one-design-out: how well the classifier reads a tile set it has never seen.

The shared photos are grouped by tile set (``data.DESIGNS``, from the photos' names). For each set with `train`
photos and `valid` photos, a classifier is trained from scratch without that set's photos and reads that set's
`valid` crops; the sets that only `valid` has (IMG_27xx, the screenshots) are read by the classifier trained on
every `train` set, which never saw them either. Epochs are kept by the `valid` crops of the sets trained on.

    python -m vision.training.lodo --epochs 6 --work build/lodo            # ~8 min a fold on 2 CPU threads
    python -m vision.training.lodo --epochs 6 --work build/lodo_faces --synth-faces 6000
    python -m vision.training.lodo --epochs 6 --work build/lodo_full --synth-faces 6000 \
        --recipe "--stretched-copies 3 --coarse 0.3 --extra-copies P=3 --turned-copies 1 --glare 0.15 ..."
    python -m vision.training.lodo --table build/lodo build/lodo_faces     # the table of both

Needs the `train` extra (torch). A short schedule from scratch, the same for every fold: the figures compare sets
and recipes, they are not the shipped classifier's (which trains in six stages, every set included).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

FOLDS = ("", "IMG_2023", "fb", "hand")  # "": every train set; then each set that train and valid both have
VALID_ONLY = ("IMG_27xx", "screenshot")


def run_folds(work: Path, epochs: int, extra: list[str]) -> None:
    """Train one classifier per fold (skipping folds already done) into ``work/<fold>``."""
    for fold in FOLDS:
        name = fold or "all"
        out = work / name
        if (out / "done").exists():
            continue
        cmd = [sys.executable, "-m", "vision.training.train_classifier", "--epochs", str(epochs),
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
    """Per design: tiles, top-1 and top-3 when held out, and top-1 when trained on (the ``all`` fold)."""
    everything = kept_epoch(work / "all" / "log.json")["designs"]
    rows = {}
    for fold in [f for f in FOLDS if f] + list(VALID_ONLY):
        source = everything if fold in VALID_ONLY else kept_epoch(work / fold / "log.json")["designs"]
        if fold not in source:
            continue
        rows[fold] = {"tiles": source[fold]["tiles"], "held_out_top1": source[fold]["top1"],
                      "held_out_top3": source[fold]["top3"],
                      "trained_on_top1": None if fold in VALID_ONLY else everything[fold]["top1"]}
    return rows


def print_tables(works: list[Path]) -> None:
    results = {str(w): table(w) for w in works}
    print(json.dumps(results, indent=1))
    head = " | ".join(f"{w.name}: held out top-1 / top-3 / trained on" for w in works)
    print(f"\n| tile set | valid tiles | {head} |\n|---|---|" + "---|" * len(works))
    designs = list(next(iter(results.values())))
    for d in designs:
        cells = []
        for w in works:
            r = results[str(w)][d]
            on = "–" if r["trained_on_top1"] is None else f"{100 * r['trained_on_top1']:.1f}"
            cells.append(f"{100 * r['held_out_top1']:.1f} / {100 * r['held_out_top3']:.1f} / {on}")
        print(f"| {d} | {results[str(works[0])][d]['tiles']} | " + " | ".join(cells) + " |")
    summary = []
    for w in works:
        accs = [r["held_out_top1"] for r in results[str(w)].values()]
        summary.append(f"mean {100 * sum(accs) / len(accs):.1f}, worst {100 * min(accs):.1f}")
    print("| **held out: mean, worst** | | " + " | ".join(summary) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.training.lodo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--work", default="build/lodo")
    ap.add_argument("--synth-faces", type=int, default=0, help="add this many synthetic faces to every fold")
    ap.add_argument("--recipe", default="", metavar="ARGS",
                    help="more train_classifier arguments for every fold, e.g. the shipped augmentations")
    ap.add_argument("--table", nargs="+", default=None, metavar="WORK", help="only print the table of these runs")
    args = ap.parse_args()
    if args.table:
        print_tables([Path(w) for w in args.table])
        return
    extra = (["--synth-faces", str(args.synth_faces)] if args.synth_faces else []) + args.recipe.split()
    run_folds(Path(args.work), args.epochs, extra)
    print_tables([Path(args.work)])


if __name__ == "__main__":
    main()
