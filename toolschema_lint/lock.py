"""Tool locks: canonical hashes of what the model sees, the lock file, and tool-set snapshots.

A lock records, per server, each tool's model-visible definition (name, title, description,
inputSchema, outputSchema, annotations), a SHA-256 over its canonical JSON and one hash per field,
plus the server's name and version. Canonical JSON sorts keys, drops formatting whitespace and
writes integral floats as integers, so reformatting a file or reordering keys never changes a hash;
any change to a string (descriptions included) does.

`Snapshot` / `ToolDef` are the shared view of one server's tool set that `lock`, `check --lock`
(checks/change_control.py) and `diff` work on, whether it comes from files, a live server or a lock.
The functions here that read files or servers are the thin I/O edge used by the command line.
"""

from __future__ import annotations

import hashlib
import json
import math
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .model import Server, Tool

LOCK_FORMAT = 1
LOCK_KEY = "toolschema-lock"
#: lock / MCP field name -> `Tool` attribute, in the order changes are reported
FIELDS = (
    ("name", "name"),
    ("title", "title"),
    ("description", "description"),
    ("inputSchema", "input_schema"),
    ("outputSchema", "output_schema"),
    ("annotations", "annotations"),
)
ATTR = dict(FIELDS)
_MAX_DEPTH = 300


class LockError(Exception):
    """A lock file that cannot be read or does not have the lock format (exit code 2)."""


