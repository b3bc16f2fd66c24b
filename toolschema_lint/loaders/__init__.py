"""Find input files, decode them, parse them and turn them into `Document`s with `Tool`s.

Every problem with an input becomes a located input-problems (TSL0xx) hit on the document; the
run goes on with the other files. Only a path that cannot be read at all is an `InputError`.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import Document, Example, Hit, Tool, join_pointer
from .dialects import detect
from .json_ import load_json
from .positions import FixedPositions, JsonPositions, LineTable
from .problem import SourceProblem
from .results import exchanges, looks_like_results

EXTENSIONS = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml"}
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"}
POLICY_SUFFIX = ".policy.yaml"
EXAMPLES_SUFFIX = ".examples.jsonl"
SCHEMA_SUFFIX = ".schema.json"
OWN_FILE_KEYS = ("toolschema-lint-baseline", "toolschema-lock")  # our own artifacts, found beside tool files
DEFAULT_MAX_BYTES = 4 * 1024 * 1024  # a tools file this large is pathological; max-file-size raises it
MAX_DEPTH = 100  # JSON/YAML nesting levels; real tool files stay far below


class InputError(Exception):
    """A path that cannot be read at all (exit code 2)."""


@dataclass
class Source:
    path: Path | None
    display: str
    text: str | None = None  # given for live captures; read from `path` otherwise
    format: str | None = None
    server_key: str | None = None
    explicit: bool = True  # named on the command line; False for a file found while walking a folder
    data: bytes | None = None  # read from standard input (`-`): decoded and size-checked like a file


def display_path(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path.as_posix()
    return Path(rel).as_posix() if not rel.startswith("..") else path.as_posix()


def _is_companion(name: str) -> bool:
    return name.endswith(POLICY_SUFFIX) or name.endswith(EXAMPLES_SUFFIX)


def collect(paths: list[str], exclude: list[str] | None = None, errors: list[str] | None = None,
            stdin_filename: str | None = None, stdin: Any = None) -> list[Source]:
    """Expand files and folders into sources, in a stable order. `-` is standard input, shown as
    `stdin_filename` (whose extension also tells its format; without one, JSON or YAML by its first
    character).

    A missing path raises InputError, or is appended to `errors` (and skipped) when a list is given.
    """
    exclude = exclude or []
    out: list[Source] = []
    seen: set[Path] = set()

    def excluded(p: Path) -> bool:
        s = display_path(p)
        return any(fnmatch.fnmatch(s, pat) or fnmatch.fnmatch(p.name, pat) for pat in exclude)

    def add(p: Path, explicit: bool) -> None:
        name = p.name
        if _is_companion(name):
            stem = name[: -len(POLICY_SUFFIX)] if name.endswith(POLICY_SUFFIX) else name[: -len(EXAMPLES_SUFFIX)]
            schema = p.with_name(stem + SCHEMA_SUFFIX)
            if schema.exists():
                p = schema  # a companion file is linted through its schema
            elif not explicit:
                return
        rp = p.resolve()
        if rp in seen or excluded(p):
            return
        seen.add(rp)
        key = display_path(p.parent) if p.name.endswith(SCHEMA_SUFFIX) else None
        out.append(Source(path=p, display=display_path(p), server_key=key, explicit=explicit))

    read_stdin = False
    for raw in paths:
        if raw == "-":
            if not read_stdin:
                read_stdin = True
                out.append(_stdin_source(stdin_filename, stdin))
            continue
        p = Path(raw)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for f in sorted(files):
                    fp = Path(root) / f
                    # hidden files are skipped like hidden folders (.pre-commit-config.yaml, .eslintrc.json)
                    if fp.suffix.lower() in EXTENSIONS and not f.startswith(".") and not excluded(fp):
                        add(fp, explicit=False)
        elif p.is_file():
            add(p, explicit=True)
        else:
            message = f"{raw}: no such file or directory"
            if errors is None:
                raise InputError(message)
            errors.append(message)
    return out


def _stdin_source(name: str | None, stream: Any = None) -> Source:
    import sys

    stream = stream if stream is not None else sys.stdin.buffer
    data = stream.read(DEFAULT_MAX_BYTES * 64 + 1)  # past any sane --max-file-size: TSL007 reports it
    if isinstance(data, str):
        data = data.encode("utf-8")
    fmt = EXTENSIONS.get(Path(name).suffix.lower()) if name else None
    if fmt is None:
        head = data.lstrip()[:1]
        fmt = "json" if head in (b"{", b"[", b"") else "yaml"
    return Source(path=None, display=name or "-", format=fmt, data=data)


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode(raw: bytes) -> tuple[str, list[tuple[str, dict]]]:
    """Bytes -> text, forgiving of BOMs and UTF-16/32; notes become TSL010 problems."""
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            text = raw[len(bom) :].decode(enc, errors="strict")
            return text, [("TSL010", {"encoding": enc.upper() + " with a byte order mark"})]
    if len(raw) >= 4 and raw[1] == 0 and raw[3] == 0 and raw[0] != 0:
        return raw.decode("utf-16-le"), [("TSL010", {"encoding": "UTF-16-LE without a byte order mark"})]
    if len(raw) >= 4 and raw[0] == 0 and raw[2] == 0 and raw[1] != 0:
        return raw.decode("utf-16-be"), [("TSL010", {"encoding": "UTF-16-BE without a byte order mark"})]
    return raw.decode("utf-8", errors="strict"), []


def _problem(doc: Document, rule: str, pointer: str = "", args: dict | None = None, line: int | None = None,
             column: int | None = None) -> None:
    hit = Hit(pointer=pointer, args={**(args or {}), "_rule": rule})
    if line is not None:
        hit.args["_line"], hit.args["_column"] = line, column or 1
    doc.problems.append(hit)


_TOOL_KEYS = ("inputSchema", "input_schema", "parameters", "parametersJsonSchema", "function")


def _tool_at(data: Any, pointer: str) -> str | None:
    """The name of the innermost tool definition on the way to `pointer`, if any."""
    node, name = data, None
    for raw in pointer.split("/")[1:]:
        tok = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            if isinstance(node.get("name"), str) and any(k in node for k in _TOOL_KEYS):
                name = node["name"]
            node = node.get(tok)
        elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
            node = node[int(tok)]
        else:
            break
    return name


def human_size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"


def too_deep(data: Any, limit: int) -> str | None:
    """Pointer of the first node nested deeper than `limit`, or None.

    The containers are counted level by level (a list comprehension per container); only when the
    limit is exceeded are they walked again to build the pointer.
    """
    level = [data] if type(data) is dict or type(data) is list else []
    depth = 0
    while level:
        if depth > limit:
            return _deep_pointer(data, limit)
        below: list[Any] = []
        add = below.extend
        for node in level:
            add([v for v in (node.values() if type(node) is dict else node) if type(v) is dict or type(v) is list])
        level = below
        depth += 1
    return None


def _deep_pointer(data: Any, limit: int) -> str:
    """The pointer of the first node (depth-first) nested deeper than `limit`, which exists."""
    stack: list[tuple[Any, int, Any]] = [(data, 0, None)]
    pop, push = stack.pop, stack.append
    while stack:
        entry = pop()
        node, d, _ = entry
        if d > limit:
            tokens: list[str | int] = []
            while entry[2] is not None:
                entry, key = entry[2]
                tokens.append(key)
            return join_pointer("", *reversed(tokens))
        if type(node) is dict:
            for k, v in node.items():
                if type(v) in (dict, list):
                    push((v, d + 1, (entry, k)))
        elif type(node) is list:
            for i, v in enumerate(node):
                if type(v) in (dict, list):
                    push((v, d + 1, (entry, i)))
    raise AssertionError("no node deeper than the limit")  # pragma: no cover - too_deep found one


def load_source(src: Source, input_format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                companion: bool = False) -> Document:
    """Load one source into a Document. Raises InputError only when the file cannot be read.

    A companion (a registry policy or examples file) is parsed but not searched for tools.
    """
    doc = Document(path=src.display)
    fmt = src.format or (EXTENSIONS.get(src.path.suffix.lower(), "json") if src.path else "json")
    doc.format = fmt
    if src.text is not None:
        text = src.text
    else:
        try:
            size = len(src.data) if src.data is not None else src.path.stat().st_size  # type: ignore[union-attr]
            if size > max_bytes:
                doc.position_factory = lambda d: FixedPositions()
                _problem(doc, "TSL007", args={"size": human_size(size), "limit": human_size(max_bytes)})
                return doc
            raw = src.data if src.data is not None else src.path.read_bytes()  # type: ignore[union-attr]
        except OSError as e:
            raise InputError(f"{src.display}: cannot read ({e.strerror or e})") from None
        try:
            text, notes = decode(raw)
        except UnicodeDecodeError as e:
            table_text = raw[: e.start].decode("utf-8", errors="replace")
            line, col = LineTable(table_text).at(len(table_text))
            doc.position_factory = lambda d: FixedPositions()
            _problem(doc, "TSL005", args={"detail": f"byte 0x{raw[e.start]:02x} at offset {e.start} is not valid UTF-8"},
                     line=line, column=col)
            return doc
        for rule, args in notes:
            _problem(doc, rule, args=args, line=1, column=1)
    if src.text is not None:
        doc.text = text  # a live capture has no file to point at: keep its text (it is what `dump` saves)
    try:
        if fmt == "yaml":
            from .yaml_ import compose, load_yaml, positions_for, suppressions  # PyYAML: only for YAML input

            values, nodes, duplicates = load_yaml(text)
            data = values[0] if len(values) == 1 else values
            pos = positions_for(nodes)
            doc.position_factory = lambda d, pos=pos: pos
            # once released, the node trees are dropped and re-composed only if a position is needed
            doc.reload_factory = lambda d, t=text: positions_for(compose(t))
            doc.suppressions = suppressions(text, nodes)
            for key, line, col in duplicates:
                _problem(doc, "TSL002", args={"key": key}, line=line, column=col)
        else:
            data, problems, ptext = load_json(text, lines=(fmt == "jsonl"))
            lines = fmt == "jsonl" or (isinstance(data, list) and ptext.lstrip().startswith("{"))
            if lines and fmt != "jsonl":
                doc.format = fmt = "jsonl"
            doc.position_factory = lambda d, t=ptext, ln=lines: JsonPositions(t, lines=ln)
            for rule, pointer, args in problems:
                off = args.pop("_offset", None)
                if off is not None:
                    line, col = LineTable(ptext).at(off)
                    _problem(doc, rule, pointer, args, line=line, column=col)
                else:
                    _problem(doc, rule, pointer, args)
    except SourceProblem as e:
        doc.position_factory = lambda d: FixedPositions()
        _problem(doc, e.rule, args={"detail": e.message}, line=e.line, column=e.column)
        return doc
    deep = too_deep(data, MAX_DEPTH)
    if deep is not None:
        doc.data = data
        args: dict[str, Any] = {"detail": f"nesting deeper than {MAX_DEPTH} levels"}
        owner = _tool_at(data, deep)
        if owner is not None:
            args["_tool_name"] = owner  # the finding names the tool that nests too deep (and per-tool ignores apply)
        _problem(doc, "TSL008", deep, args)
        return doc
    doc.data = data
    if companion:
        return doc
    if isinstance(data, dict) and any(k in data for k in OWN_FILE_KEYS):
        doc.detection = "a toolschema-lint baseline or lock file: not linted"
        return doc
    if looks_like_results(data):
        doc.dialect, doc.detection = "tool-results", "recorded tools/call exchanges"
        doc.exchanges, problems = exchanges(data)
        for ex in doc.exchanges:
            ex.document = doc
        for pointer, args in problems:
            _problem(doc, "TSL004", pointer, args)
        return doc
    det = detect(data, input_format)
    doc.dialect, doc.detection, doc.server_info = det.dialect, det.reason, det.server_info
    for rule, pointer, args in det.problems:
        _problem(doc, rule, pointer, args)
    doc.tools = det.tools
    for tool in doc.tools:
        tool.document = doc
    if src.path is not None and src.path.name.endswith(SCHEMA_SUFFIX):
        _attach_companions(doc, src.path)
    for tool in doc.tools:
        _collect_inline_examples(tool)
    return doc


def reposition(src: Source, doc: Document) -> Any:
    """Positions for a document whose text was dropped: read and parse its source again."""
    fresh = load_source(src, max_bytes=1 << 62, companion=True)
    if fresh.position_factory is None:
        return FixedPositions()
    return fresh.position_factory(fresh)


def _attach_companions(doc: Document, schema_path: Path) -> None:
    """A registry tool: NAME.schema.json + NAME.policy.yaml (risk metadata) + NAME.examples.jsonl."""
    stem = schema_path.name[: -len(SCHEMA_SUFFIX)]
    policy_path = schema_path.with_name(stem + POLICY_SUFFIX)
    examples_path = schema_path.with_name(stem + EXAMPLES_SUFFIX)
    for tool in doc.tools:
        if policy_path.exists():
            psrc = Source(policy_path, display_path(policy_path), format="yaml")
            pdoc = load_source(psrc, companion=True)
            pdoc.origin = psrc
            doc.companions.append(pdoc)
            policy = pdoc.data if isinstance(pdoc.data, dict) else None
            if policy is None and not pdoc.problems:
                _problem(pdoc, "TSL012", "", {"reason": "a policy file must be a mapping of risk metadata"})
            if policy is not None:
                tool.policy = policy
                tool.field_docs["policy"] = pdoc
                tool.fields["policy"] = ""
                for fld in ("version", "risk", "runtime"):
                    if getattr(tool, fld) is None and fld in policy:
                        setattr(tool, fld, policy[fld])
                        tool.fields[fld] = join_pointer("", fld)
                        tool.field_docs[fld] = pdoc
                if tool.risk is None and "risk" not in policy:
                    tool.risk = policy  # a flat policy file is the risk block itself
                    tool.fields["risk"] = ""
                    tool.field_docs["risk"] = pdoc
                tool.has_production_metadata = True
        if examples_path.exists():
            esrc = Source(examples_path, display_path(examples_path), format="jsonl")
            edoc = load_source(esrc, companion=True)
            edoc.origin = esrc
            doc.companions.append(edoc)
            records = edoc.data if isinstance(edoc.data, list) else []
            for i, rec in enumerate(records):
                ex = example_from_record(rec, f"/{i}", edoc)
                if ex is not None:
                    tool.examples.append(ex)
                else:
                    _problem(edoc, "TSL012", f"/{i}", {"reason": "an examples line must be a JSON object"})
        break  # a registry schema file holds one tool


def example_from_record(rec: Any, pointer: str, edoc: Document | None) -> Example | None:
    """One line of NAME.examples.jsonl (schema best-practices seed, section 10 format)."""
    if not isinstance(rec, dict):
        return None
    expected = rec.get("expected") if isinstance(rec.get("expected"), dict) else {}
    args = rec.get("arguments", expected.get("arguments"))
    args_ptr = join_pointer(pointer, "arguments") if "arguments" in rec else join_pointer(pointer, "expected", "arguments")
    positive = not (rec.get("negative") is True or rec.get("valid") is False or expected.get("valid") is False)
    forbidden = expected.get("forbidden_arguments") or rec.get("forbidden_arguments") or []
    return Example(
        arguments=args,
        positive=positive,
        pointer=args_ptr if args is not None else pointer,
        document=edoc,
        forbidden=list(forbidden) if isinstance(forbidden, list) else [],
        forbidden_pointer=join_pointer(pointer, "expected", "forbidden_arguments")
        if "forbidden_arguments" in expected
        else join_pointer(pointer, "forbidden_arguments"),
        label=str(rec.get("id", pointer)),
    )


def _collect_inline_examples(tool: Tool) -> None:
    """Anthropic `input_examples` and a root-level JSON Schema `examples` array."""
    raw = tool.raw if isinstance(tool.raw, dict) else {}
    if isinstance(raw.get("input_examples"), list):
        base = join_pointer(tool.pointer, "input_examples")
        for i, ex in enumerate(raw["input_examples"]):
            tool.examples.append(Example(arguments=ex, pointer=join_pointer(base, i), label=f"input_examples[{i}]"))
    schema = tool.input_schema
    if isinstance(schema, dict) and isinstance(schema.get("examples"), list):
        base = tool.ptr("input_schema", "examples")
        for i, ex in enumerate(schema["examples"]):
            tool.examples.append(Example(arguments=ex, pointer=join_pointer(base, i), label=f"examples[{i}]"))
