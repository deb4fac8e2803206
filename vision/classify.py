"""The crop classifier: each box cut from the full-resolution photo (along its row where rows run at a slant),
read with test-time turns where unsure, de-glared where a highlight washed it out, and calibrated."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort

from .backs import backs_where_coloured, sure_backs
from .calibration import Calibration
from .classes import BACK, CLASS_INDEX, CLASSIFIER_CODES
from .crops import (
    centre_ink,
    crops_to_batch,
    face_ivory,
    middle_colour,
    orientation,
    oriented_crop,
    quarter_turnable,
    tile_crop,
    washed_share,
)
from .detections import Detections, lone_doubts
from .geometry import levelled, row_angle
from .glare import take_off, veil_map, veil_of_boxes
from .orientation import finder_backs, run_aspect

BLANK = CLASS_INDEX["P"]  # the blank white dragon: a plain face
WASHED_FROM, WASHED_ALL = 0.1, 0.5  # blown-out share of a crop where its face starts to be, and is, unreadable
VEILED = 0.3  # the mean veil strength over a tile from which its de-glared crop is read too
WASHED_MIX = 0.9  # the most a washed face's reading is spread
GLARE_T = 3.0  # temperature of the reading of a de-glared crop: a hint among faces, never a confident answer
INKED_FROM, INKED_ALL = 0.2, 0.4  # core ink share where a face starts to be, and surely is, not blank
INKED_MIX = 0.95  # the most of a blank reading an inked face loses
BLANK_NOT_TILE = 0.7  # the most "not a tile" at which a plain face of the faces' own ivory stays, a blank dragon
BLANK_LIGHT, BLANK_CHROMA = 15.0, 6.0  # how near (Lab lightness; a, b) a blank face's middle is to the faces' ivory
SURE_TILE = 0.3  # "not a tile" under which a crop counts among the faces that measure the photo's ivory


@dataclass(frozen=True)
class ClassifyConfig:
    """``batch``: crops per classifier run; ``tta_below``: a crop whose top probability is under it is read turned
    by 180 degrees too; ``quarter_below``/``quarter_turn_margin``: one under that, whose upright end is in doubt,
    is read a quarter turned both ways, kept when surer by the margin (None: never); ``photo_turn``: boxes
    landscape as a rule may mean a photo turned by a quarter; ``not_tile_above``: with a "not a tile" class, boxes
    it gives more are dropped; ``oriented``: tiles of slanted rows are cut along their row; ``deglare``: tiles
    under glare are read de-glared too; ``inked_not_blank``: a face inked across its centre is not read as the blank
    white dragon (``not_blank_where_inked``); ``lone_below``: a box the finder scored under it with no box beside it
    is dropped (``detections.lone_doubts``; 0: never); ``balance``: a photo under a coloured light is read
    white-balanced to a lit face's ivory (``balance.balanced``; the reader does it); ``backs_by_colour``: a crop
    with no ivory on it is read as a back (``backs.backs_where_coloured``)."""

    batch: int = 64
    tta_below: float = 0.9
    quarter_turn_margin: float | None = 0.25
    quarter_below: float = 0.9
    photo_turn: bool = True
    not_tile_above: float = 0.5
    lone_below: float = 0.35
    oriented: bool = True
    deglare: bool = True
    inked_not_blank: bool = True
    balance: bool = True
    backs_by_colour: bool = True


def unsure_where_washed(probs: np.ndarray, washed: np.ndarray, hint: np.ndarray | None = None) -> np.ndarray:
    """A face washed out by glare is not read as the blank white dragon it looks like: where a crop is blown out
    and read as blank (or unsure), its probabilities are mixed with a spread over the faces in proportion to how
    much is blown out (up to 90 %), so the rule-aware correction leans on the hand and the page flags the tile
    instead of a confident guess. The spread is even, or half even and half ``hint`` (per row: the flattened
    reading of the crop with the glare veil taken off, ``glare.take_off``), so that among the faces the hand
    allows, the one the washed face still shows traces of comes first."""
    mix = np.clip((washed - WASHED_FROM) / (WASHED_ALL - WASHED_FROM), 0.0, 1.0) * WASHED_MIX
    if not len(probs) or not mix.any():
        return probs
    # a face still read clearly is a bright photo, not a lost face: only a blank reading or an unsure one spreads
    mix *= (probs.argmax(1) == CLASS_INDEX["P"]) | (probs.max(1) < 0.6)
    even = np.ones(probs.shape[1], np.float32)
    even[BACK] = 0.0
    even /= even.sum()
    spread = np.broadcast_to(even, probs.shape)
    if hint is not None:
        h = hint.copy()
        h[:, BACK] = 0.0
        spread = 0.5 * spread + 0.5 * h / np.maximum(h.sum(1, keepdims=True), 1e-9)
    return ((1 - mix[:, None]) * probs + mix[:, None] * spread).astype(np.float32)


def not_blank_where_inked(probs: np.ndarray, crops: list[np.ndarray]) -> np.ndarray:
    """A face with ink across its centre is not the blank white dragon: where a crop read as blank (its top
    reading) has much of its core far from its ivory (``crops.centre_ink``), the blank reading loses up to 95 %
    of its probability to the other readings in proportion (held out, a wide brushed West wind smeared by motion
    blur or in dim light read as blank, the West second; the white dragon's frame lies outside the core; on the
    shared `valid` photos 2 % of the crops read blank have a core over 0.32 inked)."""
    blank = np.flatnonzero(probs.argmax(1) == BLANK) if len(probs) else np.zeros(0, int)
    if not len(blank):
        return probs
    ink = np.array([centre_ink(crops[i]) for i in blank])
    mix = np.clip((ink - INKED_FROM) / (INKED_ALL - INKED_FROM), 0.0, 1.0) * INKED_MIX
    out = probs.copy()
    for i, m in zip(blank, mix):
        if m <= 0:
            continue
        share = out[i].copy()
        share[BLANK] = 0.0
        share = share / share.sum() if share.sum() > 1e-6 else np.full_like(share, 1.0 / (len(share) - 1))
        share[BLANK] = 0.0
        lost = out[i, BLANK] * m
        out[i, BLANK] -= lost
        out[i] += lost * share
    return out.astype(np.float32)


def with_finder_backs(probs: np.ndarray, back_score: np.ndarray) -> np.ndarray:
    """The classifier's probabilities with the finder's "face down" score let in: where the finder saw a tile's
    back, that outvotes a face the classifier guessed on a plain back, except a blank white dragon the classifier
    is sure of (to the finder a plain ivory face and a plain back look alike; the classifier sees the back's
    colour: on composed hands, 2 of the 10 hands glare broke at seed 1 were blank dragons read as backs)."""
    p_back = np.maximum(probs[:, BACK], back_score * (1 - probs[:, BLANK]))
    rest = probs.copy()
    rest[:, BACK] = 0
    rest *= ((1 - p_back) / np.maximum(rest.sum(1), 1e-6))[:, None]
    rest[:, BACK] = p_back
    return rest.astype(np.float32)


def blank_faces(probs: np.ndarray, crops: list[np.ndarray], not_tile: np.ndarray, vetoed_above: float
                ) -> np.ndarray:
    """Which boxes the "not a tile" class vetoes (over ``vetoed_above``, up to ``BLANK_NOT_TILE``) are blank white
    dragons: read blank, and their middle has the lightness and colour of the ivory of the photo's other faces.
    The class learnt plain patches of table and tray, and a blank face is plain too (two `valid` photos lost one
    so; the table's patches it doubts are darker or of another colour). None where fewer than 3 faces measure the
    ivory; the ivory is measured only where a vetoed box is read blank."""
    out = np.zeros(len(crops), bool)
    top = probs.argmax(1) if len(probs) else np.zeros(0, int)
    maybe = np.flatnonzero((top == BLANK) & (not_tile > vetoed_above) & (not_tile <= BLANK_NOT_TILE))
    faces = np.flatnonzero((not_tile < SURE_TILE) & (top != BLANK) & (top != BACK))
    if not len(maybe) or len(faces) < 3:
        return out
    ivory = np.median([face_ivory(crops[i]) for i in faces], axis=0)
    for i in maybe:
        d = middle_colour(crops[i]) - ivory
        out[i] = abs(float(d[0])) <= BLANK_LIGHT and float(np.hypot(d[1], d[2])) <= BLANK_CHROMA
    return out


Cut = Callable[[int, np.ndarray], np.ndarray]  # tile i as the reader cuts it, from a photo


class Classifier:
    """The crop classifier session with its calibration."""

    def __init__(self, model: ort.InferenceSession, calibration: Calibration,
                 config: ClassifyConfig | None = None) -> None:
        self.model = model
        self.calibration = calibration
        self.config = config or ClassifyConfig()

    def classify(self, img: np.ndarray, det: Detections, quarter: int = 0, veil: np.ndarray | None = None,
                 measured: bool = False) -> Detections:
        """Fill in class probabilities from crops of the (full-resolution) image; sideways crops are turned.
        ``quarter`` (3): the finder already read the photo turned, so its crops are turned without reading them
        both ways; otherwise, boxes landscape as a rule that read surer turned upright make the photo one turned by
        a quarter (``det.turned``). With ``deglare``, a tile under the photo's glare veil is read from its crop with
        the veil taken off as well, and so is a washed-out face; ``measured``: ``veil`` is the photo's
        ``glare.veil_map`` already (None without a blown-out spot); otherwise it is measured here. With a "not a
        tile" class, boxes it gives over ``not_tile_above`` are dropped."""
        c = self.config
        cut, crops, logp, side, hand = self._read_crops(img, det, quarter)
        if c.deglare and not measured:
            veil = veil_map(img)
        veiled = np.flatnonzero(veil_of_boxes(veil, img.shape, det.xyxy) >= VEILED)
        washed = np.array([washed_share(crop) for crop in crops])
        # the photo with the veil taken off, made only when a tile needs it (a 12-MP copy costs)
        clear = take_off(img, veil) if len(veiled) or (veil is not None and (washed > WASHED_FROM).any()) else None
        if len(veiled) and clear is not None:
            # tiles under a glare veil (faces and backs the veil turned pale): read the de-glared crop as well
            logp[veiled] = (logp[veiled] + self.logp([cut(int(i), clear) for i in veiled])) / 2
        det.probs = self.probabilities(crops, quarter_turnable(det.xyxy, hand=hand), logp)
        n = len(CLASSIFIER_CODES)
        not_tile = None
        if det.probs.shape[1] == n + 1:  # a classifier with the last class "not a tile" (table, tray, cloth)
            not_tile = det.probs[:, n].copy()
            det.probs = (det.probs[:, :n] / np.maximum(det.probs[:, :n].sum(1, keepdims=True), 1e-6)).astype(
                np.float32)
        if det.back_score is not None and len(det):
            det.probs = with_finder_backs(det.probs, det.back_score)
        det.sideways = np.array(side, bool)
        det.probs = self.calibration.apply(det.probs)
        det.probs = unsure_where_washed(det.probs, washed, self._deglared_hint(cut, img, washed, clear))
        if c.inked_not_blank:
            det.probs = not_blank_where_inked(det.probs, crops)
        if c.backs_by_colour:  # (a crop with no ivory on it is a back, whatever face it was read as)
            tiles = np.ones(len(det), bool) if not_tile is None else not_tile < SURE_TILE
            det.probs = backs_where_coloured(det.probs, crops, tiles)
        if c.lone_below:
            alone = lone_doubts(det, c.lone_below)
            det, crops = det[~alone], [crop for crop, a in zip(crops, alone) if not a]
            not_tile = None if not_tile is None else not_tile[~alone]
        if not_tile is not None and c.not_tile_above:
            det = det[(not_tile <= c.not_tile_above) | blank_faces(det.probs, crops, not_tile, c.not_tile_above)
                      | sure_backs(det.probs, det.back_score, not_tile)]
        return det

    def _read_crops(self, img: np.ndarray, det: Detections, quarter: int
                    ) -> tuple[Cut, list[np.ndarray], np.ndarray, np.ndarray, float | None]:
        """Each box's crop and log-probabilities, turned upright by its own shape along its row (a box around a
        slanted tile is squarer than the tile), or, for a photo turned by a quarter, all kept as they lie when
        that reads surer; sets ``det.turned``. Also the cut of tile i from another photo, the sideways tiles, and the
        hand's upright tiles' width over height (``run_aspect``; None where no hand stands in the photo)."""
        angle = row_angle(det.xyxy) if self.config.oriented else 0.0
        hand = run_aspect(det) if len(det) else None  # a run of upright tiles touching: the hand as shot
        turn, side = orientation(levelled(det.xyxy, angle), hand)

        def cut_box(box: np.ndarray, tb: bool, src: np.ndarray = img) -> np.ndarray:
            return (oriented_crop(src, box, angle, turn=tb) if angle else tile_crop(src, box, turn=tb))[0]

        crops = [cut_box(box, bool(tb)) for box, tb in zip(det.xyxy, turn)]
        logp = self.logp(crops)
        det.turned = quarter
        faces = ~finder_backs(det)  # (a wall of backs standing edge-on is wide whichever way the photo lies)
        if not quarter and self.config.photo_turn and faces.sum() >= 3 and turn[faces].mean() > 0.5 \
                and hand is None:
            # boxes landscape as a rule: a photo turned by 90 degrees, or stretched until upright tiles look
            # landscape; the classifier's surer reading of the whole photo decides which
            kept = [cut_box(box, False) for box in det.xyxy]
            logp_kept = self.logp(kept)
            if logp_kept.max(1).sum() > logp.max(1).sum():
                crops, logp, turn = kept, logp_kept, np.zeros(len(det), bool)
            else:
                det.turned = 3  # the crops were turned clockwise: so is the photo (3 counter-clockwise turns)

        def cut(i: int, src: np.ndarray) -> np.ndarray:
            return cut_box(det.xyxy[i], bool(turn[i]), src)

        return cut, crops, logp, side, hand

    def _deglared_hint(self, cut: Cut, img: np.ndarray, washed: np.ndarray, clear: np.ndarray | None
                       ) -> np.ndarray | None:
        """For the crops glare washed out (``washed`` over ``WASHED_FROM``): the classifier's reading of the same
        crops cut from ``clear``, the photo with the glare veil taken off, flattened by ``GLARE_T`` (a hint, see
        ``unsure_where_washed``); rows of other crops are even. None when no crop is washed out or there is no
        de-glared photo."""
        idx = np.flatnonzero(washed > WASHED_FROM)
        if clear is None or clear is img or not len(idx):
            return None
        logp = self.logp([cut(int(i), clear) for i in idx])[:, :len(CLASSIFIER_CODES)] / GLARE_T
        hint = np.ones((len(washed), len(CLASSIFIER_CODES)), np.float32)
        e = np.exp(logp - logp.max(1, keepdims=True))
        hint[idx] = e / e.sum(1, keepdims=True)
        return hint

    def logp(self, crops: list[np.ndarray]) -> np.ndarray:
        """Classifier log-probabilities of crops, in batches."""
        name = self.model.get_inputs()[0].name
        out = []
        for i in range(0, len(crops), self.config.batch):
            logits = self.model.run(None, {name: crops_to_batch(crops[i:i + self.config.batch])})[0]
            logp = logits - logits.max(1, keepdims=True)
            out.append(logp - np.log(np.exp(logp).sum(1, keepdims=True)))
        return np.concatenate(out) if out else np.zeros((0, len(CLASSIFIER_CODES)), np.float32)

    def probabilities(self, crops: list[np.ndarray], turnable: np.ndarray | None = None,
                      logp: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities per crop (``logp``: their log-probabilities, when already computed), with test-time
        turns for the crops the classifier is not sure of: under ``tta_below``, also read turned by 180 degrees and
        the log-probabilities averaged (a second look that lowers the confidence of a reading only one view
        supports); under ``quarter_below`` and ``turnable``, read a quarter turned both ways too, and that pair
        replaces the first when its top log-probability is higher by more than ``quarter_turn_margin``. (The
        crop's upright end is chosen from its box's shape, which fails for a tile lying near 45 degrees and for
        photos stretched so far that upright tiles come out landscape.)"""
        c = self.config
        logp = self.logp(crops) if logp is None else logp.copy()
        top = np.exp(logp.max(1)) if len(logp) else np.zeros(0)
        unsure = np.flatnonzero(top < c.tta_below)
        if len(unsure):
            may = top[unsure] < c.quarter_below
            if turnable is not None:
                may &= turnable[unsure]
            if c.quarter_turn_margin is None:
                may[:] = False
            logp[unsure] = self._turned_views(crops, logp, unsure, may)
        e = np.exp(logp - logp.max(1, keepdims=True))
        return (e / e.sum(1, keepdims=True)).astype(np.float32)

    def _turned_views(self, crops: list[np.ndarray], logp: np.ndarray, unsure: np.ndarray, may: np.ndarray
                      ) -> np.ndarray:
        """The unsure crops' log-probabilities averaged with their half turn, or with both quarter turns where
        ``may`` and that pair is clearly surer: every turned view in one batch."""
        quarters = unsure[may]
        views = [(i, 2) for i in unsure] + [(i, 1) for i in quarters] + [(i, 3) for i in quarters]
        out = self.logp([np.ascontiguousarray(np.rot90(crops[i], k)) for i, k in views])
        upright = (logp[unsure] + out[:len(unsure)]) / 2
        if len(quarters):
            quarter = (out[len(unsure):len(unsure) + len(quarters)] + out[len(unsure) + len(quarters):]) / 2
            margin = self.config.quarter_turn_margin or 0.0
            better = quarter.max(1) > upright[may].max(1) + margin
            rows = np.flatnonzero(may)[better]
            upright[rows] = quarter[better]
        return upright
