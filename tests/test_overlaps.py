"""One finding per defect.

Rules that report the same defect on the same tool: the more fitting one reports it, once.

TSL566 (risky-tool-without-brake, info) leaves an MCP tool with no side-effect hint to TSL601
(write-tool-without-annotations, warning); TSL603 (annotation-contradicts-tool-name) leaves a false
hint to TSL565 (risky-tool-marked-safe), which gives it a security-severity. Each defers only when the
other rule reports the tool: not when it is disabled, ignored in config or suppressed inline.

A name shared by many servers: one finding per tool, not one per pair of servers.
"""

from __future__ import annotations

import itertools
import json

from helpers import lint_data, lint_sources

from toolschema_lint.model import Severity

SCHEMA = {"type": "object", "properties": {"user_id": {"type": "string"}}, "additionalProperties": False}
UNANNOTATED = {"name": "delete_user", "description": "Delete a user.", "inputSchema": SCHEMA}
FALSE_HINT = {**UNANNOTATED, "annotations": {"readOnlyHint": True}}
PAYS = {"name": "purchase_book", "description": "Buy a book with the saved card.", "inputSchema": SCHEMA}
BRAKES = ("TSL565", "TSL566", "TSL601", "TSL603")


def by_tool(data: dict, select_rules: tuple[str, ...] | list[str] = BRAKES, **kw) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in lint_data(data, select=list(select_rules), **kw).active():
        out.setdefault(f.tool, []).append(f.rule_id)
    return out


def test_unannotated_tool_is_reported_by_the_annotations_rule_alone() -> None:
    assert by_tool({"tools": [UNANNOTATED]}) == {"delete_user": ["TSL601"]}


def test_the_security_rule_reports_it_when_the_annotations_rule_does_not_run() -> None:
    found = lint_data({"tools": [UNANNOTATED]}, select=["TSL566"])
    assert [f.rule_id for f in found.active()] == ["TSL566"]
    assert by_tool({"tools": [UNANNOTATED]}, per_file_ignores={"tools.json": ["TSL601"]}) == {"delete_user": ["TSL566"]}
    assert by_tool({"tools": [UNANNOTATED]}, per_tool_ignores={"delete_*": ["write-tool-without-annotations"]}) == {
        "delete_user": ["TSL566"]}
    inline = """tools:
- name: delete_user  # toolschema-lint: ignore[TSL601]
  description: Delete a user.
  inputSchema: {type: object, properties: {user_id: {type: string}}, additionalProperties: false}
"""
    found = lint_data(inline, select=list(BRAKES), fmt="yaml", name="tools.yaml").active()
    assert [f.rule_id for f in found] == ["TSL566"]


def test_escalated_cases_are_still_reported_by_both() -> None:
    # moving money asks for approval too: TSL566 warns beside TSL601
    found = lint_data({"tools": [PAYS]}, select=list(BRAKES)).active()
    assert sorted((f.rule_id, f.severity) for f in found) == [("TSL566", Severity.WARNING), ("TSL601", Severity.WARNING)]


def test_other_dialects_are_unaffected() -> None:
    # TSL601 judges MCP tools only; an OpenAI function keeps its TSL566 finding
    data = {"tools": [{"type": "function", "function": {"name": "delete_account", "description": "Delete the account.",
                                                        "parameters": SCHEMA}}]}
    assert by_tool(data) == {"delete_account": ["TSL566"]}


def test_false_hint_is_reported_by_the_security_rule_alone() -> None:
    assert by_tool({"tools": [FALSE_HINT]}) == {"delete_user": ["TSL565"]}
    assert [f.pointer for f in lint_data({"tools": [FALSE_HINT]}, select=["TSL603"]).active()] == [
        "/tools/0/annotations/readOnlyHint"]
    assert by_tool({"tools": [FALSE_HINT]}, per_file_ignores={"*.json": ["TSL565"]}) == {"delete_user": ["TSL603"]}
    inline = """tools:
- name: delete_user
  description: Delete a user.
  inputSchema: {type: object, properties: {user_id: {type: string}}, additionalProperties: false}
  annotations:
    readOnlyHint: true  # toolschema-lint: ignore[risky-tool-marked-safe]
"""
    found = lint_data(inline, select=list(BRAKES), fmt="yaml", name="tools.yaml").active()
    assert [f.rule_id for f in found] == ["TSL603"]


