"""`python -m tests.fault_worker --port P`: the API with one fault planted for the crash test. When it records a
hand, it stops inside the ledger's transaction, after the hand, the dealer and the audit line are written and
before the commit, touches $MAHJONG_FAULT_MARKER and waits there to be killed."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from ledger.sharing import Sharing


def plant() -> None:
    """Make every ``record`` audit line the point where the process hangs (inside its transaction)."""
    marker = Path(os.environ["MAHJONG_FAULT_MARKER"])
    audit = Sharing._audit

    def hang(self: Any, db: Any, who: str, action: str, hand_id: int | None, detail: str) -> None:
        audit(self, db, who, action, hand_id, detail)
        if action == "record":
            marker.write_text(str(hand_id))
            time.sleep(600)

    Sharing._audit = hang  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    plant()
    import uvicorn

    from service.app import app

    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
