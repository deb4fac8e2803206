"""Loading a photo safely: size check from the header before decoding, EXIF orientation, clear errors."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

MAX_PIXELS = 50_000_000
# JPEGs this long or longer are decoded at half scale for reading (the decoder's DCT scaling, ~4x faster):
# a 12-MP photo still gives 2016 x 1512, where each tile of a hand is wider than the classifier's 64-px input
REDUCE_OVER = 3000


class PhotoError(ValueError):
    """A file that cannot be read as a photo: the message says why, in one line."""


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG or PNG header without decoding the image; None for other formats."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return w, h
            i += 2 + length
        return None
    return None


def decode_photo(data: bytes, name: str = "photo", half: bool = False) -> np.ndarray:
    """Decode image bytes to a BGR array, upright per EXIF (at half scale with ``half``); raise PhotoError with a
    specific reason."""
    if not data:
        raise PhotoError(f"{name}: the file is empty")
    size = header_size(data)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise PhotoError(f"{name}: {size[0]}x{size[1]} is {size[0] * size[1] / 1e6:.0f} megapixels, over the "
                         f"{MAX_PIXELS // 1_000_000} MP limit; resize the photo first")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
        raise PhotoError(f"{name}: the JPEG is truncated or corrupt (no end-of-image marker)")
    flag = cv2.IMREAD_REDUCED_COLOR_2 if half else cv2.IMREAD_COLOR
    img = cv2.imdecode(np.frombuffer(data, np.uint8), flag)  # applies EXIF orientation
    if img is None:
        kind = "a JPEG" if data[:2] == b"\xff\xd8" else "a PNG" if data[:4] == b"\x89PNG" else "an image"
        if kind == "an image":
            raise PhotoError(f"{name}: not an image file (expected a JPEG or PNG photo)")
        raise PhotoError(f"{name}: {kind} that cannot be decoded (corrupt file)")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise PhotoError(f"{name}: over the {MAX_PIXELS // 1_000_000} MP limit")
    if min(img.shape[:2]) < 32:
        raise PhotoError(f"{name}: {img.shape[1]}x{img.shape[0]} pixels is too small to hold readable tiles")
    return img


def decode_for_reading(data: bytes, name: str = "photo") -> tuple[np.ndarray, float]:
    """Decode for the tile reader: a JPEG of REDUCE_OVER pixels or more at half scale. Returns the image and the
    factor from its pixels to the photo's (1.0 or about 2.0)."""
    size = header_size(data) if data[:2] == b"\xff\xd8" else None
    half = size is not None and max(size) >= REDUCE_OVER
    img = decode_photo(data, name, half)
    return img, (max(size) / max(img.shape[:2]) if half and size else 1.0)


def read_bytes(path: str | Path) -> bytes:
    """A photo file's bytes, or a PhotoError saying why it cannot be read."""
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise PhotoError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise PhotoError(f"{p}: is a folder, not a photo") from None
    except OSError as e:
        raise PhotoError(f"{p}: cannot read ({e.strerror})") from None


def load_photo(path: str | Path) -> np.ndarray:
    """Read and decode a photo file at full resolution (see decode_photo)."""
    return decode_photo(read_bytes(path), str(path))


def load_for_reading(path: str | Path) -> tuple[np.ndarray, float]:
    """Read and decode a photo file for the tile reader (see decode_for_reading)."""
    return decode_for_reading(read_bytes(path), str(path))
