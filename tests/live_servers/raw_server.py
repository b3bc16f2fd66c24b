"""A hand-written stdio MCP server (no SDK) that sends exactly the bytes it is told to.

    python raw_server.py MODE [PIDFILE]

Modes:
  exact        tools/list in two pages, each a line of raw_pages.txt sent verbatim (odd,
               non-conforming tool objects that a typed client would reshape or reject)
  chatty       like exact, but first sends a ping request and a log notification; the
               client's answer to the ping is written to PIDFILE
  hang-list    answers initialize, never answers tools/list
  loop         every tools/list page returns the same nextCursor
  no-tools     tools/list result without a "tools" array
  orphan       starts a grandchild (its pid goes to PIDFILE) that outlives the server
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def send(obj_or_text: object) -> None:
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, ensure_ascii=True)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1]
    if mode == "orphan":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        with open(sys.argv[2], "w") as handle:
            handle.write(str(child.pid))
    with open(os.path.join(HERE, "raw_pages.txt"), encoding="utf-8") as handle:
        pages = [line.rstrip("\n") for line in handle if line.strip()]  # exact result texts
    for line in sys.stdin:
        message = json.loads(line)
        method, rid = message.get("method"), message.get("id")
        if mode == "chatty" and rid == "srv-1" and "method" not in message:
            with open(sys.argv[2], "w") as handle:
                json.dump(message, handle)
        if rid is None or "method" not in message:
            continue  # notifications, and responses to our own requests
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {"tools": {"listChanged": True}},
                        "serverInfo": {"name": "raw-server", "version": "0.0.1", "x-vendor": {"build": 7}},
                    },
                }
            )
        elif method == "tools/list":
            cursor = (message.get("params") or {}).get("cursor")
            if mode == "hang-list":
                time.sleep(3600)
            if mode == "no-tools":
                send({"jsonrpc": "2.0", "id": rid, "result": {"items": []}})
                continue
            if mode == "loop":
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [], "nextCursor": "again"}})
                continue
            if mode == "chatty" and cursor is None:
                send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
            index = int(cursor) if cursor else 0
            # Splice the page text in verbatim so number spellings, key order and escapes survive.
            send('{"jsonrpc": "2.0", "id": %s, "result": %s}' % (json.dumps(rid), pages[index]))
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
