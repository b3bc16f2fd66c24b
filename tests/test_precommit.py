"""The pre-commit hooks, run by the real `pre-commit` against a throw-away project repository.

`pre-commit try-repo` installs the hook repository with pip into its own environment (the
dependencies come from PyPI) and runs the hook on the project's files. The hook repository is this
checkout when its packaged files are committed and clean; otherwise a temporary commit of the
working tree, so the test checks the code as it is on disk either way (pre-commit itself would use
HEAD plus modified tracked files only, missing new modules).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PACKAGED = ["pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "toolschema_lint", "rules"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BAD = {"tools": [{"name": "search_invoices", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
GOOD = {"tools": [{"name": "search_invoices", "description": "Search invoices by customer or number. Read-only.",
                   "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Search text"}},
                                   "required": ["q"], "additionalProperties": False}}]}
# A stable selection, so that rules added later cannot turn the good project red.
CONFIG = '[tool.toolschema-lint]\nselect = ["TSL0", "TSL101", "TSL103", "TSL201"]\n'


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "VIRTUAL_ENV"))}
    env.update(PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", PIP_DISABLE_PIP_VERSION_CHECK="1",
               NO_COLOR="1")
    # pre-commit must come from the test's environment, not from whatever is first on PATH
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _init(repo: Path, env: dict[str, str]) -> None:
    _git(repo, "init", "-q", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot", env=env)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout if its packaged files are committed and unmodified, else a commit of the working tree."""
    env = _env(tmp_path_factory.mktemp("unused"))
    try:
        dirty = _git(ROOT, "status", "--porcelain", "--untracked-files=all", "--", *PACKAGED, env=env).strip()
        tracked = _git(ROOT, "ls-files", "--", ".pre-commit-hooks.yaml", env=env).strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        dirty, tracked = "not a git checkout", ""
    if not dirty and tracked:
        return ROOT
    snap = tmp_path_factory.mktemp("hook-repo")
    for name in PACKAGED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, snap / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        elif src.exists():
            shutil.copy2(src, snap / name)
    _init(snap, env)
    return snap


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One PRE_COMMIT_HOME for the module: the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _project(path: Path, files: dict[str, str], env: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    _init(path, env)
    return path


def _try_repo(project: Path, repo: Path, hook: str, home: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(repo), hook, "--all-files", "--verbose"]
    return subprocess.run(cmd, cwd=project, env=_env(home), capture_output=True, text=True, timeout=900)


def test_hooks_file_shape() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and hooks
    ids = [h["id"] for h in hooks]
    assert ids[0] == "toolschema-lint" and len(ids) == len(set(ids))
    for h in hooks:
        assert {"id", "name", "entry", "language"} <= set(h)
        assert h["language"] == "python" and h["entry"].startswith("toolschema-lint check")
        assert h["types_or"] == ["json", "yaml"] and h["minimum_pre_commit_version"] >= "2.9.0"
        assert h.get("require_serial") is True


def test_hook_fails_on_a_bad_file_and_passes_on_a_good_one(tmp_path: Path, hook_repo: Path, home: Path) -> None:
    pytest.importorskip("pre_commit")
    env = _env(home)
    not_tools = json.dumps({"name": "web", "version": "1.0.0", "private": True})  # package.json: not matched by `files`
    bad = _project(tmp_path / "bad", {"tools.json": json.dumps(BAD, indent=2), "package.json": not_tools,
                                      "pyproject.toml": CONFIG}, env)
    good = _project(tmp_path / "good", {"tools.json": json.dumps(GOOD, indent=2), "package.json": not_tools,
                                        "pyproject.toml": CONFIG}, env)

    res = _try_repo(bad, hook_repo, "toolschema-lint", home)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "TSL201" in out and "tools.json" in out and "Failed" in out
    assert "TSL003" not in out  # package.json is not a tool file: `files` keeps it out

    res = _try_repo(good, hook_repo, "toolschema-lint", home)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "Passed" in out


def test_sarif_hook_writes_a_report(tmp_path: Path, hook_repo: Path, home: Path) -> None:
    pytest.importorskip("pre_commit")
    env = _env(home)
    project = _project(tmp_path / "p", {"mcp/weather.tools.json": json.dumps(BAD), "pyproject.toml": CONFIG}, env)
    res = _try_repo(project, hook_repo, "toolschema-lint-sarif", home)
    assert res.returncode == 1, res.stdout + res.stderr
    sarif = json.loads((project / "toolschema-lint.sarif").read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["TSL201"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mcp/weather.tools.json"