def test_a_hint_the_security_rule_does_not_judge_is_reported_by_the_name_rule() -> None:
    # updating is not one of the risky capabilities TSL565 reads; TSL603 still contradicts the hint
    tool = {**FALSE_HINT, "name": "update_user", "description": "Update a user."}
    assert by_tool({"tools": [tool]}) == {"update_user": ["TSL603"]}


def _server(*names: str) -> dict:
    return {"tools": [{"name": n, "description": "Search the index.", "inputSchema": SCHEMA} for n in names]}


def test_only_a_tool_check_defers_and_nothing_carries_over(tmp_path) -> None:
    # the deferral is settled per tool: a server-scope hit asking for it is reported as it is, on
    # every server, and none waits to be settled against a later tool
    from toolschema_lint.engine import Engine
    from toolschema_lint.loaders import collect
    from toolschema_lint.registry import CheckSpec
    from toolschema_lint.settings import Settings, resolve

    def per_server(server, ctx):
        for tool in server.tools:
            yield ctx.at(tool, "name", name=tool.name, _unless=("TSL201", True))

    for key in "ab":
        (tmp_path / f"{key}.json").write_text(json.dumps(_server("run")))
    engine = Engine(resolve(Settings(select=["TSL201", "TSL202"], jobs=1)))
    spec, ctx = next(entry for entry in engine.by_scope["tool"] if entry[0].rule_id == "TSL202")
    engine.by_scope["tool"].remove((spec, ctx))
    engine.by_scope["server"].append((CheckSpec("TSL202", per_server, "server"), ctx))
    found = engine.run(collect([str(tmp_path / "a.json"), str(tmp_path / "b.json")])).active()
    assert sorted((f.rule_id, f.path[-6:]) for f in found) == [("TSL202", "a.json"), ("TSL202", "b.json")]


def test_a_name_on_four_servers_gives_three_findings_not_six() -> None:
    sources = [(f"{key}.json", _server("search")) for key in "dbca"]  # given out of order
    found = lint_sources(sources, select=["TSL570"]).active()
    assert sorted((f.path, f.message) for f in found) == [
        ("a.json", "Tool name 'search' is also offered by server b.json, and by 2 more servers"),
        ("b.json", "Tool name 'search' is also offered by server c.json, and by 1 more server"),
        ("c.json", "Tool name 'search' is also offered by server d.json"),
    ]


def test_lookalikes_on_several_servers_are_counted_and_exact_matches_left_out() -> None:
    sources = [("a.json", _server("read_file")), ("b.json", _server("readFile")), ("c.json", _server("read-file")),
               ("d.json", _server("read_file"))]
    found = sorted((f.path, f.message) for f in lint_sources(sources, select=["TSL571"]).active())
    assert found == sorted({
        # d.json's read_file is the same name: TSL570's, not a look-alike
        "a.json": "Tool name 'read_file' looks like 'readFile' (differs in case or separators only) on server b.json, "
                  "and like names on 1 more server",
        "b.json": "Tool name 'readFile' looks like 'read-file' (differs in case or separators only) on server c.json, "
                  "and like names on 1 more server",
        "c.json": "Tool name 'read-file' looks like 'read_file' (differs in case or separators only) on server d.json",
    }.items())


def test_clash_findings_do_not_depend_on_the_order_of_files() -> None:
    servers = {"a.json": _server("search", "read_file"), "b.json": _server("search", "readFile"),
               "c.json": _server("search", "search"), "d.json": _server("read-file", "search")}
    seen = set()
    for order in itertools.permutations(servers):
        found = lint_sources([(k, servers[k]) for k in order], select=["TSL570", "TSL571"]).active()
        seen.add(tuple(sorted((f.path, f.pointer, f.message) for f in found)))
    # 'search': a, b and both of c's copies name the next server (4); look-alikes of read_file: a, b (2)
    assert len(seen) == 1 and len(next(iter(seen))) == 6


