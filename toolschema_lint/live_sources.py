"""Live servers for the command line: which servers to reach, and their captures as lint sources.

Servers come from `--server` / `--url` (with `--env`, `--cwd`, `--header`) and from the client
configs users already have (`--client-config`): Claude Desktop `claude_desktop_config.json`,
Claude Code `.mcp.json`, Cursor `.cursor/mcp.json`, VS Code `.vscode/mcp.json` (or a settings
file with an `mcp` object), Gemini CLI `settings.json`. All are JSON with comments allowed.

Each server becomes one in-memory `Source` named `mcp+stdio:NAME`, the URL (command line) or
`mcp+http:NAME` (config), so cross-server rules see the servers side by side. A server that
cannot be read gives one line naming it; the caller reports it and goes on with the others.

Placeholders in configs (command, args, env values, envFile, cwd, url, header values) are
expanded from this process's environment: `${env:NAME}`, `${NAME}`, `${NAME:-default}`, plus
`${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}` / `${/}`;
bare `$NAME` only in Gemini CLI settings. A placeholder that cannot be resolved (an unset
variable, `${input:...}` which a client would prompt for, anything else) keeps its server from
being contacted. Stdio servers from configs are started only when the caller allows it.
Environment and header values never appear in messages.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .loaders.json_ import strip_jsonc
from .settings import ConfigError
from .lazyre import lazy_compile

STDIO, HTTP = "stdio", "http"
#: transports a config may name; both HTTP kinds are tried by the capture (Streamable HTTP, then SSE)
_TYPES = {"stdio": STDIO, "http": HTTP, "sse": HTTP, "streamable-http": HTTP, "streamablehttp": HTTP}
_SECRET_OPTION = lazy_compile(r"(key|token|secret|passw|pwd|auth|credential|cookie|session)", re.IGNORECASE)
_PLACEHOLDER = lazy_compile(r"\$\{([^{}$]*)\}")
_BARE = lazy_compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
#: where configs put an HTTP server's address (Gemini CLI: httpUrl = Streamable HTTP, url = SSE)
_URL_KEYS = ("httpUrl", "url", "serverUrl")
_MAX_CONFIG_BYTES = 4 * 1024 * 1024


@dataclass
class LiveServer:
    """One server to capture: how to reach it, where it was listed, and what keeps it from being read."""

    spec: Any  # loaders.live.ServerSpec
    kind: str  # STDIO or HTTP
    origin: str | None = None  # the client config it comes from; None for --server / --url
    display: str = ""  # source name in findings and messages
    shown: str = ""  # what would run / be contacted, secrets masked (for messages)
    problem: str | None = None  # set when the entry cannot be used as it is
    disabled: bool = False

    @property
    def needs_start(self) -> bool:
        """A stdio server from a config: starting it runs a program the user did not name here."""
        return self.kind == STDIO and self.origin is not None


@dataclass
class Gathered:
    sources: list[Any] = field(default_factory=list)  # loaders.Source, one per captured server
    captures: list[tuple[str, str]] = field(default_factory=list)  # (display, dump text), same order
    problems: list[str] = field(default_factory=list)  # servers not read: one line each (exit 2)
    notes: list[str] = field(default_factory=list)  # informational lines (disabled, listed twice)


# ---------------------------------------------------------------------------------- command line
def parse_env(items: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--env {key.strip() or item[:20]!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


def parse_headers(items: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        name = name.strip()
        if not sep or not name or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
            raise ConfigError(f"--header {name[:40]!r}: expected \"Name: value\"")
        out[name] = value.strip()
    return out


def command_line_servers(commands: Iterable[str], urls: Iterable[str], env: dict[str, str] | None = None,
                         cwd: str | None = None, headers: dict[str, str] | None = None) -> list[LiveServer]:
    """`--server` command lines (split like a shell) and `--url`s; env/cwd go to every command,
    headers to every URL."""
    from .loaders.live import ServerSpec

    out = []
    for command in commands:
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise ConfigError(f"--server {command[:60]!r}: {e}") from None
        if not argv:
            raise ConfigError("--server: empty command")
        spec = ServerSpec(command=argv, env=dict(env or {}), cwd=cwd)
        out.append(LiveServer(spec, STDIO, shown=_shown_argv(argv, spec)))
    for url in urls:
        spec = ServerSpec(url=url, headers=dict(headers or {}))
        out.append(LiveServer(spec, HTTP, shown=spec.source))
    for server in out:
        server.display = server.spec.source
    return out


# ---------------------------------------------------------------------------------- client configs
def _flavour(path: Path, data: dict[str, Any]) -> str:
    name, parent = path.name.lower(), path.parent.name.lower()
    if parent == ".vscode" or "servers" in data or "mcp" in data:
        return "vscode"
    if parent == ".cursor":
        return "cursor"
    if parent == ".gemini" or name == "settings.json":
        return "gemini"
    if name == "claude_desktop_config.json":
        return "claude-desktop"
    return "mcp-json"


def _workspace(path: Path) -> Path:
    folder = path.resolve().parent
    return folder.parent if folder.name.lower() in (".vscode", ".cursor", ".gemini") else folder


def read_client_config(path_text: str) -> list[LiveServer]:
    """The servers a client config lists, in file order. A file that cannot be read or has no
    server list is a ConfigError; a single unusable entry only sets that server's `problem`."""
    path = Path(path_text)
    try:
        if path.stat().st_size > _MAX_CONFIG_BYTES:
            raise ConfigError(f"{path_text}: client config is larger than {_MAX_CONFIG_BYTES // 1024 // 1024} MiB")
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{path_text}: client config not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path_text}: cannot read client config ({getattr(e, 'strerror', None) or e})") from None
    try:
        stripped = strip_jsonc(text)  # comments and trailing commas are usual in client configs
        data = json.loads(stripped[0] if stripped else text)
    except ValueError as e:
        raise ConfigError(f"{path_text}: client config is not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path_text}: client config must be a JSON object")
    if isinstance(data.get("mcp"), dict) and "servers" in data["mcp"]:
        data = data["mcp"]  # VS Code user settings: "mcp": {"servers": {...}}
    entries = data.get("mcpServers", data.get("servers"))
    if not isinstance(entries, dict):
        raise ConfigError(f"{path_text}: no MCP server list in this client config "
                          "(expected an \"mcpServers\" or \"servers\" object)")
    ctx = _Context(path_text, _flavour(path, data), _workspace(path))
    return [ctx.server(str(name), entry) for name, entry in entries.items()]


