"""Security, capability side (TSL540-TSL599): what a tool lets the model do, not what it says.

Dangerous parameters (command, SQL, URL, path), self-asserted permissions and caller identity,
exfiltration sinks, HTML or script flowing back through the output schema, risky tools without a
brake, and look-alike tools across servers.

Every judgement combines the parameter name, its schema and the descriptions. Text found in the
input can only add weight to a finding: no phrase in a description removes or hides one. All
regexes here are free of nested quantifiers and run in linear time on megabyte strings.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from collections.abc import Iterable, Iterator
from typing import Any

from ..model import Hit, Server, Severity, Tool, per_tool
from ..registry import check
from ._schema_walk import params, properties, tool_params
from ..lazyre import lazy_compile

# --- words ---------------------------------------------------------------------------------------

_SPLIT = lazy_compile(r"[^0-9A-Za-z\u00c0-\uffff]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Characters of any one text (a description, a title) the checks read. Every pattern here is linear,
# but a rule set runs some twenty of them; past this size a description is an anomaly that the
# context-size and padding rules report on their own.
_MAX_TEXT = 100_000


def words(name: Any, limit: int = 256) -> tuple[str, ...]:
    """`isAdmin`, `is_admin`, `is-admin`, `HTMLBody` -> lower-case words (of the first `limit` characters)."""
    if not isinstance(name, str):
        return ()
    return _name_words(name[:limit]) if limit <= 256 else _split_words(name[:limit])


def _split_words(text: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _SPLIT.split(text) if w)


_name_words = lru_cache(maxsize=16384)(_split_words)  # parameter names repeat across tools and rules


def _text(value: Any) -> str:
    return value[:_MAX_TEXT] if isinstance(value, str) else ""


@per_tool
def tool_text(tool: Tool) -> str:
    """Name words, title and description: what the model reads to pick the tool."""
    return " ".join((" ".join(words(tool.name)), _text(tool.title), _text(tool.description)))


def _types(schema: dict) -> set[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    return {x for x in t if isinstance(x, str)} if isinstance(t, list) else set()


def _branches(schema: dict) -> list[dict]:
    out: list[dict] = []
    for key in ("anyOf", "oneOf"):
        v = schema.get(key)
        if isinstance(v, list):
            out.extend(b for b in v[:32] if isinstance(b, dict))
    return out


def string_leaf(schema: Any, depth: int = 0) -> dict | None:
    """The schema constraining the free string(s) a parameter accepts; None if it takes none.

    Arrays answer for their items, unions for their first string branch; an enum or const closes it.
    """
    if schema is True:
        return {}
    if not isinstance(schema, dict) or depth > 6 or "enum" in schema or "const" in schema:
        return None
    t = _types(schema)
    if "string" in t:
        return schema
    if "array" in t or (not t and "items" in schema):
        items = schema.get("items")
        return {} if items is None else string_leaf(items, depth + 1)
    if not t and "properties" not in schema:
        for b in _branches(schema):
            leaf = string_leaf(b, depth + 1)
            if leaf is not None:
                return leaf
        return None if _branches(schema) else schema  # untyped: anything goes
    return None


_TRIVIAL_PATTERN = lazy_compile(
    r"\^?\(?(?:\.|\[\\s\\S\]|\[\\S\\s\]|\[\\w\\W\]|\[\\W\\w\]|\[\\d\\D\]|\[\^\]|\[\^\\n\])"
    r"(?:[*+?]|\{\d*,?\d*\})?\)?\$?")


def real_pattern(pattern: Any) -> bool:
    """A pattern that actually narrows the string (not `.*`, `^.+$`, `[\\s\\S]{1,500}`)."""
    return isinstance(pattern, str) and bool(pattern.strip()) and not _TRIVIAL_PATTERN.fullmatch(pattern.strip())


def _desc(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    d = _text(schema.get("description")) + " " + _text(schema.get("title"))
    items = schema.get("items")
    return d + " " + _text(items.get("description")) if isinstance(items, dict) else d


# --- dangerous parameters --------------------------------------------------------------------------

_CMD_HEADS = {"command", "commands", "cmd", "cmds", "cmdline", "commandline", "shell", "bash", "sh", "zsh",
              "powershell", "pwsh", "exec", "shellcmd"}
_CODE_HEADS = {"code", "script", "scripts", "snippet", "program", "javascript", "js", "python", "eval", "expression",
               "expr"}
_EXEC = lazy_compile(r"\b(?:execut\w*|run|runs|running|eval|evaluat\w*|interpret\w*|spawn\w*)\b", re.IGNORECASE)
_CODE_LANG = lazy_compile(r"\b(?:code|script|javascript|typescript|python|bash|shell|node\.?js|ruby|perl|lua)\b", re.IGNORECASE)
_CMD_DESC = lazy_compile(
    r"\b(?:shell|bash|terminal|powershell|cmd|system|os|command[- ]line)\s+commands?\b"
    r"|\bcommands?\s+(?:line\s+)?to\s+(?:run|execute)\b"
    r"|\b(?:code|script|javascript|python|js)\s+(?:to|that\s+will\s+be|which\s+is|will\s+be)\s+(?:run|execut|eval)", re.IGNORECASE)
_SQL_DESC = lazy_compile(r"\b(?:sql|cypher|sparql)\s+(?:query|queries|statements?|commands?|code|to\s+(?:run|execute))\b", re.IGNORECASE)
_SQL_WORD = lazy_compile(r"\b(?:sql|t-sql|tsql|cypher|sparql)\b", re.IGNORECASE)
_SQL_KEYWORD = lazy_compile(r"\b(?:SELECT|INSERT|UPDATE|DELETE|DROP|ALTER|CREATE\s+TABLE)\b")
_DB_CONTEXT = lazy_compile(r"\b(?:sql|database|postgres\w*|mysql|sqlite|mariadb|mssql|duckdb|bigquery|snowflake|redshift"
                           r"|clickhouse|oracle|cypher|neo4j|sparql)\b", re.IGNORECASE)
_SEARCHY = lazy_compile(r"\b(?:search|keywords?|terms?|phrase|natural[- ]language|question|full[- ]text)\b", re.IGNORECASE)
_QUERY_HEADS = {"query", "queries", "statement", "statements", "stmt"}
_URL_HEADS = {"url", "urls", "uri", "uris", "link", "links", "href", "endpoint", "webhook", "webhooks", "callback"}
_URL_DESC = lazy_compile(r"\b(?:urls?|uris?|web\s*address\w*|(?:page|site|website|web\s*page)\s+address\w*"
                         r"|address\s+of\s+(?:the|a)\s+(?:page|site|website|web\s*page))\b", re.IGNORECASE)
_URL_FORMATS = {"uri", "url", "iri", "uri-reference", "iri-reference", "uri-template"}
_OUTBOUND_WORDS = {"webhook", "webhooks", "hook", "callback", "notify", "notification", "upload", "destination", "dest",
                   "post", "report", "forward", "sink", "push", "deliver", "send", "receiver", "collector",
                   "beacon", "ping", "listener", "reply", "exfil", "export", "mirror", "sync", "backup", "publish"}
_OUTBOUND_VERBS = {"send", "post", "upload", "export", "forward", "notify", "sync", "backup", "publish", "report",
                   "submit", "push", "share", "deliver", "mirror", "replicate", "transmit", "beacon", "register",
                   "subscribe", "webhook", "callback"}
_DEST_DESC = lazy_compile(r"\b(?:destination|(?:send|post|upload|deliver|push|forward|report)\w*\s+(?:\w+\s+){0,3}to"
                          r"|receiv\w*|notif\w*|callback|webhook|where\s+to\s+(?:send|post|upload|deliver))\b", re.IGNORECASE)
_PATH_HEADS = {"path", "paths", "file", "files", "filepath", "filepaths", "filename", "filenames", "dir", "dirs",
               "directory", "directories", "folder", "folders", "cwd", "workdir", "pathname"}
_NOT_FS = {"url", "uri", "api", "json", "jq", "xml", "x", "xpath", "jsonpath", "key", "route", "http", "https",
           "endpoint", "web", "css", "object", "s3", "gcs", "remote", "graph", "field", "property", "attr", "dot"}
_REMOTE_SIBLINGS = {"owner", "repo", "repository", "repo_name", "bucket", "branch", "ref", "project_id", "drive_id",
                    "container", "share_id"}
_CONTENT = lazy_compile(r"\b(?:base64|contents?|bytes|data\s+uri|binary)\b", re.IGNORECASE)
_ANYWHERE = lazy_compile(r"\b(?:any\s+(?:file|path|directory|folder|location)|absolute\s+paths?|anywhere|entire\s+(?:file\s*system|disk)"
                         r"|outside\s+(?:the|of)|system\s+files?|home\s+director\w*|root\s+director\w*)\b|~/|/etc/|[a-z]:\\\\",
                         re.IGNORECASE)


_CODE_CALLBACKS = {"callback", "hook"}
# words before `code` that keep it program code (`source_code`, `python_code`); other words name an identifier
_CODE_QUALIFIERS = {"source", "python", "py", "js", "javascript", "typescript", "ts", "shell", "bash", "sh", "sql", "r",
                    "ruby", "lua", "script", "program", "snippet", "user", "custom", "inline", "raw", "cell", "node",
                    "powershell", "perl", "go", "java", "c", "cpp", "rust", "php", "run", "exec", "eval"}
_FUNCTION_DESC = lazy_compile(r"\b(?:function|method|handler|lambda|closure|callable)\b", re.IGNORECASE)
_ATTACHED = {"attachment", "attachments", "attach", "attached", "image", "images", "media", "photo", "photos"}


def param_kind(name: str, schema: Any, sibling_names: Iterable[str], ttext: str, verbs: Iterable[str] = ()) -> str | None:
    """command | sql | outbound | url | path | None, judged from the name, its schema and the text.

    `ttext` is the tool's name, title and description; `verbs` the words of its name after any namespace.
    """
    ws = words(name)
    if not ws or string_leaf(schema) is None:
        return None
    head, pdesc = ws[-1], _desc(schema)
    context = pdesc + " " + ttext
    if head in _CMD_HEADS or _CMD_DESC.search(pdesc):
        return "command"
    qualified = head == "code" and len(ws) > 1 and ws[-2] not in _CODE_QUALIFIERS  # `study_code`, `zip_code`
    if head in _CODE_HEADS and not qualified and _EXEC.search(context) \
            and (head not in ("expression", "expr") or _CODE_LANG.search(context)):
        return "command"
    if "sql" in ws or _SQL_DESC.search(pdesc) or (head in _QUERY_HEADS and (_SQL_WORD.search(pdesc) or _SQL_KEYWORD.search(pdesc)
                                                 or (not _SEARCHY.search(pdesc) and _DB_CONTEXT.search(ttext)))):
        return "sql"
    leaf = string_leaf(schema) or {}
    url_said = leaf.get("format") in _URL_FORMATS or _URL_DESC.search(pdesc)
    if head in _URL_HEADS and head in _CODE_CALLBACKS and not url_said and _FUNCTION_DESC.search(pdesc):
        return None  # `callback`: "the function to call when ..." is code of the caller, not an address
    if head in _URL_HEADS or url_said:
        if set(ws) & _ATTACHED:
            return "url"  # `attachments`: files or links whose content goes out with the message, not a destination
        # a destination by its name or its description; a tool that sends is not enough (`feedback(url)`)
        outbound = set(ws) & _OUTBOUND_WORDS or _DEST_DESC.search(pdesc) or set(verbs) & _OUTBOUND_VERBS
        return "outbound" if outbound else "url"
    content = head.startswith("file") and (_CONTENT.search(pdesc) or leaf.get("contentEncoding"))  # file bytes, not a path
    if head in _PATH_HEADS and not set(ws) & _NOT_FS and not set(sibling_names) & _REMOTE_SIBLINGS and not content:
        return "overwrite" if _described(pdesc) == "overwrite" else "path"
    # whatever the parameter is called, its description may say what is done with the value (unless a
    # pattern or a format already narrows it)
    if real_pattern(leaf.get("pattern")) or leaf.get("format") not in (None, *_URL_FORMATS):
        return None
    return _described(pdesc)


@per_tool
def _states_confirmation(tool: Tool) -> bool:
    """Whether the description says each call waits for the user's confirmation (in a language of the
    lexicons): a confirmation word near the user, not negated."""
    from ..analysis.intents import states_confirmation

    desc = _text(tool.description)
    return bool(desc) and states_confirmation(desc[:20_000])


@per_tool
def _states_read_only(tool: Tool) -> bool:
    """Whether the tool's description says its queries run read-only (a replica, a read-only role)."""
    from ..analysis.text import analyse

    desc = _text(tool.description)
    return bool(desc) and any("READONLY" in t.classes for t in analyse(desc[:20_000]).tags)


