"""A loopback drand server for the tests, serving real rounds (tests/vectors/beacon/), and the
clock the beacon rules read, set by a test."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parent / "vectors" / "beacon"
CHAINS = json.loads((VECTORS / "chains.json").read_text(encoding="utf-8"))


def vector(chain: str, number: int) -> dict[str, Any]:
    """Return a real round as drand's API answers it."""
    return json.loads((VECTORS / f"{chain}-{number}.json").read_text(encoding="utf-8"))


def round_time(chain: str, number: int) -> int:
    """Return when a round of the chain was published (Unix seconds)."""
    return int(CHAINS[chain]["genesis_time"]) + (number - 1) * int(CHAINS[chain]["period"])


def beacon_yaml(chain: str, url: str, window: str = "1m") -> list[str]:
    """Return the `beacon:` lines of a game.yaml naming the chain, fetched from `url`."""
    lines = ["beacon:", *(f"  {key}: {value}" for key, value in CHAINS[chain].items())]
    return [*lines, f"  urls: [{url}]", f"  window: {window}", "  timeout: 5"]


class BeaconServer:
    """A loopback drand server: GET /<chain_hash>/public/<round> answers what `rounds` holds."""

    def __init__(self) -> None:
        self.rounds: dict[tuple[str, int], bytes] = {}
        self.requests: list[str] = []
        beacon = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                beacon.requests.append(self.path)
                parts = self.path.strip("/").split("/")
                body = None
                if len(parts) == 3 and parts[1] == "public" and parts[2].isdigit():
                    body = beacon.rounds.get((parts[0], int(parts[2])))
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body or b'{"error": "no such round"}')

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def serve(self, chain: str, number: int, data: dict[str, Any] | None = None) -> None:
        """Answer for this round: the real one, or `data` in its place."""
        body = data if data is not None else vector(chain, number)
        self.rounds[CHAINS[chain]["chain_hash"], number] = json.dumps(body).encode()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Clock:
    """The time the beacon rules read (`referee.game.beacons.now`), set by the test."""

    def __init__(self) -> None:
        self.now = datetime(2020, 1, 1, tzinfo=UTC)

    def at(self, unix: float) -> None:
        self.now = datetime.fromtimestamp(unix, UTC)