class _Context:
    """Reads one config's entries: placeholder expansion and per-entry checks."""

    def __init__(self, origin: str, flavour: str, workspace: Path) -> None:
        self.origin, self.flavour, self.workspace = origin, flavour, workspace

    def expand(self, text: str, where: str, unresolved: list[str]) -> str:
        def one(m: re.Match) -> str:
            body = m.group(1)
            value = self._variable(body)
            if value is None:
                unresolved.append(f"{m.group(0)} in {where} {self._why(body)}")
                return m.group(0)
            return value

        text = _PLACEHOLDER.sub(one, text)
        if self.flavour == "gemini":
            def bare(m: re.Match) -> str:
                value = os.environ.get(m.group(1))
                if value is None:
                    unresolved.append(f"{m.group(0)} in {where} ({m.group(1)} is not set)")
                    return m.group(0)
                return value

            text = _BARE.sub(bare, text)
        return text

    def _variable(self, body: str) -> str | None:
        fixed = {
            "userHome": str(Path.home()),
            "workspaceFolder": str(self.workspace),
            "workspaceFolderBasename": self.workspace.name,
            "pathSeparator": os.sep,
            "/": os.sep,
        }
        if body in fixed:
            return fixed[body]
        if body.startswith("env:"):
            return os.environ.get(body[4:])
        name, sep, default = body.partition(":-")
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            value = os.environ.get(name)
            return value if value or not sep else default
        return None

    @staticmethod
    def _why(body: str) -> str:
        if body.startswith("input:"):
            return "(an input the client would prompt for; toolschema-lint does not prompt)"
        name = body[4:] if body.startswith("env:") else body.partition(":-")[0]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return f"({name} is not set)"
        return "(unknown variable)"

    def server(self, name: str, entry: Any) -> LiveServer:
        from .loaders.live import ServerSpec

        server = LiveServer(ServerSpec(command=[name], name=name), STDIO, origin=self.origin, display=f"mcp+stdio:{name}")
        unresolved: list[str] = []
        try:
            if not isinstance(entry, dict):
                raise _EntryError("the entry is not an object")
            server.disabled = entry.get("disabled") is True
            if self._kind(entry) == STDIO:
                self._stdio(server, entry, unresolved)
            else:
                self._http(server, entry, unresolved)
        except _EntryError as e:
            server.problem = f"{e} [{self.origin}]"
            return server
        if unresolved:
            more = f" (and {len(unresolved) - 1} more)" if len(unresolved) > 1 else ""
            server.problem = f"cannot resolve {unresolved[0]}{more} [{self.origin}]"
        return server

    @staticmethod
    def _kind(entry: dict[str, Any]) -> str:
        declared = entry.get("type", entry.get("transport"))
        if declared is not None:
            kind = _TYPES.get(declared.lower()) if isinstance(declared, str) else None
            if kind is None:
                raise _EntryError(f"transport {str(declared)[:40]!r} is not supported (stdio, http or sse)")
            return kind
        has_command = "command" in entry
        has_url = any(k in entry for k in _URL_KEYS)
        if has_command and has_url:
            raise _EntryError("the entry has both \"command\" and \"url\" and no \"type\"")
        if not has_command and not has_url:
            raise _EntryError("the entry has neither \"command\" nor \"url\"")
        return STDIO if has_command else HTTP

    def _stdio(self, server: LiveServer, entry: dict[str, Any], unresolved: list[str]) -> None:
        command = _string(entry.get("command"), "command")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
            raise _EntryError("\"args\" must be a list of strings")
        raw_argv = [command, *(str(a) for a in args)]
        env = self._env(entry, unresolved)
        argv = [self.expand(a, "command" if i == 0 else f"args[{i - 1}]", unresolved) for i, a in enumerate(raw_argv)]
        cwd = entry.get("cwd")
        if cwd is not None:
            cwd = str(self._path(self.expand(_string(cwd, "cwd"), "cwd", unresolved)))
        elif self.flavour != "claude-desktop":
            cwd = str(self.workspace)
        spec = server.spec
        spec.command, spec.env, spec.cwd = argv, env, cwd
        server.shown = _shown_argv(raw_argv, spec)

    def _http(self, server: LiveServer, entry: dict[str, Any], unresolved: list[str]) -> None:
        from .loaders.live import ServerSpec, redact_url

        server.kind, server.display = HTTP, f"mcp+http:{server.spec.name}"
        key = next((k for k in _URL_KEYS if k in entry), None)
        if key is None:
            raise _EntryError("an HTTP server needs a \"url\"")
        url = self.expand(_string(entry[key], key), "url", unresolved)
        headers = entry.get("headers", {})
        if not isinstance(headers, dict):
            raise _EntryError("\"headers\" must be an object")
        expanded = {str(k): self.expand(_scalar(v, f"headers.{k}"), f"header {k}", unresolved) for k, v in headers.items()}
        name = server.spec.name
        server.spec = ServerSpec(url=url, headers=expanded, name=name)
        server.shown = redact_url(url)

    def _env(self, entry: dict[str, Any], unresolved: list[str]) -> dict[str, str]:
        env: dict[str, str] = {}
        env_file = entry.get("envFile")
        if env_file is not None:
            file = self._path(self.expand(_string(env_file, "envFile"), "envFile", unresolved))
            try:
                env.update(read_env_file(file))
            except OSError as e:
                raise _EntryError(f"envFile {str(env_file)[:80]!r} cannot be read ({e.strerror or e})") from None
        raw = entry.get("env", {})
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise _EntryError("\"env\" must be an object")
        for key, value in raw.items():
            if value is None:
                continue
            env[str(key)] = self.expand(_scalar(value, f"env.{key}"), f"env {key}", unresolved)
        return env

    def _path(self, text: str) -> Path:
        p = Path(text).expanduser()
        return p if p.is_absolute() else self.workspace / p


