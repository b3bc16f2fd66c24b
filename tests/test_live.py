"""Tests for the live tools/list capture (toolschema_lint.loaders.live).

Servers are started by the tests themselves, on 127.0.0.1 only, and stopped afterwards.
Real third-party servers are looked up in the project-local CI install dirs
(.ci/node for npm, .ci/pyservers for PyPI) and then on PATH; missing ones are skipped.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from toolschema_lint.loaders.live import LiveError, ServerSpec, capture, dump_text, redact_url

ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "live_servers"
DEMO = str(SERVERS / "demo_server.py")
RAW = str(SERVERS / "raw_server.py")
PY = sys.executable
PY_SERVERS_HINT = "python -m venv .ci/pyservers && .ci/pyservers/bin/pip install mcp-server-time mcp-server-fetch"


def sdk() -> None:
    pytest.importorskip("mcp", reason="the MCP Python SDK (toolschema-lint[live]) is not installed")


def find_bin(name: str) -> str | None:
    for folder in (ROOT / ".ci" / "node" / "node_modules" / ".bin", ROOT / ".ci" / "pyservers" / "bin"):
        candidate = folder / name
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


def need_bin(name: str, install: str) -> str:
    path = find_bin(name)
    if path is None:
        pytest.skip(f"{name} is not installed ({install})")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def http_server(argv: list[str], port: int, env: dict[str, str] | None = None):
    """Run an HTTP MCP server in its own process group until the block ends."""
    proc = subprocess.Popen(
        argv,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"test server did not start: {argv}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@functools.lru_cache(maxsize=1)
def _advertised_json() -> str:
    spec = importlib.util.spec_from_file_location("tsl_live_demo_server", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return json.dumps(module.advertised_tools())


def advertised() -> list[dict]:
    """The demo server's own view of its tool list (its SDK serialisation, in-process)."""
    return json.loads(_advertised_json())


def failure(spec: ServerSpec, timeout: float = 10.0) -> str:
    with pytest.raises(LiveError) as info:
        capture(spec, timeout=timeout)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(spec.source + ": ")
    return message


# ------------------------------------------------------------------ plain helpers (no SDK needed)


def test_source_names() -> None:
    assert ServerSpec(command=["mcp-server-time"]).source == "mcp+stdio:mcp-server-time"
    assert ServerSpec(command=["npx", "-y", "@modelcontextprotocol/server-memory"]).source == (
        "mcp+stdio:@modelcontextprotocol/server-memory"
    )
    assert ServerSpec(command=["uvx", "mcp-server-fetch"]).source == "mcp+stdio:mcp-server-fetch"
    assert ServerSpec(command=["python", "-m", "my_server", "--x"]).source == "mcp+stdio:my_server"
    assert ServerSpec(command=["node", "/opt/srv/dist/index.js"]).source == "mcp+stdio:index.js"
    assert ServerSpec(command=["/usr/local/bin/srv", "a"], name="mine").source == "mcp+stdio:mine"


def test_source_strips_url_secrets() -> None:
    spec = ServerSpec(url="https://alice:hunter2@mcp.example.com:8443/mcp?api_key=abc123&mode=x#frag")
    assert spec.source == "https://mcp.example.com:8443/mcp?api_key=***&mode=***"
    assert "hunter2" not in spec.source and "abc123" not in spec.source
    assert redact_url("http://[::1]:9000/mcp") == "http://[::1]:9000/mcp"


def test_dump_text() -> None:
    result = {"serverInfo": {"name": "s"}, "protocolVersion": "2025-11-25", "tools": [{"name": "é"}]}
    text = dump_text(result)
    assert text.endswith("}\n") and "é" in text and json.loads(text) == result
    assert text == json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def test_importing_the_module_does_not_import_the_sdk() -> None:
    code = "import sys, toolschema_lint.loaders.live; print('mcp' in sys.modules)"
    out = subprocess.check_output([PY, "-c", code], cwd=ROOT, text=True)
    assert out.strip() == "False"


def test_missing_sdk_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp.client.stdio", None)  # makes the import fail
    message = failure(ServerSpec(command=["mcp-server-time"]))
    assert "install toolschema-lint[live]" in message


def test_spec_needs_exactly_one_target() -> None:
    assert "either a command" in failure(ServerSpec())
    assert "only http:// and https://" in failure(ServerSpec(url="ftp://example.com/x"))


# ------------------------------------------------------------------ demo server (SDK based)


def test_stdio_lists_what_the_server_advertises(tmp_path: Path) -> None:
    sdk()
    log = tmp_path / "methods.txt"
    result = capture(ServerSpec(command=[PY, DEMO, "--page-size", "2", "--method-log", str(log)]))
    assert result["tools"] == advertised()
    assert [t["name"] for t in result["tools"]] == ["add", "forecast", "search.docs", "delete_file", "ping_tool"]
    assert result["serverInfo"] == {"name": "demo-server", "version": "1.2.3"}
    assert result["protocolVersion"] == "2025-11-25"
    assert "outputSchema" in result["tools"][1]
    # 5 tools in pages of 2 = 3 tools/list requests; never a tools/call.
    methods = log.read_text().split()
    assert methods == ["initialize", "notifications/initialized", "tools/list", "tools/list", "tools/list"]


