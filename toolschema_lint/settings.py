"""Configuration: find and merge config, resolve the rule selection, validate per-rule options.

Precedence: command line > config file > defaults. Config lives in `[tool.toolschema-lint]` of
`pyproject.toml`, in `toolschema-lint.toml` / `.toolschema-lint.toml` (top level), or in the file
given with `--config`. Unknown keys and selectors that match no rule are errors.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import RuleMeta, Severity
from .registry import by_name, catalog, option_defaults


class ConfigError(Exception):
    """A usage or configuration error (exit code 2)."""


CONFIG_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "per-tool-ignores",
    "severity",
    "fail-on",
    "format",
    "exclude",
    "input-format",
    "max-file-size",
    "servers",
    "rules",
    "lock",
    "target",
}


@dataclass
class Settings:
    paths: list[str] = field(default_factory=list)
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    per_tool_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    fail_on: str = "warning"
    format: str = "text"
    output: str | None = None
    exit_zero: bool = False
    statistics: bool = False
    quiet: bool = False
    hints: bool = True  # the text and github formats show each rule's fix beside its findings
    input_format: str = "auto"
    exclude: list[str] = field(default_factory=list)
    max_file_size: int = 4 * 1024 * 1024
    targets: list[str] = field(default_factory=list)  # compatibility profiles (TSL3xx); none: each tool's own
    stdin_filename: str | None = None  # the name `-` (standard input) is shown and detected as
    servers: dict[str, str] = field(default_factory=dict)  # glob -> server name (grouping)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # id or name -> options
    config_path: str | None = None
    explain: bool = False
    color: bool | None = None
    extra_sources: list[Any] = field(default_factory=list)  # live captures etc. (loaders.Source)
    jobs: int = 0  # worker processes; 0 = automatic (one per core for large runs), 1 = none
    cache_dir: str | None = None  # the result cache's folder; None: no cache (the command line sets one)
    fingerprints: bool = False  # hash each finding's node while its file is loaded (baselines)
    keep_tools: bool = False  # keep every tool in the run result (lock and diff read them afterwards)
    lock_path: str | None = None  # `check --lock` / config `lock`: read by resolve() into `lock`
    lock: dict[str, Any] | None = None  # the parsed lock file (lock.parse_lock); TSL8 checks compare
    # resolved by `resolve()`
    enabled: set[str] = field(default_factory=set)
    severities: dict[str, Severity] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    file_ignores: list[tuple[str, set[str]]] = field(default_factory=list)
    tool_ignores: list[tuple[str, set[str]]] = field(default_factory=list)
    fail_level: Severity | None = Severity.WARNING  # None: --fail-on never


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest config file from `start` upwards."""
    for d in [start, *start.parents]:
        for name in ("toolschema-lint.toml", ".toolschema-lint.toml"):
            p = d / name
            if p.is_file():
                return p, _read_toml(p)
        pp = d / "pyproject.toml"
        if pp.is_file():
            data = _read_toml(pp)
            table = data.get("tool", {}).get("toolschema-lint")
            if table is not None:
                return pp, {"tool": {"toolschema-lint": table}}
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only when there is a config file to read: a run without one is spared its import

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read config ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def config_table(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    if path.name == "pyproject.toml" or "tool" in data:
        table = data.get("tool", {}).get("toolschema-lint")
        if table is None:
            raise ConfigError(f"{path}: no [tool.toolschema-lint] table")
        return table
    return data


def resolve_selector(selector: str, rules: dict[str, RuleMeta]) -> set[str]:
    """ALL, an id, an id prefix (TSL5, TSL50) or a rule name / alias -> rule ids."""
    s = selector.strip()
    if s.upper() == "ALL":
        return set(rules)
    up = s.upper()
    if up in rules:
        return {up}
    if up.startswith("TSL") and up[3:].isdigit() and len(up) < 6:
        ids = {r for r in rules if r.startswith(up)}
        if ids:
            return ids
    names = by_name()
    if s in names:
        return {names[s].id}
    raise ConfigError(f"selector {selector!r} matches no rule (see `toolschema-lint rules`)")


def _as_list(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ConfigError(f"config key {key!r} must be a string or a list of strings")


def apply_config(settings: Settings, table: dict[str, Any], source: str, cli_set: set[str]) -> None:
    """Fill settings from a config table; keys the command line already set are left alone."""
    unknown = set(table) - CONFIG_KEYS
    if unknown:
        raise ConfigError(f"{source}: unknown config key(s): {', '.join(sorted(unknown))}")
    simple = {
        "select": "select",
        "extend-select": "extend_select",
        "ignore": "ignore",
        "exclude": "exclude",
    }
    for key, attr in simple.items():
        if key in table and attr not in cli_set:
            setattr(settings, attr, _as_list(table[key], key))
    for key, attr in (("fail-on", "fail_on"), ("format", "format"), ("input-format", "input_format")):
        if key in table and attr not in cli_set:
            if not isinstance(table[key], str):
                raise ConfigError(f"{source}: {key} must be a string")
            setattr(settings, attr, table[key])
    if "jobs" in table and "jobs" not in cli_set:
        if not isinstance(table["jobs"], int) or table["jobs"] < 0:
            raise ConfigError(f"{source}: jobs must be a whole number (0 = automatic)")
        settings.jobs = table["jobs"]
    if "max-file-size" in table and "max_file_size" not in cli_set:
        if not isinstance(table["max-file-size"], int) or table["max-file-size"] <= 0:
            raise ConfigError(f"{source}: max-file-size must be a positive number of bytes")
        settings.max_file_size = table["max-file-size"]
    for key, attr in (("per-file-ignores", "per_file_ignores"), ("per-tool-ignores", "per_tool_ignores")):
        if key in table:
            if not isinstance(table[key], dict):
                raise ConfigError(f"{source}: {key} must be a table of glob = [selectors]")
            getattr(settings, attr).update({k: _as_list(v, key) for k, v in table[key].items()})
    if "target" in table and "targets" not in cli_set:
        settings.targets = _as_list(table["target"], "target")
    if "lock" in table and "lock_path" not in cli_set:
        if not isinstance(table["lock"], str):
            raise ConfigError(f"{source}: lock must be a path (string)")
        settings.lock_path = str(Path(source).parent / table["lock"])
    for key in ("severity", "servers", "rules"):
        if key in table:
            if not isinstance(table[key], dict):
                raise ConfigError(f"{source}: {key} must be a table")
            getattr(settings, key).update(table[key])


def resolve(settings: Settings) -> Settings:
    """Compute the enabled rules, severities and options; raise ConfigError on any bad value."""
    rules = catalog()
    if settings.select is None:
        enabled = {r for r, m in rules.items() if m.default}
    else:
        enabled = set().union(*(resolve_selector(s, rules) for s in settings.select)) if settings.select else set()
    for s in settings.extend_select:
        enabled |= resolve_selector(s, rules)
    if settings.lock_path and settings.lock is None:
        from .lock import LockError, read_lock

        try:
            settings.lock = read_lock(settings.lock_path)
        except LockError as e:
            raise ConfigError(str(e)) from None
    if settings.lock is not None:  # a lock means change control is wanted, whatever the selection
        enabled |= {r for r in rules if r.startswith("TSL8")}
    for s in settings.ignore:
        enabled -= resolve_selector(s, rules)
    settings.enabled = enabled
    try:
        settings.fail_level = None if str(settings.fail_on).lower() == "never" else Severity.parse(settings.fail_on)
    except ValueError as e:
        raise ConfigError(f"fail-on: {e}") from None
    if settings.targets:
        from .profiles import names

        unknown = [t for t in settings.targets if t not in names()]
        if unknown:
            raise ConfigError(f"target {', '.join(map(repr, unknown))}: no such profile (profiles: {', '.join(names())})")
    settings.severities = {}
    for sel, level in settings.severity.items():
        try:
            sev = Severity.parse(str(level))
        except ValueError as e:
            raise ConfigError(f"severity.{sel}: {e}") from None
        for rid in resolve_selector(sel, rules):
            settings.severities[rid] = sev
    settings.options = {rid: option_defaults(m) for rid, m in rules.items()}
    for sel, opts in settings.rules.items():
        ids = resolve_selector(sel, rules)
        if len(ids) != 1:
            raise ConfigError(f"rules.{sel}: options must name a single rule")
        rid = ids.pop()
        meta = rules[rid]
        if not isinstance(opts, dict):
            raise ConfigError(f"rules.{sel}: must be a table of options")
        schema = dict(meta.options or {"type": "object", "properties": {}})
        schema.setdefault("additionalProperties", False)
        import jsonschema  # only when the config sets rule options

        try:
            jsonschema.validate(opts, schema)
        except jsonschema.ValidationError as e:
            where = "/".join(str(p) for p in e.absolute_path) or "options"
            raise ConfigError(f"rules.{sel}: {where}: {e.message}") from None
        settings.options[rid] = {**settings.options[rid], **opts}
    settings.file_ignores = [
        (glob, set().union(*(resolve_selector(s, rules) for s in sels))) for glob, sels in settings.per_file_ignores.items()
    ]
    settings.tool_ignores = [
        (glob, set().union(*(resolve_selector(s, rules) for s in sels))) for glob, sels in settings.per_tool_ignores.items()
    ]
    return settings


_NONE: frozenset[str] = frozenset()


def ignored_for(path: str, tool: str | None, settings: Settings) -> set[str] | frozenset[str]:
    if not settings.file_ignores and not settings.tool_ignores:
        return _NONE  # asked once per finding: most runs configure no ignores
    out: set[str] = set()
    for glob, ids in settings.file_ignores:
        if fnmatch.fnmatch(path, glob) or fnmatch.fnmatch(Path(path).name, glob):
            out |= ids
    if tool is not None:
        for glob, ids in settings.tool_ignores:
            if fnmatch.fnmatchcase(tool, glob):
                out |= ids
    return out
