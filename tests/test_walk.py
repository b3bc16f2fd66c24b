"""Walking folders: files that hold no tool definitions are skipped quietly, hidden files and folders alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = json.loads((ROOT / "examples" / "mcp-tools-list.json").read_text(encoding="utf-8"))


def _repo(tmp: Path) -> Path:
    """An ordinary repository: package.json, tsconfig.json (with comments), a pre-commit config, a workflow,
    and one real tool file."""
    (tmp / ".github" / "workflows").mkdir(parents=True)
    (tmp / "src").mkdir()
    (tmp / "package.json").write_text('{"name": "x", "version": "1.0.0", "scripts": {"test": "jest"}}\n')
    (tmp / "tsconfig.json").write_text('{\n  // comment\n  "compilerOptions": {"strict": true},\n}\n')
    (tmp / ".pre-commit-config.yaml").write_text("repos:\n- repo: https://example.org/hooks\n  rev: v1\n")
    (tmp / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs: {}\n")
    (tmp / "src" / "tools.json").write_text(json.dumps(TOOLS))
    return tmp


def _check(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolschema_lint", "check", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_a_folder_walk_skips_files_without_tools_quietly(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = _check(".", "--format", "json", "--explain", cwd=repo)
    out = json.loads(proc.stdout)
    paths = {f["path"] for f in out["findings"]}
    assert paths == {"src/tools.json"}, paths
    assert "TSL003" not in {f["id"] for f in out["findings"]}
    assert out["summary"]["files"] == 1
    # --explain says what was skipped and why
    assert "package.json: skipped (found in a folder): no tool definitions" in proc.stderr
    assert "tsconfig.json: skipped" in proc.stderr
    # hidden files and folders are not walked at all
    assert ".pre-commit-config.yaml" not in proc.stderr and "workflows" not in proc.stderr


def test_a_file_named_on_the_command_line_still_gets_tsl003(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = json.loads(_check("package.json", "--format", "json", cwd=repo).stdout)
    assert [f["id"] for f in out["findings"]] == ["TSL003"]


def test_a_file_that_does_not_parse_is_still_reported_in_a_folder(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "broken.json").write_text('{"tools": [')
    out = json.loads(_check(".", "--format", "json", cwd=repo).stdout)
    assert "TSL001" in {f["id"] for f in out["findings"] if f["path"] == "broken.json"}


def test_a_run_that_checked_nothing_does_not_pass(tmp_path: Path) -> None:
    sub = tmp_path / "server"
    sub.mkdir()
    (sub / "package.json").write_text('{"name": "x"}\n')
    proc = _check("server", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Nothing was checked: 1 file found, none holds tool definitions" in proc.stdout
    assert "nothing was checked" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _check("empty", cwd=tmp_path)
    assert proc.returncode == 2 and "Nothing was checked: no tool definition files found" in proc.stdout
    assert _check("server", "--exit-zero", cwd=tmp_path).returncode == 0
    assert _check("missing-folder", cwd=tmp_path).returncode == 2


def test_check_dot_on_a_server_package_without_tool_files_passes_and_says_so(tmp_path: Path) -> None:
    """An npm MCP server checkout (tools defined in code): `check .`, the Action's default, is not a failed gate."""
    (tmp_path / "dist").mkdir()
    (tmp_path / "package.json").write_text('{"name": "@scope/server-x", "bin": {"server-x": "dist/index.js"}}\n')
    (tmp_path / "dist" / "index.js").write_text("console.log('server')\n")
    (tmp_path / "README.md").write_text("# server-x\n")
    for here in (".", "./", str(tmp_path)):
        proc = _check(here, cwd=tmp_path)
        assert proc.returncode == 0, (here, proc.stderr)
        assert "Nothing was checked: 1 file found, none holds tool definitions" in proc.stdout
        assert "nothing was checked: no tool definition files under the working directory" in proc.stderr
    # the same folder named from outside is a path that yields nothing: still exit 2
    assert _check(tmp_path.name, cwd=tmp_path.parent).returncode == 2
    # and a real finding under `.` still fails the gate
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    assert _check(".", cwd=tmp_path).returncode == 1


def test_color_is_forced_into_a_pipe_and_off_by_default(tmp_path: Path) -> None:
    examples = str(ROOT / "examples")
    forced = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", examples, "--color"], capture_output=True,
                            text=True, timeout=120)
    assert "\x1b[" in forced.stdout
    plain = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", examples], capture_output=True, text=True,
                           timeout=120)
    assert "\x1b[" not in plain.stdout


def test_fail_on_never_and_output_format_alias(tmp_path: Path) -> None:
    examples = str(ROOT / "examples")
    run = lambda *a: subprocess.run([sys.executable, "-m", "toolschema_lint", "check", examples, *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    assert run().returncode == 1
    assert run("--fail-on", "never").returncode == 0
    out = run("--output-format", "json", "--fail-on", "never")
    assert out.returncode == 0 and json.loads(out.stdout)["findings"]
    (tmp_path / "toolschema-lint.toml").write_text('fail-on = "never"\n')
    cfg = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", examples, "--config",
                          str(tmp_path / "toolschema-lint.toml")], capture_output=True, text=True, timeout=120)
    assert cfg.returncode == 0, cfg.stderr