def test_one_run_groups_the_names_once_for_both_rules(monkeypatch) -> None:
    # and the next run groups its own servers' names (each run has its own memo)
    from toolschema_lint.checks import security_capability

    calls: list[str] = []
    skeleton = security_capability.skeleton
    monkeypatch.setattr(security_capability, "skeleton", lambda name: calls.append(name) or skeleton(name))
    sources = [("a.json", _server("search", "read_file")), ("b.json", _server("Search", "readFile"))]
    found = lint_sources(sources, select=["TSL570", "TSL571"]).active()
    assert sorted(f.rule_id for f in found) == ["TSL571", "TSL571"]
    assert sorted(calls) == sorted(["search", "read_file", "Search", "readFile"])  # each name once, not once per rule
    calls.clear()
    again = lint_sources([("c.json", _server("fetch")), ("d.json", _server("fetch"))], select=["TSL570", "TSL571"])
    assert [f.rule_id for f in again.active()] == ["TSL570"] and calls == ["fetch", "fetch"]


def test_another_server_is_named_by_its_name_and_its_file() -> None:
    # two versions of one server share their serverInfo name: the file tells them apart
    sources = [(f"fs@{v}.json", {"serverInfo": {"name": "filesystem", "version": v}, **_server("read_file")})
               for v in ("1.0.0", "2.0.0")]
    found = [f.message for f in lint_sources(sources, select=["TSL570"]).active()]
    assert found == ["Tool name 'read_file' is also offered by server fs@2.0.0.json ('filesystem')"]


def test_a_description_restating_the_name_is_reported_once() -> None:
    tool = {"name": "get_weather", "description": "Get weather.", "inputSchema": SCHEMA}
    assert by_tool({"tools": [tool]}, select_rules=["TSL207", "TSL209"]) == {"get_weather": ["TSL209"]}
    assert by_tool({"tools": [tool]}, select_rules=["TSL207", "TSL209"], per_tool_ignores={"get_*": ["TSL209"]}) == {
        "get_weather": ["TSL207"]}


def test_formats_without_annotations_are_judged_by_what_they_can_say() -> None:
    # an OpenAI function has no place for annotations: moving money is an info finding that says so, and a
    # confirmation step stated in the description is the brake
    pays = {"type": "function", "function": {"name": "transfer_funds", "description": "Transfer money to an account.",
                                             "parameters": SCHEMA}}
    found = lint_data({"tools": [pays]}, select=list(BRAKES)).active()
    assert [(f.rule_id, f.severity) for f in found] == [("TSL566", Severity.INFO)]
    assert "no annotations" in found[0].message
    stated = {"type": "function", "function": {"name": "transfer_funds", "parameters": SCHEMA,
                                               "description": "Transfer money to an account. The user confirms each "
                                                              "transfer before it is sent."}}
    assert lint_data({"tools": [stated]}, select=list(BRAKES)).active() == []


def test_destructive_sql_named_as_what_fails_is_not_what_the_tool_does() -> None:
    def tool(desc: str) -> dict:
        return {"name": "run_sql", "description": desc, "annotations": {"readOnlyHint": True},
                "inputSchema": {"type": "object", "properties": {"sql": {"type": "string", "maxLength": 2000}},
                                "required": ["sql"], "additionalProperties": False}}
    honest = tool("Run a SQL query against the replica inside a READ ONLY transaction, so statements such as DELETE "
                  "or DROP TABLE fail with a permission error.")
    assert by_tool({"tools": [honest]}).get("run_sql", []) == []
    lying = tool("Run a SQL statement; use it to drop table partitions that are no longer needed.")
    assert "TSL565" in by_tool({"tools": [lying]}).get("run_sql", [])


def test_a_noun_first_name_is_judged_by_its_trailing_verb() -> None:
    # `deploy_status_get` reads a deploy's status: readOnlyHint: true does not contradict it
    def tool(name: str) -> dict:
        return {"name": name, "description": "Return the status of the latest deploy.", "annotations": {"readOnlyHint": True},
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}}
    assert "TSL603" not in by_tool({"tools": [tool("deploy_status_get")]}, ["TSL603"]).get("deploy_status_get", [])
    assert by_tool({"tools": [tool("deploy_service")]}, ["TSL603"]) == {"deploy_service": ["TSL603"]}
    assert by_tool({"tools": [tool("update_user_list")]}, ["TSL603"]) == {"update_user_list": ["TSL603"]}