def _described(pdesc: str) -> str | None:
    """The capability a parameter's description reveals (`toolschema_lint.analysis`), in any language
    of the lexicons: command | sql | url | internal | outbound | overwrite | None."""
    if not pdesc.strip():
        return None
    from ..analysis.intents import described_capability

    found = described_capability(pdesc.strip())
    return found[0] if found else None


@per_tool
def _kinds(tool: Tool) -> tuple[tuple[tuple[str | int, ...], str, dict, str], ...]:
    """(pointer tokens, name, string leaf, kind) of each dangerous parameter of the tool."""
    ttext, verbs = tool_text(tool), action_words(tool.name)
    out = []
    for path, name, sub, parent in tool_params(tool):
        kind = param_kind(name, sub, properties(parent), ttext, verbs)
        if kind:
            out.append((path, name, string_leaf(sub) or {}, kind))
    return tuple(out)


def host_pinned(leaf: dict) -> bool:
    """A pattern naming a literal host after the scheme (`^https://api\\.example\\.com/`)."""
    p = leaf.get("pattern")
    if not real_pattern(p):
        return False
    after = p.split("://", 1)[1] if "://" in p else ""
    return "\\." in after or "|" in after and "." in after


def _gated(tool: Tool, kind: str | None = None) -> dict:
    """Info instead of the rule's level when the tool declares that each call needs confirmation, and, for code
    and queries, says openly that it runs them: a confirmation prompt for `render_clip` does not tell the user that
    a nested option is handed to /bin/sh."""
    if not braked(tool):
        return {}
    if kind is not None and not _declares(tool, kind):
        return {}
    return {"_severity": Severity.INFO}


_OPENLY = {"command": frozenset({"EXEC", "EVAL", "CODE"}), "sql": frozenset({"QUERY", "DB"})}


def _declares(tool: Tool, kind: str) -> bool:
    """The tool's own name or description says (in any lexicon language) that it runs code, or queries, not only
    one parameter's description."""
    from ..analysis.text import analyse

    name = " ".join(words(tool.name)) if isinstance(tool.name, str) else ""
    found: set[str] = set()
    for text in (name, _text(tool.description)[:20_000]):
        if text:
            for t in analyse(text).tags:
                found |= t.classes
    return bool(found & _OPENLY[kind])


@check("TSL540")
def unbounded_command_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, leaf, kind in _kinds(tool):
        if kind == "command" and not real_pattern(leaf.get("pattern")):
            yield ctx.at(tool, "input_schema", *path, param=name, **_gated(tool, "command"))


# query languages that only read (logs, metrics, search indexes): such a query cannot change data
_READ_ONLY_QL = lazy_compile(r"\b(?:kql|logql|promql|metricsql|traceql|lucene|splunk|spl|loki|prometheus|elasticsearch|"
                             r"opensearch|kibana|datadog|log\s+(?:query|search|index)|logs?\s+quer\w+|jsonpath|jmespath|jq)\b",
                             re.IGNORECASE)


def _read_only_language(tool: Tool, leaf: dict) -> bool:
    """The query is written in a language that only reads (LogQL, KQL, PromQL, a log search), and nothing says
    statements that change data run: severity follows what the query can do."""
    text = _desc(leaf) + " " + tool_text(tool)
    return bool(_READ_ONLY_QL.search(text)) and not _SQL_WORD.search(text) and not _SQL_WRITES.search(text)


