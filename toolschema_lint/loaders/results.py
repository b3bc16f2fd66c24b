"""Recorded `tools/call` exchanges, checked against the definitions of the tools they call.

Two formats are read (JSON, JSON Lines or YAML):

1. records: `{"tool": NAME, "arguments": {...}, "result": CallToolResult}` (optional `"server"`,
   or `"error"` for a JSON-RPC error), one per line or in an array;
2. JSON-RPC messages as a client logs them: `tools/call` requests and the responses with the
   same `id`, in any order.
"""

from __future__ import annotations

from typing import Any

from ..model import Exchange, join_pointer


def _is_record(x: Any) -> bool:
    return isinstance(x, dict) and "tool" in x and ("result" in x or "error" in x)


def _is_call(x: Any) -> bool:
    return isinstance(x, dict) and x.get("method") == "tools/call" and "id" in x


def looks_like_results(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return bool(items) and any(_is_record(x) or _is_call(x) for x in items)


def exchanges(data: Any) -> tuple[list[Exchange], list[tuple[str, dict]]]:
    """(exchanges, problems as (pointer, args)) from parsed data."""
    items = data if isinstance(data, list) else [data]
    out: list[Exchange] = []
    problems: list[tuple[str, dict]] = []
    responses: dict[Any, tuple[int, dict]] = {}
    for i, x in enumerate(items):
        if isinstance(x, dict) and "id" in x and ("result" in x or "error" in x) and "method" not in x and "tool" not in x:
            key = x["id"] if isinstance(x["id"], (str, int)) else repr(x["id"])
            responses[key] = (i, x)
    for i, x in enumerate(items):
        base = join_pointer("", i) if isinstance(data, list) else ""
        if _is_record(x):
            ex = Exchange(tool=x.get("tool"), arguments=x.get("arguments"), result=x.get("result"), error=x.get("error"),
                          server=x.get("server") if isinstance(x.get("server"), str) else None, pointer=base, index=len(out))
            for k in ("tool", "arguments", "result"):
                if k in x:
                    ex.fields[k] = join_pointer(base, k)
            out.append(ex)
        elif _is_call(x):
            params = x.get("params") if isinstance(x.get("params"), dict) else {}
            key = x["id"] if isinstance(x["id"], (str, int)) else repr(x["id"])
            resp = responses.get(key)
            if resp is None:
                problems.append((base, {"reason": f"tools/call request id {key!r} has no response"}))
                continue
            rbase = join_pointer("", resp[0])
            ex = Exchange(tool=params.get("name"), arguments=params.get("arguments"), result=resp[1].get("result"),
                          error=resp[1].get("error"), pointer=rbase, index=len(out))
            ex.fields["tool"] = join_pointer(base, "params", "name")
            if "arguments" in params:
                ex.fields["arguments"] = join_pointer(base, "params", "arguments")
            if "result" in resp[1]:
                ex.fields["result"] = join_pointer(rbase, "result")
            out.append(ex)
    return out, problems
