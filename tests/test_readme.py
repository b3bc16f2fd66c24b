"""The README's rule table is generated from the catalog; this fails when it drifts."""

from __future__ import annotations

import re
from pathlib import Path

from toolschema_lint.cli import rule_table_markdown

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def test_rule_table_matches_catalog(update_golden: bool) -> None:
    text = README.read_text(encoding="utf-8")
    assert START in text and END in text
    table = rule_table_markdown()
    current = text[text.index(START) + len(START) : text.index(END)].strip("\n")
    if update_golden and current != table.strip("\n"):
        text = text[: text.index(START) + len(START)] + "\n" + table + text[text.index(END) :]
        README.write_text(text, encoding="utf-8")
        current = table.strip("\n")
    assert current == table.strip("\n"), "README rule table is stale: run pytest tests/test_readme.py --update-golden"


def test_quick_start_is_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start") : text.index("## Example output")]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert len(blocks) == 2 and all(len(b.strip().splitlines()) == 1 for b in blocks)
    assert "toolschema-lint check examples/" in blocks[0]
    assert "pytest" in blocks[1]


def test_example_outputs_are_what_the_examples_give(monkeypatch) -> None:
    """The README's example output (text) and JSON contract example show a real run on examples/."""
    import json

    from click.testing import CliRunner

    from toolschema_lint.cli import main

    monkeypatch.chdir(README.parent)
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"```text\n\$ toolschema-lint check examples/\n(.*?)```", text, re.S).group(1)
    real = CliRunner().invoke(main, ["check", "examples/", "--no-color"]).output.splitlines()
    for line in shown.splitlines():
        assert line == "..." or line in real, line
    assert shown.splitlines()[-1] == real[-1]  # the summary line
    contract = json.loads(re.search(r"### JSON output.*?```json\n(.*?)```", text, re.S).group(1))
    report = json.loads(CliRunner().invoke(main, ["check", "examples/", "--format", "json"]).output)
    assert contract["summary"] == report["summary"]
    assert all(f in report["findings"] for f in contract["findings"])