@check("TSL541")
def unbounded_sql_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, leaf, kind in _kinds(tool):
        if kind == "sql" and not real_pattern(leaf.get("pattern")):
            # a query tool whose description says the queries run read-only (a replica, a read-only role)
            # still takes any query, but cannot change data: info, as behind a brake. readOnlyHint alone
            # is a claim, not a description of how that is enforced
            ro = _states_read_only(tool) or _read_only_language(tool, leaf)
            yield ctx.at(tool, "input_schema", *path, param=name,
                         **({"_severity": Severity.INFO} if ro else _gated(tool, "sql")))


_FETCH = lazy_compile(r"\b(?:fetch\w*|download\w*|navigat\w*|brows\w*|visit\w*|open\w*|load\w*|crawl\w*|scrap\w*"
                      r"|retriev\w*|reads?|import\w*|preview\w*|proxy|extract\w*|screenshot\w*|render\w*|ingest\w*|pull\w*"
                      r"|get\s+(?:the\s+)?(?:contents?|page|html|text)|http\s+(?:get|request)|url\s+to)\b", re.IGNORECASE)


def open_world(tool: Tool) -> bool:
    """MCP tools reach the open world unless they say otherwise (openWorldHint defaults to true)."""
    hint = tool.annotation_map.get("openWorldHint")
    return hint is True or (hint is None and tool.dialect == "mcp")


@check("TSL542")
def unrestricted_url_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, leaf, kind in _kinds(tool):
        if kind == "internal" and not host_pinned(leaf):  # the description says it reaches internal hosts or files
            yield ctx.at(tool, "input_schema", *path, param=name, why="its description says it reaches internal "
                         "hosts, local files or any scheme")
            continue
        if kind != "url" or host_pinned(leaf) or not _FETCH.search(_desc(leaf) + " " + tool_text(tool)):
            continue
        formed = leaf.get("format") in _URL_FORMATS or real_pattern(leaf.get("pattern"))
        why = "only its form is checked" if formed else "nothing constrains it"
        if tool.annotation_map.get("openWorldHint") is False:
            yield ctx.at(tool, "input_schema", *path, param=name, why=why + ", yet the tool claims openWorldHint: false")
        elif formed or open_world(tool):
            yield ctx.at(tool, "input_schema", *path, param=name, why=why, _severity=Severity.INFO)
        else:
            yield ctx.at(tool, "input_schema", *path, param=name, why=why)


@check("TSL543")
def unconstrained_path_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    caps = capabilities(tool)
    for path, name, leaf, kind in _kinds(tool):
        if kind == "overwrite" and not real_pattern(leaf.get("pattern")):
            yield ctx.at(tool, "input_schema", *path, param=name, why=", and an existing file there is overwritten",
                         **({} if braked(tool, caps) else {"_severity": Severity.WARNING}))
            continue
        if kind != "path" or real_pattern(leaf.get("pattern")):
            continue
        wide = _ANYWHERE.search(_desc(leaf) + " " + _text(tool.description))
        if "delete" in caps and not braked(tool, caps):
            yield ctx.at(tool, "input_schema", *path, param=name, why=", and the tool deletes without a brake",
                         _severity=Severity.WARNING)
        else:
            why = ", and the description invites any location" if wide else ""
            yield ctx.at(tool, "input_schema", *path, param=name, why=why)


# --- self-asserted permissions and caller identity ---------------------------------------------------

_AUTHORITY = {"admin", "administrator", "superuser", "root", "sudo", "privileged", "elevated", "owner", "staff",
              "internal", "trusted", "verified", "authenticated", "authorized", "authorised", "approved", "preapproved",
              "consent", "consented", "whitelisted", "allowlisted", "god", "unrestricted"}
_AUTHORITY_NAMES = {"admin", "sudo", "superuser", "root", "admin_mode", "god_mode", "sudo_mode", "privileged", "elevated",
                    "approved", "preapproved", "pre_approved", "user_approved", "manager_approved", "admin_approved",
                    "admin_override", "authorized", "authorised", "auto_approve", "autoapprove", "preauthorized",
                    "pre_authorized", "elevate", "escalate"}
_CLAIM_PREFIXES = {"is", "as", "has", "run", "act", "am", "grant", "with", "use", "i"}
_FILTER_DESC = lazy_compile(r"\b(?:filter\w*|only\s+(?:return|show|list|include)|include\s+only|restrict\s+(?:the\s+)?results"
                            r"|whether\s+to\s+(?:include|show|list|return))\b", re.IGNORECASE)
_BYPASS_VERBS = {"skip", "bypass", "disable", "ignore", "override", "no", "without", "suppress"}
_GUARDS = {"auth", "authentication", "authorization", "authorisation", "permission", "permissions", "approval",
           "approvals", "confirmation", "confirm", "verification", "verify", "validation", "checks", "check", "security",
           "policy", "policies", "acl", "limits", "limit", "rate", "review", "mfa", "2fa", "otp", "guard", "guards",
           "sandbox", "safety", "safeguards", "audit", "consent", "restrictions", "login"}
_TRANSPORT = {"tls", "ssl", "cert", "certs", "certificate", "certificates", "https", "hostname"}
_UNSAFE = {"unsafe", "insecure", "dangerously", "yolo"}
_ROLE_NAMES = {"role", "user_role", "access_level", "permission", "permissions", "privilege", "privileges",
               "auth_level", "trust_level", "clearance", "access_role", "my_role", "caller_role", "acl", "grant"}
_PRIVILEGED_VALUES = lazy_compile(r"^(?:admin\w*|root|owner|super\w*|sudo|system|god|elevated|privileged|all|\*|full\w*)$", re.IGNORECASE)
_CHAT_ROLES = {"user", "assistant", "system", "tool", "developer", "model", "function"}
_TARGET_SIBLINGS = {"user_id", "userid", "email", "member", "member_id", "invitee", "username", "login", "target_user",
                    "principal", "account_id", "group_id", "team_id", "user", "users", "emails", "assignee"}
_BYPASS_DESC = lazy_compile(r"\b(?:skip|skips|bypass\w*|ignor\w*|overrid\w*|without)\s+(?:the\s+|all\s+|any\s+)?"
                            r"(?:\w+\s+)?(?:checks?|confirmation|approval|permissions?|validation|safeguards?|prompts?)\b", re.IGNORECASE)


def permission_kind(name: str, schema: Any, siblings: Iterable[str]) -> str | None:
    """authority | bypass | role | force | None for a parameter the model could set to grant itself power."""
    ws = words(name)
    if not ws or not isinstance(schema, dict) or schema.get("const") is False or schema.get("enum") == [False]:
        return None
    joined, wset = "_".join(ws), set(ws)
    if wset & _BYPASS_VERBS and wset & (_GUARDS | _AUTHORITY) or wset & _UNSAFE or ws[0] == "bypass":
        return "transport" if wset & _TRANSPORT else "bypass"
    boolean = "boolean" in _types(schema)
    if boolean and ws[0] in _FILTER_PREFIXES:
        return None  # `only_root`, `include_owner`: which results to return, not who the caller is
    if ws[-1] in _PAGE_ELEMENTS and not joined in _AUTHORITY_NAMES:
        return None  # `accept_consent_banner`, `dismiss_login_dialog`: an element of a page the tool drives
    if joined in _AUTHORITY_NAMES or wset & _AUTHORITY and (ws[0] in _CLAIM_PREFIXES or (boolean and len(ws) <= 3)):
        if not boolean and (_structured(schema) or _NOT_AUTHORITY_DESC.search(_desc(schema))):
            return None  # `root`: a tree node ($ref, object) or a root directory, not a claim of power
        return "authority"
    if joined in _ROLE_NAMES or ws[-1] in ("role", "privilege", "privileges", "clearance"):
        enum = schema.get("enum") if isinstance(schema.get("enum"), list) else None
        if enum is not None:
            values = {str(v).lower() for v in enum}
            if values <= _CHAT_ROLES or not any(_PRIVILEGED_VALUES.match(str(v)) for v in enum):
                return None
        return None if {s.lower() for s in siblings} & _TARGET_SIBLINGS else "role"
    if ws[0] in ("force", "forced") and (len(ws) == 1 or ws[1] in _FORCEABLE):
        return "bypass" if _BYPASS_DESC.search(_desc(schema)) else "force"
    return None


