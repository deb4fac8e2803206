"""Loading a photo safely: every format is sized from its header before decoding, EXIF orientation, clear errors.

A decompression bomb (a 1-MB TIFF that claims 30000x30000 pixels, a 10-KB WebP of 16383x16383) is refused from
its header in well under a second and without allocating the image. Formats accepted: JPEG (with anything a
phone appends after it, e.g. a motion photo's video), PNG, HEIC/HEIF (iPhone), WebP, GIF, TIFF and BMP. A damaged
JPEG is read as far as it goes, with a warning; other damaged files are refused with the reason.
"""

from __future__ import annotations

import io
import os
import struct
import sys
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np

from .said import Said

MAX_PIXELS = 50_000_000
MAX_BYTES = 40 * 1024 * 1024  # a phone's largest photo, with a motion photo's video appended, is well below
# JPEGs this long or longer are decoded at half scale for reading (the decoder's DCT scaling, ~4x faster):
# a 12-MP photo still gives 2016 x 1512, where each tile of a hand is wider than the classifier's 64-px input
REDUCE_OVER = 3000
FORMATS = "JPEG, PNG, HEIC, WebP, GIF, TIFF or BMP"
DAMAGED = Said("the photo is damaged (part of the file is corrupt or missing): check the tiles, or retake it",
               "照片已損壞（檔案有部分損毀或缺失）：請檢查牌，或重拍")


class PhotoError(ValueError):
    """A file that cannot be read as a photo: the message says why, in one line (``said``: in both languages)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.said = message


# ---------------------------------------------------------------- formats and their headers

def sniff(data: bytes) -> str | None:
    """The image format from the first bytes, or None when it is none the reader accepts."""
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if data[:4] in (b"II*\0", b"MM\0*"):
        return "TIFF"
    if data[:2] == b"BM":
        return "BMP"
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1",
                                               b"msf1", b"avif"):
        return "HEIC" if data[8:12] != b"avif" else "AVIF"
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
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


def _webp_size(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if kind == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if kind == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        return (struct.unpack("<H", data[26:28])[0] & 0x3FFF, struct.unpack("<H", data[28:30])[0] & 0x3FFF)
    return None


def _gif_size(data: bytes) -> tuple[int, int] | None:
    """The larger of the logical screen and the first frame (a frame may claim more than the screen)."""
    if len(data) < 13:
        return None
    w, h = struct.unpack("<HH", data[6:10])
    i = 13 + (3 * 2 ** ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
    while i < len(data):
        if data[i] == 0x21:  # extension: label, then sub-blocks
            i += 2
            while i < len(data) and data[i]:
                i += data[i] + 1
            i += 1
        elif data[i] == 0x2C and i + 9 < len(data):
            fw, fh = struct.unpack("<HH", data[i + 5:i + 9])
            return max(w, fw), max(h, fh)
        else:
            break
    return w, h


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """ImageWidth and ImageLength of the first directory (the page a decoder reads)."""
    end = "<" if data[:2] == b"II" else ">"
    if len(data) < 8:
        return None
    (ifd,) = struct.unpack(end + "I", data[4:8])
    if ifd + 2 > len(data):
        return None
    (n,) = struct.unpack(end + "H", data[ifd:ifd + 2])
    size: dict[int, int] = {}
    for k in range(min(n, 512)):
        at = ifd + 2 + 12 * k
        if at + 12 > len(data):
            break
        tag, typ, _count = struct.unpack(end + "HHI", data[at:at + 8])
        if tag in (256, 257):
            size[tag] = struct.unpack(end + "H", data[at + 8:at + 10])[0] if typ == 3 else \
                struct.unpack(end + "I", data[at + 8:at + 12])[0]
    return (size[256], size[257]) if len(size) == 2 else None


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    if len(data) < 26:
        return None
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)


def _png_size(data: bytes) -> tuple[int, int] | None:
    return struct.unpack(">II", data[16:24]) if len(data) >= 24 else None


def _heic_size(data: bytes) -> tuple[int, int] | None:
    """The image spatial extent ('ispe' property) of a HEIF file; the largest one listed."""
    best = None
    i = data.find(b"ispe")
    while i != -1 and i + 16 <= len(data):
        w, h = struct.unpack(">II", data[i + 8:i + 16])
        if best is None or w * h > best[0] * best[1]:
            best = (w, h)
        i = data.find(b"ispe", i + 4)
    return best


SIZERS = {"JPEG": _jpeg_size, "PNG": _png_size, "WebP": _webp_size, "GIF": _gif_size, "TIFF": _tiff_size,
          "BMP": _bmp_size, "HEIC": _heic_size}


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header of any accepted format without decoding the image; None when the format
    is not accepted or its header cannot be read."""
    fmt = sniff(data)
    sizer = SIZERS.get(fmt or "")
    try:
        return sizer(data) if sizer else None
    except struct.error:
        return None


