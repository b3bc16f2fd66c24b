"""The command line: exit codes, selection, config, formats, suppression (a public contract)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolschema_lint.cli import main

BAD = {"tools": [{"name": "execute", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}}]}
GOOD = {"tools": [{"name": "get_weather", "description": "Get the current weather for one city. Not for forecasts.",
                   "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name", "maxLength": 80}},
                                   "required": ["city"], "additionalProperties": False}}]}


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    Path("bad.json").write_text(json.dumps(BAD, indent=2))
    Path("good.json").write_text(json.dumps(GOOD, indent=2))
    return tmp_path


def invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def ids(res) -> list[str]:
    return sorted({f["id"] for f in json.loads(res.output)["findings"]})


def test_exit_codes(files) -> None:
    assert invoke("check", "good.json", "--select", "TSL1,TSL2,TSL401").exit_code == 0
    assert invoke("check", "bad.json").exit_code == 1
    assert invoke("check", "bad.json", "--exit-zero").exit_code == 0
    assert invoke("check", "bad.json", "--select", "TSL103", "--fail-on", "error").exit_code == 1
    assert invoke("check", "bad.json", "--select", "TSL202", "--fail-on", "error").exit_code == 0
    assert invoke("check", "missing.json").exit_code == 2
    assert invoke("check").exit_code == 2
    assert invoke("check", "bad.json", "--select", "NOPE").exit_code == 2


def test_selection_by_id_prefix_name_and_all(files) -> None:
    assert ids(invoke("check", "bad.json", "--format", "json", "--select", "TSL202")) == ["TSL202"]
    assert ids(invoke("check", "bad.json", "--format", "json", "--select", "vague-tool-name,TSL103")) == ["TSL103", "TSL202"]
    assert "TSL201" in ids(invoke("check", "bad.json", "--format", "json", "--select", "TSL2"))
    assert "TSL202" not in ids(invoke("check", "bad.json", "--format", "json", "--ignore", "TSL202"))
    every = ids(invoke("check", "bad.json", "--format", "json", "--select", "ALL"))
    assert "TSL201" in every and "TSL103" in every


def test_severity_override(files) -> None:
    res = invoke("check", "bad.json", "--format", "json", "--select", "TSL202", "--severity", "TSL202=info")
    assert json.loads(res.output)["findings"][0]["severity"] == "info"
    assert res.exit_code == 0  # info is below the default fail-on (warning)


def test_config_in_pyproject(files) -> None:
    Path("pyproject.toml").write_text(
        '[tool.toolschema-lint]\nselect = ["TSL201", "TSL202"]\nignore = ["TSL201"]\n'
        '[tool.toolschema-lint.per-tool-ignores]\n"exec*" = ["vague-tool-name"]\n'
    )
    assert ids(invoke("check", "bad.json", "--format", "json")) == []
    Path("pyproject.toml").write_text('[tool.toolschema-lint]\nselect = ["TSL201", "TSL202"]\n[tool.toolschema-lint.per-file-ignores]\n"bad.*" = ["TSL201"]\n')
    assert ids(invoke("check", "bad.json", "--format", "json")) == ["TSL202"]


def test_rule_options_in_config(files) -> None:
    Path("cfg.toml").write_text('select = ["TSL202"]\n[rules.vague-tool-name]\ndeny = ["get_weather"]\n')
    assert ids(invoke("check", "good.json", "bad.json", "--format", "json", "--config", "cfg.toml")) == ["TSL202"]
    out = json.loads(invoke("check", "good.json", "--format", "json", "--config", "cfg.toml").output)
    assert [f["tool"] for f in out["findings"]] == ["get_weather"]


@pytest.mark.parametrize("config,needle", [
    ('selec = ["TSL2"]\n', "unknown config key"),
    ('select = ["TSL999"]\n', "matches no rule"),
    ('[rules.vague-tool-name]\ndeny = "x"\n', "deny"),
    ('[rules.vague-tool-name]\nbogus = 1\n', "bogus"),
    ('fail-on = "sometimes"\n', "fail-on"),
    ('select = [\n', "invalid TOML"),
])
def test_config_errors_exit_2_with_a_message(files, config: str, needle: str) -> None:
    Path("cfg.toml").write_text(config)
    res = CliRunner().invoke(main, ["check", "bad.json", "--config", "cfg.toml"])
    assert res.exit_code == 2
    assert needle in res.output
    assert "Traceback" not in res.output


def test_yaml_inline_suppression_only_from_comments(files) -> None:
    Path("t.yaml").write_text(
        "tools:\n"
        "  - name: execute  # toolschema-lint: ignore[TSL202]\n"
        "    description: Run things.\n"
        "    inputSchema: {type: object}\n"
        "  - name: run\n"
        "    description: |\n"
        "      # toolschema-lint: ignore[TSL202]\n"
        "      text a hostile author wrote\n"
        "    inputSchema: {type: object}\n"
        "  # toolschema-lint: ignore[vague-tool-name]\n"
        "  - name: handle\n"
        "    description: Handle it.\n"
        "    inputSchema: {type: object}\n"
    )
    out = json.loads(invoke("check", "t.yaml", "--format", "json", "--select", "TSL202").output)
    assert [f["tool"] for f in out["findings"]] == ["run"]


def test_json_values_cannot_suppress(files) -> None:
    data = {"tools": [{"name": "execute", "description": "# toolschema-lint: ignore[TSL202] noqa", "x-toolschema-lint-ignore": ["TSL202"],
                       "inputSchema": {"type": "object"}}]}
    Path("t.json").write_text(json.dumps(data, indent=2))
    assert ids(invoke("check", "t.json", "--format", "json", "--select", "TSL202")) == ["TSL202"]


def test_output_file_and_nothing_else_on_stdout(files) -> None:
    res = invoke("check", "bad.json", "--format", "json", "-o", "out.json")
    assert res.stdout == ""
    assert json.loads(Path("out.json").read_text())["findings"]
    # a one-line summary says where the report went (stderr: the SARIF pre-commit hook shows it)
    assert "wrote the json report to out.json. Found" in res.stderr
    assert invoke("check", "bad.json", "--format", "json", "-o", "out.json", "-q").stderr == ""


def test_statistics_prints_the_table_alone_and_joins_the_json_summary(files) -> None:
    res = invoke("check", "bad.json", "--statistics", "--no-color")
    assert "TSL202  vague-tool-name" in res.stdout and "bad.json:" not in res.stdout
    doc = json.loads(invoke("check", "bad.json", "--statistics", "--format", "json").stdout)
    assert {"id": "TSL202", "name": "vague-tool-name", "severity": "warning", "count": 1} in doc["summary"]["statistics"]
    assert "statistics" not in json.loads(invoke("check", "bad.json", "--format", "json").stdout)["summary"]


def test_standard_input_is_read_with_its_given_name(files) -> None:
    text = Path("bad.json").read_text()
    res = invoke("check", "-", "--stdin-filename", "tools/bad.json", "--no-color", input=text)
    assert "tools/bad.json:" in res.stdout and "TSL202" in res.stdout
    yaml_text = "tools:\n  - name: run\n    description: Runs it.\n"
    assert "-:2:" in invoke("check", "-", "--no-color", input=yaml_text).stdout  # YAML told by its first character


def test_max_file_size_flag(files) -> None:
    res = invoke("check", "bad.json", "--max-file-size", "10", "--no-color")
    assert "TSL007" in res.stdout
    assert "TSL007" not in invoke("check", "bad.json", "--max-file-size", "1M", "--no-color").stdout
    assert invoke("check", "bad.json", "--max-file-size", "lots").exit_code == 2


def test_statistics_and_quiet(files) -> None:
    res = invoke("check", "bad.json", "--statistics", "--no-color")
    assert "TSL202  vague-tool-name" in res.output
    assert invoke("check", "good.json", "-q", "--select", "TSL2").output == ""


def test_fix_hints_follow_a_rules_first_finding_in_each_file(files) -> None:
    from toolschema_lint.registry import catalog

    two = {"tools": [{**BAD["tools"][0], "name": "run"}, BAD["tools"][0]]}  # TSL201, TSL202 twice each
    Path("two.json").write_text(json.dumps(two, indent=2))
    args = ("check", "two.json", "bad.json", "--select", "TSL201,TSL202", "--no-color")
    lines = invoke(*args).output.splitlines()
    hint = {rid: f"    help: {catalog()[rid].hint}" for rid in ("TSL201", "TSL202")}
    assert all(h.strip() != "help:" and len(h) > 20 for h in hint.values())
    # bad.json (one finding of each) then two.json (two of each): one hint per rule and file
    assert [ln for ln in lines if ln.startswith("    help:")] == [hint["TSL201"], hint["TSL202"]] * 2
    first = next(i for i, ln in enumerate(lines) if ln.startswith("two.json") and "TSL201" in ln)
    assert lines[first + 1] == hint["TSL201"]
    later = [i for i, ln in enumerate(lines) if ln.startswith("two.json") and "TSL201" in ln][1]
    assert not lines[later + 1].startswith("    help:")
    quiet = invoke(*args, "--no-hints").output
    assert "help:" not in quiet and quiet.count("TSL201") == 3
    github = invoke("check", "bad.json", "--select", "TSL202", "--format", "github").output
    assert github.strip().endswith("%0AFix: " + catalog()["TSL202"].hint.replace("%", "%25"))
    assert "Fix:" not in invoke("check", "bad.json", "--select", "TSL202", "--format", "github", "--no-hints").output


def test_rules_and_rule_commands() -> None:
    rules = json.loads(invoke("rules", "--format", "json").output)
    assert {"id", "name", "severity", "tags", "summary", "fix"} <= set(rules[0])
    assert all(r["fix"] and "\n" not in r["fix"] for r in rules)
    out = invoke("rule", "vague-tool-name").output
    assert "TSL202" in out and "Bad:" in out and "Good:" in out
    assert invoke("rule", "TSL202").output == out
    assert CliRunner().invoke(main, ["rule", "nope"]).exit_code == 2


def test_python_dash_m_and_no_colour_without_tty(files) -> None:
    proc = subprocess.run([sys.executable, "-m", "toolschema_lint", "check", "bad.json"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "\x1b[" not in proc.stdout
    assert "TSL202" in proc.stdout


def test_console_entry_keeps_exit_codes_and_whole_reports(files) -> None:
    """The console script (`run`) exits without interpreter teardown once the report is written."""
    cmd = [sys.executable, "-m", "toolschema_lint"]
    proc = subprocess.run([*cmd, "check", "bad.json", "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr == ""
    assert json.loads(proc.stdout)["summary"]["findings"] == len(json.loads(proc.stdout)["findings"]) > 0
    proc = subprocess.run([*cmd, "check", "bad.json", "--format", "sarif", "-o", "out.sarif"], capture_output=True, text=True)
    assert proc.returncode == 1 and json.loads(Path("out.sarif").read_text())["runs"][0]["results"]
    assert subprocess.run([*cmd, "--version"], capture_output=True, text=True).returncode == 0
    proc = subprocess.run([*cmd, "check", "missing.json"], capture_output=True, text=True)
    assert proc.returncode == 2 and "no such file" in proc.stderr


@pytest.mark.parametrize("args,code", [(["check", "bad.json", "--format", "json"], 1), (["check", "bad.json"], 1),
                                       (["check", "bad.json", "missing.json", "--format", "sarif"], 2),
                                       (["rules", "--format", "json"], 0)])
def test_a_reader_that_goes_away_ends_the_output_quietly(files, args, code) -> None:
    # `... | head -c 0`: the pipe is closed before anything is written; the exit code is the run's own
    proc = subprocess.Popen([sys.executable, "-m", "toolschema_lint", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == code and "Error" not in err and "internal" not in err, err


def test_a_closed_stderr_does_not_stop_the_run(files) -> None:
    # `|& head -c 0`: notes (--explain, unreadable paths) have nowhere to go; the report is still written
    for extra, code in (([], 1), (["missing.json"], 2)):
        proc = subprocess.Popen([sys.executable, "-m", "toolschema_lint", "check", "bad.json", *extra, "--explain",
                                 "--format", "json", "-o", "report.json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stderr.close()
        out = proc.stdout.read().decode()
        assert proc.wait() == code and out == ""
        assert json.loads(Path("report.json").read_text())["findings"]
        Path("report.json").unlink()


def test_one_closed_pipe_for_both_streams_keeps_the_exit_code(files) -> None:
    # `2>&1 | head -c 0` with a path that cannot be read: exit 2, not the 0 of a swallowed error
    proc = subprocess.Popen([sys.executable, "-m", "toolschema_lint", "check", "bad.json", "missing.json"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    proc.stdout.close()
    assert proc.wait() == 2


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["check", "bad.json", "--format", "json"], ["check", "bad.json", "-o", "/dev/full"],
                                  ["check", "bad.json", "-o", "no/such/folder/r.json"], ["rules"], ["--version"]])
def test_a_report_that_cannot_be_written_is_an_error_not_a_crash(files, args) -> None:
    # a full disk (`> /dev/full`, `-o /dev/full`) or a missing folder: exit 2 with the reason
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "toolschema_lint", *args], stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("toolschema-lint: error: could not write the output: "), proc.stderr
    assert "Traceback" not in proc.stderr and "internal" not in proc.stderr


def test_streams_closed_at_start_are_no_crash(files) -> None:
    # `toolschema-lint rules >&-`: Python starts with sys.stdout None
    proc = subprocess.run(f"{sys.executable} -m toolschema_lint rules >&-", shell=True, capture_output=True, text=True)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    proc = subprocess.run(f"{sys.executable} -m toolschema_lint check missing.json 2>&-", shell=True, capture_output=True,
                          text=True)
    assert proc.returncode == 2


def test_no_color_env(files, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    res = CliRunner().invoke(main, ["check", "bad.json"], color=True)
    assert "\x1b[" not in res.output


def test_live_options_are_the_same_for_every_command() -> None:
    """check, dump, lock and diff share --server/--url/--timeout, with one validation."""
    from click.testing import CliRunner

    from toolschema_lint.cli import main

    for command in ("check", "dump", "lock", "diff"):
        res = CliRunner().invoke(main, [command, "--timeout", "-5", "--server", "x"])
        assert res.exit_code == 2 and "-5.0 is not in the range x>0" in res.output, (command, res.output)


def test_config_is_looked_up_per_file_not_from_the_working_directory(files) -> None:
    # two projects side by side, each with its own config; the run starts above both
    for name, table in (("strict", 'select = ["TSL2"]'), ("loose", 'ignore = ["TSL202"]\nexclude = ["skip.json"]')):
        Path(name).mkdir()
        Path(name, "bad.json").write_text(json.dumps(BAD, indent=2))
        Path(name, "skip.json").write_text(json.dumps(BAD, indent=2))
        Path(name, "pyproject.toml").write_text(f"[tool.toolschema-lint]\n{table}\n")
    Path("toolschema-lint.toml").write_text('select = ["TSL5"]\n')  # the working directory's: applies to neither
    doc = json.loads(invoke("check", "strict", "loose", "--format", "json").stdout)
    by_file: dict[str, set[str]] = {}
    for f in doc["findings"]:
        by_file.setdefault(f["path"], set()).add(f["id"])
    assert by_file["strict/bad.json"] and all(r.startswith("TSL2") for r in by_file["strict/bad.json"])
    assert "TSL202" not in by_file["loose/bad.json"] and any(not r.startswith("TSL2") for r in by_file["loose/bad.json"])
    assert "loose/skip.json" not in by_file and "strict/skip.json" in by_file
    # --config still applies one file to everything
    doc = json.loads(invoke("check", "strict", "loose", "--format", "json", "--config", "toolschema-lint.toml").stdout)
    assert {f["id"][:4] for f in doc["findings"]} <= {"TSL5"}


def test_show_settings_names_the_config_and_the_rules_for_a_path(files) -> None:
    Path("proj").mkdir()
    Path("proj", "pyproject.toml").write_text('[tool.toolschema-lint]\nselect = ["TSL2"]\nfail-on = "error"\n'
                                              '[tool.toolschema-lint.per-file-ignores]\n"*.yaml" = ["TSL210"]\n')
    out = invoke("check", "--show-settings", "proj/tools.yaml").stdout
    assert "config: " in out and "proj/pyproject.toml" in out.replace("\\", "/")
    assert "fail-on: error" in out and "per-file-ignores for this path: TSL210" in out
    assert "enabled rules (" in out and "TSL201" in out and "TSL501" not in out
    assert "config: (none: defaults)" in invoke("check", "--show-settings", "bad.json").stdout


def test_nesting_too_deep_names_the_tool(files) -> None:
    deep: dict = {"type": "object"}
    cur = deep
    for _ in range(150):
        nxt = {"type": "object"}
        cur["properties"] = {"x": nxt}
        cur = nxt
    tools = {"tools": [{"name": "ok_tool", "description": "Fine.", "inputSchema": {"type": "object"}},
                       {"name": "deep_tool", "description": "Too deep.", "inputSchema": deep}]}
    Path("deep.json").write_text(json.dumps(tools))
    doc = json.loads(invoke("check", "deep.json", "--format", "json").stdout)
    assert [(f["id"], f["tool"]) for f in doc["findings"]] == [("TSL008", "deep_tool")]


def test_summary_counts_servers_and_says_when_nothing_was_read() -> None:
    from toolschema_lint.engine import RunResult
    from toolschema_lint.model import Document
    from toolschema_lint.reporters import summary_line

    live = RunResult(documents=[Document(path="mcp+stdio:time")], files=1, tools=2)
    assert summary_line(live) == "All checks passed (2 tools in 1 server)."
    both = RunResult(documents=[Document(path="mcp+stdio:time"), Document(path="tools.json")], files=2, tools=3)
    assert summary_line(both) == "All checks passed (3 tools in 1 file and 1 server)."
    gated = RunResult(errors=["mcp+stdio:time: not started: pass --allow-start to allow it"])
    assert summary_line(gated).startswith("Nothing was checked: 1 source could not be read")


def test_a_file_with_no_config_above_it_keeps_the_working_directorys(files, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "bad.json"
    outside.write_text(json.dumps(BAD, indent=2))
    Path("toolschema-lint.toml").write_text('select = ["TSL2"]\n')
    doc = json.loads(invoke("check", str(outside), "bad.json", "--format", "json").stdout)
    assert doc["findings"] and all(f["id"].startswith("TSL2") for f in doc["findings"])
    assert {Path(f["path"]).name for f in doc["findings"]} == {"bad.json"} and len({f["path"] for f in doc["findings"]}) == 2