_PAGE_ELEMENTS = {"banner", "banners", "dialog", "dialogs", "popup", "popups", "modal", "modals", "overlay", "button",
                  "buttons", "checkbox", "page", "screen", "form", "wall", "prompt", "prompts", "notice", "cookie", "cookies"}
_NOT_AUTHORITY_DESC = lazy_compile(r"\b(?:director(?:y|ies)|folder|path|node|tree|element|document|url|uri|domain|"
                                   r"namespace|repository|bucket|project|workspace)\b", re.IGNORECASE)


def _structured(schema: dict) -> bool:
    """A `$ref`, an object or an array: data, not a flag that claims power."""
    return "$ref" in schema or bool(_types(schema) & {"object", "array"})


# a tool that administers access: its `permissions` or `role` parameter is the data being edited, not the caller's
_ACCESS_ADMIN = {"grant", "revoke", "assign", "share", "permission", "permissions", "role", "roles", "acl", "access",
                 "invite", "member", "members", "policy", "policies", "privilege", "privileges", "membership"}

_FILTER_PREFIXES = {"only", "include", "exclude", "show", "hide", "list", "filter", "return", "with", "without"}
_FORCEABLE = {"delete", "remove", "push", "overwrite", "update", "kill", "stop", "restart", "reset", "apply", "install",
              "replace", "write", "close", "unlock", "merge", "mode", "drop", "recreate", "uninstall", "terminate"}
_PERMISSION_WHY = {
    "authority": "claims authority the server should establish itself",
    "bypass": "turns off a safeguard",
    "transport": "turns off certificate checks",
    "role": "lets the model choose its own role",
    "force": "forces past the server's own checks",
}


@check("TSL550")
def self_asserted_permission_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    admin = bool(set(words(tool.name) if isinstance(tool.name, str) else ()) & _ACCESS_ADMIN)
    for path, name, sub, parent in tool_params(tool):
        kind = permission_kind(name, sub, properties(parent))
        if kind == "role" and admin:
            continue  # `set_repo_permissions(permissions=...)`: the access being administered
        if kind:
            quiet = kind in ("force", "transport") or (kind == "authority" and _FILTER_DESC.search(_desc(sub)))
            sev = {"_severity": Severity.INFO} if quiet else {}
            yield ctx.at(tool, "input_schema", *path, param=name, why=_PERMISSION_WHY[kind], **sev)


_ACTOR_NAMES = {"as_user", "run_as", "runas", "act_as", "acting_as", "on_behalf_of", "behalf_of", "impersonate",
                "impersonate_user", "impersonation", "acting_user", "acting_user_id", "actor", "actor_id", "caller",
                "caller_id", "requester", "requester_id", "requestor", "requestor_id", "requesting_user",
                "requesting_user_id", "current_user", "current_user_id", "effective_user", "login_as", "sudo_user",
                "auth_user", "authenticated_user", "executing_user", "session_user", "as_account", "as_identity",
                "as_role", "assume_role", "assume_identity", "switch_user", "su"}
_IDENTITY_NAMES = {"user_id", "userid", "user", "username", "user_name", "account_id", "account", "uid", "email",
                   "user_email", "identity", "principal", "tenant_id", "org_id", "customer_id"}
_CALLER_DESC = lazy_compile(
    r"\b(?:current(?:ly)?\s+(?:logged[- ]in\s+)?user|logged[- ]in\s+user|authenticated\s+user|requesting\s+user"
    r"|calling\s+user|caller|acting\s+user|on\s+behalf\s+of|impersonat\w*|act(?:s|ing)?\s+as|run(?:s|ning)?\s+as"
    r"|whose\s+(?:permissions|privileges|credentials|access)|(?:permissions|privileges|credentials)\s+of\s+(?:the|this)\s+user"
    r"|user\s+making\s+the\s+request|your\s+(?:own\s+)?(?:user|account)\s*(?:id|name)?)\b", re.IGNORECASE)


@check("TSL551")
def caller_identity_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    ws = action_words(tool.name)
    declared_read = tool.annotation_map.get("readOnlyHint") is True and bool(ws) and ws[0] in _READ_VERBS
    for path, name, sub, _parent in tool_params(tool):
        joined = "_".join(words(name))
        if not isinstance(sub, dict) or "const" in sub:
            continue
        if declared_read and not _CALLER_DESC.search(_desc(sub)):
            continue  # `query_audit_log(actor=...)`: on a declared read an actor is a filter, unless it is the caller
        if joined in _ACTOR_NAMES or (joined in _IDENTITY_NAMES and _CALLER_DESC.search(_desc(sub))):
            yield ctx.at(tool, "input_schema", *path, param=name)


# --- exfiltration sinks ------------------------------------------------------------------------------

_RECIPIENTS = {"to", "cc", "bcc", "recipient", "recipients", "recipient_email", "recipient_emails", "recipient_address",
               "to_email", "to_emails", "email_to", "to_address", "to_addresses", "send_to", "sendto", "forward_to",
               "reply_to", "to_number", "to_phone", "sms_to", "share_with", "target_email", "destination_email",
               "destination_address", "recipient_phone", "recipient_number", "notify_email", "cc_emails", "bcc_emails",
               "copy_to", "to_list", "bcc_list", "cc_list", "to_recipients", "cc_recipients", "bcc_recipients"}
_CONTACTS = {"email", "emails", "email_address", "email_addresses", "address", "addresses", "phone", "phones",
             "phone_number", "phone_numbers", "mobile", "mobile_number", "number", "invitee", "invitees", "attendees",
             "contact", "contacts", "destination", "target", "user_email"}
_READ_PARAMS = {"attachment", "attachments", "attach", "file", "files", "path", "paths", "file_path", "file_paths",
                "filepath", "include_files", "query", "sql", "source", "sources", "document", "documents", "context",
                "conversation", "history", "transcript", "data"}
_READS = lazy_compile(r"\b(?:attach\w*|contents?\s+of|reads?|collects?|gathers?|exports?|dumps?|backs?\s+up|sync\w*"
                      r"|conversation|chat\s+history|transcript|environment\s+variables|clipboard)\b", re.IGNORECASE)
_NOT_RECIPIENT = {"date", "date-time", "time", "uri", "url"}


@per_tool
def param_names(tool: Tool) -> frozenset[str]:
    """The tool's parameter names, each as snake_case words (`fileId` -> `file_id`)."""
    return frozenset("_".join(words(n)) for _p, n, _s, _o in tool_params(tool))


@per_tool
def reads_data(tool: Tool) -> bool:
    """The tool also takes local data in (files, queries, conversation), so a sink can carry it out."""
    return bool(param_names(tool) & _READ_PARAMS) or bool(_READS.search(_text(tool.description)))


def weight(tool: Tool, gate: bool = True) -> tuple[str, dict]:
    """Message tail and severity: heavier when the tool also reads data, lighter when calls need approval.

    A declared brake (`destructiveHint: true`, approval required) makes clients confirm each call, so
    the user sees the destination; trusting such a claim only ever makes the tool more gated.
    """
    reads = reads_data(tool)
    tail = ", and the tool also takes local data in" if reads else ""
    if gate and braked(tool):
        return tail + " (calls need confirmation)", {"_severity": Severity.WARNING if reads else Severity.INFO}
    return tail, {"_severity": Severity.ERROR} if reads else {}