# ---------------------------------------------------------------------------------- canonical form
def normalize(value: Any, depth: int = 0) -> Any:
    """Plain JSON data with string keys; integral floats become ints (1.0 and 1 hash alike)."""
    if depth > _MAX_DEPTH:
        return "<too deep>"
    if isinstance(value, dict):
        return {str(k): normalize(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalize(v, depth + 1) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def canonical_json(value: Any) -> str:
    return json.dumps(normalize(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=True)


def digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()


def definition(tool: Tool) -> dict[str, Any]:
    """The model-visible part of a tool, MCP-shaped; fields the tool lacks are left out."""
    out: dict[str, Any] = {}
    for key, attr in FIELDS:
        value = getattr(tool, attr)
        if value is not None:
            out[key] = normalize(value)
    return out


# ---------------------------------------------------------------------------------- snapshots
@dataclass
class ToolDef:
    """One tool of a snapshot: its definition (MCP field names) and, from files, the `Tool`."""

    name: str
    definition: dict[str, Any]
    version: str | None = None
    tool: Tool | None = None

    @property
    def hash(self) -> str:
        return digest(self.definition)

    def field_hashes(self) -> dict[str, str]:
        return {k: digest(v) for k, v in self.definition.items()}

    def body_hash(self) -> str:
        """Hash of everything but the name (finds renamed tools)."""
        return digest({k: v for k, v in self.definition.items() if k != "name"})


@dataclass
class Snapshot:
    """One server's tool set: from a run (`server` set) or from a lock entry."""

    key: str
    name: str | None = None
    version: str | None = None
    tools: list[ToolDef] = field(default_factory=list)
    server: Server | None = None

    def by_name(self) -> dict[str, ToolDef]:
        out: dict[str, ToolDef] = {}
        for t in self.tools:
            out.setdefault(t.name, t)
        return out


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else (None if value is None else str(value))


def tools_list_pointer(server: Server) -> str:
    """Where the server's tool list is in its first document ("" when unknown or empty)."""
    if not server.tools or not server.documents or server.tools[0].document is not server.documents[0]:
        return ""
    base = server.tools[0].pointer
    base = base[: -len("/function")] if base.endswith("/function") else base
    return base.rsplit("/", 1)[0] if base else ""


def snapshot(server: Server) -> Snapshot:
    tools = [ToolDef(t.display_name, definition(t), _str_or_none(t.version), t) for t in server.tools]
    return Snapshot(server.key, _str_or_none(server.name), _str_or_none(server.version), tools, server)


# ---------------------------------------------------------------------------------- the lock file
def tool_entry(t: ToolDef) -> dict[str, Any]:
    entry: dict[str, Any] = {"definition": t.definition, "fields": t.field_hashes(), "hash": t.hash}
    if t.version is not None:
        entry["version"] = t.version
    return entry


def build_lock(snapshots: Iterable[Snapshot]) -> dict[str, Any]:
    servers: dict[str, Any] = {}
    for snap in snapshots:
        tools: dict[str, Any] = {}
        for t in snap.tools:
            key = t.name
            n = 2
            while key in tools:  # duplicate names: keep every definition
                key, n = f"{t.name}#{n}", n + 1
            tools[key] = tool_entry(t)
        entry: dict[str, Any] = {"tools": tools}
        if snap.name is not None:
            entry["name"] = snap.name
        if snap.version is not None:
            entry["version"] = snap.version
        servers[snap.key] = entry
    return {LOCK_KEY: LOCK_FORMAT, "generator": f"toolschema-lint {__version__}", "servers": servers}


def dump_lock(lock: dict[str, Any]) -> str:
    """Sorted keys and indentation: one line per field, so a reviewed diff shows what changed."""
    return json.dumps(lock, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def is_lock(data: Any) -> bool:
    return isinstance(data, dict) and LOCK_KEY in data


def parse_lock(text: str, source: str) -> dict[str, Any]:
    """Validate a lock file's text; hashes must match the recorded definitions (no hand edits)."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise LockError(f"{source}: not a lock file (invalid JSON: {e})") from None
    if not is_lock(data):
        raise LockError(f"{source}: not a lock file (no {LOCK_KEY!r} key; create one with `toolschema-lint lock`)")
    if data[LOCK_KEY] != LOCK_FORMAT:
        raise LockError(f"{source}: lock format {data[LOCK_KEY]!r} is not supported (expected {LOCK_FORMAT})")
    servers = data.get("servers")
    if not isinstance(servers, dict):
        raise LockError(f"{source}: `servers` must be an object")
    for key, srv in servers.items():
        if not isinstance(srv, dict) or not isinstance(srv.get("tools"), dict):
            raise LockError(f"{source}: server {key!r} must have a `tools` object")
        for name, entry in srv["tools"].items():
            if not isinstance(entry, dict) or not isinstance(entry.get("hash"), str):
                raise LockError(f"{source}: tool {name!r} of server {key!r} has no hash")
            defn = entry.get("definition")
            if defn is not None and (not isinstance(defn, dict) or digest(defn) != entry["hash"]):
                raise LockError(f"{source}: tool {name!r} of server {key!r}: the definition does not match its hash")
            if not isinstance(entry.get("fields", {}), dict):
                raise LockError(f"{source}: tool {name!r} of server {key!r}: `fields` must be an object")
    return data


def read_lock(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LockError(f"{path}: cannot read lock file ({getattr(e, 'strerror', None) or e})") from None
    return parse_lock(text, str(path))


def lock_file_data(path: str | Path) -> dict[str, Any] | None:
    """The parsed lock when `path` is a lock file, None when it is something else (tool definitions)."""
    p = Path(path)
    if not p.is_file():
        return None
    try:
        text = p.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return parse_lock(text, str(path)) if is_lock(data) else None


def lock_snapshots(lock: dict[str, Any]) -> list[Snapshot]:
    out = []
    for key, srv in sorted(lock.get("servers", {}).items()):
        tools = []
        for entry_key, entry in sorted(srv.get("tools", {}).items()):
            defn = entry.get("definition")
            name = defn.get("name") if isinstance(defn, dict) and isinstance(defn.get("name"), str) else entry_key.split("#")[0]
            tools.append(ToolDef(name, defn if isinstance(defn, dict) else {}, _str_or_none(entry.get("version"))))
        out.append(Snapshot(key, _str_or_none(srv.get("name")), _str_or_none(srv.get("version")), tools))
    return out


def locked_entries(lock: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    """Tool name -> lock entry for one locked server (first entry of a duplicated name)."""
    out: dict[str, dict[str, Any]] = {}
    for entry_key, entry in sorted(lock.get("servers", {}).get(key, {}).get("tools", {}).items()):
        defn = entry.get("definition")
        name = defn.get("name") if isinstance(defn, dict) and isinstance(defn.get("name"), str) else entry_key.split("#")[0]
        out.setdefault(name, entry)
    return out


def changed_fields(current: ToolDef, entry: dict[str, Any]) -> list[str]:
    """Fields (MCP names, in report order) whose hash differs from the locked one."""
    if current.hash == entry.get("hash"):
        return []
    locked = entry.get("fields")
    if not isinstance(locked, dict) or not locked:
        defn = entry.get("definition")
        locked = {k: digest(v) for k, v in defn.items()} if isinstance(defn, dict) else {}
    now = current.field_hashes()
    out = [k for k, _ in FIELDS if now.get(k) != locked.get(k)]
    return out or ["definition"]


# ---------------------------------------------------------------------------------- pairing servers
def _basename(key: str) -> str:
    return posixpath.basename(key.rstrip("/")) if "://" not in key else key


def pair(olds: list[Snapshot], news: list[Snapshot]) -> list[tuple[Snapshot | None, Snapshot | None]]:
    """Pair two lists of snapshots: same key, then same server name, then same file name, then
    the last one left on each side. Unpaired snapshots come back with None on the other side."""
    left, right = list(olds), list(news)
    pairs: list[tuple[Snapshot | None, Snapshot | None]] = []

    def take(keyfn: Any) -> None:
        lk: dict[Any, list[Snapshot]] = {}
        rk: dict[Any, list[Snapshot]] = {}
        for s in left:
            lk.setdefault(keyfn(s), []).append(s)
        for s in right:
            rk.setdefault(keyfn(s), []).append(s)
        for k, ls in lk.items():
            rs = rk.get(k, [])
            if k is not None and len(ls) == 1 and len(rs) == 1:
                pairs.append((ls[0], rs[0]))
                left.remove(ls[0])
                right.remove(rs[0])

    take(lambda s: s.key)
    take(lambda s: s.name)
    take(lambda s: _basename(s.key))
    if len(left) == 1 and len(right) == 1:
        pairs.append((left.pop(), right.pop()))
    pairs += [(s, None) for s in left] + [(None, s) for s in right]
    return pairs


# ---------------------------------------------------------------------------------- inputs (I/O edge)
def live_sources(commands: Iterable[str], urls: Iterable[str], timeout: float = 30.0) -> list[Any]:
    """Capture `tools/list` from servers (stdio command lines, split like a shell; HTTP URLs).

    Any server that cannot be read is an InputError (a lock or diff needs every side whole)."""
    from .live_sources import command_line_servers, gather
    from .loaders import InputError

    live = gather(command_line_servers(commands, urls), timeout)
    if live.problems:
        raise InputError("; ".join(live.problems))
    return live.sources


def lock_sources(lock: dict[str, Any]) -> list[Any]:
    """The locked definitions as MCP tools/list sources (to lint what was approved)."""
    from .loaders import Source

    out = []
    for snap in lock_snapshots(lock):
        info = {k: v for k, v in (("name", snap.name), ("version", snap.version)) if v is not None}
        text = json.dumps({"serverInfo": info, "tools": [t.definition for t in snap.tools]}, indent=2, ensure_ascii=False)
        out.append(Source(path=None, display=snap.key, text=text, format="json", server_key=snap.key))
    return out


def load_snapshots(paths: list[str], sources: list[Any] | None = None, select: list[str] | None = None,
                   input_format: str = "auto", exclude: list[str] | None = None) -> tuple[Any, list[Snapshot]]:
    """Load files (and captured sources) the way `check` does; `select` picks rules to run on them
    (none by default). Returns the run result and one snapshot per server."""
    from .engine import lint
    from .settings import Settings, resolve

    settings = Settings(paths=list(paths), select=list(select or []), input_format=input_format, exclude=list(exclude or []))
    settings.extra_sources = list(sources or [])
    settings.keep_tools = True
    result = lint(resolve(settings))
    return result, [snapshot(s) for s in result.servers]
