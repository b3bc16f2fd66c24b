"""YAML input: libyaml (C) for speed, YAML 1.2 core-schema semantics, alias-bomb and depth guards.

PyYAML's default resolver is YAML 1.1 (`yes`, `no`, `on`, `off` become booleans and corrupt
enums); we keep libyaml's parser and composer and resolve plain scalars by the 1.2 core schema.
Comments are not in libyaml's tree, so inline suppressions are read from the text, and a marker
only counts where no scalar of the document covers it (a marker inside a description is text the
scanned author wrote, never a comment the linting team controls).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - libyaml missing: same semantics, slower
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

from .positions import YamlPositions

MAX_NODES = 2_000_000  # expanded node count above which aliases are treated as a bomb
MAX_DEPTH = 100


class YamlProblem(Exception):
    def __init__(self, rule: str, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.rule, self.message, self.line, self.column = rule, message, line, column


class _Loader12(_BaseLoader):
    """libyaml parser + safe constructor + YAML 1.2 core schema for plain scalars."""

    yaml_implicit_resolvers: dict = {}


def _add(tag: str, pattern: str, first: str) -> None:
    _Loader12.add_implicit_resolver(tag, re.compile(pattern, re.X), list(first))


_add("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF")
_add("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN\x00")
_Loader12.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^$"), [""])
_add("tag:yaml.org,2002:merge", r"^(?:<<)$", "<")
_add("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789")
_add(
    "tag:yaml.org,2002:float",
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
    "-+0123456789.",
)


def _construct_int(loader: Any, node: Any) -> int:
    v = node.value.replace("_", "")
    if v.startswith("0o"):
        return int(v[2:], 8)
    if v.startswith("0x"):
        return int(v[2:], 16)
    return int(v, 10)


def _construct_float(loader: Any, node: Any) -> float:
    v = node.value.lower()
    if v.endswith(".inf"):
        return float("-inf") if v.startswith("-") else float("inf")
    if v.endswith(".nan"):
        return float("nan")
    return float(v)


def _construct_str_timestamp(loader: Any, node: Any) -> str:
    return node.value  # 1.2 core has no timestamp: dates stay strings


_Loader12.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader12.add_constructor("tag:yaml.org,2002:float", _construct_float)
_Loader12.add_constructor("tag:yaml.org,2002:timestamp", _construct_str_timestamp)
_Loader12.add_constructor("tag:yaml.org,2002:binary", _construct_str_timestamp)


def _check_graph(root: Any) -> None:
    """Reject alias bombs and recursive aliases before anything walks the tree."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def size(node: Any, depth: int) -> int:
        nid = id(node)
        if nid in sizes:
            return sizes[nid]
        if nid in on_path:
            m = node.start_mark
            raise YamlProblem("TSL009", "recursive alias: a node contains itself", m.line + 1, m.column + 1)
        if depth > MAX_DEPTH:
            m = node.start_mark
            raise YamlProblem("TSL008", f"nesting deeper than {MAX_DEPTH} levels", m.line + 1, m.column + 1)
        total = 1
        if node.id in ("mapping", "sequence"):
            on_path.add(nid)
            children = node.value if node.id == "sequence" else [x for kv in node.value for x in kv]
            for child in children:
                total += size(child, depth + 1)
                if total > MAX_NODES:
                    m = node.start_mark
                    raise YamlProblem(
                        "TSL009",
                        f"aliases expand to more than {MAX_NODES:,} nodes (an alias bomb)",
                        m.line + 1,
                        m.column + 1,
                    )
            on_path.discard(nid)
        sizes[nid] = total
        return total

    size(root, 0)


def load_yaml(text: str) -> tuple[list[Any], list[Any]]:
    """Parse all documents: (values, root nodes). Raises YamlProblem with a location."""
    loader = _Loader12(text)
    values: list[Any] = []
    nodes: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            _check_graph(node)
            values.append(loader.construct_document(node))
            nodes.append(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        msg = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise YamlProblem("TSL001", f"invalid YAML: {msg}", line, col) from None
    except yaml.YAMLError as e:
        raise YamlProblem("TSL001", f"invalid YAML: {e}") from None
    except RecursionError:
        raise YamlProblem("TSL008", f"nesting deeper than {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()
    return values, nodes


class _MultiDoc:
    """A stand-in sequence node so that pointer `/N` addresses document N of a stream."""

    id = "sequence"
    tag = "tag:yaml.org,2002:seq"

    def __init__(self, nodes: list[Any]):
        self.value = nodes
        self.start_mark = nodes[0].start_mark
        self.end_mark = nodes[-1].end_mark


def positions_for(nodes: list[Any]) -> YamlPositions:
    if len(nodes) == 1:
        return YamlPositions(nodes[0])
    return YamlPositions(_MultiDoc(nodes) if nodes else None)


_MARKER = re.compile(r"#\s*toolschema-lint:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?")


def _scalar_spans(node: Any, out: list[tuple[int, int, int, int]], seen: set[int]) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if node.id == "scalar":
        s, e = node.start_mark, node.end_mark
        out.append((s.line, s.column, e.line, e.column))
    elif node.id == "sequence":
        for child in node.value:
            _scalar_spans(child, out, seen)
    elif node.id == "mapping":
        for k, v in node.value:
            _scalar_spans(k, out, seen)
            _scalar_spans(v, out, seen)


def suppressions(text: str, nodes: list[Any]) -> dict[int, set[str]]:
    """Inline `# toolschema-lint: ignore[ID,...]` comments: 1-based line -> ids ('*' = all).

    A comment applies to its own line and, when it stands alone on its line, to the next one.
    """
    if "toolschema-lint" not in text:
        return {}
    spans: list[tuple[int, int, int, int]] = []
    seen: set[int] = set()
    for n in nodes:
        _scalar_spans(n, spans, seen)
    result: dict[int, set[str]] = {}
    for lineno, line in enumerate(text.splitlines()):
        if "toolschema-lint" not in line:
            continue
        for m in _MARKER.finditer(line):
            col = m.start()
            if col > 0 and line[col - 1] not in " \t":
                continue
            inside = any(
                (sl, sc) <= (lineno, col) < (el, ec) or (sl < lineno < el) for sl, sc, el, ec in spans
            )
            if inside:
                continue
            ids = {x.strip() for x in (m.group(1) or "*").split(",") if x.strip()} or {"*"}
            targets = [lineno + 1]
            if not line[:col].strip():
                targets.append(lineno + 2)
            for t in targets:
                result.setdefault(t, set()).update(ids)
    return result