@check("TSL555")
def arbitrary_recipient_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    sends = "send" in capabilities(tool)
    found: list[tuple[tuple[str | int, ...], str, str, dict]] = []
    for path, name, sub, _parent in tool_params(tool):
        joined, leaf = "_".join(words(name)), string_leaf(sub)
        if leaf is None or real_pattern(leaf.get("pattern")) or leaf.get("format") in _NOT_RECIPIENT:
            continue
        if words(name)[-1] in ("id", "ids", "uuid", "key", "ref", "refs"):
            continue  # `recipient_party_id`: a reference to a registered party, not an address the model writes
        named = joined in _RECIPIENTS or set(words(name)) & {"recipient", "recipients", "bcc", "cc"}
        if named and (sends or joined != "to") or (sends and joined in _CONTACTS):
            # a hidden copy is what a confirmation dialog is least likely to catch: no discount for bcc
            tail, sev = weight(tool, gate="bcc" not in joined)
            found.append((path, name, tail, sev))
    if not found:
        return
    # one finding per tool: `to`, `cc` and `bcc` of one message are one open door, reported at the most
    # severe parameter (a hidden copy is not discounted), naming the others
    rank = {Severity.ERROR: 3, Severity.WARNING: 2, None: 1, Severity.INFO: 0}
    path, name, tail, sev = max(found, key=lambda f: rank[f[3].get("_severity")])
    others = [n for _p, n, _t, _s in found if n != name]
    also = f" (as {'does' if len(others) == 1 else 'do'} {', '.join(repr(str(n)) for n in others[:5])})" if others else ""
    yield ctx.at(tool, "input_schema", *path, param=name, extra=also + tail, **sev)


@check("TSL556")
def outbound_url_parameter(tool: Tool, ctx: Any) -> Iterator[Hit]:
    for path, name, leaf, kind in _kinds(tool):
        if kind == "outbound" and not host_pinned(leaf):
            tail, sev = weight(tool)
            yield ctx.at(tool, "input_schema", *path, param=name, extra=tail, **sev)


# --- HTML or script in the output schema ---------------------------------------------------------------

_ACTIVE_MEDIA = {"text/html", "application/xhtml+xml", "application/javascript", "text/javascript", "image/svg+xml",
                 "application/ecmascript", "text/ecmascript"}
_MARKUP_WORDS = {"html", "xhtml", "svg", "script", "scripts", "javascript", "js", "iframe", "markup"}
_NOT_CONTENT = {"url", "uri", "link", "href", "id", "path", "file", "name", "type", "size", "length", "hash", "count",
                "enabled", "mode", "version", "language", "lang"}
_RAW_HTML = lazy_compile(r"\b(?:raw|unsanitized|unsanitised|unescaped|unfiltered|verbatim|arbitrary|full|executable|inline)"
                         r"\s+(?:html|javascript|js|script|markup|svg)\b|<\s*script\b|\bnot\s+(?:sanitized|sanitised|escaped)\b"
                         r"|\bhtml\s+(?:source|markup|content|body|code|document|string|snippet|fragment)\b", re.IGNORECASE)


def active_content(name: Any, schema: dict) -> str | None:
    """Why an output field lets HTML or script through, or None."""
    leaf = string_leaf(schema)
    if leaf is None or (real_pattern(leaf.get("pattern")) and re.search(r"\[\^[^\]]*<", leaf["pattern"])):
        return None
    media = leaf.get("contentMediaType") or schema.get("contentMediaType")
    if isinstance(media, str) and media.split(";")[0].strip().lower() in _ACTIVE_MEDIA:
        return f"contentMediaType {media.strip()[:40]}"
    if leaf.get("format") == "html":
        return "format html"
    ws = words(name)
    if ws and set(ws) & _MARKUP_WORDS and ws[-1] not in _NOT_CONTENT:
        return "its name says markup"
    match = _RAW_HTML.search(_desc(schema))
    return f"its description says '{match.group(0)}'" if match else None


@check("TSL560")
def unsanitized_html_output(tool: Tool, ctx: Any) -> Iterator[Hit]:
    schema = tool.output_schema
    if not isinstance(schema, dict):
        return
    root_why = active_content(None, schema) if "properties" not in schema else None
    if root_why:
        yield ctx.at(tool, "output_schema", field="the result", why=root_why)
    for path, name, sub, _parent in params(schema):
        why = active_content(name, sub) if isinstance(sub, dict) else None
        if why:
            yield ctx.at(tool, "output_schema", *path, field=name, why=why)


# --- risky capability without a brake ----------------------------------------------------------------

_READ_VERBS = {"get", "list", "read", "search", "fetch", "find", "view", "show", "describe", "count", "check",
               "draft", "prepare", "plan",
               "validate", "preview", "lookup", "inspect", "explain", "query", "dry", "estimate", "quote", "simulate",
               "status", "history", "calculate", "calc", "compute", "convert", "predict", "forecast", "analyze",
               "analyse", "compare", "verify", "format", "parse"}
_CAP_WORDS = {
    "delete": {"delete", "remove", "rm", "destroy", "purge", "wipe", "erase", "truncate", "unlink", "trash",
               "uninstall", "terminate", "kill", "revoke", "shred", "nuke", "rmdir"},
    "pay": {"pay", "purchase", "buy", "charge", "refund", "payout", "donate", "tip", "withdraw", "wire",
            "remit", "sendmoney", "sell", "trade", "swap", "stake", "bid"},
    "send": {"send", "forward", "reply", "broadcast", "tweet", "publish", "post", "dm", "invite", "notify", "sms",
             "mail", "email", "share"},
    "execute": {"execute", "exec", "eval", "shell", "bash", "terminal", "spawn", "powershell",
                "interpreter", "repl", "command", "cmd", "sudo"},
}
_NOT_EXEC = {"query", "queries", "sql", "search", "report", "reports", "analysis", "test", "tests", "check", "checks",
             "lint", "workflow", "pipeline", "job", "build", "backup", "migration"}
# a terminal that is a device, not a shell: `configure_payment_terminal`, `pos_terminal_status`
_DEVICE_TERMINAL = {"payment", "payments", "card", "pos", "checkout", "kiosk", "till", "emv", "pin", "parking",
                    "airport", "bus", "ferry", "container", "cargo", "port"}
_CAP_DESC = {
    "delete": re.compile(r"\b(?:permanently|irreversibly|irrevocably)\s+(?:delete|remove|erase|destroy|wipe)s?\b"
                         r"|\b(?:deletes?|removes?|wipes?|erases?|destroys?|purges?)\s+(?:all|every|the\s+entire)\b"
                         r"|\bdrop\s+(?:table|database|schema)\b|\brm\s+-rf\b", re.IGNORECASE),
    "pay": re.compile(r"\b(?:transfer|send|wire|withdraw|move)s?\s+(?:the\s+)?(?:\w+\s+)?(?:funds|money|payments?|crypto\w*"
                      r"|tokens|btc|eth|usdc|usdt)\b|\b(?:charges?|bills?)\s+the\s+(?:user|customer|card|account)\b"
                      r"|\bplaces?\s+(?:an?\s+)?orders?\b|\bmakes?\s+(?:an?\s+)?payments?\b"
                      r"|\bpays?\s+(?:an?\s+|the\s+)?(?:\w+\s+)?(?:invoices?|bills?|suppliers?|vendors?|merchants?|fees?)\b", re.IGNORECASE),
    "send": re.compile(r"\bsends?\s+(?:an?\s+)?(?:e-?mails?|messages?|sms|texts?|notifications?|dms?|invitations?)\b", re.IGNORECASE),
    "execute": re.compile(r"\b(?:execut\w*|runs?)\s+(?:an?\s+|any\s+|arbitrary\s+)?(?:shell\s+|bash\s+|terminal\s+|system\s+)?"
                          r"commands?\b|\b(?:execut\w*|runs?|evaluat\w*)\s+(?:arbitrary\s+|any\s+)?(?:code|scripts?|javascript|python)\b",
                          re.IGNORECASE),
}
# a description that names destructive SQL only as what fails or what is flagged, not as what the tool does
_STATEMENTS_FAIL = lazy_compile(r"read[- ]?only|\bfail|\breject|\bblocked\b|\bnot (?:allowed|permitted)\b|\bflag|"
                                r"solo (?:tiene )?permiso|réplica de lectura|только для чтения|только чтение|"
                                r"\bfallan?\b|\bé rejeitad|\béchou|\brecusad|\brechazad|\brefusé|\brejeté|\babgelehnt|"
                                r"\brifiutat|\bodrzucan|\bотклоня|\bотхиля|\breddedil|\bditolak", re.IGNORECASE)