def check_header(data: bytes, name: str) -> tuple[str, tuple[int, int]]:
    """Format and size of an image before it is decoded; PhotoError for the empty, the oversized, the unknown,
    the unreadable header and the too many pixels."""
    if not data:
        raise PhotoError(Said(f"{name}: the file is empty", f"{name}：檔案是空的"))
    if len(data) > MAX_BYTES:
        mb, limit = f"{len(data) / 2**20:.0f}", MAX_BYTES // 2**20
        raise PhotoError(Said(f"{name}: {mb} MB is over the {limit} MB limit for a photo",
                              f"{name}：{mb} MB，超過照片上限 {limit} MB"))
    fmt = sniff(data)
    if fmt is None:
        raise PhotoError(Said(f"{name}: not an image file (expected a {FORMATS} photo)",
                              f"{name}：不是圖片檔（需要 {FORMATS} 照片）"))
    if fmt == "AVIF":
        raise PhotoError(Said(f"{name}: an AVIF image; share the photo as JPEG, or choose another format ({FORMATS})",
                              f"{name}：AVIF 圖片；請以 JPEG 分享照片，或選其他格式（{FORMATS}）"))
    size = header_size(data)
    if size is None:
        raise PhotoError(Said(f"{name}: a {fmt} file whose header is damaged (its size cannot be read)",
                              f"{name}：{fmt} 檔的檔頭已損壞（讀不出尺寸）"))
    w, h = size
    if w * h > MAX_PIXELS:
        mp, limit = f"{w * h / 1e6:.0f}", MAX_PIXELS // 1_000_000
        raise PhotoError(Said(f"{name}: {w}x{h} is {mp} megapixels, over the {limit} MP limit; resize the photo first",
                              f"{name}：{w}x{h} 有 {mp} 百萬像素，超過上限 {limit} 百萬像素；請先縮小照片"))
    if w == 0 or h == 0:
        raise PhotoError(Said(f"{name}: a {fmt} file of {w}x{h} pixels holds no picture",
                              f"{name}：{w}x{h} 像素的 {fmt} 檔沒有畫面"))
    return fmt, size


# ---------------------------------------------------------------- decoding

_STDERR_LOCK = threading.Lock()


def _decode_listening(data: bytes, flag: int) -> tuple[np.ndarray | None, str]:
    """cv2.imdecode, with what the JPEG library wrote to the process's stderr (its "Corrupt JPEG data"
    warnings are the only sign of damage in the middle of a file)."""
    buf = np.frombuffer(data, np.uint8)
    with _STDERR_LOCK, tempfile.TemporaryFile() as tf:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tf.fileno(), 2)
        try:
            img = cv2.imdecode(buf, flag)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tf.seek(0)
        said = tf.read(4096).decode("utf-8", "replace")
    return img, said


