"""Stage 2: train the tile-face classifier (42 faces + face-down) on crops and export it to ONNX.

    python -m training.train_classifier --epochs 14 --out models/classifier.onnx

Crops come from the shared `train` split (every labelled box), the camerash crops (other tile designs)
and rendered face-down tiles; the `valid` split is only used to report accuracy.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from training.data import EXPORT_SIZE, collect_camerash, labelled_tiles, load_split
from training.synth import render_back
from vision.classes import CLASS_INDEX, CLASSIFIER_CODES
from vision.crops import CROP_SIZE, crops_to_batch, tile_crop
from vision.detections import intersections


def collect(split: str, drop_bad: bool = True, stretched_copies: int = 1, leave_out: str = ""
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every labelled box of a split as a classifier crop, with its label and its photo's tile set (``design``);
    crops of badly stretched photos ``stretched_copies`` times; photos of the set ``leave_out`` left out.

    Such photos (tiles ten times taller than wide) are rare but their crops are the hardest: few pixels across.
    """
    xs, ys, ds = [], [], []
    for li, img, box, code in labelled_tiles(split, drop_bad):
        if li.design == leave_out:
            continue
        copies = stretched_copies if li.squashed else 1
        crop, _ = tile_crop(img, box)
        xs.extend([crop] * copies)
        ys.extend([CLASS_INDEX[code]] * copies)
        ds.extend([li.design] * copies)
    return np.stack(xs), np.array(ys, np.int64), np.array(ds)


def turned_crop(img: np.ndarray, box: np.ndarray, angle: float) -> np.ndarray:
    """The crop the reader gets of this tile lying turned by ``angle`` degrees: the photo is turned about the
    tile's centre (its neighbours with it) and the axis-aligned box around the turned tile is cut, as the finder
    draws it around a loose tile or a row at a slant (that box takes in the edges of the neighbours)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1
    c, s = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    bw, bh = w * c + h * s, w * s + h * c
    out_w, out_h = int(np.ceil(bw * 1.3)) + 2, int(np.ceil(bh * 1.3)) + 2
    m = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    m[:, 2] += (out_w / 2 - cx, out_h / 2 - cy)
    patch = cv2.warpAffine(img, m, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return tile_crop(patch, (out_w / 2 - bw / 2, out_h / 2 - bh / 2, out_w / 2 + bw / 2, out_h / 2 + bh / 2))[0]


def collect_turned(split: str, copies: int, seed: int, leave_out: str = "") -> tuple[np.ndarray, np.ndarray]:
    """``copies`` crops of every labelled tile (photos the export squashed left out) turned by a random angle
    in [-90, 90) degrees; the training flips by 180 degrees add the rest of the circle. Loose tiles on a table
    lie at any angle, and the valid photos of a tile set not in train were misread most where they did."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for li, img, box, code in labelled_tiles(split, squashed=False):
        if li.design == leave_out:
            continue
        for angle in rng.uniform(-90, 90, copies):
            xs.append(turned_crop(img, box, float(angle)))
            ys.append(CLASS_INDEX[code])
    return np.stack(xs), np.array(ys, np.int64)


NOT_A_TILE = len(CLASSIFIER_CODES)  # the optional last class (``--not-tiles``): table, tray, cloth


