"""The shared schema walks: a plain walk stands in for following references, and must agree with it."""

from __future__ import annotations

import random

from toolschema_lint.checks import _schema_walk as sw
from toolschema_lint.checks import design


def _by_reference(schema):
    """Shape's lists as `reachable` alone gives them (the way every schema was read before)."""
    objects, params, arrays = [], [], []
    for path, node in design.reachable(schema):
        if sw.is_object_schema(node):
            objects.append((path, node))
            for name, prop in sw.properties(node).items():
                if isinstance(prop, dict):
                    params.append((path + ("properties", name), name, prop))
        t = node.get("type")
        if t == "array" or (isinstance(t, list) and "array" in t and "null" in t and len(t) == 2):
            arrays.append((path, node))
    return objects, params, arrays


def _random_schema(rng: random.Random, depth: int = 0, shared: list | None = None) -> dict:
    kind = rng.random()
    if shared and rng.random() < 0.1:
        return rng.choice(shared)  # one node under two parents, as a YAML alias makes it
    if depth > 5 or kind < 0.35:
        node = {"type": rng.choice(["string", "integer", ["array", "null"], "boolean"])}
        if rng.random() < 0.1:  # refs that resolve (into definitions, a property, a custom keyword) or not
            node = {"$ref": rng.choice(["#/$defs/a", "#/definitions/b", "#/properties/a0", "#/x-shared", "#/properties",
                                        "#/nowhere", "other.json"])}
        if node.get("type") == ["array", "null"] and rng.random() < 0.5:
            node["items"] = _random_schema(rng, depth + 1, shared)
    elif kind < 0.7:
        node = {"type": "object", "properties": {f"p{i}": _random_schema(rng, depth + 1, shared)
                                                 for i in range(rng.randint(0, 4))}}
    elif kind < 0.85:
        node = {"type": "array", "items": _random_schema(rng, depth + 1, shared)}
    else:
        node = {rng.choice(["anyOf", "oneOf", "allOf"]): [_random_schema(rng, depth + 1, shared) for _ in range(2)]}
    if rng.random() < 0.08:
        node[rng.choice(["$defs", "definitions"])] = {"a": _random_schema(rng, depth + 1, shared),
                                                      "b": _random_schema(rng, depth + 1, shared)}
    if shared is not None and rng.random() < 0.2:
        shared.append(node)
    return node


def test_shape_from_a_plain_walk_equals_following_references() -> None:
    rng = random.Random(11)
    plain = followed = 0
    for trial in range(400):
        shared: list | None = [] if trial % 3 == 0 else None
        schema = {"type": "object", "properties": {f"a{i}": _random_schema(rng, 0, shared) for i in range(rng.randint(0, 5))}}
        if trial % 4 == 0:  # a schema that only a `$ref` reaches: the walk does not enter unknown keywords
            schema["x-shared"] = {"type": "object", "properties": {"s": {"type": "array"}}}
        if trial % 5 == 0:
            schema[rng.choice(["$defs", "definitions"])] = {"a": {"type": "object", "properties": {"d": {}}},
                                                            "b": {"type": "array"}}
        walked = sw._walk(schema, sw.MAX_WALK_DEPTH)
        plain += walked.plain
        shape = design.Shape(schema)
        expected = _by_reference(schema)
        assert (shape.objects, shape.params, shape.arrays) == expected, schema
        followed += len(expected[0]) != len(walked.objects)
    assert 100 < plain < 400  # both paths taken
    assert followed > 20  # references that reach a schema the walk alone does not


def test_a_walk_is_plain_only_without_references_definitions_repeats_or_cut_depth() -> None:
    assert sw._walk({"type": "object", "properties": {"a": {"type": "string"}}}, 64).plain
    assert not sw._walk({"properties": {"a": {"$ref": "#/$defs/x"}}}, 64).plain
    assert not sw._walk({"properties": {"a": {"type": "string"}}, "$defs": {}}, 64).plain
    assert not sw._walk({"definitions": {"x": {}}}, 64).plain
    leaf = {"type": "string"}
    assert not sw._walk({"properties": {"a": leaf, "b": leaf}}, 64).plain  # one node met twice
    deep: dict = {"type": "string"}
    for _ in range(10):
        deep = {"items": deep}
    assert sw._walk(deep, 64).plain and not sw._walk(deep, 4).plain  # a path of up to 2 tokens per level
    assert sw.walk("not a schema") == [] and sw.walk(None).plain


