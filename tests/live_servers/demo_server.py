"""A small MCP server built with the Python SDK (MCPServer, formerly FastMCP), for tests of the
live loader.

    python demo_server.py [--http PORT | --sse PORT] [--page-size N] [--token TOKEN]
                          [--fail crash|hang|garbage|list-error] [--method-log FILE] [--print-tools]

stdio by default. ``--page-size`` makes tools/list paginate (cursor = offset). ``--token``
(HTTP only) answers 401 unless ``Authorization: Bearer TOKEN`` is sent. ``--fail`` selects a
misbehaviour; ``--method-log`` appends the method of every message received to FILE;
``--print-tools`` prints the advertised tool list as JSON and exits.

The SDK is imported only once it is needed, so that the crash and hang variants fail fast.
"""

import argparse
import json
import sys
import time
from typing import Any


def build(page_size: int | None = None, fail: str | None = None, method_log: str | None = None) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations
    from pydantic import BaseModel, Field

    class Forecast(BaseModel):
        """A weather forecast."""

        city: str
        temperature_c: float = Field(description="Temperature in degrees Celsius")
        conditions: str

    middleware: list[Any] = []
    if method_log:
        middleware.append(LogMethods(method_log))
    if page_size:
        middleware.append(Paginate(page_size))
    if fail == "list-error":
        middleware.append(FailList())
    server = MCPServer("demo-server", version="1.2.3", middleware=middleware, log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def forecast(city: str, days: int = 1) -> Forecast:
        """Weather forecast for a city."""
        return Forecast(city=city, temperature_c=21.5, conditions="sunny")

    @server.tool(name="search.docs", title="Search the docs")
    def search_docs(query: str, limit: int = 10) -> list[str]:
        """Full-text search over the documentation."""
        return [query][:limit]

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def delete_file(path: str) -> str:
        """Delete a file."""
        return path

    @server.tool()
    def ping_tool() -> str:
        """No arguments at all."""
        return "pong"

    return server


def advertised_tools() -> list[dict]:
    """The tool list as the server itself serialises it."""
    import anyio

    tools = anyio.run(build().list_tools)
    return [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]


class LogMethods:
    """Middleware: append each received method name to a file, one a line."""

    def __init__(self, path: str) -> None:
        self.path = path

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(f"{ctx.method}\n")
        return await call_next(ctx)


class Paginate:
    """Middleware: serve tools/list in pages of ``size``; the cursor is the offset."""

    def __init__(self, size: int) -> None:
        self.size = size

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method != "tools/list":
            return result
        if hasattr(result, "model_dump"):
            data = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        else:
            data = dict(result)
        start = int((ctx.params or {}).get("cursor") or 0)
        tools = data["tools"]
        data["tools"] = tools[start : start + self.size]
        if start + self.size < len(tools):
            data["nextCursor"] = str(start + self.size)
        return data


class FailList:
    """Middleware: answer tools/list with a JSON-RPC error."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        if ctx.method == "tools/list":
            raise MCPError(code=-32603, message="tool registry unavailable")
        return await call_next(ctx)


class RequireToken:
    """ASGI middleware: 401 for HTTP requests without the bearer token."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": b'{"error":"invalid_token"}'})
            return
        await self.app(scope, receive, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--sse", type=int)
    parser.add_argument("--page-size", type=int)
    parser.add_argument("--token")
    parser.add_argument("--fail", choices=["crash", "hang", "garbage", "list-error"])
    parser.add_argument("--method-log")
    parser.add_argument("--print-tools", action="store_true")
    args = parser.parse_args()

    if args.fail == "crash":
        print("demo-server: cannot open configuration file", file=sys.stderr)
        raise SystemExit(3)
    if args.fail == "hang":
        time.sleep(3600)
    if args.fail == "garbage":
        print("demo-server 1.2.3 starting...", flush=True)
    if args.print_tools:
        print(json.dumps(advertised_tools()))
        return

    server = build(args.page_size, args.fail, args.method_log)
    if args.http is None and args.sse is None:
        server.run()
        return

    import uvicorn

    app: Any = server.sse_app() if args.sse is not None else server.streamable_http_app()
    if args.token:
        app = RequireToken(app, args.token)
    uvicorn.run(app, host="127.0.0.1", port=args.sse or args.http, log_level="warning")


if __name__ == "__main__":
    main()
