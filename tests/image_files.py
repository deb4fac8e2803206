"""Small image files made in the test, in every accepted format, and decompression bombs: headers that claim
huge sizes (what an attacker on the table's network could upload)."""

from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np


def peak_rss_mb() -> float:
    """This process's own peak resident memory in MB: VmHWM (``ru_maxrss`` keeps the parent's peak across
    fork + exec on Linux), or ``resource.getrusage`` where /proc is absent."""
    try:
        with open("/proc/self/status") as fh:
            line = next(x for x in fh if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024
    except (OSError, StopIteration):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def picture(w: int = 160, h: int = 120, seed: int = 0) -> np.ndarray:
    """A smooth random BGR picture (compresses like a photo)."""
    rng = np.random.default_rng(seed)
    return cv2.GaussianBlur((rng.random((h, w, 3)) * 255).astype(np.uint8), (5, 5), 2)


def encoded(fmt: str, img: np.ndarray | None = None) -> bytes:
    """The picture as a file of the format (JPEG, PNG, WebP, TIFF, BMP, GIF, HEIC)."""
    img = picture() if img is None else img
    if fmt == "GIF":
        from PIL import Image

        buf = io.BytesIO()
        Image.fromarray(img[:, :, ::-1]).save(buf, "GIF")
        return buf.getvalue()
    if fmt == "HEIC":
        import pillow_heif

        heif = pillow_heif.from_bytes(mode="RGB", size=(img.shape[1], img.shape[0]), data=img[:, :, ::-1].tobytes())
        buf = io.BytesIO()
        heif.save(buf, quality=90)
        return buf.getvalue()
    ext = {"JPEG": ".jpg", "PNG": ".png", "WebP": ".webp", "TIFF": ".tiff", "BMP": ".bmp"}[fmt]
    ok, buf = cv2.imencode(ext, img)
    assert ok
    return buf.tobytes()


def png_bomb(w: int = 30000, h: int = 30000) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    idat = zlib.compress(b"\0" * 1_000_000, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk + struct.pack(">I", len(idat)) + b"IDAT" + idat
            + struct.pack(">I", zlib.crc32(b"IDAT" + idat)) + b"\0\0\0\0IEND\xaeB`\x82")


def tiff_bomb(w: int = 30000, h: int = 30000) -> bytes:
    """A baseline RGB TIFF whose single deflate strip claims w x h pixels."""
    strip = zlib.compress(b"\0" * 2_000_000, 9)
    entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 8), (259, 3, 1, 8), (262, 3, 1, 2),
               (273, 4, 1, 0), (277, 3, 1, 3), (278, 4, 1, h), (279, 4, 1, len(strip))]
    ifd_size = 2 + 12 * len(entries) + 4
    data_at = 8 + ifd_size
    out = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        value = data_at if tag == 273 else value
        out += struct.pack("<HHI", tag, typ, count) + (struct.pack("<HH", value, 0) if typ == 3 else
                                                       struct.pack("<I", value))
    return out + b"\0\0\0\0" + strip


def webp_bomb(w: int = 16383, h: int = 16383) -> bytes:
    """A lossless WebP header claiming w x h (the body is a few bytes)."""
    bits = (w - 1) | ((h - 1) << 14) | (1 << 28)
    vp8l = b"\x2f" + bits.to_bytes(4, "little") + b"\0" * 16
    chunk = b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def gif_bomb(w: int = 30000, h: int = 30000) -> bytes:
    """A GIF whose first frame claims w x h."""
    return (b"GIF89a" + struct.pack("<HH", 100, 100) + b"\x00\x00\x00" + b"\x2c" + struct.pack("<HHHH", 0, 0, w, h)
            + b"\x00\x08\x02\x4c\x01\x00\x3b")


def bmp_bomb(w: int = 30000, h: int = 30000) -> bytes:
    return b"BM" + struct.pack("<IHHI", 54, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, 0, 0, 0, 0, 0)


BOMBS = {"png": png_bomb, "tiff": tiff_bomb, "webp": webp_bomb, "gif": gif_bomb, "bmp": bmp_bomb}