def test_walk_objects_are_the_object_schemas_among_its_nodes() -> None:
    """`object_schemas` is collected during the walk with `is_object_schema` inlined: they must agree."""
    rng = random.Random(12)
    for trial in range(200):
        shared: list | None = [] if trial % 2 else None
        schema = {"properties": {f"a{i}": _random_schema(rng, 0, shared) for i in range(rng.randint(0, 5))}}
        if trial % 7 == 0:
            schema["type"] = rng.choice([["object", "null"], "object", "string", None, 3])
        walked = sw._walk(schema, sw.MAX_WALK_DEPTH)
        assert walked.objects == [(p, n) for p, n in walked if sw.is_object_schema(n)]


def test_name_caches_hold_only_short_names() -> None:
    """Hostile names can be megabytes long: the per-name caches must not keep them."""
    from helpers import lint_data

    from toolschema_lint.checks import naming

    long_name = "x" * 5000 + "_limit"
    design._count_like.cache_clear()
    assert design.count_like(long_name) == design.count_like(long_name[:design.MAX_NAME])
    assert design._count_like.cache_info().hits == 1  # the second call asked for the same, cut key
    naming._vague_cached.cache_clear()
    found = lint_data({"tools": [{"name": "a" * 300 + ".execute", "inputSchema": {"type": "object"}},
                                 {"name": "crm.execute", "inputSchema": {"type": "object"}}]}, select=["TSL202"])
    assert sorted(len(f.tool) for f in found.findings) == [11, 308]  # both vague, cached or not
    assert naming._vague_cached.cache_info().currsize == 1  # the short name only


def test_vague_name_deny_list_follows_each_runs_option() -> None:
    """TSL202 lowers its deny list once per run (`ctx.derived`): another run's list, or the same list
    changed in place, must be the one used."""
    from helpers import lint_data

    data = {"tools": [{"name": "get_weather", "inputSchema": {"type": "object"}},
                      {"name": "execute", "inputSchema": {"type": "object"}}]}
    deny = ["Get_Weather"]
    custom = lint_data(data, select=["TSL202"], rules={"vague-tool-name": {"deny": deny}})
    default = lint_data(data, select=["TSL202"])
    assert [f.tool for f in custom.findings] == ["get_weather"]
    assert [f.tool for f in default.findings] == ["execute"]
    deny.append("EXECUTE")  # the same list, changed in place between two runs of one process
    again = lint_data(data, select=["TSL202"], rules={"vague-tool-name": {"deny": deny}})
    assert sorted(f.tool for f in again.findings) == ["execute", "get_weather"]


def test_references_are_followed_however_they_are_written() -> None:
    """`reachable` (TSL404 and the other shape rules) resolves a `$ref` as the `$ref` rules do: a
    percent-encoded pointer and an anchor reach the definition, and an unresolvable one nothing."""
    from helpers import lint_data

    defs = {"My Opts": {"$anchor": "opts", "type": "object", "properties": {"limit": {"type": "integer"}}}}
    for ref, found in (("#/$defs/My%20Opts", 1), ("#/$defs/My Opts", 1), ("#opts", 1), ("#/$defs/Other", 0)):
        schema = {"type": "object", "properties": {"o": {"$ref": ref}}, "$defs": defs}
        tool = {"name": "list_items", "description": "List items.", "inputSchema": schema}
        hits = lint_data({"tools": [tool]}, select=["TSL404"]).active()
        assert [f.pointer for f in hits] == ["/tools/0/inputSchema/$defs/My Opts/properties/limit"] * found, ref
