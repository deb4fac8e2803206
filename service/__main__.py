"""`python -m service [--host H] [--port P] [--workers N]`: start the HTTP API (needs the `[api]` extra)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m service", description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--workers", type=int, default=1, help="API processes (readings cost CPU: one per core)")
    args = ap.parse_args(argv)
    try:
        import uvicorn
    except ImportError:
        print('error: the API needs its extra: pip install ".[api]"', file=sys.stderr)
        return 2
    uvicorn.run("service.app:app", host=args.host, port=args.port, workers=args.workers, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
