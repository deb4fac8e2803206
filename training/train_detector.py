"""Stage 1: fine-tune the YOLO tile finder (classes `tile`, `back`) and export it to ONNX.

    python -m training.train_detector --epochs 12 --imgsz 416 --synth 500 --out models/detector.onnx

Starts from ../shared/weights/mjdet_yolo11n.pt. Training images: every photo of the shared `train` split
(all 42 faces -> `tile`) plus copy-paste composites of train-split crops with sideways and face-down tiles.
Validation: the shared `valid` split (never trained on). Runs offline (YOLO_OFFLINE=1, private config dir).
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from training.data import load_split, shared_dir
from training.designs import pitched, scene
from training.synth import CropBank, compose, random_table_groups
from training.table_aug import steep_turn, table_conditions
from vision.geometry import turn_boxes, turn_image


def offline_env(work: Path) -> None:
    """Ultralytics without network: private config dir with the fonts it would otherwise download."""
    cfg = work / "yolo_config"
    cfg.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    import matplotlib

    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (cfg / name).exists():
            shutil.copy(font, cfg / name)


def yolo_rows(boxes: np.ndarray, classes: list[int], w: int, h: int) -> str:
    rows = []
    for (x1, y1, x2, y2), c in zip(boxes, classes):
        rows.append(f"{c} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return "\n".join(rows) + ("\n" if rows else "")


def write_example(folder: Path, name: str, img: np.ndarray, boxes: np.ndarray, classes: list[int]) -> None:
    """One training photo and its YOLO label file (boxes cut to the photo; slivers under 4 px dropped)."""
    h, w = img.shape[:2]
    boxes = np.clip(boxes, 0, [w, h, w, h]).astype(np.float32)
    keep = [i for i, b in enumerate(boxes) if b[2] - b[0] > 4 and b[3] - b[1] > 4]
    cv2.imwrite(str(folder / "images" / f"{name}.jpg"), img)
    (folder / "labels" / f"{name}.txt").write_text(yolo_rows(boxes[keep], [classes[i] for i in keep], w, h))


def build_dataset(work: Path, n_synth: int, seed: int, conditions: float = 0.0, real_copies: int = 0,
                  turned_copies: int = 0, designs: int = 0, pitched_copies: int = 0, quarter_copies: int = 0,
                  close_ups: int = 0, mid_scale: int = 0, one_suit: float = 0.0) -> Path:
    """Write the YOLO dataset (symlinked real photos, converted labels, composites) and its yaml. ``conditions``:
    the share of composites given one or two photo conditions (``table_aug``: tilt, glare, shake, defocus, dim
    light, colour cast); ``real_copies``: that many extra copies of random `train` photos, each with conditions;
    ``turned_copies``: that many turned 15-60 degrees in their plane, half of them with one more condition;
    ``designs``: that many scenes in made-up tile designs seen by a pitched, shaken phone (``training.designs``);
    ``pitched_copies``: that many `train` photos seen by a pinhole camera pitched 20-50 degrees (squat tiles);
    ``quarter_copies``: that many turned a quarter either way with no EXIF, some with one more condition (a finder
    that has seen tiles lying on their side boxes them whole); ``close_ups``: that many more design scenes, each a
    close-up (a tile a fifth to two fifths of the frame, one box however many parts its face has); ``mid_scale``:
    that many more, the tiles 6-14 % of the width as the reader's zoomed pass sees them; ``one_suit``: the share
    of all design scenes whose hand is of one suit."""
    root = work / "data"
    if root.exists():
        shutil.rmtree(root)
    for split in ("train", "val"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
    train = load_split("train")
    for split, items in (("train", train), ("val", load_split("valid", drop_bad=False))):
        for li in items:
            dst = root / split / "images" / li.path.name
            os.symlink(li.path.resolve(), dst)
            (root / split / "labels" / (li.path.stem + ".txt")).write_text(
                yolo_rows(li.boxes, [0] * len(li.codes), 640, 640))
    rng = np.random.default_rng(seed)
    bank = CropBank.build(train, seed=seed)
    for i in range(n_synth):
        img, placed = compose(random_table_groups(rng), bank, rng, two_rows=rng.random() < 0.4, fit=False)
        boxes = np.array([p.box for p in placed], np.float32).reshape(-1, 4)
        cls = [1 if p.code == "back" else 0 for p in placed]
        if rng.random() < conditions:
            img, boxes, _ = table_conditions(img, boxes, rng)
        write_example(root / "train", f"synth_{i:05d}", img, boxes, cls)
    def copies(n: int, prefix: str, change: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
               ) -> None:
        """``n`` copies of random `train` photos (all boxes ``tile``), each changed by ``change``."""
        for i in range(n):
            li = train[int(rng.integers(len(train)))]
            img = cv2.imread(str(li.path))
            if img is None:
                continue
            img, boxes = change(img, li.boxes.astype(np.float32))
            write_example(root / "train", f"{prefix}_{i:05d}", img, boxes, [0] * len(boxes))

    def with_conditions(img: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        img, boxes, _ = table_conditions(img, boxes, rng)
        return img, boxes

    def turned(img: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        img, boxes = steep_turn(img, boxes, rng)
        if rng.random() < 0.5:
            img, boxes, _ = table_conditions(img, boxes, rng, most=1)
        return img, boxes

    for i in range(designs):
        img, boxes, cls = scene(rng, backgrounds=bank.backgrounds, one_suit=one_suit)
        write_example(root / "train", f"design_{i:05d}", img, boxes, cls)
    for i in range(close_ups):
        img, boxes, cls = scene(rng, backgrounds=bank.backgrounds, close=1.0, one_suit=one_suit)
        write_example(root / "train", f"close_{i:05d}", img, boxes, cls)
    for i in range(mid_scale):
        img, boxes, cls = scene(rng, backgrounds=bank.backgrounds, close=0.0, mid=1.0, one_suit=one_suit)
        write_example(root / "train", f"mid_{i:05d}", img, boxes, cls)

    def quarter(img: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = 1 if rng.random() < 0.5 else 3
        img, boxes = turn_image(img, k), turn_boxes(boxes, img.shape, k)
        if rng.random() < 0.5:
            img, boxes, _ = table_conditions(img, boxes, rng, most=1)
        return img, boxes

    def pitch(img: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return pitched(img, boxes, float(rng.uniform(20, 50)), float(rng.uniform(-8, 8)),
                       fov=float(rng.uniform(55, 80)))

    copies(real_copies, "real", with_conditions)
    copies(pitched_copies, "pitched", pitch)
    copies(turned_copies, "turned", turned)
    copies(quarter_copies, "quarter", quarter)
    yaml = work / "tiles.yaml"
    yaml.write_text(f"path: {root.resolve()}\ntrain: train/images\nval: val/images\nnames:\n  0: tile\n  1: back\n")
    return yaml


def norms_frozen(trainer: object) -> None:
    """Ultralytics callback: every batch norm back in evaluation mode (the trainer sets training mode each epoch)."""
    import torch

    for m in trainer.model.modules():  # type: ignore[attr-defined]
        if isinstance(m, torch.nn.BatchNorm2d) and m.training:
            m.eval()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--imgsz", type=int, default=416)
    ap.add_argument("--synth", type=int, default=500)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hours", type=float, default=0.0, help="stop after this many hours (0 = epochs only)")
    ap.add_argument("--weights", default=str(shared_dir() / "weights" / "mjdet_yolo11n.pt"))
    ap.add_argument("--work", default="build/detector")
    ap.add_argument("--out", default="models/detector.onnx")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", action="store_true", help="resume WORK/NAME/weights/last.pt")
    ap.add_argument("--name", default="run", help="run folder under --work")
    ap.add_argument("--lr0", type=float, default=None,
                    help="AdamW learning rate (fine-tuning a trained finder: ~3e-4); default: Ultralytics' choice")
    ap.add_argument("--warmup", type=float, default=3.0, help="warm-up epochs")
    ap.add_argument("--warmup-bias-lr", type=float, default=None,
                    help="the biases' learning rate at the warm-up's start (Ultralytics: 0.1, which a fine-tuning "
                         "stage may prefer to set to --lr0)")
    ap.add_argument("--conditions", type=float, default=0.0,
                    help="share of composites given photo conditions (tilt, glare, shake, defocus, dim, cast)")
    ap.add_argument("--real-copies", type=int, default=0, help="extra copies of train photos with conditions")
    ap.add_argument("--designs", type=int, default=0,
                    help="scenes in made-up tile designs, pitched 0-50 degrees, shaken, glared (training.designs)")
    ap.add_argument("--pitched-copies", type=int, default=0,
                    help="extra copies of train photos seen by a camera pitched 20-50 degrees")
    ap.add_argument("--turned-copies", type=int, default=0,
                    help="extra copies of train photos turned 15-60 degrees in their plane")
    ap.add_argument("--quarter-copies", type=int, default=0,
                    help="extra copies of train photos turned a quarter either way (no EXIF)")
    ap.add_argument("--close-ups", type=int, default=0,
                    help="extra design scenes that are close-ups (a tile a fifth of the frame or more)")
    ap.add_argument("--mid-scale", type=int, default=0,
                    help="extra design scenes whose tiles are 6-14 %% of the width (as the zoomed pass sees them)")
    ap.add_argument("--one-suit", type=float, default=0.0, help="share of design scenes whose hand is of one suit")
    ap.add_argument("--freeze-norms", action="store_true",
                    help="keep every batch norm as it is (evaluation mode): a stage from the rebuilt shipped finder "
                         "then trains the folded convolutions themselves, with no norm statistics to settle")
    ap.add_argument("--export-weights", default="best",
                    help="which checkpoint of the run to export: best (Ultralytics' fitness on `valid`), last, or "
                         "epochK (saved after epoch K+1)")
    ap.add_argument("--export-only", action="store_true", help="export --export-weights of the run; no training")
    args = ap.parse_args()
    work = Path(args.work).resolve()
    offline_env(work)
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(args.threads)
    t0 = time.time()
    run_dir = work / args.name
    if args.export_only:
        pass
    elif args.resume:
        model = YOLO(str(run_dir / "weights" / "last.pt"))
        model.train(resume=True)
    else:
        yaml = build_dataset(work, args.synth, args.seed, args.conditions, args.real_copies, args.turned_copies,
                             args.designs, args.pitched_copies, args.quarter_copies, args.close_ups,
                             args.mid_scale, args.one_suit)
        print(f"dataset built in {time.time() - t0:.0f}s", flush=True)
        model = YOLO(args.weights)
        extra: dict[str, object] = {"time": args.hours} if args.hours else {}
        if args.lr0 is not None:
            extra.update(optimizer="AdamW", lr0=args.lr0)
        if args.warmup_bias_lr is not None:
            extra.update(warmup_bias_lr=args.warmup_bias_lr)
        if args.freeze_norms:
            model.add_callback("on_train_batch_start", norms_frozen)
        model.train(data=str(yaml), epochs=args.epochs, imgsz=args.imgsz, batch=args.batch, workers=2,
                    device="cpu", project=str(work), name=args.name, exist_ok=True, plots=False, amp=False,
                    seed=args.seed, deterministic=False, patience=100, cos_lr=True, close_mosaic=2,
                    degrees=10.0, fliplr=0.5, flipud=0.0, mosaic=1.0, save_period=1,
                    warmup_epochs=args.warmup, **extra)
    model = YOLO(str(run_dir / "weights" / f"{args.export_weights}.pt"))
    path = model.export(format="onnx", imgsz=args.imgsz, simplify=True, opset=17, dynamic=True, nms=False)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, args.out)
    print(f"wrote {args.out} after {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