def test_streamable_http_with_pagination(tmp_path: Path) -> None:
    sdk()
    log = tmp_path / "methods.txt"
    port = free_port()
    argv = [PY, DEMO, "--http", str(port), "--page-size", "2", "--method-log", str(log)]
    with http_server(argv, port) as base:
        result = capture(ServerSpec(url=base + "/mcp"))
    assert result["tools"] == advertised()
    assert result["serverInfo"]["name"] == "demo-server"
    assert log.read_text().split().count("tools/list") == 3
    assert "tools/call" not in log.read_text()


def test_legacy_sse_fallback() -> None:
    sdk()
    port = free_port()
    with http_server([PY, DEMO, "--sse", str(port)], port) as base:
        assert capture(ServerSpec(url=base + "/sse"))["tools"] == advertised()
        message = failure(ServerSpec(url=base + "/nothing-here"))
    assert message.endswith("HTTP 404 Not Found: no MCP endpoint at this URL (tried Streamable HTTP, then legacy HTTP+SSE)")


def test_http_401_and_headers() -> None:
    sdk()
    port = free_port()
    with http_server([PY, DEMO, "--http", str(port), "--token", "tok-3141592653"], port) as base:
        url = base + "/mcp"
        message = failure(ServerSpec(url=url))
        wrong = failure(ServerSpec(url=url, headers={"Authorization": "Bearer not-the-token-2718"}))
        good = capture(ServerSpec(url=url, headers={"Authorization": "Bearer tok-3141592653"}))
    expected = (
        f"{url}: HTTP 401 Unauthorized on initialize: the server requires authorization "
        "(pass credentials with a header, e.g. Authorization)"
    )
    assert message == expected
    assert wrong == expected and "2718" not in wrong
    assert good["tools"] == advertised()


# ------------------------------------------------------------------ exactness


def test_tools_are_kept_exactly_as_sent() -> None:
    """Odd and invalid tool objects survive byte-for-byte at the JSON level (order, extras, types)."""
    sdk()
    pages = [json.loads(line) for line in (SERVERS / "raw_pages.txt").read_text("utf-8").splitlines() if line]
    wire = pages[0]["tools"] + pages[1]["tools"]
    result = capture(ServerSpec(command=[PY, RAW, "exact"]))
    assert json.dumps(result["tools"]) == json.dumps(wire)  # key order included
    assert result["serverInfo"] == {"name": "raw-server", "version": "0.0.1", "x-vendor": {"build": 7}}
    assert result["protocolVersion"] == "2025-06-18"
    assert "\U000e0041" in result["tools"][0]["description"]  # tag characters kept
    assert result["tools"][0]["zzUnknownField"] == 42
    assert result["tools"][-2:] == ["not-an-object", 17]

    # The SDK's typed result model would have rejected this page, or dropped fields.
    from mcp_types import ListToolsResult, Tool
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        ListToolsResult.model_validate(pages[0])
    extra = {"name": "t", "inputSchema": {"type": "object"}, "zzUnknownField": 1}
    assert "zzUnknownField" not in Tool.model_validate(extra).model_dump(by_alias=True, exclude_none=True)


def test_server_requests_are_answered(tmp_path: Path) -> None:
    sdk()
    pong = tmp_path / "pong.json"
    result = capture(ServerSpec(command=[PY, RAW, "chatty", str(pong)]))
    assert len(result["tools"]) == 6
    assert json.loads(pong.read_text()) == {"jsonrpc": "2.0", "id": "srv-1", "result": {}}


def test_capture_inside_a_running_event_loop() -> None:
    sdk()

    async def main() -> dict:
        return capture(ServerSpec(command=[PY, RAW, "exact"]))

    assert len(asyncio.run(main())["tools"]) == 6


# ------------------------------------------------------------------ failure paths


def test_command_not_found() -> None:
    sdk()
    message = failure(ServerSpec(command=["no-such-mcp-server-xyz", "--flag"]))
    assert message == "mcp+stdio:no-such-mcp-server-xyz: command not found: 'no-such-mcp-server-xyz' (not on PATH)"
    message = failure(ServerSpec(command=["/nonexistent/dir/server"]))
    assert message == "mcp+stdio:server: command not found: '/nonexistent/dir/server'"


def test_missing_working_directory() -> None:
    sdk()
    message = failure(ServerSpec(command=[PY, DEMO], cwd="/nonexistent/dir"))
    assert message == "mcp+stdio:demo_server.py: working directory does not exist: /nonexistent/dir"


def test_server_crashes_at_start() -> None:
    sdk()
    message = failure(ServerSpec(command=[PY, DEMO, "--fail", "crash"]))
    assert message == (
        "mcp+stdio:demo_server.py: the server exited or closed stdout before answering initialize; "
        "stderr: demo-server: cannot open configuration file"
    )


