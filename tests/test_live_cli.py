"""Live servers through the command line: `check --server/--url/--client-config`, `dump`.

Servers are the demo servers in tests/live_servers (stdio, and Streamable HTTP on 127.0.0.1,
started here) and, when installed, the real `mcp-server-time` (.ci/pyservers, .ci/node or PATH).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_live import PY_SERVERS_HINT, free_port, http_server, need_bin

from toolschema_lint.cli import main
from toolschema_lint.live_sources import (
    _shown_argv,
    command_line_servers,
    file_stem,
    name_servers,
    read_client_config,
)
from toolschema_lint.loaders.json_ import strip_jsonc
from toolschema_lint.loaders.live import ServerSpec

ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "live_servers"
CONFIGS = ROOT / "fixtures" / "client-configs"
PY = sys.executable
DEMO = f"{PY} {SERVERS / 'demo_server.py'}"
TOKEN = "tok-fixture-secret-31c4"  # the token the fixture configs send; the HTTP demo server demands it
#: every secret written in the fixture configs or passed on the command lines below
SECRETS = [
    TOKEN, "sk-fixture-desktop-5e3c7a", "sk-fixture-argv-77d1", "sk-fixture-mcpjson-2f9d", "sk-fixture-cursor-8a41",
    "sk-fixture-vscode-c0de", "sk-fixture-gemini-4b6e", "sk-cli-env-6620", "Bearer wrong-9f1e",
]  # fmt: skip
CONFIG_FILES = {
    "claude-desktop": CONFIGS / "claude-desktop" / "claude_desktop_config.json",
    "claude-code": CONFIGS / "claude-code" / ".mcp.json",
    "cursor": CONFIGS / "cursor" / ".cursor" / "mcp.json",
    "vscode": CONFIGS / "vscode" / ".vscode" / "mcp.json",
    "gemini": CONFIGS / "gemini" / ".gemini" / "settings.json",
}
BAD_FILE = {"tools": [{"name": "execute", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]}


def cli(*args: str) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    everything = result.stdout + result.stderr
    assert "Traceback" not in everything and "internal error" not in everything
    for secret in SECRETS:
        assert secret not in everything, f"secret {secret!r} leaked"
    return result


def errors(result: Result) -> list[str]:
    return [line.removeprefix("toolschema-lint: error: ") for line in result.stderr.splitlines()
            if line.startswith("toolschema-lint: error: ")]


def findings(result: Result) -> list[tuple]:
    return [(f["path"], f["id"], f["line"], f["column"], f["tool"], f["message"]) for f in json.loads(result.stdout)["findings"]]


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSL_PYTHON", PY)
    monkeypatch.setenv("TSL_LIVE_SERVERS", str(SERVERS))
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("TSL_DEMO_KEY", "TSL_DEMO_TOKEN", "TSL_DEMO_PORT"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def http_demo():
    """The demo server over Streamable HTTP, requiring `Authorization: Bearer TOKEN`; yields its port."""
    pytest.importorskip("mcp", reason="the MCP Python SDK (toolschema-lint[live]) is not installed")
    port = free_port()
    with http_server([PY, str(SERVERS / "demo_server.py"), "--http", str(port), "--token", TOKEN], port):
        yield port


@pytest.fixture(scope="module")
def live_json() -> Result:
    """`check --server demo --format json`, run once for the tests that compare with it."""
    pytest.importorskip("mcp", reason="the MCP Python SDK (toolschema-lint[live]) is not installed")
    return cli("check", "--server", DEMO, "--format", "json", "--select", "ALL")


@pytest.fixture
def bad_file(tmp_path: Path) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BAD_FILE, indent=2))
    return path


# ------------------------------------------------------------------ check --server / --url


def test_check_server_json(live_json: Result) -> None:
    assert live_json.exit_code == 1, live_json.stderr
    found = findings(live_json)
    assert found and {f[0] for f in found} == {"mcp+stdio:demo_server.py"}
    assert all(f[2] > 1 for f in found)  # located in the captured text, not at 1:1
    assert {"add", "forecast", "search.docs", "delete_file", "ping_tool"} >= {f[4] for f in found}
    assert json.loads(live_json.stdout)["summary"]["tools"] == 5
    assert live_json.stderr == ""


def test_check_server_text_and_sarif(tmp_path: Path) -> None:
    text = cli("check", "--server", DEMO, "--select", "TSL210,TSL543")
    assert text.exit_code == 1
    assert "mcp+stdio:demo_server.py:140:11  TSL543  Path parameter 'path' accepts any filesystem path  [delete_file]" in text.stdout
    assert "in 5 tools in 1 server." in text.stdout
    sarif_path = tmp_path / "out.sarif"
    sarif = cli("check", "--server", DEMO, "--select", "TSL210,TSL543", "--format", "sarif", "-o", sarif_path)
    assert sarif.exit_code == 1
    run = json.loads(sarif_path.read_text())["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is True
    locations = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                  r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]}
    assert ("TSL543", "mcp+stdio:demo_server.py", 140) in locations


def test_check_url_with_header(http_demo: int, bad_file: Path) -> None:
    url = f"http://127.0.0.1:{http_demo}/mcp"
    res = cli("check", bad_file, "--url", url, "--header", f"Authorization: Bearer {TOKEN}", "--format", "json")
    assert res.exit_code == 1
    assert {f[0] for f in findings(res)} == {url, str(bad_file)}
    assert json.loads(res.stdout)["summary"]["tools"] == 6
    wrong = cli("check", "--url", url, "--header", "Authorization: Bearer wrong-9f1e")
    assert wrong.exit_code == 2
    assert errors(wrong) == [(f"{url}: HTTP 401 Unauthorized on initialize: the server requires authorization "
                             "(pass credentials with a header, e.g. Authorization)")]


def test_dump_then_check_gives_the_same_findings(live_json: Result, tmp_path: Path) -> None:
    out = tmp_path / "tools.json"
    dumped = cli("dump", "--server", DEMO, "-o", out)
    assert dumped.exit_code == 0 and dumped.stdout == ""
    assert dumped.stderr == f"toolschema-lint: wrote 5 tools of mcp+stdio:demo_server.py to {out}\n"
    data = json.loads(out.read_text())
    assert data["serverInfo"] == {"name": "demo-server", "version": "1.2.3"} and len(data["tools"]) == 5
    from_file = cli("check", out, "--format", "json", "--select", "ALL")
    assert from_file.exit_code == 1
    assert [f[1:] for f in findings(from_file)] == [f[1:] for f in findings(live_json)]
    lines = out.read_text().splitlines()
    for f in findings(from_file):  # real line numbers: the pointed-at line exists
        assert 1 < f[2] <= len(lines)


def test_dump_counts_the_servers_it_will_capture(tmp_path: Path) -> None:
    """A server listed twice is captured once and a disabled one not at all: one server left is
    written to the file (or stdout) asked for, not to a folder of one file."""
    out = tmp_path / "out.json"
    twice = cli("dump", "--server", DEMO, "--server", DEMO, "-o", out)
    assert twice.exit_code == 0, twice.output
    assert out.is_file() and len(json.loads(out.read_text())["tools"]) == 5
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "demo": {"command": PY, "args": [str(SERVERS / "demo_server.py")]},
        "off": {"command": PY, "args": [str(SERVERS / "demo_server.py")], "disabled": True}}}))
    to_stdout = cli("dump", "--client-config", config, "--allow-start")
    assert to_stdout.exit_code == 0, to_stdout.output
    assert len(json.loads(to_stdout.stdout)["tools"]) == 5


def test_dump_several_servers(http_demo: int, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{http_demo}/mcp"
    many = ["--url", url, "--header", f"Authorization: Bearer {TOKEN}", "--url", f"http://127.0.0.1:{free_port()}/mcp"]
    usage = cli("dump", *many)
    assert usage.exit_code == 2
    assert errors(usage) == ["2 servers to dump: give -o DIR/ to write one file each"]
    res = cli("dump", *many, "-o", tmp_path / "dumps")
    assert res.exit_code == 2  # the second URL refuses connections
    assert sorted(p.name for p in (tmp_path / "dumps").iterdir()) == [f"127.0.0.1-{http_demo}-mcp.json"]
    assert "cannot connect (connection refused)" in errors(res)[0]


# ------------------------------------------------------------------ failure paths


def test_failures_are_one_line_and_other_sources_are_still_linted(bad_file: Path) -> None:
    refused = f"http://127.0.0.1:{free_port()}/mcp"
    res = cli("check", bad_file, "--format", "json",
              "--server", f"{DEMO} --fail crash", "--server", f"{DEMO} --fail garbage",
              "--server", f"{DEMO} --fail list-error", "--url", refused)
    assert res.exit_code == 2
    assert {f[0] for f in findings(res)} == {str(bad_file)}  # the file is still reported
    assert any(f[1] == "TSL201" for f in findings(res))
    assert errors(res) == [
        ("mcp+stdio:demo_server.py: the server exited or closed stdout before answering initialize; "
        "stderr: demo-server: cannot open configuration file"),
        ("mcp+stdio:demo_server.py~2: the server wrote non-JSON-RPC output to stdout during initialize: "
        "'demo-server 1.2.3 starting...' (stdio servers must write only MCP messages to stdout; logs belong on stderr)"),
        "mcp+stdio:demo_server.py~3: the server answered tools/list with a JSON-RPC error -32603: tool registry unavailable",
        f"{refused}: cannot connect (connection refused)",
    ]


def test_hang_with_short_timeout(bad_file: Path, tmp_path: Path) -> None:
    sarif_path = tmp_path / "out.sarif"
    res = cli("check", bad_file, "--server", f"{DEMO} --fail hang", "--timeout", "1", "--format", "sarif", "-o", sarif_path)
    assert res.exit_code == 2
    assert errors(res) == ["mcp+stdio:demo_server.py: no answer to initialize within 1s (server hung?)"]
    run = json.loads(sarif_path.read_text())["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert any(r["ruleId"] == "TSL201" for r in run["results"])


def test_failure_in_text_format_goes_to_stderr(bad_file: Path) -> None:
    res = cli("check", bad_file, "--server", "no-such-mcp-server-xyz --stdio")
    assert res.exit_code == 2
    assert "TSL201" in res.stdout and "no-such" not in res.stdout
    assert res.stderr == ("toolschema-lint: error: mcp+stdio:no-such-mcp-server-xyz: command not found: "
                          "'no-such-mcp-server-xyz' (not on PATH)\n")


def test_missing_sdk(bad_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    res = cli("check", bad_file, "--server", DEMO, "--url", "http://127.0.0.1:1/mcp")
    assert res.exit_code == 2 and "TSL201" in res.stdout
    assert errors(res) == [("2 live servers not read: live capture needs the MCP Python SDK; "
                           "install it with: pip install 'toolschema-lint[live]'")]


def test_secrets_from_the_command_line_are_masked() -> None:
    script = "import os, sys; sys.stderr.write('bad key ' + os.environ['DEMO_API_KEY'] + '\\n'); sys.exit(1)"
    res = cli("check", "--server", f"{PY} -c \"{script}\"", "--env", "DEMO_API_KEY=sk-cli-env-6620")
    assert res.exit_code == 2
    assert errors(res)[0].endswith("stderr: bad key ***")


@pytest.mark.parametrize(("args", "message"), [
    (["--env", "NOEQUALS", "--server", "x"], "--env 'NOEQUALS': expected KEY=VALUE"),
    (["--header", "Bearer abc", "--url", "http://127.0.0.1:1/"], "--header 'Bearer abc': expected \"Name: value\""),
    (["--env", "A=1"], "--env and --cwd apply to --server (client-config servers use the config's own env and cwd)"),
    (["--header", "A: 1"], "--header applies to --url (client-config servers use the config's own headers)"),
    (["--server", "python 'unbalanced"], "--server \"python 'unbalanced\": No closing quotation"),
    (["--client-config", "missing.json"], "missing.json: client config not found"),
])
def test_usage_errors(args: list[str], message: str) -> None:
    res = cli("check", *args)
    assert res.exit_code == 2
    assert errors(res) == [message]


# ------------------------------------------------------------------ client configs


def test_all_five_formats_contact_http_and_gate_stdio(http_demo: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSL_DEMO_PORT", str(http_demo))
    for flavour, path in CONFIG_FILES.items():
        res = cli("check", "--client-config", path, "--format", "json", "--select", "TSL543")
        assert res.exit_code == 2, (flavour, res.stderr)
        problems = errors(res)
        skipped = [p for p in problems if ": not started: stdio server from " in p]
        assert skipped and all(p.endswith("starting a program runs code on this machine: pass --allow-start to allow it")
                               for p in skipped), flavour
        assert skipped[0].startswith(f"mcp+stdio:demo: not started: stdio server from {path} (would run: "), flavour
        if flavour == "claude-desktop":  # no HTTP server in this one
            assert json.loads(res.stdout)["summary"]["tools"] == 0
            assert "--api-key '***'" in skipped[1]
            continue
        assert {f[0] for f in findings(res)} == {"mcp+http:remote"}, flavour
        assert json.loads(res.stdout)["summary"]["tools"] == 5
    vscode = cli("check", "--client-config", CONFIG_FILES["vscode"], "--select", "TSL543")
    assert ("mcp+stdio:prompted: not checked: cannot resolve ${input:demo-key} in env DEMO_API_KEY (an input the client "
            f"would prompt for; toolschema-lint does not prompt) [{CONFIG_FILES['vscode']}]") in errors(vscode)


def test_allow_start(http_demo: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSL_DEMO_PORT", str(http_demo))
    res = cli("check", "--client-config", CONFIG_FILES["claude-desktop"], "--client-config", CONFIG_FILES["gemini"],
              "--allow-start", "--format", "json", "--select", "TSL543")
    assert res.exit_code == 2
    assert errors(res) == [
        "mcp+stdio:leaky: the server exited or closed stdout before answering initialize; stderr: rejected key ***"]
    assert sorted({f[0] for f in findings(res)}) == ["mcp+http:remote", "mcp+stdio:demo", "mcp+stdio:demo~2"]
    assert json.loads(res.stdout)["summary"]["tools"] == 15


def test_unset_variable_keeps_the_server_from_being_contacted() -> None:
    res = cli("check", "--client-config", CONFIG_FILES["cursor"], "--allow-start", "--select", "TSL543")
    assert res.exit_code == 2
    assert errors(res) == [
        (f"mcp+http:remote: not checked: cannot resolve ${{env:TSL_DEMO_PORT}} in url (TSL_DEMO_PORT is not set) "
        f"[{CONFIG_FILES['cursor']}]")]
    assert "mcp+stdio:demo:" in res.stdout


def test_config_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSL_DEMO_PORT", "8123")
    demo = str(SERVERS / "demo_server.py")
    parsed = {flavour: {s.display: s for s in read_client_config(str(path))} for flavour, path in CONFIG_FILES.items()}
    assert list(parsed["claude-desktop"]) == ["mcp+stdio:demo", "mcp+stdio:leaky"]
    desktop = parsed["claude-desktop"]["mcp+stdio:demo"].spec
    assert (desktop.command, desktop.env, desktop.cwd) == ([PY, demo], {"DEMO_API_KEY": "sk-fixture-desktop-5e3c7a"}, None)
    code = parsed["claude-code"]
    assert code["mcp+stdio:demo"].spec.env == {"DEMO_API_KEY": "sk-fixture-mcpjson-2f9d"}  # ${VAR:-default}
    assert code["mcp+stdio:demo"].spec.cwd == str(CONFIGS / "claude-code")
    assert code["mcp+http:remote"].spec.headers == {"Authorization": f"Bearer {TOKEN}"}
    for flavour in ("claude-code", "cursor", "vscode", "gemini"):
        assert parsed[flavour]["mcp+http:remote"].spec.url == "http://127.0.0.1:8123/mcp", flavour
        assert parsed[flavour]["mcp+stdio:demo"].needs_start
    assert parsed["cursor"]["mcp+stdio:demo"].spec.cwd == str(CONFIGS / "cursor")  # the workspace, not .cursor
    gemini = parsed["gemini"]["mcp+stdio:demo"].spec
    assert (gemini.command, gemini.cwd) == ([PY, "demo_server.py"], str(SERVERS))  # bare $VAR in Gemini settings
    assert parsed["vscode"]["mcp+stdio:prompted"].problem is not None
    assert parsed["vscode"]["mcp+stdio:demo"].problem is None


def test_config_placeholders_and_shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSL_SET", "value")
    monkeypatch.delenv("TSL_UNSET", raising=False)
    (tmp_path / "vars.env").write_text("# comment\nexport FROM_FILE='file value'\nOTHER=x\n")
    config = {"mcpServers": {
        "a": {"command": "srv", "args": ["${TSL_UNSET:-fallback}", "${env:TSL_SET}", "$TSL_SET", "${userHome}"],
              "envFile": "vars.env", "env": {"OTHER": "y"}},
        "b": {"command": "srv", "args": ["${TSL_UNSET}"]},
        "c": {"url": "https://example.invalid/mcp", "type": "websocket"},
        "d": {"command": "srv", "url": "https://example.invalid/mcp"},
        "e": {"note": "nothing to start"},
        "f": "not an object",
        "g": {"command": "srv", "disabled": True},
        "h": {"command": "srv", "args": ["${workspaceFolder}", "${command:pickFile}"]},
    }}
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(config))
    servers = {s.display.split(":", 1)[1]: s for s in read_client_config(str(path))}
    assert servers["a"].spec.command == ["srv", "fallback", "value", "$TSL_SET", str(Path.home())]  # no bare $ here
    assert servers["a"].spec.env == {"FROM_FILE": "file value", "OTHER": "y"}
    assert servers["b"].problem == f"cannot resolve ${{TSL_UNSET}} in args[0] (TSL_UNSET is not set) [{path}]"
    assert servers["c"].problem == f"transport 'websocket' is not supported (stdio, http or sse) [{path}]"
    assert servers["d"].problem == f"the entry has both \"command\" and \"url\" and no \"type\" [{path}]"
    assert servers["e"].problem == f"the entry has neither \"command\" nor \"url\" [{path}]"
    assert servers["f"].problem == f"the entry is not an object [{path}]"
    assert servers["g"].disabled
    assert servers["h"].problem == f"cannot resolve ${{command:pickFile}} in args[1] (unknown variable) [{path}]"
    res = cli("check", "--client-config", path)  # starts nothing: "a" needs --allow-start, the rest are unusable
    assert res.exit_code == 2
    assert [e.split(":", 2)[1] for e in errors(res)] == ["a", "b", "c", "d", "e", "f", "h"]
    assert f"toolschema-lint: mcp+stdio:g: disabled in {path}; not checked\n" in res.stderr
    (tmp_path / "empty.json").write_text('{"servers": {}}')
    empty = cli("check", "--client-config", tmp_path / "empty.json")
    assert empty.exit_code == 0 and empty.stderr == f"toolschema-lint: {tmp_path / 'empty.json'}: lists no MCP servers\n"
    assert cli("dump", "--client-config", tmp_path / "empty.json").exit_code == 2


def test_jsonc() -> None:
    def parsed(text: str):
        stripped = strip_jsonc(text)
        return json.loads(stripped[0] if stripped else text)

    text = '// top\n{"a": "http://x//y", /* c */ "b": [1, 2,], "c": "/* kept */",}\n'
    assert parsed(text) == {"a": "http://x//y", "b": [1, 2], "c": "/* kept */"}
    assert parsed('{"q": "say \\"hi\\", // not a comment"}') == {"q": 'say "hi", // not a comment'}
    # a comment between a trailing comma and its closer, as client configs have it
    assert parsed('{"servers": {"a": {"url": "http://x"}, // the a server\n}}') == {"servers": {"a": {"url": "http://x"}}}


def test_names_and_masks() -> None:
    same = command_line_servers(["srv --a", "srv --a", "srv --b"], [])
    kept, notes = name_servers(same)
    assert [s.display for s in kept] == ["mcp+stdio:srv", "mcp+stdio:srv~2"]
    assert notes == ["mcp+stdio:srv: listed again on the command line; captured once"]
    assert kept[1].spec.source == "mcp+stdio:srv~2"
    spec = ServerSpec(command=["x"], env={"K": "envsecret-1234"})
    shown = _shown_argv(["srv", "--token", "abc", "--password=hunter2", "postgres://u:pw@db/x", "envsecret-1234", "-v"], spec)
    assert shown == "srv --token '***' '--password=***' postgres://db/x '***' -v"
    # an env value that occurs inside a word of the command is not a value there: the command is shown as written
    spec = ServerSpec(command=["npx"], env={"MEMORY_FILE": "server"})
    shown = _shown_argv(["npx", "-y", "@modelcontextprotocol/server-memory", "--mode=server"], spec)
    assert shown == "npx -y @modelcontextprotocol/server-memory '--mode=***'"
    assert file_stem("mcp+stdio:@scope/server-x") == "scope-server-x"
    assert file_stem("https://mcp.example.com:8443/v1/mcp?key=***") == "mcp.example.com-8443-v1-mcp"


def test_lock_uses_the_shared_capture(tmp_path: Path) -> None:
    res = cli("lock", "--server", "no-such-mcp-server-xyz", "-o", tmp_path / "x.lock")
    assert res.exit_code == 2
    assert errors(res) == ["mcp+stdio:no-such-mcp-server-xyz: command not found: 'no-such-mcp-server-xyz' (not on PATH)"]


# ------------------------------------------------------------------ real server


@pytest.mark.parametrize("fmt", ["json", "sarif", "text", "github"])
def test_real_mcp_server_time(fmt: str) -> None:
    pytest.importorskip("mcp", reason="the MCP Python SDK (toolschema-lint[live]) is not installed")
    binary = need_bin("mcp-server-time", PY_SERVERS_HINT)
    res = cli("check", "--server", binary, "--format", fmt, "--select", "ALL", "--exit-zero")
    assert res.exit_code == 0 and res.stderr == ""
    if fmt == "json":
        data = json.loads(res.stdout)
        assert data["summary"]["tools"] >= 2
        assert {f["path"] for f in data["findings"]} == {"mcp+stdio:mcp-server-time"}
        assert {"get_current_time", "convert_time"} <= {f["tool"] for f in data["findings"]}
    elif fmt == "sarif":
        run = json.loads(res.stdout)["runs"][0]
        assert run["results"] and run["invocations"][0]["executionSuccessful"] is True
        assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == {
            "mcp+stdio:mcp-server-time"}
    elif fmt == "text":
        assert "mcp+stdio:mcp-server-time:" in res.stdout and "tools in 1 server." in res.stdout
    else:
        assert res.stdout.startswith("::") and "file=mcp+stdio%3Amcp-server-time,line=" in res.stdout