_CAP_DESC_DELETE_VERB = lazy_compile(r"\b(?:permanently|irreversibly|irrevocably)\s+(?:delete|remove|erase|destroy|wipe)s?\b"
                                     r"|\b(?:deletes?|removes?|wipes?|erases?|destroys?|purges?)\s+(?:all|every|the\s+entire)\b"
                                     r"|\brm\s+-rf\b", re.IGNORECASE)
_CAP_WHAT = {"delete": "deletes", "pay": "moves money or buys", "send": "sends messages", "execute": "runs code or commands"}
_AMOUNT = {"amount", "value", "sum", "price", "quantity", "currency", "lamports", "wei", "sats"}
_APPROVAL_KEYS = {"approvalrequired", "requiresapproval", "requireapproval", "needsapproval", "confirmationrequired",
                  "requiresconfirmation", "requireconfirmation", "humanintheloop", "hitl", "humanapproval"}


_SEND_ALWAYS = {"send", "reply", "broadcast", "tweet", "publish", "notify", "invite"}
_COMMON_VERBS = _READ_VERBS | {"create", "update", "delete", "set", "add", "remove", "edit", "modify", "patch", "put",
                               "manage", "configure", "archive", "mark", "move", "copy", "draft", "save", "upsert"}


def _verb_at(ws: list[str], vocab: set[str]) -> bool:
    """A word of `vocab` stands where the verb goes: first, or second after a namespace (`slack_post_message`)."""
    return ws[0] in vocab or (len(ws) > 1 and ws[1] in vocab and ws[0] not in _COMMON_VERBS)


_RUNNABLE = {"code", "script", "scripts", "command", "commands", "cmd", "shell", "program", "process", "python", "javascript",
             "js", "binary", "snippet", "macro", "bash", "terminal", "node", "sql"}
_PAY_NOUNS = {"payment", "payments", "order", "orders", "transfer", "payout", "purchase", "transaction", "invoice_payment"}
# what a payment word only qualifies (`create_payment_link`, `send_order_notification`): no money moves
_NOT_PAY_HEAD = {"link", "links", "qr", "qrcode", "page", "form", "url", "button", "method", "methods", "request",
                 "requests", "template", "templates", "report", "reports", "status", "history", "preview", "draft",
                 "summary", "settings", "notification", "notifications", "alert", "alerts", "alimtalk", "confirmation",
                 "receipt", "receipts", "email", "emails", "sms", "message", "messages", "reminder", "reminders",
                 "note", "notes", "label", "labels", "quote", "quotes", "estimate", "simulation"}
_MAKING = {"create", "make", "send", "submit", "initiate", "process", "execute", "place", "new", "issue", "schedule",
           "confirm", "complete", "approve", "authorize", "capture"}


def _fixed_commands(tool: Tool) -> bool:
    """Every string parameter of the tool takes one of a fixed set of values (an `enum` or a `const`)."""
    from ._schema_walk import tool_params

    strings = [sub for _p, _n, sub, _o in tool_params(tool) if isinstance(sub, dict) and "string" in _types(sub)]
    return bool(strings) and all(isinstance(sub.get("enum"), list) or "const" in sub for sub in strings)


def action_words(name: Any) -> tuple[str, ...]:
    """The words of a tool name after its namespace: `mail.search_inbox` -> (search, inbox)."""
    if not isinstance(name, str):
        return ()
    ws = words(name.rsplit(".", 1)[-1]) or words(name)
    if len(ws) > 1 and ws[0] not in _COMMON_VERBS and ws[1] in _READ_VERBS:
        ws = ws[1:]  # `github_list_issues`, `ci_get_run`
    return ws


@per_tool
def capabilities(tool: Tool) -> frozenset[str]:
    """delete | pay | send | execute, from the name's verbs and unambiguous description phrases."""
    ws = action_words(tool.name)
    caps: set[str] = set()
    if ws and ws[0] not in _READ_VERBS:
        wset = set(ws)
        caps = {cap for cap, vocab in _CAP_WORDS.items() if wset & vocab}
        if any(w in _PAY_NOUNS and i and ws[i - 1] in _MAKING and (i + 1 == len(ws) or ws[i + 1] not in _NOT_PAY_HEAD)
               for i, w in enumerate(ws)) or (
                "checkout" in wset and wset & {"cart", "basket", "order", "payment"}):
            caps.add("pay")
        if wset & {"run", "runs"} and wset & _RUNNABLE:
            caps.add("execute")  # `run_command`, `run_python`; not `run_monitor`, `git_checkout`
        exec_words = wset & _CAP_WORDS["execute"]
        if "execute" in caps and exec_words and exec_words <= {"command", "cmd"} and _fixed_commands(tool):
            caps.discard("execute")  # `send_mount_command(command: enum [":Q#", ":hP#"])`: a fixed set, not a shell
        if wset & _NOT_EXEC or wset & _CAP_WORDS["execute"] == {"terminal"} and wset & _DEVICE_TERMINAL:
            caps.discard("execute")  # `run_query`, `run_tests`: bounded jobs, not arbitrary execution; a card terminal
        if "transfer" in wset and param_names(tool) & _AMOUNT:
            caps.add("pay")
        if "send" in caps and not wset & _SEND_ALWAYS and not _verb_at(ws, _CAP_WORDS["send"] - {"forward"}) and not (
                "forward" in wset and wset & {"email", "emails", "mail", "message", "messages", "sms"}):
            caps.discard("send")  # `update_email_settings`, `create_post`, `port_forward`: no message leaves
    desc = _text(tool.description)
    caps |= {cap for cap, rx in _CAP_DESC.items() if rx.search(desc)}
    if "delete" in caps and not (ws and set(ws) & _CAP_WORDS["delete"]) and _STATEMENTS_FAIL.search(desc) \
            and not _CAP_DESC_DELETE_VERB.search(desc):
        caps.discard("delete")  # "statements such as DELETE or DROP TABLE fail in a read-only transaction"
    if "execute" not in caps and any(kind == "command" for _p, _n, _l, kind in _kinds(tool)):
        caps.add("execute")  # a parameter whose value is run as code or a command
    return frozenset(caps)


