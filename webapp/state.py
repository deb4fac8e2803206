"""The page's one typed hand state: tiles, melds with a relative feeder, flowers, the situation, and undo/redo.

Seats are resolved only when the case is built for scoring (``webapp.case``), so choosing the winner after a
photo never breaks a meld: a meld is fed by the winner's left, opposite or right player, whoever the winner is.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from scoring.rulesets.base import RELATIVE_SEATS

FEEDERS = ("left", "opposite", "right")
assert set(FEEDERS) == set(RELATIVE_SEATS)


@dataclass
class MeldState:
    """A declared meld: type, tile codes, and who fed it as the winner sees it (None for a concealed kong)."""

    type: str
    tiles: list[str]
    feeder: str | None = "left"


@dataclass
class HandState:
    """The winner's tiles as the page holds them (codes), plus flowers the ruleset does not use, set aside."""

    concealed: list[str] = field(default_factory=list)
    winning: str | None = None
    melds: list[MeldState] = field(default_factory=list)
    flowers: list[str] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.concealed and not self.melds and self.winning is None


@dataclass
class Situation:
    """How the hand was won; every field is a RULES.md context field, seats absolute except meld feeders."""

    winner: int = 0
    win_type: str = "self_draw"
    discarder: int | None = None
    replacement: str | None = None
    bloom: list[int] = field(default_factory=list)  # indices of the kong melds behind a replacement win, in order
    after_kong: bool = False
    last_tile: bool = False
    heavenly: bool = False
    earthly: bool = False
    other_kongs: list[dict[str, Any]] = field(default_factory=list)  # kong_events of the other seats
    penalties: list[dict[str, Any]] = field(default_factory=list)
    previous_winner: int | None = None
    fish_tiles: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LedgerChange:
    """A write of this tab that its undo takes back: a ``record`` (undo deletes the hand, redo restores it) or an
    ``edit`` (undo writes back the version it replaced, redo the saved one again). Cases and results as the ledger
    keeps them (lists: several winners on one discard are one event)."""

    kind: str  # "record" or "edit"
    hand_id: int
    shown: dict[str, Any] | None = None  # the case on screen when it was written: undo puts its situation back
    before: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None
    after: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None


@dataclass(eq=False)
class Step:
    """What undo returns to: the hand, the user's fixes of the photo's tiles, the photo itself (shared, never
    copied: any object the page keeps for it) and the recorded hand being edited."""

    hand: HandState = field(default_factory=HandState)
    fixes: dict[int, str] = field(default_factory=dict)  # photo tile index -> code chosen ("remove" drops it)
    photo: Any = None
    editing: int | None = None
    log: list[dict[str, Any]] = field(default_factory=list)  # the corrections made to the reading, kept as evidence
    hand_tiles: tuple[int, ...] | None = None  # the photo's tiles the player says are the hand (None: the reader's)

    def same(self, other: Step) -> bool:
        """The same step (the photo compared by identity: it holds images)."""
        return (self.hand, self.fixes, self.editing, self.hand_tiles) == \
            (other.hand, other.fixes, other.editing, other.hand_tiles) and self.photo is other.photo


KEEP: Any = object()  # ``Editor.change``: leave this part of the step as it is


@dataclass
class Editor:
    """The tab's entry with one undo history for everything: the reader's and the user's changes to the hand,
    fixes of photo tiles, a new photo, and records and edits written to the ledger (each step remembers the
    ledger change that led from it, so that undo takes the write back instead of bringing the hand back as new)."""

    step: Step = field(default_factory=Step)
    undo_stack: list[tuple[Step, LedgerChange | None]] = field(default_factory=list)
    redo_stack: list[tuple[Step, LedgerChange | None]] = field(default_factory=list)

    @property
    def hand(self) -> HandState:
        return self.step.hand

    @property
    def fixes(self) -> dict[int, str]:
        return self.step.fixes

    @property
    def hand_tiles(self) -> tuple[int, ...] | None:
        return self.step.hand_tiles

    def change(self, new: HandState | None = None, *, fixes: dict[int, str] | None = None, photo: Any = KEEP,
               editing: Any = KEEP, ledger: LedgerChange | None = None, note: dict[str, Any] | None = None,
               hand_tiles: Any = KEEP) -> None:
        """Make a new step from the current one with the parts given, keeping the current one for undo (a change
        that changes nothing is not recorded, unless it wrote to the ledger). ``note``: a correction to log with
        it (undo takes it back with the change); a new photo or a new entry starts an empty log and the reader's
        choice of the hand's tiles."""
        fresh = photo is not KEEP or editing is not KEEP
        nxt = Step(copy.deepcopy(new) if new is not None else copy.deepcopy(self.step.hand),
                   dict(fixes) if fixes is not None else dict(self.step.fixes),
                   self.step.photo if photo is KEEP else photo,
                   self.step.editing if editing is KEEP else editing,
                   ([] if fresh else list(self.step.log)) + ([note] if note else []),
                   (None if fresh else self.step.hand_tiles) if hand_tiles is KEEP else hand_tiles)
        if ledger is None and nxt.same(self.step):
            return
        self.undo_stack.append((self.step, ledger))  # nxt is a new step: the old one is never changed again
        self.redo_stack.clear()
        self.step = nxt

    def edit(self) -> HandState:
        """A copy of the hand to modify and pass to ``change``."""
        return copy.deepcopy(self.step.hand)

    def replace(self, new: HandState) -> None:
        """Set the current step's hand with no undo step (a new photo's first reading fills its own step)."""
        self.step.hand = copy.deepcopy(new)

    def pending_undo(self) -> LedgerChange | None:
        """The ledger write that undo must take back first (None: undo changes only this tab)."""
        return self.undo_stack[-1][1] if self.undo_stack else None

    def pending_redo(self) -> LedgerChange | None:
        """The ledger write that redo must make again first."""
        return self.redo_stack[-1][1] if self.redo_stack else None

    def undo(self) -> None:
        if self.undo_stack:
            prev, ledger = self.undo_stack.pop()
            self.redo_stack.append((self.step, ledger))
            self.step = prev

    def redo(self) -> None:
        if self.redo_stack:
            nxt, ledger = self.redo_stack.pop()
            self.undo_stack.append((self.step, ledger))
            self.step = nxt
