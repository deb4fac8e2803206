"""`python -m service [--host H] [--port P] [--workers N]`: start the HTTP API (needs the `[api]` extra)."""

from __future__ import annotations

import argparse
import socket
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
    if args.workers > 1:
        # the workers share one listening socket; TCP_NODELAY set on it is inherited by every connection it
        # accepts (without it, a kept-alive request waits ~40 ms on the client's delayed ACK)
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((args.host, args.port))
        sock.set_inheritable(True)
        uvicorn.run("service.app:app", fd=sock.fileno(), workers=args.workers, log_level="warning")
    else:
        uvicorn.run("service.app:app", host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
