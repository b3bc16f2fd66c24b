"""Every rule's fixtures: `bad.*` files match their golden `.expected`, `good.*` files are clean.

Golden format: one finding per line, `line:col ID message`. Rewrite with `pytest --update-golden`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tomllib

from toolschema_lint.engine import lint
from toolschema_lint.settings import Settings, apply_config, resolve

RULES_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
INPUT_SUFFIXES = {".json", ".yaml", ".yml", ".jsonl"}
# a registry tool is NAME.schema.json plus these companions; it is one case, linted through the schema
COMPANION_SUFFIXES = (".policy.yaml", ".examples.jsonl")


def _companions(path: Path) -> list[Path]:
    if not path.name.endswith(".schema.json"):
        return []
    stem = path.name[: -len(".schema.json")]
    return [p for p in (path.with_name(stem + s) for s in COMPANION_SUFFIXES) if p.exists()]


def _is_companion(f: Path) -> bool:
    return any(f.name.endswith(s) and f.with_name(f.name[: -len(s)] + ".schema.json").exists() for s in COMPANION_SUFFIXES)


def _cases() -> list[tuple[str, Path]]:
    out = []
    for rule_dir in sorted(p for p in RULES_DIR.iterdir() if p.is_dir()):
        for f in sorted(rule_dir.iterdir()):
            if f.suffix in INPUT_SUFFIXES and f.name.startswith(("bad", "good")) and not _is_companion(f):
                out.append((rule_dir.name, f))
    return out


CASES = _cases()


def _render(result, rule: str, path: Path) -> str:
    """Findings in the case's file; for a registry schema also those in its companions (file-prefixed)."""
    companions = {p.name for p in _companions(path)}
    out = []
    for f in result.active():
        name = Path(f.path).name
        if f.rule_id == rule and (name == path.name or name in companions):
            prefix = "" if name == path.name else f"{name}:"
            # messages naming another file of the case's folder name it without the folder (which
            # is shown relative to wherever the tests run from)
            message = f.message.replace(f.path[: len(f.path) - len(name)], "")
            out.append(f"{prefix}{f.line}:{f.column} {f.rule_id} {message}\n")
    return "".join(out)


@pytest.mark.parametrize("rule,path", CASES, ids=[f"{r}/{p.name}" for r, p in CASES])
def test_fixture(rule: str, path: Path, update_golden: bool) -> None:
    # `definitions.*` in the folder are linted alongside every case (e.g. the tools a result belongs to)
    companions = [str(p) for p in sorted(path.parent.glob("definitions.*")) if not p.name.endswith(".expected")]
    settings = Settings(paths=[str(path), *companions], select=[rule])
    config = path.parent / "config.toml"  # per-rule options the fixtures exercise
    if config.exists():
        apply_config(settings, tomllib.loads(config.read_text()), str(config), {"select"})
    result = lint(resolve(settings))
    got = _render(result, rule, path)
    if path.name.startswith("good"):
        assert got == "", f"{path.name} should be clean for {rule}, got:\n{got}"
        return
    assert got, f"{path.name} should trigger {rule}"
    golden = path.with_name(path.name + ".expected")
    if update_golden or not golden.exists():
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")
