"""Blur: a photo out of focus or taken with a shaking hand. The finder, trained on sharp photos, scores blurred
tiles low and drops many of them (real `valid` photos blurred by a Gaussian of sigma 2: 37 % of the tiles found
by its first pass). An unsharp mask gives the tiles' edges back (96 %), but it also makes noise and texture look
like edges on a sharp or a dim photo (dim photos sharpened on the finder's doubt alone lost 0.8 point of recall).
So the reader tries it only on a photo that measures blurred (``blurred``) and that the finder is unsure of, and
keeps it only when its reading is clearly surer (``finding.Search.find``). The classifier, trained with
defocus and motion blur, reads the photo as it is."""

from __future__ import annotations

import cv2
import numpy as np

SIGMA = 2.0  # px of the finder's working copy (at most 1,248 px long): about a tile's stroke width
AMOUNT = 2.0  # how much of the detail lost to a blur of SIGMA is added back
# the sharpest edges' loss to a further blur of sigma 1 (``edge_ratio``) on the finder's working copy of real
# `valid` photos: as shot 1.46-1.77, dim with noise 1.47-1.82, at 0.3 MP 1.44-1.73, JPEG quality 25 1.44-1.79;
# blurred by sigma 2 1.07-1.13, shaken (11 px) 1.09-1.30
BLURRED = 1.38


def sharpened(img: np.ndarray, sigma: float = SIGMA, amount: float = AMOUNT) -> np.ndarray:
    """``img`` with an unsharp mask: ``img + amount * (img - blur(img, sigma))``, clipped to 8 bits."""
    return cv2.addWeighted(img, 1.0 + amount, cv2.GaussianBlur(img, (0, 0), sigma), -amount, 0)


def edge_ratio(img: np.ndarray) -> float:
    """How much a blur of sigma 1 px takes off the photo's sharpest edges: the 99th percentile of the gradient's
    size (Sobel, |x| + |y|) over the same of the blurred photo. A sharp edge loses much of its steepness (ratio
    1.45 or more on real photos); an edge already blurred loses little more (near 1). Noise counts as sharp, so a
    dim photo is not taken for blurred; a blank picture measures infinitely sharp. (Integer arithmetic on every
    other pixel: about 15 ms a 1,248-px copy; the first derivative, since a heavy blur leaves second derivatives
    under one grey level.)"""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    grey = np.ascontiguousarray(grey, np.uint8)

    def edges(g: np.ndarray) -> float:
        size = np.abs(cv2.Sobel(g, cv2.CV_16S, 1, 0)[::2, ::2]) + np.abs(cv2.Sobel(g, cv2.CV_16S, 0, 1)[::2, ::2])
        counts = np.cumsum(np.bincount(size.ravel()))
        return float(np.searchsorted(counts, 0.99 * counts[-1]))

    sharp = edges(grey)
    if sharp < 1:  # a blank picture: nothing to measure, nothing to sharpen
        return float("inf")
    return sharp / max(edges(cv2.GaussianBlur(grey, (0, 0), 1.0)), 0.5)


def blurred(img: np.ndarray) -> bool:
    """Whether a photo (the finder's working copy) is out of focus or shaken enough to be read sharpened."""
    return edge_ratio(img) < BLURRED
