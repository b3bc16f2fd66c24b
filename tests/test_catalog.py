"""The catalog is the only metadata; checks are the only registrations. They must agree."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from helpers import example_sources, lint_sources
from toolschema_lint.registry import catalog, families, load_checks, raw_entry

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = ("id", "name", "severity", "summary", "message", "rationale", "fix", "examples", "references", "tags")
# input problems (TSL0xx) are raised by the loaders while reading a file; any other rule needs a check
INPUT_FAMILY = "TSL0"
RULES = catalog()


def test_ids_match_filenames_and_are_well_formed() -> None:
    for path in (ROOT / "rules").glob("TSL*.yaml"):
        entry = raw_entry(path.stem)
        assert entry["id"] == path.stem
        assert re.fullmatch(r"TSL\d{3}", entry["id"])
        assert entry["id"][:4] in families()


def test_required_fields_present() -> None:
    for rid in RULES:
        entry = raw_entry(rid)
        missing = [k for k in REQUIRED if k not in entry]
        assert not missing, f"{rid} lacks {missing}"
        assert {"bad", "good"} <= set(entry["examples"]), f"{rid} needs a bad and a good example"
        assert entry["severity"] in ("error", "warning", "info")
        assert not entry["message"].rstrip().endswith("."), f"{rid}: message ends with a period"
        if "security" in entry["tags"] and not rid.startswith("TSL0"):
            assert 0 < float(entry["security_severity"]) <= 10, f"{rid} needs a security_severity"


def test_names_are_kebab_case_and_unique() -> None:
    names = [m.name for m in RULES.values()] + [a for m in RULES.values() for a in m.aliases]
    assert len(names) == len(set(names))
    for n in names:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n), n
        assert not n.startswith(("no-", "disallow-")), n


def test_catalog_matches_registered_checks() -> None:
    checks = load_checks()
    assert set(checks) <= set(RULES), f"checks without a catalog entry: {set(checks) - set(RULES)}"
    missing = {rid for rid in RULES if not rid.startswith(INPUT_FAMILY)} - set(checks)
    assert not missing, f"catalog rules without a check: {missing}"
    for rid, spec in checks.items():
        assert spec.fn.__name__ == RULES[rid].name.replace("-", "_"), f"{rid}: check function must be named after the rule"


def test_each_check_is_found_where_selective_loading_looks_for_it() -> None:
    """A run imports only the check modules of its enabled rules, found by reading their source:
    every registered check must be declared where that reading finds it."""
    from toolschema_lint.registry import _check_modules

    where = _check_modules()
    for rid, spec in load_checks().items():
        assert spec.fn.__module__ == f"toolschema_lint.checks.{where.get(rid)}", f"{rid}: not found by _check_modules"


def test_a_run_of_a_few_rules_imports_only_their_modules() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from toolschema_lint.engine import Engine\n"
        "from toolschema_lint.settings import Settings, resolve\n"
        "engine = Engine(resolve(Settings(select=['TSL201', 'TSL401'])))\n"
        "print(sorted(rid for spec, ctx in engine.by_scope['tool'] for rid in [spec.rule_id]))\n"
        "print(sorted(m for m in sys.modules if m.startswith('toolschema_lint.checks.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "['TSL201', 'TSL401']"
    assert "toolschema_lint.checks.security_text" not in out[1], out[1]


def test_option_schemas_are_valid_and_defaults_validate() -> None:
    for meta in RULES.values():
        if meta.options:
            jsonschema.Draft202012Validator.check_schema(meta.options)
            defaults = {k: v["default"] for k, v in meta.options.get("properties", {}).items() if "default" in v}
            jsonschema.validate(defaults, meta.options)


def test_every_rule_has_a_fixture_folder() -> None:
    for rid in RULES:
        folder = ROOT / "fixtures" / "rules" / rid
        assert folder.is_dir(), f"{rid} has no fixtures/rules/{rid}/"
        names = [p.name for p in folder.iterdir()]
        assert any(n.startswith("bad") and not n.endswith(".expected") for n in names), f"{rid} has no bad fixture"
        assert any(n.startswith("good") for n in names), f"{rid} has no good fixture"


EXAMPLE_RULES = [rid for rid, m in RULES.items() if not rid.startswith("TSL0") and isinstance(m.examples.get("bad"), (dict, list))]


@pytest.mark.parametrize("rid", EXAMPLE_RULES)
def test_catalog_examples(rid: str) -> None:
    """The documented bad example fires the rule; the good one does not."""
    meta, scope = RULES[rid], load_checks()[rid].scope
    if "change-control" in meta.tags:
        pytest.skip("lock rules compare against a lock file: covered by their fixtures and tests")
    bad = lint_sources(example_sources(meta.examples["bad"], scope), select=[rid])
    good = lint_sources(example_sources(meta.examples["good"], scope), select=[rid])
    assert rid in [f.rule_id for f in bad.active()], f"{rid}: bad example does not fire"
    assert rid not in [f.rule_id for f in good.active()], f"{rid}: good example fires"


@pytest.mark.parametrize("rid", EXAMPLE_RULES)
def test_catalog_good_example_is_clean_under_the_default_set(rid: str) -> None:
    """A documented fix is a definition a reviewer would pass: the good example draws no finding from any
    default rule (not only from its own)."""
    meta, scope = RULES[rid], load_checks()[rid].scope
    if "change-control" in meta.tags:
        pytest.skip("lock rules compare against a lock file: covered by their fixtures and tests")
    good = lint_sources(example_sources(meta.examples["good"], scope))
    assert [f"{f.rule_id} {f.message}" for f in good.active()] == [], f"{rid}: the good example is not clean"


def test_built_catalog_is_current() -> None:
    """rules/catalog.json (read instead of the rule files while its digest matches) holds exactly
    what the rule files say. When this fails: python -m toolschema_lint.registry"""
    import json as _json

    import yaml

    from toolschema_lint.registry import BUILT, _digest, _rule_texts

    texts = _rule_texts()
    built = _json.loads((Path(__file__).resolve().parent.parent / "rules" / BUILT).read_text(encoding="utf-8"))
    assert built["digest"] == _digest(texts), "rules/catalog.json is stale: run python -m toolschema_lint.registry"
    assert built["rules"] == [yaml.load(t, Loader=yaml.CSafeLoader) for t in texts]


def test_a_stale_built_catalog_is_not_used() -> None:
    from toolschema_lint.registry import _rule_texts, catalog_data

    texts = _rule_texts()
    edited = [texts[0].replace(texts[0].split("summary:", 1)[1].split("\n", 1)[0], " An edited summary")] + texts[1:]
    assert catalog_data(edited)[0]["summary"] == "An edited summary"
    assert catalog_data(texts)[0]["summary"] != "An edited summary"


def test_a_json_run_imports_neither_yaml_nor_jsonschema_nor_rich(tmp_path: Path) -> None:
    """Start-up is most of a pre-commit run: a JSON run with valid schemas and JSON output reads
    the built catalog (no PyYAML), meta-validates natively (no jsonschema) and needs no rich."""
    import json as _json
    import subprocess
    import sys

    src = tmp_path / "tools.json"
    src.write_text(_json.dumps({"tools": [{"name": "get_weather", "description": "Get the weather.",
                                           "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}))
    code = (
        "import sys\n"
        "from toolschema_lint.cli import main\n"
        f"try:\n    main(['check', {str(src)!r}, '--format', 'json', '--exit-zero', '-o', {str(tmp_path / 'out.json')!r}])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('yaml', 'jsonschema', 'rich') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr
    assert _json.loads((tmp_path / "out.json").read_text())["summary"]["tools"] == 1


def test_jsonschema_rs_is_loaded_only_by_rules_that_validate(tmp_path: Path) -> None:
    """The native validator is a tenth of the start-up: a selection that validates no schema
    (here TSL103, which reads `required`) leaves it unloaded; schema validation loads it."""
    import json as _json
    import subprocess
    import sys

    src = tmp_path / "tools.json"
    src.write_text(_json.dumps({"tools": [{"name": "get_weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                                                          "required": ["x"]}}]}))

    def loaded(select: str) -> str:
        code = (
            "import sys\n"
            "from toolschema_lint.cli import main\n"
            f"try:\n    main(['check', {str(src)!r}, '--select', {select!r}, '--format', 'json', '--exit-zero', '-o', "
            f"{str(tmp_path / 'out.json')!r}])\n"
            "except SystemExit:\n    pass\n"
            "print('jsonschema_rs' in sys.modules)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert _json.loads((tmp_path / "out.json").read_text())["summary"]["findings"] >= (select == "TSL103")
        return out.stdout.strip().splitlines()[-1]

    assert loaded("TSL103") == "False"
    assert loaded("TSL101") == "True"


# rules whose checks report above their declared severity in some cases: their page must say when
RAISING = {"TSL503": "error", "TSL524": "error", "TSL543": "warning", "TSL555": "error", "TSL556": "error",
           "TSL566": "warning"}


@pytest.mark.parametrize("rid", sorted(RAISING))
def test_a_rule_that_raises_its_severity_says_when(rid: str) -> None:
    meta = RULES[rid]
    assert str(meta.severity) != RAISING[rid]
    assert RAISING[rid] in meta.rationale.lower(), f"{rid}: the rationale does not say when it is a {RAISING[rid]}"
