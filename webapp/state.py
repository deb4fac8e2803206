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


@dataclass
class Editor:
    """A hand with its undo and redo stacks: every change, the reader's and the user's, can be undone."""

    hand: HandState = field(default_factory=HandState)
    undo_stack: list[HandState] = field(default_factory=list)
    redo_stack: list[HandState] = field(default_factory=list)

    def change(self, new: HandState) -> None:
        """Make ``new`` the hand, keeping the current one for undo (a no-op change is not recorded)."""
        if new == self.hand:
            return
        self.undo_stack.append(copy.deepcopy(self.hand))
        self.redo_stack.clear()
        self.hand = copy.deepcopy(new)

    def edit(self) -> HandState:
        """A copy of the hand to modify and pass to ``change``."""
        return copy.deepcopy(self.hand)

    def undo(self) -> None:
        if self.undo_stack:
            self.redo_stack.append(self.hand)
            self.hand = self.undo_stack.pop()

    def redo(self) -> None:
        if self.redo_stack:
            self.undo_stack.append(self.hand)
            self.hand = self.redo_stack.pop()
