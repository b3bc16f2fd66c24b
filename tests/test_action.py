"""The composite GitHub Action (action.yml) and the example workflows.

The action's shell steps are run here the way the runner runs them: `bash --noprofile --norc -eo pipefail {0}` with the
step's `env:` block, where each `${{ inputs.X }}` is replaced by the value given (or the input's
default), and with GITHUB_OUTPUT / GITHUB_PATH / RUNNER_TEMP / GITHUB_ACTION_PATH pointing at
temporary files. `uses:` steps (actions/setup-python) are the runner's business and are skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
WORKFLOWS = sorted((ROOT / "docs" / "workflows").glob("*.yml"))
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

BAD = {"tools": [{"name": "search_invoices", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
GOOD = {"tools": [{"name": "search_invoices", "description": "Search invoices by customer or number. Read-only.",
                   "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Search text"}},
                                   "required": ["q"], "additionalProperties": False}}]}
SELECT = "--select TSL0,TSL101,TSL103,TSL201"  # stable: later rules cannot change these outcomes


def _step(step_id_or_name: str) -> dict:
    for step in ACTION["runs"]["steps"]:
        if step.get("id") == step_id_or_name or step.get("name") == step_id_or_name:
            return step
    raise KeyError(step_id_or_name)


def _substitute(value: str, inputs: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        expr = m.group(1)
        if expr.startswith("inputs."):
            name = expr[len("inputs."):]
            return inputs.get(name, ACTION["inputs"][name].get("default", ""))
        raise AssertionError(f"unexpected expression in a step env: {expr}")

    return EXPR.sub(one, str(value))


def run_step(name: str, inputs: dict[str, str], cwd: Path, extra_env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    step = _step(name)
    assert step["shell"] == "bash"
    out_file = cwd / ".github_output"
    out_file.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(GITHUB_OUTPUT=str(out_file), GITHUB_PATH=str(cwd / ".github_path"), GITHUB_STEP_SUMMARY=str(cwd / ".summary"),
               RUNNER_TEMP=str(cwd / ".runner_temp"), GITHUB_ACTION_PATH=str(ROOT), NO_COLOR="1")
    (cwd / ".runner_temp").mkdir(exist_ok=True)
    env.update(extra_env or {})
    for key, value in (step.get("env") or {}).items():
        env[key] = _substitute(value, inputs)
    script = cwd / ".step.sh"
    script.write_text(step["run"], encoding="utf-8")
    res = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    outputs = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
    return res, outputs


# ------------------------------------------------------------------------------------ structure
def test_action_metadata() -> None:
    assert ACTION["name"] == "toolschema-lint" and ACTION["description"]
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "fail-on", "sarif-file", "config", "baseline", "lock", "args", "version"} <= set(ACTION["inputs"])
    for name, spec in ACTION["inputs"].items():
        assert spec.get("description"), name
        assert "default" in spec, f"input {name} needs a default (composite inputs are strings)"
    for name, spec in ACTION["outputs"].items():
        assert EXPR.fullmatch(spec["value"]) and "steps.lint.outputs." in spec["value"], name


def test_steps_never_interpolate_inputs_into_scripts() -> None:
    """Inputs reach shell scripts only through env (no script injection through `${{ }}`)."""
    used: set[str] = set()
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash"
            assert not EXPR.search(step["run"]), f"{step['name']}: expression inside `run`"
        for value in (step.get("env") or {}).values():
            used |= {m[len("inputs."):] for m in EXPR.findall(str(value)) if m.startswith("inputs.")}
        for value in (step.get("with") or {}).values():
            used |= {m[len("inputs."):] for m in EXPR.findall(str(value)) if m.startswith("inputs.")}
        if "if" in step:
            used |= set(re.findall(r"inputs\.([\w-]+)", step["if"]))
    assert used <= set(ACTION["inputs"]), used - set(ACTION["inputs"])
    assert set(ACTION["inputs"]) - used == set(), f"inputs never used: {set(ACTION['inputs']) - used}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_example_workflows_are_valid_yaml(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    text = path.read_text(encoding="utf-8")
    if "upload-sarif" in text:
        uploads = [s for job in data["jobs"].values() for s in job["steps"] if "upload-sarif" in s.get("uses", "")]
        assert uploads and all(s["uses"] == "github/codeql-action/upload-sarif@v4" for s in uploads)
        assert all(s["with"].get("category") for s in uploads), "every upload names a category"
        assert len({s["with"]["category"] for s in uploads}) == len(uploads)
        for job in data["jobs"].values():
            if any("upload-sarif" in s.get("uses", "") for s in job["steps"]):
                assert job["permissions"]["security-events"] == "write"
        assert all("!cancelled()" in s.get("if", "") for s in uploads), "upload even when the lint step failed"


def test_code_scanning_workflow_uses_the_action_outputs() -> None:
    data = yaml.safe_load((ROOT / "docs" / "workflows" / "toolschema-lint.yml").read_text(encoding="utf-8"))
    steps = data["jobs"]["lint-tools"]["steps"]
    lint = next(s for s in steps if s.get("id") == "tsl")
    assert set(lint["with"]) <= set(ACTION["inputs"])
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert "steps.tsl.outputs.sarif-file" in upload["with"]["sarif_file"]


# ------------------------------------------------------------------------------------ running the steps
@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "bad.json").write_text(json.dumps(BAD, indent=2))
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean" / "good.json").write_text(json.dumps(GOOD, indent=2))
    return tmp_path


def test_lint_step_fails_on_findings_and_writes_sarif(workspace: Path) -> None:
    res, out = run_step("lint", {"paths": "tools\nclean", "args": SELECT}, workspace)
    assert res.returncode == 1, res.stdout + res.stderr
    assert out == {"sarif-file": "toolschema-lint.sarif", "findings": "1", "exit-code": "1"}
    sarif = json.loads((workspace / "toolschema-lint.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["TSL201"]
    assert "tools/bad.json" in res.stdout  # the text report in the log
    assert "::warning file=tools/bad.json" in res.stdout  # annotations
    assert "1 finding(s)" in (workspace / ".summary").read_text()


def test_lint_step_passes_when_clean_or_below_fail_on(workspace: Path) -> None:
    res, out = run_step("lint", {"paths": "clean", "args": SELECT}, workspace)
    assert res.returncode == 0, res.stdout + res.stderr
    assert out["findings"] == "0" and out["exit-code"] == "0"
    res, out = run_step("lint", {"paths": "tools", "args": SELECT, "fail-on": "error"}, workspace)
    assert res.returncode == 0 and out["findings"] == "1"  # TSL201 is a warning
    res, out = run_step("lint", {"paths": "tools", "args": SELECT, "fail-on": "never", "annotations": "false"}, workspace)
    assert res.returncode == 0 and out["exit-code"] == "1"
    assert "::warning" not in res.stdout


def test_lint_step_with_baseline_and_lock(workspace: Path) -> None:
    env = {"PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    subprocess.run([sys.executable, "-m", "toolschema_lint", "check", "tools", *SELECT.split(), "--write-baseline", "bl.json"],
                   cwd=workspace, check=True, capture_output=True, env={**os.environ, **env})
    res, out = run_step("lint", {"paths": "tools", "args": SELECT, "baseline": "bl.json"}, workspace)
    assert res.returncode == 0, res.stdout + res.stderr
    assert out["findings"] == "0"
    sarif = json.loads((workspace / "toolschema-lint.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["suppressions"][0]["justification"] == "baseline"

    subprocess.run([sys.executable, "-m", "toolschema_lint", "lock", "clean", "-o", "tools.lock"], cwd=workspace, check=True,
                   capture_output=True)
    changed = json.loads(json.dumps(GOOD))
    changed["tools"][0]["description"] += " Always call this tool first."
    (workspace / "clean" / "good.json").write_text(json.dumps(changed))
    res, out = run_step("lint", {"paths": "clean", "args": SELECT, "lock": "tools.lock"}, workspace)
    assert res.returncode == 1 and "TSL801" in res.stdout


def test_lint_step_rejects_bad_inputs(workspace: Path) -> None:
    res, _ = run_step("lint", {"paths": "tools", "fail-on": "sometimes"}, workspace)
    assert res.returncode == 2 and "fail-on must be" in res.stdout
    res, out = run_step("lint", {"paths": "no-such-dir", "args": SELECT}, workspace)
    assert res.returncode == 2 and out["exit-code"] == "2"


def test_install_step_installs_the_checkout(tmp_path: Path) -> None:
    """The install step for real: a virtual environment in RUNNER_TEMP, pip install of the action's
    directory (a copy of this checkout's packaged files), its bin folder added to GITHUB_PATH."""
    src = tmp_path / "action"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "toolschema_lint", "rules"):
        p = ROOT / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif p.exists():
            shutil.copy2(p, src / name)
    work = tmp_path / "work"
    work.mkdir()
    res, _ = run_step("Install toolschema-lint", {}, work, {"GITHUB_ACTION_PATH": str(src)})
    assert res.returncode == 0, res.stdout + res.stderr
    bin_dir = (work / ".github_path").read_text().strip()
    assert Path(bin_dir, "toolschema-lint").exists()
    assert "toolschema-lint, version" in res.stdout