def _flat_keys(node: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(normalised key, value) pairs of a metadata block and of the blocks nested in it (bounded)."""
    if not isinstance(node, dict) or depth > 3:
        return
    for k, v in list(node.items())[:200]:
        if isinstance(k, str):
            yield re.sub(r"[^a-z0-9]", "", k.rsplit("/", 1)[-1].lower()), v
            yield from _flat_keys(v, depth + 1)


@per_tool
def approval_signal(tool: Tool) -> bool | None:
    """True if metadata asks for approval, False if it explicitly waives it, None if it says nothing."""
    found = None
    raw = tool.raw if isinstance(tool.raw, dict) else {}
    blocks = (tool.risk, tool.policy, tool.meta, {k: raw[k] for k in raw if k not in ("inputSchema", "outputSchema")})
    for block in blocks:
        for key, value in _flat_keys(block):
            if key in _APPROVAL_KEYS and isinstance(value, bool):
                found = True if value else (found if found else False)
    return found


def braked(tool: Tool, caps: frozenset[str] | None = None) -> bool:
    """Whether the tool declares it needs care: destructive, approval required, or (for sending) not read-only."""
    ann = tool.annotation_map
    if ann.get("destructiveHint") is True or approval_signal(tool) is True:
        return True
    if tool.dialect != "mcp" and _states_confirmation(tool):
        return True  # OpenAI, Anthropic and Gemini have no annotations: a stated confirmation step is the brake
    if ann.get("readOnlyHint") is False:
        caps = capabilities(tool) if caps is None else caps
        # a charge is additive (`destructiveHint: false` is true of it): the user's confirmation, stated, is its brake
        return ann.get("destructiveHint") is not False or caps == {"send"} or (
            bool(caps) and caps <= {"pay", "send"} and _states_confirmation(tool))
    return False


def marked_safe(tool: Tool, caps: frozenset[str]) -> tuple[str, tuple[str, ...]] | None:
    """The explicit claim that disarms a client's brake on a risky tool: (claim, pointer tokens)."""
    ann = tool.annotation_map
    if ann.get("readOnlyHint") is True:
        return "readOnlyHint: true", ("annotations", "readOnlyHint")
    harmful = caps & {"delete", "pay", "execute"}
    if caps & {"delete", "execute"} or "pay" in caps and not _states_confirmation(tool):
        pass
    else:
        harmful = frozenset()  # a charge is an additive update (MCP): with the user's confirmation stated, no claim
    if harmful and ann.get("destructiveHint") is False:
        return "destructiveHint: false", ("annotations", "destructiveHint")
    if harmful and approval_signal(tool) is False:
        return "approval not required", ("risk",) if tool.risk is not None else ("name",)
    risk = tool.risk if isinstance(tool.risk, dict) else {}
    effect = risk.get("effect", risk.get("side_effect"))
    if isinstance(effect, str) and effect.strip().lower() in ("read", "none", "read-only", "readonly", "read_only"):
        return f"risk effect '{effect.strip()[:20]}'", ("risk", "effect" if "effect" in risk else "side_effect")
    return None


def _claim_hit(tool: Tool, ctx: Any, tokens: tuple[str, ...], **args: Any) -> Hit:
    field_name = tokens[0]
    return ctx.at(tool, field_name, *tokens[1:], **args)


# a statement that changes data, named as something the tool runs ("any SQL statement (SELECT, INSERT, UPDATE...)")
_SQL_WRITES = lazy_compile(r"\b(?:INSERT|UPDATE|DELETE|DROP|ALTER|TRUNCATE|MERGE|GRANT|CREATE\s+(?:TABLE|INDEX|VIEW))\b"
                           r"|(?i:\b(?:DDL|DML|read[- ]write|any\s+(?:sql\s+)?(?:statement|query|command)s?|write\s+quer\w+"
                           r"|writes?\s+(?:to\s+)?the\s+database|modif\w+\s+(?:the\s+)?(?:data|database|tables?|rows?|records?))\b)")


def runs_writing_sql(tool: Tool) -> bool:
    """A raw query parameter (TSL541's kind) on a tool whose description says statements that change data run
    too, and that does not say they fail (a read-only role or replica)."""
    queries = [leaf for _p, _n, leaf, kind in _kinds(tool) if kind == "sql"]
    if not queries:
        return False
    text = _text(tool.description)[:20_000] + " " + " ".join(_desc(leaf) for leaf in queries)
    return bool(_SQL_WRITES.search(text)) and not _STATEMENTS_FAIL.search(text) and not _states_read_only(tool)


@check("TSL565")
def risky_tool_marked_safe(tool: Tool, ctx: Any) -> Iterator[Hit]:
    caps = capabilities(tool)
    claim = marked_safe(tool, caps) if caps else None
    if claim:
        what = " and ".join(_CAP_WHAT[c] for c in sorted(caps))
        yield _claim_hit(tool, ctx, claim[1], what=what, claim=claim[0])
    elif tool.annotation_map.get("readOnlyHint") is True and runs_writing_sql(tool):
        # raw SQL that may change data, marked read-only: the claim disarms the client's brake
        yield _claim_hit(tool, ctx, ("annotations", "readOnlyHint"), what="runs statements that change data",
                         claim="readOnlyHint: true")


@check("TSL566")
def risky_tool_without_brake(tool: Tool, ctx: Any) -> Iterator[Hit]:
    caps = capabilities(tool)
    if not caps or marked_safe(tool, caps):
        return
    if braked(tool, caps):
        return
    what = " and ".join(_CAP_WHAT[c] for c in sorted(caps))
    if tool.has_production_metadata:
        yield ctx.at(tool, "name", what=what, why=" (its risk metadata leaves approval out)", _severity=Severity.WARNING)
    elif "pay" in caps and tool.dialect == "mcp":
        yield ctx.at(tool, "name", what=what, why="", _severity=Severity.WARNING)
    elif tool.dialect == "mcp":
        # no hint at all: TSL601 reports that as a warning (add the hints); this finding only where it does not
        yield ctx.at(tool, "name", what=what, why=" (only the MCP default destructiveHint applies)", _unless=("TSL601", False))
    else:
        # OpenAI, Anthropic and Gemini definitions have no place for annotations: only a confirmation step stated
        # in the description (which `braked` reads) can say it
        yield ctx.at(tool, "name", what=what, why=" (this format has no annotations: state the confirmation step in "
                     "the description)")


# --- look-alike tools across servers ---------------------------------------------------------------------

_CONFUSABLES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "l", "ї": "l", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w",
    "ɡ": "g", "ү": "y", "ԍ": "g", "ո": "n", "ս": "u", "օ": "o",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ω": "w",
    # Latin look-alikes and digits that pass for letters
    "ı": "l", "i": "l", "ł": "l", "ß": "b", "0": "o", "1": "l", "3": "e", "5": "s", "|": "l", "!": "l",
})
_SEPARATORS = lazy_compile(r"[\s_\-.:/]+")
_SKELETON_FOLDS = (("rn", "m"), ("vv", "w"))


def skeleton(name: str) -> str:
    """A name reduced to what a reader sees: case, separators, accents and confusables folded."""
    return _skeleton(name[:256])  # the cache is keyed on what is read, however long the name


@lru_cache(maxsize=65_536)
def _skeleton(name: str) -> str:
    if name.isascii():  # normalization changes no ASCII text, and no ASCII character is a format (Cf) one
        s = name.lower().translate(_CONFUSABLES)
    else:
        s = unicodedata.normalize("NFKC", name).lower()
        s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
        s = unicodedata.normalize("NFKC", s).translate(_CONFUSABLES)
        s = "".join(c for c in s if unicodedata.category(c) != "Cf")
    s = _SEPARATORS.sub("", s)
    for a, b in _SKELETON_FOLDS:
        s = s.replace(a, b)
    return s


def server_label(server: Server) -> str:
    """Another server, as a finding names it: where it was read from (its file, or the name config
    gives its group) and, in quotes, the name it gives itself (serverInfo, which versions of one
    server share, and which the server chooses: it comes second)."""
    name = server.name if isinstance(server.name, str) and server.name else None
    return server.key if name is None or name == server.key else f"{server.key} ('{name}')"


_SKELETONS = "security_capability.skeletons"  # key of `_by_skeleton`'s answer in the run's memo


def _by_skeleton(servers: list[Server], ctx: Any) -> dict[str, list[tuple[int, Tool]]]:
    """Tools grouped by the skeleton of their name: worked out once per run, for TSL570 and TSL571."""
    groups = ctx.memo.get(_SKELETONS)
    if groups is None:  # the memo is the run's (`Engine._run_checks`): these are its servers
        groups = ctx.memo[_SKELETONS] = {}
        for i, server in enumerate(servers):
            for tool in server.tools:
                if isinstance(tool.name, str) and tool.name:
                    groups.setdefault(skeleton(tool.name), []).append((i, tool))
    return groups


def _clashes(servers: list[Server], ctx: Any, exact: bool) -> Iterator[tuple[Tool, Tool, Server, int]]:
    """(tool, clashing tool, that tool's server, how many more servers clash with `tool`): once per
    tool that clashes with tools of servers sorting after its own.

    Which side is the impostor cannot be told from the definitions. In the order of server keys,
    each clashing tool but the last server's names the next server, so findings do not move when the
    same files are given in another order; a name offered by k servers gives k - 1 findings, the
    first counting the other k - 1 servers, not one finding per pair of them.
    """
    if len(servers) < 2:
        return
    for group in _by_skeleton(servers, ctx).values():
        if len({i for i, _t in group}) < 2:
            continue
        group = sorted(group, key=lambda entry: servers[entry[0]].key)  # stable: a server's tools stay in order
        for a, (i, tool) in enumerate(group):
            first: tuple[int, Tool] | None = None
            later: set[int] = set()
            for j, other in group[a + 1:]:
                if j != i and (other.name == tool.name) == exact:
                    first = first or (j, other)
                    later.add(j)
            if first is not None:
                yield tool, first[1], servers[first[0]], len(later) - 1


