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
from ..lazyre import lazy_compile

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - libyaml missing: same semantics, slower
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

from .positions import YamlPositions
from .problem import SourceProblem

MAX_NODES = 2_000_000  # expanded node count above which aliases are treated as a bomb
MAX_DEPTH = 100
_DEPTH_LIMIT = lazy_compile(r"nesting depth|too deep|nesting level", re.IGNORECASE)  # a parser's own depth limit


class YamlProblem(SourceProblem):
    pass


class _Composer(_BaseLoader):
    """libyaml's parser and composer. Tags are resolved by `_build`, by the YAML 1.2 core schema."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:  # called by libyaml for each node
        return ""


_STR = "tag:yaml.org,2002:str"
_INT = lazy_compile(r"[-+]?[0-9]+\Z")
_FLOAT = lazy_compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = {"", "~", "null", "Null", "NULL"}
_SPECIAL_FLOAT = {".inf": float("inf"), "+.inf": float("inf"), "-.inf": float("-inf"), ".nan": float("nan")}


def _plain(v: str) -> Any:
    """A plain scalar by the YAML 1.2 core schema (so `on`, `yes`, `no` and dates stay strings)."""
    if v in _NULL:
        return None
    c = v[0]
    if c in "tTfF":
        return _BOOL.get(v, v)
    if c in "-+0123456789.":
        if _INT.match(v):
            return int(v)
        if v.startswith("0o") and len(v) > 2 and all(ch in "01234567" for ch in v[2:]):
            return int(v[2:], 8)
        if v.startswith("0x") and len(v) > 2:
            try:
                return int(v[2:], 16)
            except ValueError:
                return v
        if _FLOAT.match(v):
            return float(v)
        return _SPECIAL_FLOAT.get(v.lower(), v)
    return v


def _scalar(node: Any) -> Any:
    tag = node.tag
    if not tag:
        return _plain(node.value) if not node.style else node.value  # libyaml: "" (or None) = plain
    if tag == _STR or not tag.startswith("tag:yaml.org,2002:"):
        return node.value
    value = _plain(node.value)
    kind = tag.rsplit(":", 1)[1]
    if kind == "int" and isinstance(value, int) or kind == "float" and isinstance(value, (int, float)):
        return float(value) if kind == "float" else value
    if kind == "bool" and isinstance(value, bool) or kind == "null" and value is None:
        return value
    return node.value


class _Builder:
    """Nodes -> plain dicts/lists, guarding against alias bombs, recursion, depth and duplicate keys."""

    def __init__(self) -> None:
        self.memo: dict[int, tuple[Any, int]] = {}
        self.active: set[int] = set()
        self.duplicates: list[tuple[str, int, int]] = []  # (key, line, column), 1-based

    def _fail(self, rule: str, message: str, node: Any) -> YamlProblem:
        m = node.start_mark
        return YamlProblem(rule, message, m.line + 1, m.column + 1)

    def build(self, node: Any, depth: int = 0) -> tuple[Any, int]:
        """(value, expanded node count)."""
        kind = node.id
        if kind == "scalar":  # scalars are not memoised: an aliased one is rebuilt, as cheap as a lookup
            return _scalar(node), 1
        nid = id(node)
        hit = self.memo.get(nid)
        if hit is not None:
            return hit
        if nid in self.active:
            raise self._fail("TSL009", "recursive alias: a node contains itself", node)
        if depth > MAX_DEPTH:
            raise self._fail("TSL008", f"nesting deeper than {MAX_DEPTH} levels", node)
        self.active.add(nid)
        size = 1
        if kind == "sequence":
            value: Any = []
            for child in node.value:
                if child.id == "scalar":
                    value.append(_scalar(child))
                    size += 1
                    continue
                v, n = self.build(child, depth + 1)
                value.append(v)
                size += n
                if size > MAX_NODES:
                    raise self._fail("TSL009", f"aliases expand to more than {MAX_NODES:,} nodes (an alias bomb)", node)
        else:
            value = {}
            merged: dict[str, Any] = {}
            for knode, vnode in node.value:
                if vnode.id == "scalar":
                    v, n = _scalar(vnode), 1
                else:
                    v, n = self.build(vnode, depth + 1)
                size += n
                if size > MAX_NODES:
                    raise self._fail("TSL009", f"aliases expand to more than {MAX_NODES:,} nodes (an alias bomb)", node)
                if knode.id == "scalar" and (knode.tag == "tag:yaml.org,2002:merge" or (knode.value == "<<" and not knode.style)):
                    for src in (v if isinstance(v, list) else [v]):
                        if isinstance(src, dict):
                            for mk, mv in src.items():
                                merged.setdefault(mk, mv)
                    continue
                key = knode.value if knode.id == "scalar" else str(self.build(knode, depth + 1)[0])
                if key in value:
                    m = knode.start_mark
                    self.duplicates.append((key, m.line + 1, m.column + 1))
                value[key] = v
            for mk, mv in merged.items():
                value.setdefault(mk, mv)
        self.active.discard(nid)
        self.memo[nid] = (value, size)
        return value, size


def load_yaml(text: str) -> tuple[list[Any], list[Any], list[tuple[str, int, int]]]:
    """Parse all documents: (values, root nodes, duplicate keys). Raises YamlProblem with a location."""
    loader = _Composer(text)
    values: list[Any] = []
    nodes: list[Any] = []
    builder = _Builder()
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            values.append(builder.build(node)[0])
            nodes.append(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        if _DEPTH_LIMIT.search(str(e.problem or "")):
            # libyaml 0.2.5 and later stop at their own nesting limit before our builder sees the
            # tree: the verdict is still ours (TSL008), whichever parser version is installed
            raise YamlProblem("TSL008", f"nesting deeper than {MAX_DEPTH} levels", line, col) from None
        msg = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise YamlProblem("TSL001", f"invalid YAML: {msg}", line, col) from None
    except yaml.YAMLError as e:
        raise YamlProblem("TSL001", f"invalid YAML: {e}") from None
    except RecursionError:
        raise YamlProblem("TSL008", f"nesting deeper than {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()
    return values, nodes, builder.duplicates


def compose(text: str) -> list[Any]:
    """Only the node trees (for positions), e.g. to rebuild a released position index."""
    loader = _Composer(text)
    try:
        return [n for n in iter(loader.get_node, None)] if loader.check_node() else []
    except (yaml.YAMLError, RecursionError):
        return []
    finally:
        loader.dispose()


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


_MARKER = lazy_compile(r"#\s*toolschema-lint:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?")


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