class _EntryError(Exception):
    """Internal: why one config entry cannot be used (no values in the message)."""


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _EntryError(f"\"{what}\" must be a non-empty string")
    return value


def _scalar(value: Any, what: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise _EntryError(f"\"{what[:60]}\" must be a string")


def read_env_file(path: Path) -> dict[str, str]:
    """A dotenv file: `KEY=VALUE` lines, `export ` prefix, `#` comments, optional quotes."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key.strip()] = value
    return out


# ---------------------------------------------------------------------------------- what is shown
def _shown_argv(argv: list[str], spec: Any) -> str:
    """A command line for messages: env/header values, URL credentials and the values of
    secret-looking options masked."""
    from .loaders.live import SECRET_PLACEHOLDER, redact_url

    secrets = set(spec._secret_values())
    words: list[str] = []
    hide_next = False
    for word in argv:
        shown = word
        if hide_next and not word.startswith("-"):
            shown = SECRET_PLACEHOLDER
        elif "=" in word and _SECRET_OPTION.search(word.partition("=")[0]):
            shown = word.partition("=")[0] + "=" + SECRET_PLACEHOLDER
        elif "://" in word:
            shown = redact_url(word) if "@" in word or "?" in word else word
        elif word in secrets:
            shown = SECRET_PLACEHOLDER  # a value passed as a word of its own
        elif "=" in word and word.partition("=")[2] in secrets:
            shown = word.partition("=")[0] + "=" + SECRET_PLACEHOLDER
        hide_next = word.startswith("-") and "=" not in word and bool(_SECRET_OPTION.search(word))
        # the command is shown as written: an env value that happens to occur inside a word (`server` in
        # `@modelcontextprotocol/server-memory`) is not masked there; values are masked where they are values
        words.append(shown)
    text = shlex.join(words)
    return text if len(text) <= 200 else text[:197] + "..."


def _relabel(message: str, spec: Any, display: str) -> str:
    """A capture error names `spec.source`; config servers are named after their key instead."""
    prefix = spec.source + ": "
    return display + ": " + message[len(prefix):] if message.startswith(prefix) else f"{display}: {message}"


# ---------------------------------------------------------------------------------- capturing
def _same_target(a: LiveServer, b: LiveServer) -> bool:
    x, y = a.spec, b.spec
    return (x.command, x.url, x.env, x.cwd, x.headers) == (y.command, y.url, y.env, y.cwd, y.headers)


def name_servers(servers: list[LiveServer]) -> tuple[list[LiveServer], list[str]]:
    """Unique source names: a server listed twice with the same target is captured once; a
    different server under a name already taken gets `~2`, `~3`, ... appended."""
    kept: list[LiveServer] = []
    notes: list[str] = []
    taken: dict[str, LiveServer] = {}
    for server in servers:
        first = taken.get(server.display)
        if first is not None and server.problem is None and first.problem is None and _same_target(first, server):
            where = f"in {server.origin}" if server.origin else "on the command line"
            notes.append(f"{server.display}: listed again {where}; captured once")
            continue
        if first is not None:
            n = 2
            while f"{server.display}~{n}" in taken:
                n += 1
            server.display = f"{server.display}~{n}"
            if server.kind == STDIO:
                server.spec.name = server.display.removeprefix("mcp+stdio:")
        taken[server.display] = server
        kept.append(server)
    return kept, notes


def gather(servers: list[LiveServer], timeout: float, allow_start: bool = False, notes: Iterable[str] = ()) -> Gathered:
    """Capture every usable server, one after the other; everything else becomes a problem line."""
    from .loaders import Source
    from .loaders.live import LiveError, mask, one_line, capture, dump_text, missing_sdk_module

    out = Gathered(notes=list(notes))
    servers, renamed = name_servers(servers)
    out.notes += renamed
    todo: list[LiveServer] = []
    for server in servers:
        if server.disabled:
            out.notes.append(f"{server.display}: disabled in {server.origin}; not checked")
        elif server.problem is not None:
            out.problems.append(f"{server.display}: not checked: {server.problem}")
        elif server.needs_start and not allow_start:
            out.problems.append(
                f"{server.display}: not started: stdio server from {server.origin} (would run: {server.shown}); "
                "starting a program runs code on this machine: pass --allow-start to allow it")
        else:
            todo.append(server)
    if todo and missing_sdk_module() is not None:
        out.problems.append(f"{len(todo)} live server{'s' if len(todo) != 1 else ''} not read: live capture needs "
                            "the MCP Python SDK; install it with: pip install 'toolschema-lint[live]'")
        return out
    for server in todo:
        try:
            result = capture(server.spec, timeout)
        except LiveError as e:
            out.problems.append(_relabel(str(e), server.spec, server.display))
            continue
        except Exception as e:  # noqa: BLE001 - one server must not end the run
            detail = mask(f"{type(e).__name__}: {e}", server.spec._secret_values())
            out.problems.append(f"{server.display}: capture failed: {one_line(detail)}")
            continue
        text = dump_text(result)
        out.captures.append((server.display, text))
        out.sources.append(Source(path=None, display=server.display, text=text, format="json", server_key=server.display))
    return out


def collect_servers(commands: Iterable[str] = (), urls: Iterable[str] = (), env: Iterable[str] = (),
                    cwd: str | None = None, headers: Iterable[str] = (),
                    client_configs: Iterable[str] = ()) -> tuple[list[LiveServer], list[str]]:
    """Every server the command line asks for, in order: --server, --url, then each client config;
    and notes on configs that list none."""
    commands, urls = list(commands), list(urls)
    env_map, header_map = parse_env(env), parse_headers(headers)
    if (env_map or cwd is not None) and not commands:
        raise ConfigError("--env and --cwd apply to --server (client-config servers use the config's own env and cwd)")
    if header_map and not urls:
        raise ConfigError("--header applies to --url (client-config servers use the config's own headers)")
    if cwd is not None and not Path(cwd).is_dir():
        raise ConfigError(f"--cwd {cwd}: no such directory")
    servers = command_line_servers(commands, urls, env_map, cwd, header_map)
    notes = []
    for config in client_configs:
        listed = read_client_config(config)
        if not listed:
            notes.append(f"{config}: lists no MCP servers")
        servers.extend(listed)
    return servers, notes


# ---------------------------------------------------------------------------------- dump files
def file_stem(display: str) -> str:
    """A file name stem for a source name: `mcp+stdio:github` -> `github`, a URL -> host-port-path."""
    for prefix in ("mcp+stdio:", "mcp+http:"):
        if display.startswith(prefix):
            display = display[len(prefix):]
            break
    else:
        display = re.sub(r"^[a-z][a-z0-9+.-]*://", "", display, flags=re.IGNORECASE).split("?")[0]
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", display).strip("-.")
    return stem[:100] or "server"


def dump_paths(displays: list[str], folder: Path) -> list[Path]:
    """One `.json` file per source in `folder`, names made unique with -2, -3, ..."""
    used: set[str] = set()
    out = []
    for display in displays:
        stem = file_stem(display)
        name, n = stem, 2
        while name.lower() in used:
            name, n = f"{stem}-{n}", n + 1
        used.add(name.lower())
        out.append(folder / f"{name}.json")
    return out