def not_tiles(split: str, n: int, seed: int, leave_out: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Crops of tile-sized boxes that touch no labelled tile (with a margin): what the finder sometimes takes
    for a tile (a plain tray reads as the blank white dragon, a green cloth as a back)."""
    rng = np.random.default_rng(seed)
    images = [li for li in load_split(split) if not li.squashed and len(li.boxes) and li.design != leave_out]
    xs: list[np.ndarray] = []
    while len(xs) < n:
        li = images[int(rng.integers(len(images)))]
        sides = np.sort(li.boxes[:, 2:] - li.boxes[:, :2], 1)
        w = float(np.median(sides[:, 0])) * rng.uniform(0.5, 1.3)
        h = w * rng.uniform(0.7, 1.6)
        x, y = rng.uniform(0, EXPORT_SIZE - w), rng.uniform(0, EXPORT_SIZE - h)
        grown = li.boxes + np.array([-0.15, -0.15, 0.15, 0.15]) * np.tile(sides[:, :1], 4)
        if intersections(np.array([[x, y, x + w, y + h]]), grown).any():
            continue  # touches a tile: drawn again, the photo not even read
        xs.append(tile_crop(cv2.imread(str(li.path)), (x, y, x + w, y + h))[0])
    return np.stack(xs), np.full(n, NOT_A_TILE, np.int64)


def textures(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` crops of made-up table surfaces for the class *not a tile*: woven, striped, speckled or shaded, on a
    dark or coloured ground, never a white one (a white ground with coloured strokes is what a tile looks like)."""
    rng = np.random.default_rng(seed)
    size = 2 * CROP_SIZE
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    xs = []
    for _ in range(n):
        ground = rng.uniform(0, 160, 3) if rng.random() < 0.7 else rng.permutation([rng.uniform(120, 230),
                                                                                     rng.uniform(0, 90),
                                                                                     rng.uniform(0, 200)])
        ink = np.clip(ground + rng.uniform(-120, 160, 3), 0, 255)
        if rng.random() < 0.3:  # grey: asphalt, carbon weave, slate
            ground = np.full(3, rng.uniform(0, 140))
            ink = np.clip(ground + rng.uniform(-60, 110), 0, 255)
        a = rng.uniform(0, np.pi)
        u = np.cos(a) * xx + np.sin(a) * yy
        v = -np.sin(a) * xx + np.cos(a) * yy
        period = rng.uniform(3, 24)
        kind = rng.integers(4)
        if kind == 0:  # stripes
            m = (np.sin(2 * np.pi * u / period) > rng.uniform(-0.5, 0.5)).astype(np.float32)
        elif kind == 1:  # weave: stripes that change direction cell by cell
            cell = (np.floor(u / period) + np.floor(v / period)) % 2
            m = np.where(cell > 0, np.sin(2 * np.pi * u / (period / 3)), np.sin(2 * np.pi * v / (period / 3)))
            m = (m > 0.3).astype(np.float32)
        elif kind == 2:  # speckle
            m = cv2.GaussianBlur(rng.random((size, size)).astype(np.float32), (0, 0), rng.uniform(0.5, 3))
            m = (m > np.quantile(m, rng.uniform(0.5, 0.9))).astype(np.float32)
        else:  # shading
            m = np.clip(u / size + rng.uniform(-0.5, 0.5), 0, 1)
        img = ground[None, None] * (1 - m[..., None]) + ink[None, None] * m[..., None]
        img = np.clip(img + rng.normal(0, rng.uniform(1, 12), img.shape), 0, 255).astype(np.uint8)
        w = int(rng.integers(24, size))
        h = int(min(size, w * rng.uniform(0.7, 1.6)))
        x, y = int(rng.integers(0, size - w + 1)), int(rng.integers(0, size - h + 1))
        xs.append(tile_crop(img, (x, y, x + w, y + h))[0])
    return np.stack(xs), np.full(n, NOT_A_TILE, np.int64)


def backs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    xs = []
    for _ in range(n):
        w = int(rng.integers(24, 90))
        h = int(w * rng.uniform(1.2, 1.5))
        tile = render_back(w, h, rng)
        pad = rng.integers(20, 120, 3).astype(np.uint8)
        canvas = np.empty((h + 12, w + 12, 3), np.uint8)
        canvas[:] = pad
        canvas[6:6 + h, 6:6 + w] = tile
        crop, _ = tile_crop(canvas, (6, 6, 6 + w, 6 + h))
        xs.append(crop)
    return np.stack(xs), np.full(n, CLASS_INDEX["back"], np.int64)


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.skip = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.skip is None else self.skip(x)))


