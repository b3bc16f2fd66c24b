"""The check registry (filled by the `@check` decorator) and the rule catalog (rules/*.yaml)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import pkgutil
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterable

from .model import RuleMeta, Severity
from .lazyre import lazy_compile


def _yaml(text: str) -> Any:
    """A rule file parsed (PyYAML, imported here: a run reads `catalog.json` instead)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


SCOPES = ("tool", "server", "run", "result")


@dataclass(frozen=True)
class CheckSpec:
    rule_id: str
    fn: Callable[..., Iterable[Any]]
    scope: str


CHECKS: dict[str, CheckSpec] = {}


def check(rule_id: str, scope: str = "tool") -> Callable:
    """Register a check function for catalog rule `rule_id`.

    scope "tool": fn(tool, ctx); "server": fn(server, ctx); "run": fn(servers, ctx);
    "result": fn(exchange, ctx) for each recorded tools/call, with `ctx.tools_for(exchange)`.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    def deco(fn: Callable) -> Callable:
        if rule_id in CHECKS and CHECKS[rule_id].fn is not fn:
            raise RuntimeError(f"{rule_id} is registered twice")
        CHECKS[rule_id] = CheckSpec(rule_id, fn, scope)
        return fn

    return deco


_DECLARED = lazy_compile(r'^@check\("(TSL\d{3})"', re.M)


@lru_cache(maxsize=1)
def _check_modules() -> dict[str, str]:
    """rule id -> the check module that registers it, read from the modules' source text.

    Reading a dozen files costs a millisecond; importing every module compiles some hundred
    regular expressions (a tenth of a second), which a run of a few selected rules can skip.
    """
    from . import checks

    where: dict[str, str] = {}
    for mod in pkgutil.iter_modules(checks.__path__):
        spec = importlib.util.find_spec(f"{checks.__name__}.{mod.name}")
        source = spec.loader.get_source(spec.name) if spec and spec.loader else None  # type: ignore[union-attr]
        if source is None:  # no source to read (a bytecode-only install): import it to find out
            where[f"?{mod.name}"] = mod.name
            continue
        for rule_id in _DECLARED.findall(source):
            where[rule_id] = mod.name
    return where


def load_checks(rule_ids: Iterable[str] | None = None) -> dict[str, CheckSpec]:
    """The registered checks: of every module, or at least of those that hold `rule_ids`."""
    from . import checks

    where = _check_modules()
    if rule_ids is None:
        modules = set(where.values())
    else:
        modules = {where[r] for r in rule_ids if r in where} | {m for k, m in where.items() if k.startswith("?")}
    for name in sorted(modules):
        importlib.import_module(f"{checks.__name__}.{name}")
    return CHECKS


def _meta(data: dict[str, Any]) -> RuleMeta:
    return RuleMeta(
        id=data["id"],
        name=data["name"],
        severity=Severity.parse(data["severity"]),
        summary=data["summary"],
        message=data["message"],
        rationale=data.get("rationale", ""),
        fix=data.get("fix", ""),
        examples=data.get("examples") or {},
        references=list(data.get("references") or []),
        since=str(data.get("since", "0.1.0")),
        tags=list(data.get("tags") or []),
        options=data.get("options") or {},
        security_severity=data.get("security_severity"),
        default=bool(data.get("default", True)),
        aliases=list(data.get("aliases") or []),
        autofix=_autofix(data),
    )


def _autofix(data: dict[str, Any]) -> str:
    value = str(data.get("autofix", "none"))
    if value not in ("safe", "unsafe", "none"):
        raise ValueError(f"{data.get('id')}: autofix must be safe, unsafe or none, not {value!r}")
    return value


BUILT = "catalog.json"  # the rule files, parsed: read instead of them while its digest matches


def _rule_texts() -> list[str]:
    root = resources.files("toolschema_lint.catalog")
    entries = sorted((e for e in root.iterdir() if e.name.startswith("TSL") and e.name.endswith(".yaml")),
                     key=lambda e: e.name)
    return [e.read_text(encoding="utf-8") for e in entries]


def _digest(texts: list[str]) -> str:
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def catalog_data(texts: list[str] | None = None) -> list[dict[str, Any]]:
    """The parsed rule files, in id order.

    Parsing 137 YAML files takes about 45 ms, a sixth of the start-up of every run; `catalog.json`
    holds the same data with the digest of the files it was made from (`python -m
    toolschema_lint.registry` writes it, and a test fails when it is stale). It is used only while
    that digest matches the files read now, so an edited rule is never read from a stale copy.
    """
    if texts is None:
        from .cache import DERIVED_DIR, derived

        if DERIVED_DIR is not None:  # the command line keeps the parsed catalog between runs
            return derived("catalog", lambda: catalog_data(_rule_texts()))
    texts = _rule_texts() if texts is None else texts
    try:
        built = json.loads(resources.files("toolschema_lint.catalog").joinpath(BUILT).read_text(encoding="utf-8"))
        if isinstance(built, dict) and built.get("digest") == _digest(texts):
            return built["rules"]
    except (OSError, ValueError, KeyError):
        pass
    return [_yaml(text) for text in texts]


def write_built_catalog() -> str:
    """Write `catalog.json` beside the rule files; returns where it went."""
    texts = _rule_texts()
    data = {"digest": _digest(texts), "rules": [_yaml(text) for text in texts]}
    target = str(resources.files("toolschema_lint.catalog").joinpath(BUILT))
    with open(target, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1, sort_keys=False)
        fh.write("\n")
    return target


@lru_cache(maxsize=1)
def catalog() -> dict[str, RuleMeta]:
    """Every rule of the catalog, by id, in id order."""
    return {data["id"]: _meta(data) for data in catalog_data()}


@lru_cache(maxsize=1)
def families() -> dict[str, dict[str, str]]:
    root = resources.files("toolschema_lint.catalog")
    return _yaml(root.joinpath("families.yaml").read_text(encoding="utf-8"))


def raw_entry(rule_id: str) -> dict[str, Any]:
    root = resources.files("toolschema_lint.catalog")
    return _yaml(root.joinpath(f"{rule_id}.yaml").read_text(encoding="utf-8"))


def by_name() -> dict[str, RuleMeta]:
    out: dict[str, RuleMeta] = {}
    for meta in catalog().values():
        out[meta.name] = meta
        for alias in meta.aliases:
            out[alias] = meta
    return out


def option_defaults(meta: RuleMeta) -> dict[str, Any]:
    props = (meta.options or {}).get("properties", {})
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


if __name__ == "__main__":  # python -m toolschema_lint.registry: refresh rules/catalog.json and the lexicon tables
    from .analysis.lexicon import write_built

    print(write_built_catalog())
    print(write_built())
