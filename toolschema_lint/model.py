"""The normalized model every loader produces and every check consumes.

Plain dataclasses, no I/O. A check never sees a provider's shape: it sees `Tool`s.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from functools import partial, update_wrapper
from enum import IntEnum
from operator import attrgetter
from typing import Any, Callable, TypeVar

T = TypeVar("T")


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, value: str) -> "Severity":
        try:
            return cls[value.upper()]
        except KeyError:
            raise ValueError(f"unknown severity {value!r} (expected error, warning or info)") from None

    def __str__(self) -> str:
        return self.name.lower()


def unescape_pointer_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(base: str, *tokens: str | int) -> str:
    out = base
    for t in tokens:
        t = t if type(t) is str else str(t)
        out += "/" + (t.replace("~", "~0").replace("/", "~1") if "~" in t or "/" in t else t)
    return out


def split_pointer(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [unescape_pointer_token(t) for t in pointer[1:].split("/")]


def node_at(data: Any, pointer: str) -> Any:
    """The value at `pointer`, or None when it does not exist."""
    node = data
    for tok in split_pointer(pointer):
        if isinstance(node, dict) and tok in node:
            node = node[tok]
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            return None
    return node


def content_hash(data: Any, pointer: str) -> str:
    node = node_at(data, pointer)
    try:
        text = json.dumps(node, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, RecursionError, TypeError):
        text = repr(type(node))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(slots=True)
class RuleMeta:
    """One catalog entry (rules/TSLnnn.yaml)."""

    id: str
    name: str
    severity: Severity
    summary: str
    message: str
    rationale: str
    fix: str
    examples: dict[str, Any]
    references: list[str] = field(default_factory=list)
    since: str = "0.1.0"
    tags: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)  # JSON Schema of the rule's settings
    security_severity: float | None = None
    default: bool = True  # part of the recommended set
    aliases: list[str] = field(default_factory=list)
    scope: str = "tool"
    autofix: str = "none"  # safe | unsafe | none: what `check --fix` (and `--unsafe-fixes`) may do about it

    @property
    def family(self) -> str:
        return self.id[:4]

    @property
    def hint(self) -> str:
        """`fix` on one line, as the text and GitHub reports show it beside a finding."""
        return " ".join(self.fix.split())

    @property
    def is_security(self) -> bool:
        return "security" in self.tags


@dataclass(slots=True)
class Tool:
    """A tool definition, whatever dialect it came from.

    `fields` maps each normalized field name to the RFC 6901 pointer of its original location
    in the document (e.g. ``input_schema`` -> ``/tools/3/function/parameters``).
    """

    name: Any
    description: Any = None
    title: Any = None
    input_schema: Any = None
    output_schema: Any = None
    annotations: Any = None
    meta: Any = None
    dialect: str = "mcp"
    pointer: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    raw: Any = None
    server: "Server | None" = field(default=None, repr=False)
    document: "Document | None" = field(default=None, repr=False)
    index: int = 0
    # production metadata (schema best-practices seed, section 3.1) and attached examples
    version: Any = None
    risk: Any = None
    runtime: Any = None
    policy: Any = None
    examples: list["Example"] = field(default_factory=list)
    has_production_metadata: bool = False
    field_docs: dict[str, "Document"] = field(default_factory=dict, repr=False)  # fields from companion files
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)  # see `per_tool`
    # pointer -> (line, column, end line, end column) of its name and description, recorded by the
    # engine while the document's position index is at hand, for cross-server findings made later
    anchors: dict[str, tuple[int, int, int, int]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def display_name(self) -> str:
        return self.name if isinstance(self.name, str) else f"<tool #{self.index}>"

    @property
    def annotation_map(self) -> dict:
        """The MCP annotations object (`readOnlyHint`, `destructiveHint`, `title`, ...); {} when the tool
        has none or it is not an object."""
        return self.annotations if isinstance(self.annotations, dict) else {}

    def slim(self) -> "Tool":
        """The tool as cross-server checks read it: name, title, description and where they are.

        Schemas, metadata and examples are left behind, so a large run does not hold every
        definition until its end (see `Server.slim`).
        """
        return Tool(name=self.name, description=self.description, title=self.title, dialect=self.dialect,
                    pointer=self.pointer, fields=self.fields, server=self.server, document=self.document,
                    index=self.index, field_docs=self.field_docs, anchors=self.anchors)

    def ptr(self, field_name: str | None = None, *tokens: str | int) -> str:
        """Absolute pointer to `field_name` (plus sub-tokens) of this tool.

        A field the tool lacks resolves to the tool object itself; positions then fall back
        to the closest existing ancestor, which is what a reader wants for a missing field.
        """
        if field_name is None:
            base = self.pointer
        else:
            base = self.fields.get(field_name)
            if base is None:
                return self.pointer
        return join_pointer(base, *tokens)


def per_tool(fn: Callable[[Tool], T]) -> Callable[[Tool], T]:
    """Memoise an analysis of a tool that several checks share (its parameter kinds, its capabilities).

    A tool does not change once loaded, so the answer is kept on the tool itself until the engine
    has run every check on its server. The result is shared: callers must not mutate it.
    """

    def cached(tool: Tool) -> T:
        memo = tool.memo
        try:
            return memo[fn]
        except KeyError:
            out = memo[fn] = fn(tool)
            return out

    return update_wrapper(cached, fn)


@dataclass(slots=True)
class Example:
    """An example call attached to a tool (examples.jsonl, input_examples, schema `examples`)."""

    arguments: Any
    positive: bool = True
    pointer: str = ""
    document: "Document | None" = field(default=None, repr=False)  # when not the tool's own document
    forbidden: list[Any] = field(default_factory=list)
    forbidden_pointer: str = ""
    label: str = ""


@dataclass(slots=True)
class Exchange:
    """One recorded `tools/call`: the tool name, its arguments and the result the server returned."""

    tool: Any
    arguments: Any = None
    result: Any = None
    error: Any = None  # a JSON-RPC error instead of a result
    server: str | None = None
    pointer: str = ""  # the record (or the response message)
    fields: dict[str, str] = field(default_factory=dict)  # tool, arguments, result -> pointers
    document: "Document | None" = field(default=None, repr=False)
    index: int = 0

    @property
    def display_name(self) -> str:
        return self.tool if isinstance(self.tool, str) else f"<call #{self.index}>"

    def ptr(self, field_name: str | None = None, *tokens: str | int) -> str:
        base = self.fields.get(field_name) if field_name else self.pointer
        return join_pointer(base if base is not None else self.pointer, *tokens)


@dataclass(slots=True)
class Server:
    """A set of tools offered together: one file, one live server, or a registry folder."""

    key: str
    tools: list[Tool] = field(default_factory=list)
    name: str | None = None
    version: str | None = None
    documents: list["Document"] = field(default_factory=list)
    slim: bool = False  # its tools are `Tool.slim` copies; the engine reloads the documents for more

    @property
    def tool_names(self) -> set[str]:
        return {t.name for t in self.tools if isinstance(t.name, str)}


@dataclass(slots=True)
class Document:
    """One input source: a file or a live capture."""

    path: str  # display path (relative to the working directory when possible) or live source
    text: str = ""
    format: str = "json"  # json | jsonl | yaml
    data: Any = None
    dialect: str | None = None
    detection: str = ""  # why this dialect was chosen (explainable detection)
    tools: list[Tool] = field(default_factory=list)
    positions: Any = None  # lazy position index (see loaders.positions)
    suppressions: dict[int, set[str]] | None = None  # YAML: line (1-based) -> ids ("*" for all)
    server_info: dict[str, Any] | None = None
    position_factory: Callable[["Document"], Any] | None = field(default=None, repr=False)
    reload_factory: Callable[["Document"], Any] | None = field(default=None, repr=False)
    origin: Any = field(default=None, repr=False)  # the loaders.Source it was read from
    problems: list["Hit"] = field(default_factory=list)  # input problems found while loading
    exchanges: list[Exchange] = field(default_factory=list)  # recorded tools/call results
    companions: list["Document"] = field(default_factory=list)  # registry policy/examples files

    def detach(self) -> None:
        """Make the document cheap to send to another process: keep what it says, not its text.

        Positions are then rebuilt, if ever needed, by loading the file again (`origin`).
        """
        from .loaders import reposition  # the model does no I/O itself; the loader does

        self.positions = None
        self.reload_factory = None
        self.text = ""
        self.data = None
        self.position_factory = partial(reposition, self.origin) if self.origin is not None else None
        for comp in self.companions:
            comp.detach()

    def release(self) -> None:
        """Drop the position index (and what it holds); it is rebuilt on demand."""
        self.positions = None
        if self.reload_factory is not None:
            self.position_factory, self.reload_factory = self.reload_factory, None

    def locate(self, pointer: str) -> tuple[int, int, int, int]:
        """(line, column, end_line, end_column), 1-based, columns in code points."""
        if self.positions is None:
            if self.position_factory is None:
                return (1, 1, 1, 1)
            self.positions = self.position_factory(self)
        return self.positions.locate(pointer)


@dataclass(slots=True)
class Finding:
    rule_id: str
    message: str
    path: str
    pointer: str = ""
    tool: str | None = None
    severity: Severity = Severity.WARNING
    name: str = ""
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1
    tags: tuple[str, ...] = ()
    content: str | None = None  # hash of the offending node; computed on first use (baselines)
    tool_pointer: str | None = None  # the pointer of the tool the finding is about, within `path`
    suppressed: str | None = None  # why it is suppressed (baseline), None when active
    document: Document | None = field(default=None, repr=False, compare=False)
    rendered: str | None = field(default=None, repr=False, compare=False)  # encoded by a reporter's `prepare`

    def __reduce__(self) -> tuple[Any, tuple]:
        # pickled (by worker processes) as its field values: a third of the default's cost, which
        # calls `dataclasses.fields` for each finding, both ways
        return (Finding, _finding_values(self))

    @property
    def fingerprint_content(self) -> str:
        """A hash of the offending node's canonical JSON: stable across reformatting and key order."""
        if self.content is None:
            doc = self.document
            data = doc.data if doc is not None else None
            if data is None and doc is not None and doc.origin is not None:
                from .loaders import load_source  # a detached document: read its file again

                doc.data = data = load_source(doc.origin, max_bytes=1 << 62, companion=True).data
            self.content = content_hash(data, self.pointer) if data is not None else ""
        return self.content


_finding_values = attrgetter(*(f.name for f in fields(Finding)))
# the order of a report: file, position, rule, pointer (a C-level key for sorting many findings)
finding_order = attrgetter("path", "line", "column", "rule_id", "pointer")


@dataclass(slots=True)
class Hit:
    """What a check yields: where, and the fields its message template needs."""

    pointer: str
    args: dict[str, Any] = field(default_factory=dict)
    tool: Tool | None = None
    document: Document | None = None  # another document than the tool's (e.g. a policy file)
    exchange: Exchange | None = None
