"""Capture ``tools/list`` from a running MCP server (stdio or HTTP).

The transports (process handling, Streamable HTTP, legacy HTTP+SSE) come from the
official MCP Python SDK, imported lazily so the base package works without it.
The JSON-RPC exchange on top of them is done here, on raw messages: the SDK's
typed client validates results against its models, which would reject or reshape
exactly the malformed definitions a linter has to see. Each tool object is kept
as the server sent it, and all pages are concatenated.

``capture`` never calls a tool. It starts (or connects to) the server, sends
``initialize`` and ``notifications/initialized``, pages through ``tools/list``
via ``nextCursor`` and closes the connection, killing the server's process group
on every exit path. Every failure becomes a one-line :class:`LiveError` naming
the server; environment and header values never appear in messages.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["LiveError", "ServerSpec", "capture", "capture_async", "dump_text", "redact_url"]

#: Protocol revision offered in ``initialize`` when the SDK does not name one.
DEFAULT_PROTOCOL_VERSION = "2025-11-25"
#: Upper bound on ``tools/list`` pages, against servers that never stop paging.
MAX_PAGES = 1000
#: Largest single message accepted over an SSE stream (the SDK's default is 1 MiB).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: HTTP statuses of the first POST that mean "not a Streamable HTTP endpoint, try legacy SSE".
_SSE_FALLBACK_STATUSES = (400, 404, 405)
#: Programs that start another program; the display name is taken from what they start.
_LAUNCHERS = {
    "npx", "pnpx", "bunx", "node", "nodejs", "bun", "deno", "uvx", "uv", "pipx", "python", "python3",
    "py", "poetry", "pdm", "hatch", "rye", "npm", "pnpm", "yarn", "docker", "podman", "sh", "bash",
    "env", "exec", "tsx", "ts-node",
}  # fmt: skip
_LAUNCHER_VERBS = {"run", "exec", "dlx", "x", "tool", "--", "-m"}
SECRET_PLACEHOLDER = "***"

logger = logging.getLogger(__name__)


@dataclass
class ServerSpec:
    """How to reach one MCP server: ``command`` (stdio) or ``url`` (HTTP)."""

    command: list[str] | None = None  # stdio: argv
    url: str | None = None  # Streamable HTTP (fallback: legacy HTTP+SSE)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    name: str | None = None  # display name; default derived from command / url

    @property
    def source(self) -> str:
        """``mcp+stdio:NAME`` or the URL without credentials and query values."""
        if self.url is not None and not self.command:
            return redact_url(self.url)
        return "mcp+stdio:" + (self.name or _derive_name(self.command or []))

    def _secret_values(self) -> list[str]:
        """Values that must never be shown: environment and header values, longest first."""
        values = {v for v in [*self.env.values(), *self.headers.values()] if v}
        return sorted(values, key=len, reverse=True)


class LiveError(Exception):
    """A capture failed; ``str()`` is a one-line message naming the server."""


def dump_text(result: dict) -> str:
    """The text that gets linted and saved for a captured result."""
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def capture(spec: ServerSpec, timeout: float = 30.0) -> dict:
    """Start/connect, initialize, page through tools/list via nextCursor, close. NEVER calls a tool.

    Returns ``{"serverInfo": {...}, "protocolVersion": "...", "tools": [...]}`` with every tool
    object exactly as sent on the wire, all pages concatenated. ``timeout`` bounds the whole
    exchange (start-up included); shutting the server down afterwards takes a few seconds at most.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run(spec, timeout)
    # Called from inside an event loop: run the capture on a private one in a thread.
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = _run(spec, timeout)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller below
            box["error"] = exc

    thread = threading.Thread(target=target, name="toolschema-lint-live", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


async def capture_async(spec: ServerSpec, timeout: float = 30.0) -> dict:
    """Async form of :func:`capture` (asyncio or trio via anyio)."""
    _check_spec(spec)
    sdk = _import_sdk(spec)
    with _quiet_sdk_logs():
        return await _capture(spec, timeout, sdk)


# --------------------------------------------------------------------------- helpers: naming


def redact_url(url: str) -> str:
    """``url`` without userinfo, fragment and query values (query keys are kept)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return "<invalid URL>"
    query = ""
    if parts.query:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = urlencode([(k, SECRET_PLACEHOLDER if v else "") for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _derive_name(argv: list[str]) -> str:
    """A short display name for a command line: the program a launcher starts, or the program."""
    if not argv:
        return "server"
    words = list(argv)
    first = os.path.basename(words[0])
    if first.lower().removesuffix(".exe") not in _LAUNCHERS:
        return first
    for index, word in enumerate(words[1:], start=1):
        if word in _LAUNCHER_VERBS or word.startswith("-") or "=" in word:
            if word == "-m" and index + 1 < len(words):
                return words[index + 1]
            continue
        if " " in word.strip():  # sh -c "script": name it after the script's first word
            word = word.split()[0]
        base = word if word.startswith("@") else os.path.basename(word.rstrip("/"))
        if base.lower() in _LAUNCHERS:  # e.g. "uv run python server.py"
            continue
        return base or word
    return first


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def mask(text: str, secrets: list[str]) -> str:
    """``text`` with every secret value masked, however short."""
    for secret in secrets:
        text = text.replace(secret, SECRET_PLACEHOLDER)
    return text


def _redact(text: str, secrets: list[str]) -> str | None:
    """``text`` with every secret value masked; None when a very short secret occurs in it."""
    for secret in secrets:
        if secret in text:
            if len(secret) < 4:  # masking "1" or "on" everywhere would garble the text
                return None
            text = text.replace(secret, SECRET_PLACEHOLDER)
    return text


# --------------------------------------------------------------------------- helpers: SDK


@dataclass
class _Sdk:
    anyio: Any
    stdio_client: Any
    StdioServerParameters: Any
    streamable_http_client: Any
    sse_client: Any
    httpx: Any
    SessionMessage: Any
    ClientMessageMetadata: Any
    JSONRPCRequest: Any
    JSONRPCNotification: Any
    JSONRPCResponse: Any
    JSONRPCError: Any
    protocol_version: str
    version_header: str


SDK_MODULES = ("anyio", "httpx2", "mcp_types", "mcp")  # what `_import_sdk` imports (the MCP Python SDK 2.x)


def missing_sdk_module() -> str | None:
    """The first module of the MCP SDK that is not installed, or None when capture can run."""
    import importlib.util

    for name in SDK_MODULES:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def _import_sdk(spec: ServerSpec) -> _Sdk:
    try:
        import anyio
        import httpx2
        import mcp_types
        from mcp.client.sse import sse_client
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared.message import ClientMessageMetadata, SessionMessage
    except ImportError as exc:
        raise LiveError(
            f"{spec.source}: live capture needs the MCP Python SDK 2.x ({exc.name or exc}); "
            "install toolschema-lint[live]"
        ) from None
    try:
        from mcp_types.version import LATEST_HANDSHAKE_VERSION as version
    except ImportError:  # pragma: no cover - older mcp-types
        version = DEFAULT_PROTOCOL_VERSION
    return _Sdk(
        anyio=anyio,
        stdio_client=stdio_client,
        StdioServerParameters=StdioServerParameters,
        streamable_http_client=streamable_http_client,
        sse_client=sse_client,
        httpx=httpx2,
        SessionMessage=SessionMessage,
        ClientMessageMetadata=ClientMessageMetadata,
        JSONRPCRequest=mcp_types.JSONRPCRequest,
        JSONRPCNotification=mcp_types.JSONRPCNotification,
        JSONRPCResponse=mcp_types.JSONRPCResponse,
        JSONRPCError=mcp_types.JSONRPCError,
        protocol_version=version,
        version_header="MCP-Protocol-Version",
    )


def _client_version() -> str:
    try:
        from importlib.metadata import version

        return version("toolschema-lint")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0"


class _SdkLog(logging.Handler):
    """Passes the SDK's log records on at DEBUG level, without tracebacks."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            logger.debug("mcp: %s", record.getMessage())
        except Exception:  # noqa: BLE001 - a log record must never break a capture
            pass


class _quiet_sdk_logs:
    """While any capture runs, keep the ``mcp`` loggers from printing (tracebacks included)."""

    _lock = threading.Lock()
    _active = 0
    _saved_propagate = True
    _handler = _SdkLog()

    def __enter__(self) -> None:
        cls, sdk_logger = type(self), logging.getLogger("mcp")
        with cls._lock:
            if cls._active == 0:
                cls._saved_propagate = sdk_logger.propagate
                sdk_logger.addHandler(cls._handler)
                sdk_logger.propagate = False
            cls._active += 1

    def __exit__(self, *exc: object) -> None:
        cls, sdk_logger = type(self), logging.getLogger("mcp")
        with cls._lock:
            cls._active -= 1
            if cls._active == 0:
                sdk_logger.removeHandler(cls._handler)
                sdk_logger.propagate = cls._saved_propagate


# --------------------------------------------------------------------------- the exchange


class _Failure(Exception):
    """Internal: a failure already phrased for the user (without the source prefix)."""


class _Closed(Exception):
    """Internal: the server closed the connection."""


class _RpcError(Exception):
    def __init__(self, code: Any, message: Any, data: Any = None) -> None:
        super().__init__(code, message)
        self.code, self.message, self.data = code, message, data


class _Garbage(Exception):
    def __init__(self, snippet: str) -> None:
        super().__init__(snippet)
        self.snippet = snippet


@dataclass
class _State:
    """What the failure paths need to know about the exchange so far."""

    phase: str = "start-up"
    stderr: Any = None  # temporary file holding the server's stderr (stdio)
    http: list[tuple[str, int, str]] = field(default_factory=list)  # (method, status, content type)
    transport: str = "stdio"
    fell_back: bool = False  # Streamable HTTP was refused, legacy SSE tried
    result: dict | None = None  # set as soon as the last page is in


class _Rpc:
    def __init__(self, sdk: _Sdk, read: Any, write: Any, state: _State) -> None:
        self.sdk, self.read, self.write, self.state = sdk, read, write, state
        self.next_id = 0
        self.headers: dict[str, str] | None = None

    def _metadata(self) -> Any:
        return self.sdk.ClientMessageMetadata(headers=dict(self.headers)) if self.headers else None

    async def _send(self, message: Any) -> None:
        anyio = self.sdk.anyio
        try:
            await self.write.send(self.sdk.SessionMessage(message, metadata=self._metadata()))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            raise _Closed() from None

    async def notify(self, method: str) -> None:
        await self._send(self.sdk.JSONRPCNotification(jsonrpc="2.0", method=method))

    async def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        sdk, anyio = self.sdk, self.sdk.anyio
        self.next_id += 1
        request_id = self.next_id
        fields: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            fields["params"] = params
        await self._send(sdk.JSONRPCRequest(**fields))
        while True:
            try:
                item = await self.read.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                raise _Closed() from None
            if isinstance(item, Exception):
                if not isinstance(item, ValueError):  # a transport failure, not bad input
                    raise item
                if _blank_line(item):
                    continue  # an empty line between messages is harmless
                raise _Garbage(_garbage_snippet(item))
            message = item.message
            if isinstance(message, sdk.JSONRPCResponse):
                if message.id == request_id:
                    return message.result
            elif isinstance(message, sdk.JSONRPCError):
                if message.id in (request_id, None):
                    error = message.error
                    raise _RpcError(error.code, error.message, error.data)
            elif isinstance(message, sdk.JSONRPCRequest):
                await self._answer_server_request(message)
            # notifications (logging, progress, list_changed) are ignored

    async def _answer_server_request(self, message: Any) -> None:
        # Only ping is answered; this client declares no capabilities (roots, sampling, ...).
        sdk = self.sdk
        if message.method == "ping":
            reply: Any = sdk.JSONRPCResponse(jsonrpc="2.0", id=message.id, result={})
        else:
            from mcp_types import ErrorData

            reply = sdk.JSONRPCError(
                jsonrpc="2.0", id=message.id, error=ErrorData(code=-32601, message="Method not found")
            )
        await self._send(reply)


def _offending_input(exc: Exception) -> Any:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            return errors()[0].get("input")
        except Exception:  # noqa: BLE001 - not a pydantic error after all
            return None
    return None


def _blank_line(exc: Exception) -> bool:
    text = _offending_input(exc)
    return isinstance(text, str) and not text.strip()


def _garbage_snippet(exc: Exception) -> str:
    text = _offending_input(exc)
    if not isinstance(text, (str, bytes)):
        text = str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text.strip()
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


async def _exchange(rpc: _Rpc, state: _State) -> dict:
    sdk = rpc.sdk
    state.phase = "initialize"
    init = await rpc.request(
        "initialize",
        {
            "protocolVersion": sdk.protocol_version,
            "capabilities": {},
            "clientInfo": {"name": "toolschema-lint", "version": _client_version()},
        },
    )
    logger.debug("initialize answered: %s", json.dumps(init.get("serverInfo"), ensure_ascii=False))
    version = init.get("protocolVersion")
    if isinstance(version, str) and version:
        rpc.headers = {sdk.version_header: version}
    state.phase = "notifications/initialized"
    await rpc.notify("notifications/initialized")

    tools: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for page in range(1, MAX_PAGES + 1):
        state.phase = "tools/list" if page == 1 else f"tools/list (page {page})"
        result = await rpc.request("tools/list", None if cursor is None else {"cursor": cursor})
        page_tools = result.get("tools")
        if not isinstance(page_tools, list):
            raise _Failure(f"the {state.phase} result has no 'tools' array")
        tools.extend(page_tools)
        cursor = result.get("nextCursor")
        logger.debug("tools/list page %d: %d tools, nextCursor %s", page, len(page_tools), cursor is not None)
        if cursor is None or cursor == "":
            break
        if not isinstance(cursor, str):
            raise _Failure(f"the {state.phase} result has a non-string nextCursor ({type(cursor).__name__})")
        if cursor in seen:
            raise _Failure(f"the server repeated a nextCursor on {state.phase} (pagination loop)")
        seen.add(cursor)
    else:
        raise _Failure(f"the server returned more than {MAX_PAGES} tools/list pages")
    state.phase = "shutdown"
    state.result = {"serverInfo": init.get("serverInfo"), "protocolVersion": version, "tools": tools}
    return state.result


async def _capture(spec: ServerSpec, timeout: float, sdk: _Sdk) -> dict:
    state = _State()
    anyio = sdk.anyio
    try:
        if spec.command:
            return await _capture_stdio(spec, timeout, sdk, state)
        return await _capture_http(spec, timeout, sdk, state)
    except LiveError:
        raise
    except BaseException as exc:  # mapped to a LiveError below, or re-raised
        if isinstance(exc, anyio.get_cancelled_exc_class()) and not _timed_out(exc):
            raise
        error = _explain(spec, exc, state, timeout, sdk)
        if error is None:
            raise
        raise error from None
    finally:
        if state.stderr is not None:
            state.stderr.close()


class _Deadline(Exception):
    """Internal: the overall timeout ran out."""


def _timed_out(exc: BaseException) -> bool:
    return any(isinstance(e, _Deadline) for e in _leaves(exc))


async def _bounded(body: Any, timeout: float, state: _State, anyio: Any) -> dict:
    """Run ``body(state)`` under the overall deadline; a result already in hand survives it.

    The deadline can run out, or a transport can fail, while the connection closes (say a slow
    HTTP DELETE); the tool list is complete by then, so it is returned rather than lost.
    """
    try:
        with anyio.move_on_after(timeout):
            await body(state)
    except Exception as exc:  # ExceptionGroup included
        if state.result is None:
            raise
        logger.debug("ignoring an error while closing the connection: %r", exc)
    if state.result is None:
        raise _Deadline()
    return state.result


async def _capture_stdio(spec: ServerSpec, timeout: float, sdk: _Sdk, state: _State) -> dict:
    argv = list(spec.command or [])
    program = argv[0]
    if spec.cwd is not None and not os.path.isdir(spec.cwd):
        raise _Failure(f"working directory does not exist: {spec.cwd}")
    search_path = spec.env.get("PATH", os.environ.get("PATH", os.defpath))
    if os.sep not in program and shutil.which(program, path=search_path) is None:
        raise _Failure(f"command not found: {program!r} (not on PATH)")
    state.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
    params = sdk.StdioServerParameters(
        command=program, args=argv[1:], env=dict(spec.env) or None, cwd=spec.cwd, encoding_error_handler="strict"
    )
    before = _session_children()
    group: list[int] = []
    try:

        async def run(state: _State) -> None:
            async with sdk.stdio_client(params, errlog=state.stderr) as (read, write):
                group.extend(_session_children() - before)
                try:
                    await _exchange(_Rpc(sdk, read, write, state), state)
                except BaseException:
                    # Failed or timed out: no graceful stop (the SDK would first wait for the
                    # server to notice its closed stdin, which a hung server never does).
                    _kill_groups(group, signal.SIGTERM)
                    raise

        return await _bounded(run, timeout, state, sdk.anyio)
    finally:
        _kill_groups(group)


async def _capture_http(spec: ServerSpec, timeout: float, sdk: _Sdk, state: _State) -> dict:
    assert spec.url is not None
    httpx = sdk.httpx

    async def on_response(response: Any) -> None:
        content_type = response.headers.get("content-type", "").partition(";")[0].strip()
        state.http.append((response.request.method, response.status_code, content_type))

    def make_client(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
        # Same settings as the SDK's own client factory, plus a hook that records statuses.
        return sdk.httpx.AsyncClient(
            headers=headers,
            timeout=timeout if timeout is not None else http_timeout,
            auth=auth,
            event_hooks={"response": [on_response]},
        )

    http_timeout = httpx.Timeout(timeout)

    async def run_streamable(state: _State) -> None:
        state.transport = "streamable-http"
        async with make_client(headers=dict(spec.headers) or None, timeout=http_timeout) as client:
            options: dict[str, Any] = {"http_client": client}
            if "max_sse_event_size" in inspect.signature(sdk.streamable_http_client).parameters:
                options["max_sse_event_size"] = MAX_MESSAGE_BYTES  # mcp >= 2.3
            async with sdk.streamable_http_client(spec.url, **options) as (read, write):
                await _exchange(_Rpc(sdk, read, write, state), state)

    async def run_sse(state: _State) -> None:
        state.transport = "sse"
        state.phase = "start-up"
        state.http.clear()
        async with sdk.sse_client(
            spec.url, headers=dict(spec.headers) or None, timeout=timeout, httpx_client_factory=make_client
        ) as (read, write):
            await _exchange(_Rpc(sdk, read, write, state), state)

    anyio = sdk.anyio
    start = anyio.current_time()
    try:
        return await _bounded(run_streamable, timeout, state, anyio)
    except BaseException as exc:  # fall back to legacy SSE, or re-raise
        first_post = next((status for method, status, _ in state.http if method == "POST"), None)
        if state.phase != "initialize" or first_post not in _SSE_FALLBACK_STATUSES:
            raise
        if isinstance(exc, anyio.get_cancelled_exc_class()) and not _timed_out(exc):
            raise
    logger.debug("no Streamable HTTP endpoint (HTTP %s); trying legacy HTTP+SSE", first_post)
    state.fell_back = True
    remaining = max(0.1, timeout - (anyio.current_time() - start))
    return await _bounded(run_sse, remaining, state, anyio)


# --------------------------------------------------------------------------- process groups


def _session_children() -> set[int]:
    """Pids of our own children that lead their own process group (the SDK's new sessions)."""
    me, found = os.getpid(), set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[1] == str(me) and fields[2] == entry:
            found.add(int(entry))
    return found


def _kill_groups(pids: list[int], sig: int = signal.SIGKILL) -> None:
    """Signal the server's process group: by default SIGKILL whatever outlived the server."""
    if sys.platform == "win32":  # pragma: no cover - the SDK's job objects cover Windows
        return
    for pid in pids:
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


# --------------------------------------------------------------------------- failure messages


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for inner in exc.exceptions:
            out.extend(_leaves(inner))
        return out
    chain = [exc]
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(chain) < 8 and not isinstance(cause, BaseExceptionGroup):
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return chain


def _stderr_tail(state: _State, secrets: list[str], lines: int = 3) -> str:
    handle = state.stderr
    if handle is None:
        return ""
    try:
        handle.flush()
        handle.seek(0)
        text = handle.read()[-20000:]
    except (OSError, ValueError):
        return ""
    tail = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    if not tail:
        return ""
    redacted = _redact(" | ".join(tail), secrets)
    if redacted is None:
        return ""
    return "; stderr: " + one_line(redacted)


def _connect_reason(leaves: list[BaseException]) -> str:
    for leaf in leaves:
        if isinstance(leaf, ConnectionRefusedError):
            return "connection refused"
        if isinstance(leaf, socket.gaierror):
            return "host name not found"
    for leaf in leaves:
        if isinstance(leaf, OSError) and leaf.errno is not None:
            return one_line(leaf.strerror or str(leaf), 120)
    return one_line(str(leaves[0]), 120) if leaves else "unknown error"


def _http_status_text(status: int) -> str:
    try:
        from http import HTTPStatus

        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def _http_failure(state: _State) -> str | None:
    """The HTTP-level reason a request failed, from the statuses recorded so far.

    Only responses that carry the exchange count: POSTs, and over legacy SSE also the GET of
    the event stream (a 405 for the optional GET stream of Streamable HTTP is no failure).
    """
    for method, status, content_type in reversed(state.http):
        if method != "POST" and state.transport != "sse":
            continue
        if status in (401, 403):
            return (
                f"{_http_status_text(status)} on {state.phase}: the server requires authorization "
                "(pass credentials with a header, e.g. Authorization)"
            )
        if status >= 400 and state.fell_back and state.phase == "start-up":
            return (
                f"{_http_status_text(status)}: no MCP endpoint at this URL "
                "(tried Streamable HTTP, then legacy HTTP+SSE)"
            )
        if status >= 400:
            return f"{_http_status_text(status)} on {state.phase}"
        if method == "POST" and content_type not in ("application/json", "text/event-stream", ""):
            return (
                f"{_http_status_text(status)} with content type {content_type!r} on {state.phase}: "
                "not an MCP endpoint"
            )
    return None


def _explain(spec: ServerSpec, exc: BaseException, state: _State, timeout: float, sdk: _Sdk) -> LiveError | None:
    secrets = spec._secret_values()
    prefix = f"{spec.source}: "

    def done(text: str, with_stderr: bool = False) -> LiveError:
        text = mask(text, secrets)
        return LiveError(one_line(prefix + text + (_stderr_tail(state, secrets) if with_stderr else ""), 600))

    leaves = _leaves(exc)
    httpx = sdk.httpx
    for leaf in leaves:
        if isinstance(leaf, LiveError):
            return leaf
    for leaf in leaves:
        if isinstance(leaf, _Failure):
            return done(str(leaf), with_stderr=True)
    for leaf in leaves:
        if isinstance(leaf, _Garbage):
            return done(
                f"the server wrote non-JSON-RPC output to stdout during {state.phase}: {leaf.snippet} "
                "(stdio servers must write only MCP messages to stdout; logs belong on stderr)"
                if state.transport == "stdio"
                else f"the server sent a message that is not JSON-RPC during {state.phase}: {leaf.snippet}",
                with_stderr=True,
            )
    for leaf in leaves:
        if isinstance(leaf, UnicodeDecodeError):
            return done(f"the server wrote invalid UTF-8 to stdout during {state.phase}", with_stderr=True)
    for leaf in leaves:
        if isinstance(leaf, _RpcError):
            if state.transport != "stdio":
                http = _http_failure(state)
                if http is not None and leaf.code in (-32603, -32601, -32600, -32700):
                    return done(http)
            what = "JSON-RPC error"
            if leaf.code == -32601 and state.phase.startswith("tools/list"):
                what = "JSON-RPC error (the server does not implement tools/list)"
            detail = one_line(str(leaf.message), 200)
            return done(f"the server answered {state.phase} with a {what} {leaf.code}: {detail}")
    for leaf in leaves:
        if isinstance(leaf, _Deadline):
            http = _http_failure(state) if state.transport != "stdio" else None
            if http is not None:
                return done(http)
            return done(f"no answer to {state.phase} within {timeout:g}s (server hung?)", with_stderr=True)
    for leaf in leaves:
        if isinstance(leaf, _Closed):
            if state.transport == "stdio":
                return done(f"the server exited or closed stdout before answering {state.phase}", with_stderr=True)
            http = _http_failure(state)
            return done(http or f"the server closed the connection before answering {state.phase}")
    for leaf in leaves:
        if isinstance(leaf, (httpx.ConnectError, ConnectionRefusedError, socket.gaierror)):
            return done(f"cannot connect ({_connect_reason(leaves)})")
        if isinstance(leaf, httpx.TimeoutException):
            return done(f"no answer to {state.phase} within {timeout:g}s (HTTP timeout)")
        if isinstance(leaf, httpx.HTTPStatusError):
            http = _http_failure(state)
            return done(http or f"{_http_status_text(leaf.response.status_code)} on {state.phase}")
        if isinstance(leaf, httpx.TransportError):
            return done(f"HTTP transport error on {state.phase}: {one_line(str(leaf), 160)}")
    for leaf in leaves:
        if isinstance(leaf, PermissionError) and state.phase == "start-up":
            return done(f"cannot run {spec.command[0]!r}: permission denied" if spec.command else str(leaf))
        if isinstance(leaf, FileNotFoundError) and state.phase == "start-up" and spec.command:
            return done(f"command not found: {spec.command[0]!r}")
        if isinstance(leaf, OSError) and state.phase == "start-up" and spec.command:
            return done(f"cannot start {spec.command[0]!r}: {leaf.strerror or leaf}")
    if state.transport != "stdio":
        http = _http_failure(state)
        if http is not None:
            return done(http)
    exc_type = type(leaves[0]).__name__ if leaves else type(exc).__name__
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return None
    if isinstance(exc, (Exception, BaseExceptionGroup)):
        detail = one_line(str(leaves[0]) if leaves else str(exc), 200)
        return done(f"capture failed during {state.phase}: {exc_type}: {detail}", with_stderr=True)
    return None


def _check_spec(spec: ServerSpec) -> None:
    if bool(spec.command) == bool(spec.url):
        raise LiveError(f"{spec.source}: give either a command (stdio) or a URL (HTTP), not both or neither")
    if spec.url is not None and not re.match(r"^https?://", spec.url, re.IGNORECASE):
        raise LiveError(f"{spec.source}: only http:// and https:// URLs are supported")


def _run(spec: ServerSpec, timeout: float) -> dict:
    missing = missing_sdk_module()
    if missing is not None:
        raise LiveError(
            f"{spec.source}: live capture needs the MCP Python SDK 2.x ({missing}); install toolschema-lint[live]"
        )
    import anyio

    return anyio.run(capture_async, spec, timeout)