def _more(n: int, what: str) -> str:
    return f", and {what} {n} more server{'s' if n > 1 else ''}" if n else ""


@check("TSL570", scope="run")
def tool_name_collision_across_servers(servers: list[Server], ctx: Any) -> Iterator[Hit]:
    for tool, _other, server, more in _clashes(servers, ctx, exact=True):
        yield ctx.at(tool, "name", server=server_label(server), more=_more(more, "by"))


def how_alike(name: str, other: str) -> str:
    """What separates two names with the same skeleton, in words a reviewer can check."""
    odd = sorted({c for c in name + other if ord(c) > 127})
    if odd:
        return "look-alike characters " + ", ".join(f"U+{ord(c):04X}" for c in odd[:4])
    if any(c.isdigit() for c in name + other) and re.sub(r"\d", "", name) != re.sub(r"\d", "", other):
        return "digits standing in for letters"
    return "differs in case or separators only" if _SEPARATORS.sub("", name).lower() == _SEPARATORS.sub("", other).lower() \
        else "letters that look alike"


@check("TSL571", scope="run")
def lookalike_tool_name_across_servers(servers: list[Server], ctx: Any) -> Iterator[Hit]:
    for tool, other, server, more in _clashes(servers, ctx, exact=False):
        yield ctx.at(tool, "name", other=other.name, server=server_label(server), how=how_alike(tool.name, other.name),
                     more=_more(more, "like names on"))


_BROAD_TRIGGER = lazy_compile(
    r"\b(?:whenever|every\s*time|any\s*time|each\s+time)\b[^.\n]{0,80}?\b(?:mention\w*|says?|ask\w*|talks?|refers?|types?"
    r"|wants?|needs?|requests?|uses?\s+(?:the\s+)?words?)\b"
    r"|\b(?:use|call|invoke|choose|prefer|select|pick)\s+(?:this|me|it)(?:\s+tool)?\s+(?:for|on|with|in)\s+(?:any|all|every)\b"
    r"|\bfor\s+(?:any|all|every)\s+(?:kind\s+of\s+|type\s+of\s+)?(?:user\s+)?(?:requests?|tasks?|queries|query|questions?|messages?"
    r"|prompts?|inputs?|operations?|purposes?)\b"
    r"|\binstead\s+of\s+(?:any|other|the\s+other)\s+(?:\w+\s+)?tools?\b"
    r"|\b(?:any|all)\s+(?:data|information|content|files?|text|notes?)\s+(?:the\s+user|they|you)\s+(?:might|may|could|will)\b"
    r"|(?:只要|每当|无论何时|任何时候|一旦)[^。\n]{0,40}?(?:提到|提及|说|要求|询问|需要|输入)"
    r"|(?:所有|任何|一切)(?:的)?(?:请求|任务|问题|情况|场景|数据)", re.IGNORECASE)
# every branch of `_BROAD_TRIGGER` that can match ASCII text holds one of these words, where a word
# starts (after `\b` or whitespace)
_BROAD_WORDS = lazy_compile(r"\b(?:whenever|every|any|each|instead|all)")


def broad_trigger(text: str) -> re.Match | None:
    """`_BROAD_TRIGGER.search(text)`, skipped for ASCII text in which none of `_BROAD_WORDS` starts
    a word (most descriptions: "call" or "company" hold such a word, but not at a word's start).
    Other text always gets the full pattern: case-insensitive matching also folds some non-ASCII letters."""
    if text.isascii() and _BROAD_WORDS.search(text.lower()) is None:
        return None
    return _BROAD_TRIGGER.search(text)


_UNIVERSAL = lazy_compile(r"\b(?:any|all|every)\s+(?:kind\s+of\s+|type\s+of\s+)?(?:user\s+)?(?:requests?|tasks?|quer\w+|questions?"
                          r"|messages?|prompts?|inputs?|operations?|purposes?)\b|\binstead\s+of\b|所有|任何|一切", re.IGNORECASE)
_STOP = {"the", "this", "that", "tool", "tools", "use", "used", "using", "any", "all", "every", "user", "users",
         "mention", "mentions", "mentioned", "when", "whenever", "with", "for", "and", "from", "into", "your", "you",
         "they", "them", "get", "list", "set", "call", "request", "requests", "also", "might", "may", "could", "will",
         "need", "needs", "want", "wants", "say", "says", "ask", "asks", "time", "data", "information", "words",
         "word", "other", "instead", "than", "then", "just", "only", "their", "about", "should", "must", "always",
         "future", "access", "later", "some", "thing", "things", "like", "such", "type", "kind", "query", "task",
         "tasks", "anything", "here", "there", "what", "which", "tell", "talk", "refers", "types"}


def _content_words(text: str) -> set[str]:
    return {w for w in words(text, 4000) if len(w) >= 4 and w not in _STOP and not w.isdigit()}


_SUFFIX = lazy_compile(r"(?:ings?|ages?|ed|es|ions?|ity|ies|s|e)$")


def _stem(word: str) -> str:
    stem = _SUFFIX.sub("", word)
    return stem if len(stem) >= 3 else word


_CJK_COMMON = {"用户", "使用", "工具", "提到", "时候", "就使", "此工"}


def topic(text: str) -> set[str]:
    """Stems of the content words of `text`, plus its pairs of adjacent CJK characters."""
    stems = {_stem(w) for w in _content_words(text)}
    cjk = {text[i:i + 2] for i in range(len(text) - 1) if "\u4e00" <= text[i] <= "\u9fff" and "\u4e00" <= text[i + 1] <= "\u9fff"}
    return stems | (cjk - _CJK_COMMON)


_SENTENCE_END = lazy_compile(r"[.。!?！？\n]")


def first_sentence(text: str, start: int = 0) -> str:
    end = _SENTENCE_END.search(text, start, start + 240)
    return text[start:end.start() if end else start + 240]


@check("TSL572", scope="run")
def overbroad_tool_trigger(servers: list[Server], ctx: Any) -> Iterator[Hit]:
    if len(servers) < 2:
        return
    triggers = [(i, t, m) for i, s in enumerate(servers) for t in s.tools
                for m in [broad_trigger(_text(t.description))] if m]
    if not triggers:
        return
    # what each tool is for: its name, title and first sentence; worked out for a server only when
    # the search for a clash reaches it (a universal claim stops at the first other tool)
    known: dict[int, list[tuple[Tool, set[str]]]] = {}

    def topics(j: int) -> list[tuple[Tool, set[str]]]:
        if j not in known:
            known[j] = [(t, topic(" ".join(words(t.name)) + " " + _text(t.title) + " " + first_sentence(_text(t.description))))
                        for t in servers[j].tools if isinstance(t.name, str)]
        return known[j]

    for i, tool, m in triggers:
        desc = _text(tool.description)
        universal = _UNIVERSAL.search(desc, m.start(), m.end() + 40)
        claimed = topic(m.group(0) + " " + first_sentence(desc, m.end()))  # what the trigger claims
        match = next(((t, servers[j]) for j in range(len(servers)) if j != i for t, their in topics(j)
                      if universal or claimed & their), None)
        if match:
            yield ctx.at(tool, "description", quote=m.group(0), other=match[0].name, server=server_label(match[1]))


def scan_text(text: str) -> list[str]:
    """Every text pattern of this module run over one string, as the checks see it (bench/regex_stress.py)."""
    text = _text(text)
    first_sentence(text)
    rxs = [_URL_DESC, _SQL_DESC, _DEST_DESC, _FETCH, _CMD_DESC, _EXEC, _CODE_LANG, _SQL_WORD, _SQL_KEYWORD, _DB_CONTEXT, _SEARCHY, _CONTENT, _ANYWHERE,
           _BYPASS_DESC, _CALLER_DESC, _READS, _RAW_HTML, _BROAD_TRIGGER, _UNIVERSAL, _TRIVIAL_PATTERN, *_CAP_DESC.values()]
    out = [m.group(0) for rx in rxs for m in [rx.search(text)] if m]
    out.append(skeleton(text))
    out.extend(words(text))
    return out
