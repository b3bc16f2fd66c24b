"""Classify the changes between two versions of a tool set: breaking, risky or compatible.

Pure functions over `lock.Snapshot`s (files, live captures and lock files all become snapshots).

- *breaking*: a call or a consumer that worked before can fail now: a tool removed or renamed, a
  new required parameter, a parameter removed, a type changed or narrowed, an enum value removed,
  bounds tightened, `additionalProperties` closed, an output property removed or retyped.
- *risky*: what the model reads or how the tool behaves changed without breaking a schema: the
  description, annotations (read-only -> destructive), defaults. Needs a human look. Both versions
  are linted with the security rules and the findings only the new one has are attached.
- *compatible*: new optional parameter or tool, enum widened, bounds relaxed, docs clarified.

Input schemas are compared contravariantly (the server accepts: narrowing breaks callers) and
output schemas covariantly (clients consume: widening or removing breaks them). Declared versions
(server `serverInfo.version`, per-tool `version`) are checked against the changes: a breaking
change needs a major bump (for 0.x, a minor bump), additions a minor one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from . import __version__
from .lock import Snapshot, ToolDef, canonical_json, pair, tools_list_pointer
from .model import Finding
from .text import sanitize
from .lazyre import lazy_compile

BREAKING, RISKY, COMPATIBLE = "breaking", "risky", "compatible"
KINDS = (BREAKING, RISKY, COMPATIBLE)
SCHEMA_VERSION = 1
MAX_DEPTH = 48

#: code -> (kind, one-line summary); the catalog of changes (docs, SARIF rule descriptors)
CODES: dict[str, tuple[str, str]] = {
    "tool-removed": (BREAKING, "A tool was removed"),
    "tool-renamed": (BREAKING, "A tool was renamed"),
    "param-added-required": (BREAKING, "A new required parameter"),
    "param-became-required": (BREAKING, "An optional parameter became required"),
    "param-removed": (BREAKING, "A parameter was removed"),
    "type-changed": (BREAKING, "A type was changed or narrowed"),
    "enum-value-removed": (BREAKING, "An enum value was removed"),
    "enum-added": (BREAKING, "A value set (enum or const) now constrains a parameter"),
    "bound-tightened": (BREAKING, "A bound (minimum, maxLength, ...) was tightened"),
    "pattern-changed": (BREAKING, "A pattern or format was added or changed"),
    "additional-properties-closed": (BREAKING, "additionalProperties was closed or restricted"),
    "variant-removed": (BREAKING, "An anyOf/oneOf alternative was removed"),
    "constraint-added": (BREAKING, "A combinator constraint (allOf/not/if) now applies"),
    "input-schema-changed": (BREAKING, "The input schema was replaced by one that cannot be compared"),
    "output-property-removed": (BREAKING, "An output property was removed"),
    "output-property-retyped": (BREAKING, "An output property's type changed"),
    "output-property-optional": (BREAKING, "A required output property became optional"),
    "output-schema-removed": (BREAKING, "The output schema was removed"),
    "description-changed": (RISKY, "The tool description changed"),
    "description-removed": (RISKY, "The tool description was removed"),
    "param-description-changed": (RISKY, "A parameter description changed"),
    "annotation-changed": (RISKY, "A behaviour annotation changed"),
    "default-changed": (RISKY, "A default value changed or was removed"),
    "schema-keyword-changed": (RISKY, "A schema keyword changed that is not classified further"),
    "output-widened": (RISKY, "Output values widened (new enum values, relaxed bounds, new variants)"),
    "tool-added": (COMPATIBLE, "A tool was added"),
    "param-added-optional": (COMPATIBLE, "A new optional parameter"),
    "param-became-optional": (COMPATIBLE, "A required parameter became optional"),
    "type-widened": (COMPATIBLE, "A type was widened"),
    "enum-value-added": (COMPATIBLE, "An enum value was added"),
    "enum-removed": (COMPATIBLE, "A value set (enum or const) no longer constrains a parameter"),
    "bound-relaxed": (COMPATIBLE, "A bound was relaxed or removed"),
    "pattern-removed": (COMPATIBLE, "A pattern or format was removed"),
    "additional-properties-opened": (COMPATIBLE, "additionalProperties was opened"),
    "variant-added": (COMPATIBLE, "An anyOf/oneOf alternative was added"),
    "constraint-removed": (COMPATIBLE, "A combinator constraint (allOf/not/if) was removed"),
    "output-property-added": (COMPATIBLE, "An output property was added"),
    "output-narrowed": (COMPATIBLE, "Output values narrowed (fewer enum values, tighter bounds)"),
    "output-schema-added": (COMPATIBLE, "An output schema was added"),
    "docs-changed": (COMPATIBLE, "Documentation changed (title, whitespace, examples, parameter docs added)"),
}
#: compatible changes that add capability (need a minor bump); other compatible ones are patch-level
ADDITIVE = {
    "tool-added", "param-added-optional", "param-became-optional", "type-widened", "enum-value-added", "enum-removed",
    "bound-relaxed", "pattern-removed", "additional-properties-opened", "variant-added", "constraint-removed",
    "output-property-added", "output-schema-added",
}  # fmt: skip
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_DOC_KEYS = {"title", "examples", "example", "$comment", "deprecated", "readOnly", "writeOnly"}
_HANDLED = {
    "type", "nullable", "enum", "const", "properties", "required", "additionalProperties", "items", "prefixItems",
    "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "pattern", "format", "description", "default",
    "multipleOf", "uniqueItems", "$defs", "definitions", *_LOWER, *_UPPER, *_DOC_KEYS,
}  # fmt: skip
# MCP annotation hints with their defaults when absent (MCP 2025-11-25, ToolAnnotations)
_HINTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


@dataclass
class Change:
    kind: str
    code: str
    tool: str
    message: str
    field: str | None = None  # normalized Tool field (input_schema, ...) the change is in
    tokens: tuple[Any, ...] = ()  # path inside that field
    old: Any = None
    new: Any = None
    server: str = ""
    # located by `locate()`: in the new version when it is a file, else in the old one
    path: str = ""
    pointer: str = ""
    line: int = 1
    column: int = 1


@dataclass
class VersionCheck:
    scope: str  # "server" or "tool"
    tool: str | None
    old: str | None
    new: str | None
    required: str  # "major", "minor", "patch" or "none"
    bump: str  # "major", "minor", "patch", "none", "downgrade" or "unknown"
    status: str  # "ok", "error", "warning" or "unchecked"
    message: str
    server: str = ""


@dataclass
class DiffReport:
    old_label: str
    new_label: str
    pairs: list[tuple[Snapshot | None, Snapshot | None]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    versions: list[VersionCheck] = field(default_factory=list)
    security: list[Finding] = field(default_factory=list)  # security findings on changed or added tools

    def count(self, kind: str) -> int:
        return sum(1 for c in self.changes if c.kind == kind)

    @property
    def required_bump(self) -> str:
        return required_bump(self.changes)


# ---------------------------------------------------------------------------------- small helpers
def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    return sanitize(text, limit)


def _types(schema: dict[str, Any]) -> set[str] | None:
    """The JSON types a schema allows; None when it does not say (any type)."""
    t = schema.get("type")
    if isinstance(t, str):
        out = {t}
    elif isinstance(t, list) and all(isinstance(x, str) for x in t):
        out = set(t)
    else:
        return None
    if schema.get("nullable") is True:
        out.add("null")
    return out


def _accepts(wide: set[str] | None, narrow: set[str] | None) -> bool:
    """Does type set `wide` accept every value `narrow` does? (number accepts integer)"""
    if wide is None:
        return True
    if narrow is None:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _overlap(a: set[str], b: set[str]) -> bool:
    """Do two type sets share a value? (integer and number do)"""
    return any(t in b or (t == "integer" and "number" in b) or (t == "number" and "integer" in b) for t in a)


def _values(schema: dict[str, Any]) -> list[str] | None:
    """The canonical forms of the values an enum/const allows, None when unconstrained."""
    if "const" in schema:
        return [canonical_json(schema["const"])]
    if isinstance(schema.get("enum"), list):
        return [canonical_json(v) for v in schema["enum"]]
    return None


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _schema(value: Any) -> dict[str, Any] | None:
    """Boolean schemas as objects; anything else that is not an object is None."""
    if value is True:
        return {}
    if value is False:
        return {"not": {}}
    return value if isinstance(value, dict) else None


def _where(label: str) -> str:
    return f"parameter '{label}'" if label else "the input schema"


def _owhere(label: str) -> str:
    return f"output property '{label}'" if label else "the output schema"


_NOTES = {"description", "title", "$schema", "$comment", "examples", "default", "deprecated"}


def _bare(schema: dict[str, Any], key: str | None) -> bool:
    """Is `schema` only the combinator `key` (plus notes)? With key None: only notes (any value)."""
    return all(k == key or k in _NOTES for k in schema)


def _pair_alike(olds: list[Any], news: list[Any], oi: list[int], ni: list[int]) -> list[tuple[int, int]]:
    """Greedy pairs (old index, new index) of alternatives that look alike: same type, shared keys."""

    def score(a: Any, b: Any) -> int:
        if not isinstance(a, dict) or not isinstance(b, dict):
            return 0
        if _types(a) is not None and _types(b) is not None and not _overlap(_types(a), _types(b)):  # type: ignore[arg-type]
            return 0
        pa = a.get("properties") if isinstance(a.get("properties"), dict) else {}
        pb = b.get("properties") if isinstance(b.get("properties"), dict) else {}
        same = sum(1 for k in set(a) & set(b) if canonical_json(a[k]) == canonical_json(b[k]))
        return 1 + same + 2 * len(set(pa) & set(pb))

    candidates = sorted(((score(o, n), x, y) for x, o in enumerate(olds) for y, n in enumerate(news)), key=lambda t: (-t[0], t[1], t[2]))
    used_o: set[int] = set()
    used_n: set[int] = set()
    out = []
    for sc, x, y in candidates:
        if sc > 0 and x not in used_o and y not in used_n:
            used_o.add(x)
            used_n.add(y)
            out.append((oi[x], ni[y]))
    return sorted(out)


def _squash(text: Any) -> str:
    return " ".join(text.split()).casefold() if isinstance(text, str) else canonical_json(text)


# ---------------------------------------------------------------------------------- schemas
class _SchemaDiff:
    """Walk two versions of one schema side by side and record classified changes."""

    def __init__(self, out: list[Change], tool: str, fld: str, output: bool):
        self.out, self.tool, self.field, self.output = out, tool, fld, output

    def add(self, code: str, message: str, tokens: tuple[Any, ...], old: Any = None, new: Any = None,
            kind: str | None = None) -> None:
        self.out.append(Change(kind or CODES[code][0], code, self.tool, message, self.field, tokens, old, new))

    def where(self, label: str) -> str:
        return _owhere(label) if self.output else _where(label)

    def compare(self, old_raw: Any, new_raw: Any, tokens: tuple[Any, ...] = (), label: str = "", depth: int = 0) -> None:
        if canonical_json(old_raw) == canonical_json(new_raw):
            return
        old, new = _schema(old_raw), _schema(new_raw)
        if old is None or new is None or depth > MAX_DEPTH:
            code = "output-property-retyped" if self.output else "input-schema-changed"
            self.add(code, f"{self.where(label)} changed in a way that cannot be compared", tokens, _short(old_raw), _short(new_raw))
            return
        if self._combinator_moved(old, new, tokens, label, depth):
            return
        if self._types(old, new, tokens, label):
            return  # a different kind of value: the details below it would only repeat that
        self._values(old, new, tokens, label)
        self._bounds(old, new, tokens, label)
        self._strings(old, new, tokens, label)
        self._object(old, new, tokens, label, depth)
        self._items(old, new, tokens, label, depth)
        self._variants(old, new, tokens, label, depth)
        self._docs(old, new, tokens, label)
        for key in sorted((set(old) | set(new)) - _HANDLED):
            if canonical_json(old.get(key)) != canonical_json(new.get(key)):
                self.add("schema-keyword-changed", f"{self.where(label)}: `{key}` changed", (*tokens, key),
                         _short(old.get(key)), _short(new.get(key)))
        for defs in ("$defs", "definitions"):
            od, nd = old.get(defs), new.get(defs)
            if isinstance(od, dict) and isinstance(nd, dict):
                for name in sorted(set(od) & set(nd)):
                    self.compare(od[name], nd[name], (*tokens, defs, name), f"{defs}/{name}", depth + 1)

    def _types(self, old: dict, new: dict, tokens: tuple, label: str) -> bool:
        """Record a type change; True when the old and new types have nothing in common."""
        ot, nt = _types(old), _types(new)
        if ot == nt:
            return False
        show = (" | ".join(sorted(ot)) if ot else "any", " | ".join(sorted(nt)) if nt else "any")
        msg = f"{self.where(label)}: type {show[0]} → {show[1]}"
        if self.output:
            if _accepts(ot, nt):
                self.add("output-narrowed", msg, (*tokens, "type"), show[0], show[1])
            else:
                self.add("output-property-retyped", msg, (*tokens, "type"), show[0], show[1])
        elif _accepts(nt, ot):
            self.add("type-widened", msg, (*tokens, "type"), show[0], show[1])
        else:
            self.add("type-changed", msg, (*tokens, "type"), show[0], show[1])
        return ot is not None and nt is not None and not _overlap(ot, nt)

    def _values(self, old: dict, new: dict, tokens: tuple, label: str) -> None:
        ov, nv = _values(old), _values(new)
        if ov == nv:
            return
        key = "enum" if "enum" in new or "enum" in old else "const"
        tok = (*tokens, key)
        if ov is None or nv is None:
            added = nv is not None
            msg = f"{self.where(label)}: now limited to {', '.join(nv[:8])}" if added else f"{self.where(label)}: no longer limited to a set of values"
            if self.output:
                self.add("output-narrowed" if added else "output-widened", msg, tok)
            else:
                self.add("enum-added" if added else "enum-removed", msg, tok)
            return
        removed = [v for v in ov if v not in nv]
        added = [v for v in nv if v not in ov]
        if removed:
            msg = f"{self.where(label)}: value(s) removed: {sanitize(', '.join(removed), 120)}"
            self.add("output-narrowed" if self.output else "enum-value-removed", msg, tok, removed)
        if added:
            msg = f"{self.where(label)}: value(s) added: {sanitize(', '.join(added), 120)}"
            self.add("output-widened" if self.output else "enum-value-added", msg, tok, None, added)

    def _bounds(self, old: dict, new: dict, tokens: tuple, label: str) -> None:
        for key in (*_LOWER, *_UPPER):
            o, n = _num(old.get(key)), _num(new.get(key))
            if o == n or (key in old and o is None) or (key in new and n is None):
                if canonical_json(old.get(key)) != canonical_json(new.get(key)):  # draft-4 booleans etc.
                    self.add("schema-keyword-changed", f"{self.where(label)}: `{key}` changed", (*tokens, key),
                             old.get(key), new.get(key))
                continue
            lower = key in _LOWER
            if o is None:
                tighter = True
            elif n is None:
                tighter = False
            else:
                tighter = n > o if lower else n < o
            msg = f"{self.where(label)}: {key} {'none' if o is None else _short(old[key])} → {'none' if n is None else _short(new[key])}"
            if self.output:
                self.add("output-narrowed" if tighter else "output-widened", msg, (*tokens, key), old.get(key), new.get(key))
            else:
                self.add("bound-tightened" if tighter else "bound-relaxed", msg, (*tokens, key), old.get(key), new.get(key))
        o, n = _num(old.get("multipleOf")), _num(new.get("multipleOf"))
        if o != n:
            relaxed = n is None or (o is not None and n != 0 and (o / n).is_integer())
            msg = f"{self.where(label)}: multipleOf {o if o is not None else 'none'} → {n if n is not None else 'none'}"
            if self.output:
                self.add("output-widened" if relaxed else "output-narrowed", msg, (*tokens, "multipleOf"), o, n)
            else:
                self.add("bound-relaxed" if relaxed else "bound-tightened", msg, (*tokens, "multipleOf"), o, n)
        ou, nu = old.get("uniqueItems") is True, new.get("uniqueItems") is True
        if ou != nu:
            msg = f"{self.where(label)}: uniqueItems {str(ou).lower()} → {str(nu).lower()}"
            tight = nu and not ou
            code = ("output-narrowed" if tight else "output-widened") if self.output else ("bound-tightened" if tight else "bound-relaxed")
            self.add(code, msg, (*tokens, "uniqueItems"), ou, nu)

    def _strings(self, old: dict, new: dict, tokens: tuple, label: str) -> None:
        for key in ("pattern", "format"):
            o, n = old.get(key), new.get(key)
            if o == n:
                continue
            msg = f"{self.where(label)}: {key} {_short(o) if o is not None else 'none'} → {_short(n) if n is not None else 'none'}"
            if self.output:
                self.add("output-narrowed" if o is None else "output-widened", msg, (*tokens, key), o, n)
            elif n is None:
                self.add("pattern-removed", msg, (*tokens, key), o, n)
            else:
                self.add("pattern-changed", msg, (*tokens, key), o, n)

    def _object(self, old: dict, new: dict, tokens: tuple, label: str, depth: int) -> None:
        op = old.get("properties") if isinstance(old.get("properties"), dict) else {}
        np_ = new.get("properties") if isinstance(new.get("properties"), dict) else {}
        oreq = {r for r in old.get("required", []) if isinstance(r, str)} if isinstance(old.get("required"), list) else set()
        nreq = {r for r in new.get("required", []) if isinstance(r, str)} if isinstance(new.get("required"), list) else set()

        def sub(name: str) -> str:
            return f"{label}.{name}" if label else name

        for name in sorted(set(op) - set(np_)):
            tok = (*tokens, "properties", name)
            if self.output:
                self.add("output-property-removed", f"{_owhere(sub(name))} was removed", tok)
            else:
                self.add("param-removed", f"{_where(sub(name))} was removed", tok)
        for name in sorted(set(np_) - set(op)):
            tok = (*tokens, "properties", name)
            if self.output:
                self.add("output-property-added", f"new {_owhere(sub(name))}", tok)
            elif name in nreq:
                self.add("param-added-required", f"new required {_where(sub(name))}", tok)
            else:
                self.add("param-added-optional", f"new optional {_where(sub(name))}", tok)
        for name in sorted(nreq - oreq):
            if name in op or name not in np_:  # brand-new parameters are reported above
                if self.output:
                    self.add("docs-changed", f"{_owhere(sub(name))} is now always present", (*tokens, "required"))
                else:
                    self.add("param-became-required", f"{_where(sub(name))} became required", (*tokens, "required"))
        for name in sorted(oreq - nreq):
            if name in np_ or name not in op:
                if self.output:
                    self.add("output-property-optional", f"{_owhere(sub(name))} is no longer always present", (*tokens, "required"))
                else:
                    self.add("param-became-optional", f"{_where(sub(name))} is no longer required", (*tokens, "required"))
        for name in sorted(set(op) & set(np_)):
            self.compare(op[name], np_[name], (*tokens, "properties", name), sub(name), depth + 1)
        self._additional(old, new, tokens, label, depth)

    def _additional(self, old: dict, new: dict, tokens: tuple, label: str, depth: int) -> None:
        o, n = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if canonical_json(o) == canonical_json(n):
            return
        tok = (*tokens, "additionalProperties")
        o_open, n_open = o is True or o == {}, n is True or n == {}
        where = self.where(label)
        if isinstance(o, dict) and isinstance(n, dict) and not o_open and not n_open:
            self.compare(o, n, tok, f"{label}{{*}}" if label else "{*}", depth + 1)
        elif o_open and not n_open or (o is not False and n is False):
            msg = f"{where}: additionalProperties closed" if n is False else f"{where}: additionalProperties restricted"
            self.add("output-narrowed" if self.output else "additional-properties-closed", msg, tok, o, n)
        else:
            self.add("output-widened" if self.output else "additional-properties-opened",
                     f"{where}: additionalProperties opened", tok, o, n)

    def _items(self, old: dict, new: dict, tokens: tuple, label: str, depth: int) -> None:
        oi, ni = old.get("items"), new.get("items")
        if isinstance(oi, list) or isinstance(ni, list) or "prefixItems" in old or "prefixItems" in new:
            for key in ("items", "prefixItems"):
                ol, nl = old.get(key), new.get(key)
                if isinstance(ol, list) and isinstance(nl, list):
                    for i in range(min(len(ol), len(nl))):
                        self.compare(ol[i], nl[i], (*tokens, key, i), f"{label}[{i}]", depth + 1)
                    if len(ol) != len(nl):
                        self.add("schema-keyword-changed", f"{self.where(label)}: `{key}` has {len(ol)} → {len(nl)} positions",
                                 (*tokens, key), len(ol), len(nl))
                elif canonical_json(ol) != canonical_json(nl):
                    self.add("schema-keyword-changed", f"{self.where(label)}: `{key}` changed", (*tokens, key))
            return
        if oi is None and ni is None:
            return
        self.compare(oi if oi is not None else {}, ni if ni is not None else {}, (*tokens, "items"), f"{label}[]", depth + 1)

    def _variants(self, old: dict, new: dict, tokens: tuple, label: str, depth: int) -> None:
        for key in ("anyOf", "oneOf"):
            ol = old.get(key) if isinstance(old.get(key), list) else None
            nl = new.get(key) if isinstance(new.get(key), list) else None
            if ol is None and nl is None or canonical_json(ol) == canonical_json(nl):
                continue
            if ol is None or nl is None:
                narrowing = ol is None  # a new anyOf constrains; dropping one frees
                self._constraint(key, narrowing, tokens, label)
                continue
            oc, nc = [canonical_json(x) for x in ol], [canonical_json(x) for x in nl]
            gone = [i for i, c in enumerate(oc) if c not in nc]
            came = [j for j, c in enumerate(nc) if c not in oc]
            # an edited alternative: pair it with the most alike new one and compare the two
            for i, j in _pair_alike([ol[i] for i in gone], [nl[j] for j in came], gone, came):
                self.compare(ol[i], nl[j], (*tokens, key, j), f"{label}<{key} {j}>" if label else f"<{key} {j}>", depth + 1)
                gone.remove(i)
                came.remove(j)
            for i in gone:
                msg = f"{self.where(label)}: {key} alternative {i} removed"
                self.add("output-narrowed" if self.output else "variant-removed", msg, (*tokens, key))
            for j in came:
                msg = f"{self.where(label)}: {key} alternative {j} added"
                self.add("output-widened" if self.output else "variant-added", msg, (*tokens, key, j))
        for key in ("allOf", "not", "if", "then", "else"):
            o, n = old.get(key), new.get(key)
            if canonical_json(o) == canonical_json(n):
                continue
            if key == "allOf" and isinstance(o, list) and isinstance(n, list) and len(o) == len(n):
                for i in range(len(o)):
                    self.compare(o[i], n[i], (*tokens, key, i), label, depth + 1)
            elif o is None or n is None:
                self._constraint(key, o is None, tokens, label)
            else:
                self.add("schema-keyword-changed", f"{self.where(label)}: `{key}` changed", (*tokens, key))

    def _combinator_moved(self, old: dict, new: dict, tokens: tuple, label: str, depth: int) -> bool:
        """A schema that became (or stopped being) one alternative of an anyOf/oneOf: compare the
        alternatives, the old schema counting as a list of one."""
        for key in ("anyOf", "oneOf"):
            if isinstance(new.get(key), list) and key not in old and _bare(new, key) and not _bare(old, None):
                self._variants({key: [old]}, {key: new[key]}, tokens, label, depth)
                return True
            if isinstance(old.get(key), list) and key not in new and _bare(old, key) and not _bare(new, None):
                self._variants({key: old[key]}, {key: [new]}, tokens, label, depth)
                return True
        return False

    def _constraint(self, key: str, added: bool, tokens: tuple, label: str) -> None:
        msg = f"{self.where(label)}: `{key}` {'added' if added else 'removed'}"
        if self.output:
            self.add("output-narrowed" if added else "output-widened", msg, (*tokens, key))
        else:
            self.add("constraint-added" if added else "constraint-removed", msg, (*tokens, key))

    def _docs(self, old: dict, new: dict, tokens: tuple, label: str) -> None:
        od, nd = old.get("description"), new.get("description")
        if od != nd:
            tok = (*tokens, "description")
            what = f"description of {self.where(label)}"
            if od is None:
                self.add("docs-changed", f"{what} added", tok, None, nd)
            elif _squash(od) == _squash(nd):
                self.add("docs-changed", f"{what} reformatted", tok, od, nd)
            else:
                self.add("param-description-changed", f"{what} changed" if nd is not None else f"{what} removed", tok, od, nd)
        if "default" in old or "default" in new:
            o, n = old.get("default"), new.get("default")
            if "default" not in old:
                self.add("docs-changed", f"{self.where(label)}: default {_short(n)} added", (*tokens, "default"), None, n)
            elif canonical_json(o) != canonical_json(n) or "default" not in new:
                shown = _short(n) if "default" in new else "none"
                self.add("default-changed", f"{self.where(label)}: default {_short(o)} → {shown}", (*tokens, "default"), o, n)
        changed = sorted(k for k in _DOC_KEYS if canonical_json(old.get(k)) != canonical_json(new.get(k)))
        if changed:
            self.add("docs-changed", f"{self.where(label)}: {', '.join(changed)} changed", (*tokens, changed[0]))


# ---------------------------------------------------------------------------------- tools
def _hint(annotations: dict[str, Any], key: str) -> Any:
    value = annotations.get(key)
    return value if isinstance(value, bool) else _HINTS[key]


def _annotations(old: Any, new: Any, tool: str, out: list[Change]) -> None:
    o = old if isinstance(old, dict) else {}
    n = new if isinstance(new, dict) else {}
    if canonical_json(o) == canonical_json(n):
        return

    def add(code: str, message: str, key: str | None, ov: Any, nv: Any) -> None:
        out.append(Change(CODES[code][0], code, tool, message, "annotations", (key,) if key else (), ov, nv))

    for key in _HINTS:
        ov, nv = _hint(o, key), _hint(n, key)
        if ov == nv:
            if o.get(key) != n.get(key):  # written out vs. left to its default: same meaning
                add("docs-changed", f"annotation {key} {'now explicit' if key in n else 'now implied'} ({str(nv).lower()})", key, o.get(key), n.get(key))
            continue
        meaning = {
            ("readOnlyHint", False): "no longer read-only (readOnlyHint true → false)",
            ("readOnlyHint", True): "now claims to be read-only (readOnlyHint false → true)",
            ("destructiveHint", True): "now destructive (destructiveHint false → true)",
            ("destructiveHint", False): "no longer destructive (destructiveHint true → false)",
            ("idempotentHint", False): "no longer idempotent (idempotentHint true → false)",
            ("idempotentHint", True): "now idempotent (idempotentHint false → true)",
            ("openWorldHint", True): "now reaches the open world (openWorldHint false → true)",
            ("openWorldHint", False): "now closed-world (openWorldHint true → false)",
        }[(key, nv)]
        add("annotation-changed", f"annotations: {meaning}", key, ov, nv)
    if o.get("title") != n.get("title"):
        add("docs-changed", "annotations: title changed", "title", o.get("title"), n.get("title"))
    for key in sorted((set(o) | set(n)) - set(_HINTS) - {"title"}):
        if canonical_json(o.get(key)) != canonical_json(n.get(key)):
            add("annotation-changed", f"annotations: `{key}` changed", key, _short(o.get(key)), _short(n.get(key)))


def diff_tool(old: ToolDef, new: ToolDef) -> list[Change]:
    """The changes from one version of a tool to the next (same name, or a rename)."""
    out: list[Change] = []
    name = new.name
    od, nd = old.definition, new.definition
    if od.get("title") != nd.get("title"):
        out.append(Change(COMPATIBLE, "docs-changed", name, "title changed", "title", (), od.get("title"), nd.get("title")))
    odesc, ndesc = od.get("description"), nd.get("description")
    if odesc != ndesc:
        if odesc is None:
            out.append(Change(COMPATIBLE, "docs-changed", name, "description added", "description", (), None, ndesc))
        elif ndesc is None:
            out.append(Change(RISKY, "description-removed", name, "description removed", "description", (), odesc, None))
        elif _squash(odesc) == _squash(ndesc):
            out.append(Change(COMPATIBLE, "docs-changed", name, "description reformatted (whitespace or case only)",
                              "description", (), odesc, ndesc))
        else:
            out.append(Change(RISKY, "description-changed", name, "description changed", "description", (), odesc, ndesc))
    _annotations(od.get("annotations"), nd.get("annotations"), name, out)
    oin = od.get("inputSchema", {"type": "object"})
    nin = nd.get("inputSchema", {"type": "object"})
    _SchemaDiff(out, name, "input_schema", output=False).compare(oin, nin)
    oout, nout = od.get("outputSchema"), nd.get("outputSchema")
    if oout is not None and nout is None:
        out.append(Change(BREAKING, "output-schema-removed", name, "output schema removed", "output_schema", ()))
    elif oout is None and nout is not None:
        out.append(Change(COMPATIBLE, "output-schema-added", name, "output schema added", "output_schema", ()))
    elif oout is not None:
        _SchemaDiff(out, name, "output_schema", output=True).compare(oout, nout)
    return out


def _rename_candidates(removed: list[ToolDef], added: list[ToolDef]) -> dict[str, ToolDef]:
    """old name -> new tool, for removed tools that reappear under another name.

    Same definition apart from the name; or else the same non-trivial input schema, when exactly
    one added tool has it.
    """
    out: dict[str, ToolDef] = {}
    taken: set[int] = set()
    by_body = {}
    for i, t in enumerate(added):
        by_body.setdefault(t.body_hash(), i)
    for r in removed:
        i = by_body.get(r.body_hash())
        if i is not None and i not in taken:
            out[r.name] = added[i]
            taken.add(i)
    for r in removed:
        if r.name in out:
            continue
        schema = r.definition.get("inputSchema")
        if not (isinstance(schema, dict) and schema.get("properties")):
            continue
        same = [i for i, t in enumerate(added) if i not in taken and canonical_json(t.definition.get("inputSchema")) == canonical_json(schema)]
        if len(same) == 1:
            out[r.name] = added[same[0]]
            taken.add(same[0])
    return out


def diff_snapshots(old: Snapshot | None, new: Snapshot | None) -> list[Change]:
    """Every change from `old` to `new` (either may be None: a server that appeared or went)."""
    server = (new or old).key if (new or old) else ""
    otools = old.by_name() if old else {}
    ntools = new.by_name() if new else {}
    removed = [t for n, t in otools.items() if n not in ntools]
    added = [t for n, t in ntools.items() if n not in otools]
    renames = _rename_candidates(removed, added)
    out: list[Change] = []
    for t in removed:
        if t.name in renames:
            to = renames[t.name]
            out.append(Change(BREAKING, "tool-renamed", to.name, f"tool '{sanitize(t.name, 80)}' was renamed to '{sanitize(to.name, 80)}'",
                              "name", (), t.name, to.name))
            out += diff_tool(t, to)
        else:
            out.append(Change(BREAKING, "tool-removed", t.name, f"tool '{sanitize(t.name, 80)}' was removed", None, (), t.name, None))
    renamed_to = {t.name for t in renames.values()}
    for t in added:
        if t.name not in renamed_to:
            out.append(Change(COMPATIBLE, "tool-added", t.name, f"tool '{sanitize(t.name, 80)}' was added", None, (), None, t.name))
    for name in [n for n in ntools if n in otools]:
        out += diff_tool(otools[name], ntools[name])
    for c in out:
        c.server = server
    return out


# ---------------------------------------------------------------------------------- versions
_SEMVER = lazy_compile(r"^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+.].*)?\s*$")
_RANK = {"none": 0, "patch": 1, "minor": 2, "major": 3}


def parse_version(text: Any) -> tuple[int, int, int] | None:
    if not isinstance(text, str):
        return None
    m = _SEMVER.match(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)


def bump_kind(old: str | None, new: str | None) -> str:
    """How `new` moves from `old`: major, minor, patch, none, downgrade or unknown.

    Before 1.0 the first non-zero component is the major one (0.3 -> 0.4 is a major bump), as
    semantic versioning leaves 0.x free and most package managers read it that way.
    """
    o, n = parse_version(old), parse_version(new)
    if o is None or n is None:
        return "unknown" if old != new else "none"
    if n == o:
        return "none" if str(old).strip().lstrip("vV") == str(new).strip().lstrip("vV") else "patch"
    if n < o:
        return "downgrade"
    lead = next((i for i, x in enumerate(o) if x != 0), 2)
    first = next(i for i in range(3) if o[i] != n[i])
    if first <= lead:
        return "major"
    return "minor" if first == lead + 1 else "patch"


def required_bump(changes: Iterable[Change]) -> str:
    need = "none"
    for c in changes:
        level = "major" if c.kind == BREAKING else "minor" if c.code in ADDITIVE else "patch"
        if _RANK[level] > _RANK[need]:
            need = level
    return need


def check_version(scope: str, tool: str | None, old: str | None, new: str | None, changes: list[Change], server: str = "") -> VersionCheck | None:
    need = required_bump(changes)
    what = "server" if scope == "server" else f"tool '{sanitize(tool or '', 80)}'"
    if old is None and new is None or not changes and old == new:
        return None
    if old is None or new is None:
        return VersionCheck(scope, tool, old, new, need, "unknown", "unchecked",
                            f"{what}: version declared only in the {'new' if old is None else 'old'} version", server)
    bump = bump_kind(old, new)
    shown = f"{sanitize(old, 40)} → {sanitize(new, 40)}"
    if bump == "unknown":
        return VersionCheck(scope, tool, old, new, need, bump, "unchecked", f"{what}: {shown} is not a semantic version", server)
    if bump == "downgrade":
        return VersionCheck(scope, tool, old, new, need, bump, "error", f"{what}: version went down ({shown})", server)
    if need == "major" and bump != "major":
        return VersionCheck(scope, tool, old, new, need, bump, "error",
                            f"{what}: breaking changes without a major version bump ({shown})", server)
    if _RANK[need] > _RANK.get(bump, 0):
        return VersionCheck(scope, tool, old, new, need, bump, "warning",
                            f"{what}: {need}-level changes but {'no version bump' if bump == 'none' else 'only a ' + bump + ' bump'} ({shown})", server)
    return VersionCheck(scope, tool, old, new, need, bump, "ok", f"{what}: {shown} fits the changes ({need} needed)", server)


def diff(olds: list[Snapshot], news: list[Snapshot], old_label: str = "old", new_label: str = "new") -> DiffReport:
    """Pair servers, classify every change, check declared versions."""
    report = DiffReport(old_label, new_label, pair(olds, news))
    order = {k: i for i, k in enumerate(KINDS)}
    for old, new in report.pairs:
        changes = sorted(diff_snapshots(old, new), key=lambda c: (c.tool, order[c.kind], c.code, c.message))
        report.changes += changes
        if old is not None and new is not None:
            v = check_version("server", None, old.version, new.version, changes, new.key)
            if v is not None:
                report.versions.append(v)
            otools = old.by_name()
            for name, t in new.by_name().items():
                if name in otools:
                    mine = [c for c in changes if c.tool == name and c.code != "tool-renamed"]
                    v = check_version("tool", name, otools[name].version, t.version, mine, new.key)
                    if v is not None:
                        report.versions.append(v)
    return report


# ---------------------------------------------------------------------------------- positions, re-lint
def locate(report: DiffReport) -> None:
    """Give every change a file, pointer and position: in the new version when it is a file (a
    removed tool points at the new tool list), else in the old one."""
    sides = {(n or o).key: (o, n) for o, n in report.pairs}  # type: ignore[union-attr]
    names = {id(s): s.by_name() for o, n in report.pairs for s in (o, n) if s is not None}
    for c in report.changes:
        old, new = sides.get(c.server, (None, None))
        t = names[id(new)].get(c.tool) if new is not None and c.code != "tool-removed" else None
        if t is None or t.tool is None:
            if new is not None and new.server is not None and new.server.documents:
                doc = new.server.documents[0]
                c.path, c.pointer = doc.path, tools_list_pointer(new.server)
                c.line, c.column = _pos(doc, c.pointer)
                continue
            t = names[id(old)].get(c.old if c.code == "tool-removed" else c.tool) if old is not None else None
        if t is None or t.tool is None or t.tool.document is None:
            c.path = c.server
            continue
        tool = t.tool
        c.pointer = tool.ptr(c.field, *c.tokens) if c.field else tool.pointer
        doc = (tool.field_docs.get(c.field) if c.field else None) or tool.document
        c.path = doc.path
        c.line, c.column = _pos(doc, c.pointer)


def _pos(doc: Any, pointer: str) -> tuple[int, int]:
    try:
        line, col, _, _ = doc.locate(pointer)
        return line, col
    except (ValueError, IndexError, RecursionError, AttributeError):
        return 1, 1


def attach_security(report: DiffReport, new: Iterable[Finding], old: Iterable[Finding] = ()) -> None:
    """Keep the security findings of the new version that the old version did not have.

    A finding is the same when rule, tool and the content of the offending node are: a changed
    description or a new parameter gives a new finding, an untouched one does not (whatever moved).
    """
    from collections import Counter

    def key(f: Finding) -> tuple[str, str, str]:
        return (f.rule_id, f.tool or "", f.fingerprint_content)

    before = Counter(key(f) for f in old if f.suppressed is None)
    report.security = []
    for f in new:
        if f.suppressed is not None:
            continue
        if before[key(f)] > 0:
            before[key(f)] -= 1
        else:
            report.security.append(f)
    # a schema-compatible change that brings a security finding (a new outbound-URL parameter, an object opened to
    # extra properties, a tool added) is not harmless: it is risky, whatever the schema says (a rug pull reads
    # "compatible" otherwise). The version a change requires is unchanged.
    from .model import Severity

    flagged: dict[str, set[str]] = {}
    for f in report.security:
        if f.tool and f.severity >= Severity.WARNING:
            flagged.setdefault(f.tool, set()).add(f.rule_id)
    for c in report.changes:
        if c.kind == COMPATIBLE and c.tool in flagged:
            c.kind = RISKY
            c.message += f" (the new version adds security findings: {', '.join(sorted(flagged[c.tool]))})"


def exit_code(report: DiffReport, allow_breaking: bool = False, fail_on_risky: bool = False) -> int:
    if report.count(BREAKING) and not allow_breaking:
        return 1
    if any(v.status == "error" for v in report.versions):
        return 1
    if report.security:
        return 1
    if fail_on_risky and report.count(RISKY):
        return 1
    return 0


# ---------------------------------------------------------------------------------- output
def _jsonable(value: Any, limit: int = 2000) -> Any:
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    text = canonical_json(value)
    return value if len(text) <= limit else text[:limit] + "…"


def _label(snap: Snapshot | None) -> dict[str, Any] | None:
    if snap is None:
        return None
    return {"key": snap.key, "name": snap.name, "version": snap.version, "tools": len(snap.tools)}


def render_json(report: DiffReport, exit_status: int | None = None) -> str:
    from .reporters.json_ import finding_dict

    changed = {c.tool for c in report.changes if c.code not in ("tool-added", "tool-removed")}
    doc = {
        "version": __version__,
        "schema_version": SCHEMA_VERSION,
        "old": report.old_label,
        "new": report.new_label,
        "servers": [{"old": _label(o), "new": _label(n)} for o, n in report.pairs],
        "changes": [
            {
                "kind": c.kind, "code": c.code, "tool": c.tool, "server": c.server, "message": c.message,
                "path": c.path, "line": c.line, "column": c.column, "pointer": c.pointer,
                "old": _jsonable(c.old), "new": _jsonable(c.new),
            }
            for c in report.changes
        ],
        "versions": [v.__dict__ for v in report.versions],
        "security": [finding_dict(f) for f in report.security],
        "summary": {
            **{k: report.count(k) for k in KINDS},
            "tools": {
                "added": sum(1 for c in report.changes if c.code == "tool-added"),
                "removed": sum(1 for c in report.changes if c.code == "tool-removed"),
                "renamed": sum(1 for c in report.changes if c.code == "tool-renamed"),
                "changed": len(changed - {c.tool for c in report.changes if c.code == "tool-renamed"}),
            },
            "required_bump": report.required_bump,
            "version_errors": sum(1 for v in report.versions if v.status == "error"),
            "security_findings": len(report.security),
        },
    }
    if exit_status is not None:
        doc["summary"]["exit_code"] = exit_status
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_text(report: DiffReport) -> str:
    lines: list[str] = [f"diff {sanitize(report.old_label, 200)} → {sanitize(report.new_label, 200)}"]
    for old, new in report.pairs:
        def side(s: Snapshot | None) -> str:
            if s is None:
                return "(absent)"
            info = " ".join(sanitize(x, 60) for x in (s.name, s.version) if x)
            return f"{sanitize(s.key, 200)}{' (' + info + ')' if info else ''}, {len(s.tools)} tools"
        lines.append(f"  server: {side(old)} → {side(new)}")
    by_tool: dict[str, list[Change]] = {}
    for c in report.changes:
        by_tool.setdefault(c.tool, []).append(c)
    order = {k: i for i, k in enumerate(KINDS)}
    width = max((len(c.code) for c in report.changes), default=0)
    for tool in sorted(by_tool, key=lambda t: (min(order[c.kind] for c in by_tool[t]), t)):
        lines += ["", sanitize(tool, 120)]
        for c in sorted(by_tool[tool], key=lambda c: (order[c.kind], c.line, c.column)):
            where = f"  ({sanitize(c.path, 200)}:{c.line}:{c.column})" if c.path else ""
            lines.append(f"  {c.kind:10}  {c.code:{width}}  {c.message}{where}")
    if report.versions:
        lines += ["", "versions:"]
        for v in report.versions:
            lines.append(f"  {v.status:9}  {v.message}")
    if report.security:
        lines += ["", "security findings in new or changed text:"]
        for f in report.security:
            lines.append(f"  {sanitize(f.path, 200)}:{f.line}:{f.column}  {f.rule_id}  {f.message}  [{sanitize(f.tool or '', 80)}]")
    counts = ", ".join(f"{report.count(k)} {k}" for k in KINDS)
    lines += ["", f"{counts} change{'s' if len(report.changes) != 1 else ''}; required version bump: {report.required_bump}."]
    return "\n".join(lines) + "\n"


_LEVEL = {BREAKING: "error", RISKY: "warning", COMPATIBLE: "note"}


def render_sarif(report: DiffReport, enabled: Iterable[str] = ()) -> str:
    """SARIF 2.1.0: one result per change (rule ids `diff/<code>`), version errors, security findings."""
    from .registry import catalog
    from .reporters.sarif import INFORMATION_URI, SCHEMA_URI, artifact, rule_descriptor

    rules_used = sorted({c.code for c in report.changes} | ({"version-mismatch"} if any(v.status != "ok" for v in report.versions) else set()))
    cat = catalog()
    sec_ids = sorted({f.rule_id for f in report.security})
    descriptors = []
    for code in rules_used:
        kind, summary = CODES.get(code, (BREAKING, "A declared version does not fit the changes"))
        descriptors.append({
            "id": f"diff/{code}",
            "name": code,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": f"{summary} ({kind} change between two versions of a tool set)."},
            "help": {"text": f"{summary}. Kind: {kind}. See `toolschema-lint diff --help`."},
            "defaultConfiguration": {"level": _LEVEL.get(kind, "error")},
            "properties": {"tags": ["change-control", kind], "precision": "high"},
        })
    descriptors += [rule_descriptor(cat[r], cat[r].severity) for r in sec_ids if r in cat]
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = []

    def result(rule: str, level: str, text: str, path: str, line: int, column: int, pointer: str) -> dict[str, Any]:
        res: dict[str, Any] = {"ruleId": rule, "ruleIndex": index[rule], "level": level, "message": {"text": text}}
        if path:
            res["locations"] = [{"physicalLocation": {"artifactLocation": artifact(path),
                                                      "region": {"startLine": max(1, line), "startColumn": max(1, column)}}}]
        res["properties"] = {"pointer": pointer}
        return res

    for c in report.changes:
        results.append(result(f"diff/{c.code}", _LEVEL[c.kind], f"{c.message} [{sanitize(c.tool, 80)}]", c.path, c.line, c.column, c.pointer))
    for v in report.versions:
        if v.status == "ok":
            continue
        path = next((c.path for c in report.changes if c.server == v.server and c.path), "")
        results.append(result("diff/version-mismatch", {"error": "error", "warning": "warning"}.get(v.status, "note"),
                              v.message, path, 1, 1, ""))
    for f in report.security:
        if f.rule_id in index:
            results.append(result(f.rule_id, {"error": "error", "warning": "warning"}.get(str(f.severity), "note"),
                                  f"{f.message} [{sanitize(f.tool or '', 80)}]", f.path, f.line, f.column, f.pointer))
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "toolschema-lint", "semanticVersion": __version__, "informationUri": INFORMATION_URI,
                                "rules": descriptors}},
            "automationDetails": {"id": "toolschema-lint-diff/"},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