def jpeg_end(data: bytes) -> int | None:
    """The offset just past the JPEG's end-of-image marker (anything after it is not the photo), or None when
    the file is cut short. The entropy-coded data cannot hold FF D9, so the first one after the scan is the end."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker == 0xD9:
            return i + 2
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker == 0xDA:  # start of scan: the end marker follows the entropy-coded data
            end = data.find(b"\xff\xd9", i + 2 + length)
            return None if end == -1 else end + 2
        i += 2 + length
    return None


def _decode_jpeg(data: bytes, half: bool, warnings: list[str]) -> np.ndarray | None:
    end = jpeg_end(data)
    body = data[:end] if end is not None else data + b"\xff\xd9"  # cut short: decode what is there
    flag = cv2.IMREAD_REDUCED_COLOR_2 if half else cv2.IMREAD_COLOR
    img, said = _decode_listening(body, flag)
    if img is not None and (end is None or "Corrupt JPEG" in said or "Premature end" in said):
        warnings.append(DAMAGED)
    return img


def _decode_heic(data: bytes, name: str) -> np.ndarray:
    try:
        import pillow_heif  # bundles libheif; optional so that a machine without the wheel still runs
    except ImportError:
        raise PhotoError(Said(f"{name}: a HEIC photo, and this installation cannot read HEIC: set the camera to "
                              "'Most compatible' or share the photo as JPEG",
                              f"{name}：HEIC 照片，這裡無法讀取 HEIC：請把相機設為「最相容」，"
                              "或以 JPEG 分享照片")) from None
    try:
        heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True)
        w, h = heif.size
        if w * h > MAX_PIXELS:
            raise PhotoError(Said(f"{name}: {w}x{h} is over the {MAX_PIXELS // 1_000_000} MP limit",
                                  f"{name}：{w}x{h} 超過上限 {MAX_PIXELS // 1_000_000} 百萬像素"))
        rgb = np.asarray(heif.to_pillow().convert("RGB"))
    except PhotoError:
        raise
    except Exception as e:  # libheif's errors are many and specific; the user needs only that it failed
        raise PhotoError(Said(f"{name}: a HEIC photo that cannot be decoded ({str(e)[:80]})",
                              f"{name}：無法解碼的 HEIC 照片")) from None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def decode_image(data: bytes, name: str = "photo", half: bool = False) -> tuple[np.ndarray, list[str]]:
    """Decode image bytes to a BGR array, upright per EXIF (a JPEG at half scale with ``half``), with warnings
    about the photo (damaged); PhotoError with a specific reason when it cannot be read."""
    fmt, _ = check_header(data, name)
    warnings: list[str] = []
    if fmt == "HEIC":
        img: np.ndarray | None = _decode_heic(data, name)
    elif fmt == "JPEG":
        img = _decode_jpeg(data, half, warnings)
    else:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise PhotoError(Said(f"{name}: a {fmt} file that cannot be decoded (damaged or cut short)",
                              f"{name}：無法解碼的 {fmt} 檔（已損壞或不完整）"))
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise PhotoError(Said(f"{name}: over the {MAX_PIXELS // 1_000_000} MP limit",
                              f"{name}：超過上限 {MAX_PIXELS // 1_000_000} 百萬像素"))
    if min(img.shape[:2]) < 32:
        raise PhotoError(Said(f"{name}: {img.shape[1]}x{img.shape[0]} pixels is too small to hold readable tiles",
                              f"{name}：{img.shape[1]}x{img.shape[0]} 像素太小，看不清牌"))
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return img, warnings


def decode_photo(data: bytes, name: str = "photo", half: bool = False) -> np.ndarray:
    """Decode image bytes to a BGR array (see decode_image); the warnings are dropped."""
    return decode_image(data, name, half)[0]


def decode_for_reading(data: bytes, name: str = "photo") -> tuple[np.ndarray, float, list[str]]:
    """Decode for the tile reader: a JPEG of REDUCE_OVER pixels or more at half scale. Returns the image, the
    factor from its pixels to the photo's (1.0 or about 2.0) and warnings about the photo."""
    fmt, size = check_header(data, name)
    half = fmt == "JPEG" and max(size) >= REDUCE_OVER
    img, warnings = decode_image(data, name, half)
    return img, (max(size) / max(img.shape[:2]) if half else 1.0), warnings


def read_bytes(path: str | Path) -> bytes:
    """A photo file's bytes (at most MAX_BYTES are read), or a PhotoError saying why it cannot be read."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise PhotoError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise PhotoError(f"{p}: is a folder, not a photo") from None
    except OSError as e:
        raise PhotoError(f"{p}: cannot read ({e.strerror})") from None
    if len(data) > MAX_BYTES:
        raise PhotoError(f"{p}: over the {MAX_BYTES // 2**20} MB limit for a photo")
    return data


def load_photo(path: str | Path) -> np.ndarray:
    """Read and decode a photo file at full resolution (see decode_photo)."""
    return decode_photo(read_bytes(path), str(path))


def load_for_reading(path: str | Path) -> tuple[np.ndarray, float, list[str]]:
    """Read and decode a photo file for the tile reader (see decode_for_reading)."""
    return decode_for_reading(read_bytes(path), str(path))