def test_server_hangs_at_start() -> None:
    sdk()
    started = time.monotonic()
    message = failure(ServerSpec(command=[PY, DEMO, "--fail", "hang"]), timeout=1)
    assert message == "mcp+stdio:demo_server.py: no answer to initialize within 1s (server hung?)"
    assert time.monotonic() - started < 8


def test_server_hangs_on_tools_list() -> None:
    sdk()
    message = failure(ServerSpec(command=[PY, RAW, "hang-list"]), timeout=1.5)
    assert message == "mcp+stdio:raw_server.py: no answer to tools/list within 1.5s (server hung?)"


def test_server_prints_garbage() -> None:
    sdk()
    message = failure(ServerSpec(command=[PY, DEMO, "--fail", "garbage"]))
    assert message == (
        "mcp+stdio:demo_server.py: the server wrote non-JSON-RPC output to stdout during initialize: "
        "'demo-server 1.2.3 starting...' (stdio servers must write only MCP messages to stdout; "
        "logs belong on stderr)"
    )


def test_tools_list_json_rpc_error() -> None:
    sdk()
    message = failure(ServerSpec(command=[PY, DEMO, "--fail", "list-error"]))
    assert message == (
        "mcp+stdio:demo_server.py: the server answered tools/list with a JSON-RPC error -32603: "
        "tool registry unavailable"
    )


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("loop", "the server repeated a nextCursor on tools/list (page 2) (pagination loop)"),
        ("no-tools", "the tools/list result has no 'tools' array"),
    ],
)
def test_malformed_tools_list(mode: str, expected: str) -> None:
    sdk()
    assert failure(ServerSpec(command=[PY, RAW, mode])) == f"mcp+stdio:raw_server.py: {expected}"


def test_http_connection_refused() -> None:
    sdk()
    url = f"http://127.0.0.1:{free_port()}/mcp"
    assert failure(ServerSpec(url=url)) == f"{url}: cannot connect (connection refused)"


def test_http_json_rpc_error() -> None:
    sdk()
    port = free_port()
    with http_server([PY, DEMO, "--http", str(port), "--fail", "list-error"], port) as base:
        message = failure(ServerSpec(url=base + "/mcp"))
    assert message == (
        f"{base}/mcp: the server answered tools/list with a JSON-RPC error -32603: tool registry unavailable"
    )


def test_http_server_hangs() -> None:
    """A listener that never answers: the request times out instead of hanging."""
    sdk()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        started = time.monotonic()
        message = failure(ServerSpec(url=url), timeout=1.5)
    assert message == f"{url}: no answer to initialize within 1.5s (server hung?)"
    assert time.monotonic() - started < 6


def test_secrets_never_appear_in_messages() -> None:
    sdk()
    script = "import os, sys; sys.stderr.write('bad key ' + os.environ['API_KEY'] + '\\n'); sys.exit(1)"
    message = failure(ServerSpec(command=[PY, "-c", script], env={"API_KEY": "sk-live-0123456789"}))
    assert "sk-live-0123456789" not in message
    assert message.endswith("stderr: bad key ***")


def test_descendants_are_killed(tmp_path: Path) -> None:
    """A grandchild left behind by a server that exits cleanly is killed with its group."""
    sdk()
    pidfile = tmp_path / "orphan.pid"
    capture(ServerSpec(command=[PY, RAW, "orphan", str(pidfile)]))
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("the server's grandchild survived the capture")


# ------------------------------------------------------------------ real servers


def test_real_mcp_server_time() -> None:
    sdk()
    binary = need_bin("mcp-server-time", PY_SERVERS_HINT)
    result = capture(ServerSpec(command=[binary]))
    assert result["serverInfo"]["name"] == "mcp-time"
    names = {tool["name"] for tool in result["tools"]}
    assert {"get_current_time", "convert_time"} <= names
    assert all(tool["inputSchema"]["type"] == "object" for tool in result["tools"])


def test_real_mcp_server_fetch() -> None:
    sdk()
    binary = need_bin("mcp-server-fetch", PY_SERVERS_HINT)
    result = capture(ServerSpec(command=[binary]))
    assert "fetch" in {tool["name"] for tool in result["tools"]}
    fetch = next(tool for tool in result["tools"] if tool["name"] == "fetch")
    assert "url" in fetch["inputSchema"]["properties"]


def test_real_server_everything_stdio_and_http_agree() -> None:
    sdk()
    binary = need_bin(
        "mcp-server-everything", "npm install --prefix .ci/node @modelcontextprotocol/server-everything"
    )
    over_stdio = capture(ServerSpec(command=[binary, "stdio"]))
    port = free_port()
    with http_server([binary, "streamableHttp"], port, env={"PORT": str(port)}) as base:
        over_http = capture(ServerSpec(url=base + "/mcp"))
    assert over_stdio["serverInfo"] == over_http["serverInfo"]
    assert json.dumps(over_stdio["tools"]) == json.dumps(over_http["tools"])
    names = [tool["name"] for tool in over_stdio["tools"]]
    assert len(names) >= 10 and "echo" in names