class TileNet(nn.Module):
    """A stride-2 stem and four residual stages (width 32-256) over 64-px crops; logits for 43 classes."""

    def __init__(self, n_classes: int = len(CLASSIFIER_CODES), width: int = 32) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        chans = [width, width * 2, width * 4, width * 8]
        layers = []
        cin = width
        for i, c in enumerate(chans):
            layers.append(Block(cin, c, 1 if i == 0 else 2))
            cin = c
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(cin, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.body(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def coarsen(batch: torch.Tensor, gen: torch.Generator, share: float = 0.3) -> torch.Tensor:
    """Lose resolution along one axis for a share of the crops (2-6x): tiles of stretched or oblique photos."""
    n, _, h, w = batch.shape
    pick = torch.rand(n, generator=gen) < share
    axis = torch.rand(n, generator=gen) < 0.5
    factor = torch.randint(2, 7, (n,), generator=gen)
    out = batch.clone()
    for ax in (False, True):
        for k in range(2, 7):
            sel = pick & (axis == ax) & (factor == k)
            if sel.any():
                size = (h, w // k) if ax else (h // k, w)
                small = F.interpolate(batch[sel], size=size, mode="area")
                out[sel] = F.interpolate(small, size=(h, w), mode="bilinear", align_corners=False)
    return out


def blur(batch: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """Defocus a share of the crops (Gaussian, sigma 0.7, 1.1 or 1.6 px): photos focused on another tile."""
    n, c, h, w = batch.shape
    pick = torch.rand(n, generator=gen) < share
    level = torch.randint(0, 3, (n,), generator=gen)
    out = batch.clone()
    r = torch.arange(-3, 4, dtype=torch.float32)
    for lv, sigma in enumerate((0.7, 1.1, 1.6)):
        sel = pick & (level == lv)
        if not sel.any():
            continue
        k = torch.exp(-(r ** 2) / (2 * sigma ** 2))
        k = (k / k.sum()).view(1, 1, 1, 7)
        x = batch[sel].reshape(-1, 1, h, w)
        x = F.conv2d(F.pad(x, (3, 3, 0, 0), mode="replicate"), k)
        x = F.conv2d(F.pad(x, (0, 0, 3, 3), mode="replicate"), k.transpose(2, 3))
        out[sel] = x.reshape(-1, c, h, w)
    return out


def glare(batch: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """A bright elliptical spot (a lamp on a glossy tile) that washes out part of the face, for a share of crops."""
    n, _, h, w = batch.shape
    pick = (torch.rand(n, generator=gen) < share).view(n, 1, 1, 1)
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
    cx, cy = (torch.rand(2, n, 1, 1, generator=gen) - 0.5) * 1.4
    ang = torch.rand(n, 1, 1, generator=gen) * np.pi
    sx = 0.15 + 0.45 * torch.rand(n, 1, 1, generator=gen)
    sy = sx * (0.3 + 0.7 * torch.rand(n, 1, 1, generator=gen))
    u = (xx - cx) * torch.cos(ang) + (yy - cy) * torch.sin(ang)
    v = -(xx - cx) * torch.sin(ang) + (yy - cy) * torch.cos(ang)
    spot = torch.exp(-((u / sx) ** 2 + (v / sy) ** 2) ** 2)  # flat-topped: a blown-out core, a soft edge
    strength = 0.7 + 0.6 * torch.rand(n, 1, 1, generator=gen)
    mask = (spot * strength).clamp(0, 1).unsqueeze(1)
    return torch.where(pick, batch + (1 - batch) * mask, batch)


def motion(batch: torch.Tensor, gen: torch.Generator, share: float, longest: int = 9) -> torch.Tensor:
    """Motion blur along a random direction (3 to ``longest`` px of a 64-px crop) for a share of the crops: a hand
    that moved."""
    n, c, h, w = batch.shape
    pick = torch.rand(n, generator=gen) < share
    out = batch.clone()
    idx = torch.nonzero(pick).flatten()
    if len(idx) == 0:
        return out
    k = longest | 1  # an odd kernel, centred
    r = torch.arange(k, dtype=torch.float32) - k // 2
    kernels = []
    for _ in idx:
        length = 3 + (longest - 3) * torch.rand(1, generator=gen).item()
        ang = torch.rand(1, generator=gen).item() * np.pi
        yy, xx = torch.meshgrid(r, r, indexing="ij")
        along = xx * np.cos(ang) + yy * np.sin(ang)
        across = -xx * np.sin(ang) + yy * np.cos(ang)
        kern = ((along.abs() <= length / 2) & (across.abs() <= 0.5)).float()
        kernels.append(kern / kern.sum())
    weight = torch.stack(kernels).repeat_interleave(c, 0).unsqueeze(1)  # one kernel per crop, per channel
    x = batch[idx].reshape(1, -1, h, w)
    x = F.conv2d(F.pad(x, (k // 2,) * 4, mode="replicate"), weight, groups=len(idx) * c)
    out[idx] = x.reshape(len(idx), c, h, w)
    return out


def low_light(batch: torch.Tensor, gen: torch.Generator, share: float, noise: float = 0.016) -> torch.Tensor:
    """Low light for a share of the crops: dark, sensor noise (sigma up to ``noise`` of full scale before the
    lift), 8-bit steps, then lifted back as the reader lifts a dim photo (the noise and the steps lifted with it)."""
    n = batch.shape[0]
    pick = (torch.rand(n, generator=gen) < share).view(n, 1, 1, 1)
    dark = 0.15 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen)
    sigma = 0.004 + (noise - 0.004) * torch.rand(n, 1, 1, 1, generator=gen)
    x = batch * dark + torch.randn(batch.shape, generator=gen) * sigma
    x = torch.round(x.clamp(0, 1) * 255) / 255 / dark
    return torch.where(pick, x.clamp(0, 1), batch)


def colour_cast(batch: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """A strong colour cast (tungsten, shade, a coloured lamp) for a share of the crops: per-channel gains 0.65-1.3."""
    n = batch.shape[0]
    pick = (torch.rand(n, generator=gen) < share).view(n, 1, 1, 1)
    gains = 0.65 + 0.65 * torch.rand(n, 3, 1, 1, generator=gen)
    return torch.where(pick, (batch * gains).clamp(0, 1), batch)


def recolour(batch: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """Other inks for a share of the crops: the colours turned about the grey axis by a random angle and partly
    desaturated. Tile sets print the same shapes in other colours (blue or black numerals, green or red bamboo),
    so the shape must carry the face; white and grey stay white and grey (a white dragon stays blank)."""
    n = batch.shape[0]
    pick = (torch.rand(n, generator=gen) < share).view(n, 1, 1, 1)
    ang = torch.rand(n, generator=gen) * 2 * np.pi
    keep = 0.3 + 0.7 * torch.rand(n, generator=gen)  # saturation kept
    grey = torch.full((3, 3), 1 / 3)
    axis = torch.tensor([1.0, 1.0, 1.0]) / np.sqrt(3)
    cross = torch.tensor([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    eye = torch.eye(3)
    # Rodrigues' rotation about the grey axis, then a pull towards grey
    rot = (torch.cos(ang)[:, None, None] * (eye - grey) + grey
           + torch.sin(ang)[:, None, None] * cross)
    mats = keep[:, None, None] * rot + (1 - keep[:, None, None]) * grey
    x = torch.einsum("nij,njhw->nihw", mats, batch)
    return torch.where(pick, x.clamp(0, 1), batch)


@dataclass
class Conditions:
    """Shares of the training crops given each photo condition of a real table (``augment``)."""

    coarse: float = 0.0
    defocus: float = 0.0
    shear: float = 0.0
    glare: float = 0.0
    motion: float = 0.0
    low_light: float = 0.0
    cast: float = 0.0
    recolour: float = 0.0
    low_light_noise: float = 0.016
    motion_longest: int = 9


def augment(batch: torch.Tensor, gen: torch.Generator, cond: Conditions | None = None) -> torch.Tensor:
    """Lighting, colour, 180-degree turns, small shifts and scale; one-axis resolution loss, defocus, glare, motion
    blur, low light and colour casts each for their share of ``cond``, and a shear up to ``cond.shear`` (tiles
    seen obliquely)."""
    cond = cond or Conditions()
    shear = cond.shear
    n = batch.shape[0]
    shaken = partial(motion, longest=cond.motion_longest)
    for share, apply in ((cond.coarse, coarsen), (cond.defocus, blur), (cond.motion, shaken), (cond.glare, glare),
                         (cond.low_light, partial(low_light, noise=cond.low_light_noise)), (cond.cast, colour_cast),
                         (cond.recolour, recolour)):
        if share:  # in this order, each drawing from the generator only when used (the shipped runs' order)
            batch = apply(batch, gen, share)
    gain = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=gen)
    b = batch * gain + (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.3
    b = b * (0.9 + 0.2 * torch.rand(n, 3, 1, 1, generator=gen))
    flip = torch.rand(n, generator=gen) < 0.5
    b[flip] = torch.flip(b[flip], dims=(2, 3))
    theta = torch.zeros(n, 2, 3)
    scale = 0.9 + 0.2 * torch.rand(n, generator=gen)
    ang = (torch.rand(n, generator=gen) - 0.5) * 0.25
    theta[:, 0, 0] = scale * torch.cos(ang)
    theta[:, 0, 1] = -scale * torch.sin(ang)
    theta[:, 1, 0] = scale * torch.sin(ang)
    theta[:, 1, 1] = scale * torch.cos(ang)
    theta[:, :, 2] = (torch.rand(n, 2, generator=gen) - 0.5) * 0.12
    if shear:
        theta[:, 0, 1] += (torch.rand(n, generator=gen) - 0.5) * 2 * shear
        theta[:, 1, 0] += (torch.rand(n, generator=gen) - 0.5) * 2 * shear
    grid = F.affine_grid(theta, list(b.shape), align_corners=False)
    b = F.grid_sample(b, grid, padding_mode="border", align_corners=False)
    return b.clamp(0, 1)


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    model.eval()
    correct = top3 = 0
    with torch.no_grad():
        for i in range(0, len(x), 512):
            logits = model(x[i:i + 512])
            correct += (logits.argmax(1) == y[i:i + 512]).sum().item()
            top3 += (logits.topk(3, 1).indices == y[i:i + 512, None]).any(1).sum().item()
    return correct / len(x), top3 / len(x)


def load_onnx_weights(model: TileNet, path: str) -> None:
    """Start from a shipped ONNX classifier. Its export folded each batch norm into the convolution before it, so
    the convolutions take the folded weights and the norms become a plain bias (unit scale, zero mean, unit
    variance); ``freeze_norms`` must keep them so while training."""
    import onnx  # only here: the train extra's, to read a shipped model back
    from onnx import numpy_helper

    graph = onnx.load(path).graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    own_convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    own_norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if len(convs) != len(own_convs):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network here has {len(own_convs)}")
    with torch.no_grad():
        for node, conv, norm in zip(convs, own_convs, own_norms):
            conv.weight.copy_(torch.from_numpy(inits[node.input[1]].copy()))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(inits[node.input[2]].copy()))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        gemm = next(n for n in graph.node if n.op_type == "Gemm")
        weight, bias = inits[gemm.input[1]], inits[gemm.input[2]]
        model.head.weight.copy_(torch.from_numpy(weight.copy()))
        model.head.bias.copy_(torch.from_numpy(bias.copy()))


def freeze_norms(model: nn.Module) -> None:
    """Keep every batch norm on its running statistics (train mode elsewhere): fine-tuning a folded model."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def per_design(model: nn.Module, x: torch.Tensor, y: torch.Tensor, designs: np.ndarray) -> dict[str, dict]:
    """Top-1 and top-3 of the crops of each tile set."""
    out = {}
    for d in sorted(set(designs.tolist())):
        pick = torch.from_numpy(designs == d)
        top1, top3 = evaluate(model, x[pick], y[pick])
        out[d] = {"tiles": int(pick.sum()), "top1": top1, "top3": top3}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="models/classifier.onnx")
    ap.add_argument("--work", default="build/classifier")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--init", default=None,
                    help="start from these weights to fine-tune: a .pt state dict, or a shipped .onnx classifier "
                         "(its batch norms are folded, so they stay frozen)")
    ap.add_argument("--stretched-copies", type=int, default=1,
                    help="train crops of photos the export squashed (tiles 3x thinner than real) this many times")
    ap.add_argument("--extra-copies", default="", metavar="CODE=N,...",
                    help="train the crops of these codes N times (e.g. P=3: the blank white dragon vs backs)")
    ap.add_argument("--not-tiles", type=int, default=0, metavar="N",
                    help="add a last class, not a tile, from N crops of tile-free parts of train photos")
    ap.add_argument("--turned-copies", type=int, default=0, metavar="N",
                    help="add N crops of every train tile turned by a random angle, cut as the finder boxes it")
    ap.add_argument("--textures", type=int, default=0, metavar="N",
                    help="with --not-tiles: N more not-a-tile crops of made-up surfaces (weave, stripes, speckle)")
    ap.add_argument("--synth-faces", type=int, default=0, metavar="N",
                    help="add N synthetic faces (CJK fonts, drawn suits, Debian's mahjongg tile sets; faces.py)")
    ap.add_argument("--leave-out", default="", metavar="DESIGN",
                    help="train without the photos of this tile set (data.DESIGNS) and report it apart")
    ap.add_argument("--defocus", type=float, default=0.0, help="share of training crops blurred (augmentation)")
    ap.add_argument("--shear", type=float, default=0.0, help="largest shear of training crops (augmentation)")
    ap.add_argument("--coarse", type=float, default=0.0,
                    help="share of training crops that lose resolution along one axis (augmentation)")
    ap.add_argument("--glare", type=float, default=0.0, help="share of training crops with a glare spot")
    ap.add_argument("--motion", type=float, default=0.0, help="share of training crops with motion blur")
    ap.add_argument("--motion-longest", type=int, default=9,
                    help="longest motion blur, px of a 64-px crop (a tile is about 60 px tall in its crop)")
    ap.add_argument("--low-light", type=float, default=0.0, help="share of training crops in low light with noise")
    ap.add_argument("--low-light-noise", type=float, default=0.016,
                    help="largest sensor noise of low-light crops (sigma, of full scale, before the lift)")
    ap.add_argument("--cast", type=float, default=0.0, help="share of training crops with a strong colour cast")
    ap.add_argument("--recolour", type=float, default=0.0,
                    help="share of training crops whose inks are turned to other colours (augmentation)")
    ap.add_argument("--report-only", default="", metavar="DESIGN,...",
                    help="tile sets of valid only reported, never used to keep an epoch (leave-one-design-out)")
    ap.add_argument("--keep", choices=["best", "last"], default="best",
                    help="export the epoch kept by the valid figure (best) or the last one")
    args = ap.parse_args()
    cond = Conditions(args.coarse, args.defocus, args.shear, args.glare, args.motion, args.low_light, args.cast,
                      args.recolour, args.low_light_noise, args.motion_longest)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    xt, yt, _ = collect("train", stretched_copies=args.stretched_copies, leave_out=args.leave_out)
    for item in filter(None, args.extra_copies.split(",")):
        code, n = item.split("=")
        pick = yt == CLASS_INDEX[code]
        xt = np.concatenate([xt] + [xt[pick]] * (int(n) - 1))
        yt = np.concatenate([yt] + [yt[pick]] * (int(n) - 1))
    if args.turned_copies:
        xr, yr = collect_turned("train", args.turned_copies, args.seed, args.leave_out)
        xt, yt = np.concatenate([xt, xr]), np.concatenate([yt, yr])
    if args.synth_faces:
        from training.faces import synth_faces

        xf, yf = synth_faces(args.synth_faces, args.seed)
        xt, yt = np.concatenate([xt, xf]), np.concatenate([yt, yf])
    xc, yc = collect_camerash()
    xb, yb = backs(1500, args.seed)
    xv, yv, dv = collect("valid")
    xvb, yvb = backs(200, args.seed + 1)
    xn, yn = (not_tiles("train", args.not_tiles, args.seed, args.leave_out) if args.not_tiles
              else (xb[:0], yb[:0]))
    if args.not_tiles and args.textures:
        xs_, ys_ = textures(args.textures, args.seed)
        xn, yn = np.concatenate([xn, xs_]), np.concatenate([yn, ys_])
    x_train = torch.from_numpy(crops_to_batch(list(np.concatenate([xt, xc, xc, xb, xn]))))
    y_train = torch.from_numpy(np.concatenate([yt, yc, yc, yb, yn]))
    # epochs are kept by the valid crops of the sets trained on: the one left out is only reported
    kept = ~np.isin(dv, [args.leave_out, *filter(None, args.report_only.split(","))])
    x_val = torch.from_numpy(crops_to_batch(list(np.concatenate([xv[kept], xvb]))))
    y_val = torch.from_numpy(np.concatenate([yv[kept], yvb]))
    x_dv, y_dv = torch.from_numpy(crops_to_batch(list(xv))), torch.from_numpy(yv)
    if args.not_tiles:
        xvn, yvn = not_tiles("valid", 500, args.seed + 1, args.leave_out)
        x_vn, y_vn = torch.from_numpy(crops_to_batch(list(xvn))), torch.from_numpy(yvn)
    print(f"data: {len(x_train)} train crops, {len(x_val)} valid crops ({time.time() - t0:.0f}s)", flush=True)
    model = TileNet(len(CLASSIFIER_CODES) + (1 if args.not_tiles else 0))
    folded = bool(args.init and args.init.endswith(".onnx"))
    if folded:
        load_onnx_weights(model, args.init)
    elif args.init:
        state = torch.load(args.init)
        own = model.state_dict()
        new_head = state["head.weight"].shape != own["head.weight"].shape
        if new_head:  # a 43-class model gains the last class
            for k in ("head.weight", "head.bias"):
                own[k][:len(state[k])] = state[k]
                state[k] = own[k]
        model.load_state_dict(state)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    steps = args.epochs * ((len(x_train) + args.batch - 1) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    gen = torch.Generator().manual_seed(args.seed)
    # the bar to beat: the starting weights' top-1, unless epochs are kept by the mean with not-tiles right
    best = evaluate(model, x_val, y_val)[0] if args.init and not args.not_tiles else 0.0
    log = []
    for epoch in range(args.epochs):
        model.train()
        if folded:
            freeze_norms(model)
        perm = torch.randperm(len(x_train), generator=gen)
        tl = 0.0
        for i in range(0, len(perm), args.batch):
            idx = perm[i:i + args.batch]
            xb_ = augment(x_train[idx], gen, cond)
            loss = F.cross_entropy(model(xb_), y_train[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tl += loss.item() * len(idx)
            if i // args.batch % 50 == 0:
                print(f"epoch {epoch + 1} step {i // args.batch} loss {loss.item():.3f} {time.time() - t0:.0f}s",
                      flush=True)
        acc, top3 = evaluate(model, x_val, y_val)
        log.append({"epoch": epoch + 1, "loss": tl / len(perm), "valid_top1": acc, "valid_top3": top3,
                    "elapsed_s": round(time.time() - t0), "designs": per_design(model, x_dv, y_dv, dv)})
        if args.not_tiles:  # kept by the mean of both: naming tiles and rejecting what is not one
            log[-1]["valid_not_tiles_right"] = evaluate(model, x_vn, y_vn)[0]
            acc = (acc + log[-1]["valid_not_tiles_right"]) / 2
        print(json.dumps(log[-1]), flush=True)
        torch.save(model.state_dict(), work / "last.pt")
        if acc >= best:
            best = acc
            log[-1]["kept"] = True
            torch.save(model.state_dict(), work / "best.pt")
        (work / "log.json").write_text(json.dumps(log, indent=1))
    model.load_state_dict(torch.load(work / f"{args.keep}.pt"))
    model.eval()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, CROP_SIZE, CROP_SIZE)
    torch.onnx.export(model, dummy, args.out, input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    what = "mean of top-1 and not-tiles right" if args.not_tiles else "top-1"
    print(f"best valid {what} {best:.4f}; wrote the {args.keep} epoch to {args.out}", flush=True)


if __name__ == "__main__":
    main()