def test_a_registry_tool_with_risk_metadata_gets_the_verdict_of_the_annotated_mcp_tool(tmp_path) -> None:
    import json as _json

    from toolschema_lint.engine import lint
    from toolschema_lint.settings import Settings, resolve

    schema = {"name": "invoice.update", "version": "1.0.0",
              "description": "Update the due date of an issued invoice. Use invoice.search to find the invoice number.",
              "inputSchema": {"type": "object", "additionalProperties": False, "required": ["invoice_no"],
                              "properties": {"invoice_no": {"type": "string", "description": "Invoice number",
                                                            "pattern": "^INV-[0-9]{8}$"}}}}
    (tmp_path / "invoice.update.schema.json").write_text(_json.dumps(schema))
    (tmp_path / "invoice.update.policy.yaml").write_text("risk:\n  effect: write\n  approval_required: true\n")
    found = [f.rule_id for f in lint(resolve(Settings(paths=[str(tmp_path)], select=["TSL601", "TSL606"]))).active()]
    assert found == []
    (tmp_path / "invoice.update.policy.yaml").write_text("runtime:\n  timeout_ms: 3000\n")  # no effect stated
    found = [f.rule_id for f in lint(resolve(Settings(paths=[str(tmp_path)], select=["TSL601", "TSL606"]))).active()]
    assert found == ["TSL601"]


def test_an_actor_filter_on_a_declared_read_is_not_an_identity_switch() -> None:
    def tool(name: str, read_only: bool) -> dict:
        return {"name": name, "description": "Audit log entries.", "annotations": {"readOnlyHint": read_only},
                "inputSchema": {"type": "object", "additionalProperties": False,
                                "properties": {"actor": {"type": "string", "description": "User principal name."}}}}
    assert by_tool({"tools": [tool("query_audit_log", True)]}, ["TSL551"]) == {}
    assert by_tool({"tools": [tool("update_audit_log", False)]}, ["TSL551"]) == {"update_audit_log": ["TSL551"]}


def test_a_brake_lowers_a_code_parameter_only_when_the_tool_says_it_runs_code() -> None:
    from toolschema_lint.model import Severity

    def tool(name: str, desc: str) -> dict:
        return {"name": name, "description": desc, "annotations": {"readOnlyHint": False},
                "inputSchema": {"type": "object", "additionalProperties": False, "properties": {
                    "options": {"type": "object", "properties": {"finish": {
                        "type": "string", "description": "Passed unmodified to /bin/sh -c on the render node."}}}}}}
    hidden = lint_data({"tools": [tool("render_clip", "Render a clip to a file.")]}, select=["TSL540"]).active()
    assert [(f.rule_id, f.severity) for f in hidden] == [("TSL540", Severity.WARNING)]
    open_ = lint_data({"tools": [tool("run_shell", "Run a shell command on the render node.")]}, select=["TSL540"]).active()
    assert [(f.rule_id, f.severity) for f in open_] == [("TSL540", Severity.INFO)]


def test_a_value_executed_on_the_database_is_a_query_in_russian() -> None:
    from toolschema_lint.analysis.intents import described_capability

    text = ("Строка целиком уходит в основную учётную базу (PostgreSQL) и выполняется там как самостоятельный запрос.")
    assert described_capability(text)[0] == "sql"


def test_authority_words_need_the_type_and_the_tool() -> None:
    def tool(name: str, params: dict) -> dict:
        return {"name": name, "description": "Does it.", "annotations": {"readOnlyHint": False},
                "inputSchema": {"type": "object", "additionalProperties": False, "properties": params,
                                "$defs": {"node": {"type": "object"}}}}
    assert by_tool({"tools": [tool("render_tree", {"root": {"$ref": "#/$defs/node"}})]}, ["TSL550"]) == {}
    assert by_tool({"tools": [tool("list_files", {"root": {"type": "string", "description": "Root directory"}})]},
                   ["TSL550"]) == {}
    assert by_tool({"tools": [tool("run_job", {"root": {"type": "boolean"}})]}, ["TSL550"]) == {"run_job": ["TSL550"]}
    perms = {"permissions": {"type": "string", "enum": ["read", "write", "admin"]}}
    assert by_tool({"tools": [tool("set_repo_permissions", perms)]}, ["TSL550"]) == {}
    assert by_tool({"tools": [tool("export_report", perms)]}, ["TSL550"]) == {"export_report": ["TSL550"]}
