#!/usr/bin/env python3
"""Generate a deterministic, realistic corpus of MCP ``tools/list`` results.

Each output file is one "server": ``{"tools": [...]}`` written as JSON
(indent=2) or, with ``--yaml``, the same content as block-style YAML.

The corpus imitates what real MCP servers publish: namespaced or plain
snake_case names, descriptions of one to four sentences, input schemas with
0-12 properties of mixed types (formats, enums, bounds, patterns, arrays,
nested objects, the odd ``$ref``/``$defs``), and sometimes ``outputSchema``
and ``annotations``. Every server has a "care" level; careless servers make
the usual mistakes (missing descriptions, vague names, ``required`` naming
unknown properties, open objects, unbounded limits, arrays without items),
so a linter finds something in almost every file.

The same ``--seed``, ``--tools`` and ``--files`` always give byte-identical
output.

Usage::

    python bench/gen_corpus.py --out /tmp/corpus              # 10,000 tools / 200 files
    python bench/gen_corpus.py --out /tmp/corpus-yaml --yaml
    python bench/gen_corpus.py --tools 500 --files 10 --out /tmp/small
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

DEFAULT_SEED = 20240611

# --------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------

# domain -> (namespace, nouns)
DOMAINS: dict[str, tuple[str, list[str]]] = {
    "github": ("github", ["issue", "pull_request", "repository", "branch", "commit", "comment",
                          "release", "workflow_run", "label", "file_contents", "review"]),
    "gitlab": ("gitlab", ["merge_request", "project", "pipeline", "issue", "job", "snippet"]),
    "slack": ("slack", ["message", "channel", "thread_reply", "user", "reaction", "file"]),
    "jira": ("jira", ["issue", "sprint", "board", "comment", "transition", "worklog"]),
    "filesystem": ("fs", ["file", "directory", "file_info", "symlink", "file_tree"]),
    "docs": ("docs", ["docs", "page", "section", "snippet", "api_reference"]),
    "postgres": ("db", ["table", "row", "query", "schema", "index", "migration"]),
    "calendar": ("calendar", ["event", "calendar", "attendee", "free_busy", "reminder"]),
    "stripe": ("stripe", ["customer", "invoice", "payment_intent", "subscription", "refund", "price"]),
    "notion": ("notion", ["page", "database", "block", "comment", "user"]),
    "browser": ("browser", ["page", "screenshot", "element", "tab", "cookie"]),
    "k8s": ("k8s", ["pod", "deployment", "service", "namespace", "log", "config_map"]),
    "email": ("gmail", ["email", "draft", "label", "thread", "attachment"]),
    "weather": ("weather", ["forecast", "alert", "observation", "station"]),
    "search": ("web", ["results", "news", "images", "page_content"]),
    "memory": ("memory", ["entity", "relation", "observation", "graph"]),
    "sentry": ("sentry", ["issue", "event", "project", "release", "alert_rule"]),
    "linear": ("linear", ["issue", "project", "cycle", "team", "comment"]),
    "aws": ("aws", ["bucket", "object", "instance", "lambda_function", "log_group", "secret"]),
    "spotify": ("spotify", ["track", "playlist", "album", "artist", "playback"]),
}

VERBS = ["list", "get", "create", "update", "delete", "search", "add", "remove", "fetch",
         "read", "write", "move", "archive", "sync", "export", "summarize", "close", "merge"]
READ_VERBS = {"list", "get", "search", "fetch", "read", "export", "summarize"}
DESTRUCTIVE_VERBS = {"delete", "remove", "archive", "close", "merge", "move"}

VAGUE_NAMES = ["run", "execute", "tool", "handle", "do_task", "api_call", "process_user_request"]
BAD_FORMAT_NAMES = ["create issue", "files/list", "query:run", "get-user#1", "search docs",
                    "fetch(url)", "send@message", "ütf_tool"]

SENTENCE_WHAT = {
    "list": "Lists {noun_pl} in the {ns} workspace, newest first.",
    "get": "Returns a single {noun} by its identifier, including metadata.",
    "create": "Creates a new {noun} with the given fields and returns it.",
    "update": "Updates fields of an existing {noun}; omitted fields are left unchanged.",
    "delete": "Permanently deletes a {noun}.",
    "search": "Searches {noun_pl} using a full-text query and optional filters.",
    "add": "Adds a {noun} to the current {ns} context.",
    "remove": "Removes a {noun} from the current {ns} context.",
    "fetch": "Fetches the latest {noun} data from {ns}.",
    "read": "Reads the content of a {noun}.",
    "write": "Writes content to a {noun}, creating it if it does not exist.",
    "move": "Moves a {noun} to another location.",
    "archive": "Archives a {noun} so it no longer appears in default listings.",
    "sync": "Synchronises local {noun_pl} with the {ns} backend.",
    "export": "Exports {noun_pl} as CSV or JSON.",
    "summarize": "Summarises recent {noun_pl} into a short report.",
    "close": "Closes a {noun}.",
    "merge": "Merges a {noun} into its target.",
}
SENTENCE_WHEN = [
    "Use this when the user refers to a {noun} by name or URL.",
    "Use it before making changes to confirm the {noun} exists.",
    "Call this tool when you need up-to-date information rather than cached results.",
    "Prefer this over listing when you already know the identifier.",
    "Use this to answer questions about {noun_pl} in {ns}.",
]
SENTENCE_LIMITS = [
    "Results are paginated; pass the returned cursor to get the next page.",
    "At most 100 items are returned per call.",
    "Requires the {ns}:write scope.",
    "The operation is rate limited to 30 calls per minute.",
    "Returns an error if the {noun} was already deleted.",
    "Timestamps are ISO 8601 in UTC.",
]
SENTENCE_NOT = [
    "Do not use for bulk operations; use export instead.",
    "Do not use for {noun_pl} outside the current workspace.",
    "Do not use for reading file contents larger than 1 MB.",
    "Do not use for deleting data.",
]
SHORT_DESCRIPTIONS = ["Gets data.", "Runs it.", "Tool.", "Does stuff", "{verb} {noun}", "Helper.", "TODO"]

# param name -> factory(rng, ctx) returning a property schema
PARAM_DESCRIPTIONS = {
    "owner": "Account or organisation that owns the repository.",
    "repo": "Repository name without the owner prefix.",
    "id": "Identifier of the {noun}.",
    "query": "Full-text search query.",
    "path": "Path relative to the workspace root.",
    "limit": "Maximum number of results to return.",
    "page_size": "Number of items per page.",
    "max_results": "Upper bound on returned results.",
    "cursor": "Opaque pagination cursor from a previous call.",
    "email": "Email address of the recipient.",
    "due_date": "Due date in YYYY-MM-DD format.",
    "start_time": "Start time (RFC 3339).",
    "url": "Absolute URL to fetch.",
    "state": "Filter by state.",
    "sort": "Sort order.",
    "labels": "Labels to apply.",
    "assignees": "Usernames to assign.",
    "tags": "Free-form tags.",
    "metadata": "Arbitrary key/value metadata.",
    "filters": "Additional filters.",
    "include_archived": "Include archived items.",
    "recursive": "Recurse into subdirectories.",
    "dry_run": "Validate the request without applying it.",
    "temperature": "Sampling temperature between 0 and 1.",
    "title": "Title of the {noun}.",
    "body": "Body text in Markdown.",
    "content": "Content to write.",
    "channel": "Channel name or ID, e.g. #general.",
    "timeout_seconds": "Timeout in seconds.",
    "retries": "Number of retries on transient errors.",
    "priority": "Priority level.",
    "author": "The {noun} author.",
    "language": "ISO 639-1 language code.",
    "ids": "Identifiers to fetch in one call.",
    "branch": "Branch name.",
    "region": "Cloud region, e.g. us-east-1.",
    "sql": "Read-only SQL statement to run.",
    "coordinates": "Latitude and longitude.",
    "encoding": "Text encoding of the content.",
    "count": "How many items to return.",
    "offset": "Number of items to skip.",
    "verbose": "Return extra detail.",
}
PARAM_NAMES = list(PARAM_DESCRIPTIONS)
LIMIT_PARAMS = {"limit", "page_size", "max_results", "count"}


def _plural(noun: str) -> str:
    if noun.endswith("s"):
        return noun
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("sh", "ch", "x")):
        return noun + "es"
    return noun + "s"


class Gen:
    """Generates tools for one server; ``care`` in [0, 1] controls mistakes."""

    def __init__(self, rng: random.Random, domain: str, care: float, namespaced: bool) -> None:
        self.rng = rng
        self.domain = domain
        self.ns, self.nouns = DOMAINS[domain]
        self.care = care
        self.namespaced = namespaced
        self.seen: set[str] = set()

    # -- helpers ----------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def sloppy(self, p: float) -> bool:
        """A mistake whose probability grows as care drops."""
        return self.rng.random() < p * (1.0 - self.care) * 2.0

    def fmt(self, text: str, noun: str, verb: str = "") -> str:
        return text.format(noun=noun.replace("_", " "), noun_pl=_plural(noun).replace("_", " "),
                           ns=self.ns, verb=verb)

    # -- names ------------------------------------------------------------
    def name(self, verb: str, noun: str) -> str:
        if self.sloppy(0.03):
            vague = self.rng.choice(VAGUE_NAMES)
            if vague not in self.seen:
                self.seen.add(vague)
                return vague
        if self.sloppy(0.015):
            bad = self.rng.choice(BAD_FORMAT_NAMES)
            if bad not in self.seen:
                self.seen.add(bad)
                return bad
        base = f"{verb}_{_plural(noun) if verb in ('list', 'search', 'export', 'sync', 'summarize') else noun}"
        if self.chance(0.08):
            parts = base.split("_")
            base = parts[0] + "".join(p.title() for p in parts[1:])  # camelCase servers exist too
        name = f"{self.ns}.{base}" if self.namespaced else base
        if self.sloppy(0.004):
            name = name + "_" + "_".join(["with_extended_options"] * 8)  # > 128 characters
        suffixes = ["", "_v2", "_by_id", "_batch", "_async", "_advanced", "_legacy"]
        for suffix in suffixes:
            if name + suffix not in self.seen:
                name += suffix
                break
        else:
            i = 2
            while f"{name}_{i}" in self.seen:
                i += 1
            name = f"{name}_{i}"
        self.seen.add(name)
        return name

    # -- descriptions -----------------------------------------------------
    def description(self, verb: str, noun: str) -> str | None:
        if self.sloppy(0.06):
            return self.rng.choice([None, None, ""])
        if self.sloppy(0.08):
            return self.fmt(self.rng.choice(SHORT_DESCRIPTIONS), noun, verb)
        sentences = [self.fmt(SENTENCE_WHAT[verb], noun)]
        n_extra = self.rng.choice([0, 1, 1, 2, 2, 3])
        pools = [SENTENCE_WHEN, SENTENCE_LIMITS, SENTENCE_NOT]
        for pool in self.rng.sample(pools, k=min(n_extra, 3)):
            if pool is SENTENCE_NOT and not self.chance(0.6):
                continue
            sentences.append(self.fmt(self.rng.choice(pool), noun))
        return " ".join(sentences)

    # -- schemas ----------------------------------------------------------
    def prop(self, pname: str, noun: str, depth: int, defs: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        p: dict[str, Any]
        if pname in LIMIT_PARAMS or pname in ("offset", "retries", "timeout_seconds"):
            p = {"type": "integer"}
            if not self.sloppy(0.35):
                p["minimum"] = 0 if pname == "offset" else 1
                p["maximum"] = {"timeout_seconds": 600, "retries": 10}.get(pname, rng.choice([50, 100, 200, 1000]))
            if self.chance(0.4):
                p["default"] = {"offset": 0, "retries": 3, "timeout_seconds": 30}.get(pname, rng.choice([10, 20, 25, 50]))
        elif pname == "temperature":
            p = {"type": "number", "minimum": 0, "maximum": 1}
        elif pname in ("include_archived", "recursive", "dry_run", "verbose"):
            p = {"type": "boolean", "default": False}
        elif pname in ("labels", "assignees", "tags", "ids"):
            p = {"type": "array"}
            if not self.sloppy(0.2):
                item: dict[str, Any] = {"type": "string"}
                if pname == "ids" and self.chance(0.5):
                    item = {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}
                p["items"] = item
            if self.chance(0.3):
                p["maxItems"] = rng.choice([10, 25, 100])
            if self.chance(0.2):
                p["uniqueItems"] = True
        elif pname == "coordinates":
            p = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
        elif pname in ("state", "sort", "priority", "encoding"):
            choices = {
                "state": ["open", "closed", "all"],
                "sort": ["created", "updated", "relevance"],
                "priority": ["low", "medium", "high", "urgent"],
                "encoding": ["utf-8", "base64"],
            }[pname]
            p = {"type": "string", "enum": choices}
            if self.chance(0.5):
                p["default"] = choices[0]
        elif pname in ("metadata", "filters", "author") and depth < 2:
            if pname == "author" and self.chance(0.5):
                defs.setdefault("user", {
                    "type": "object",
                    "description": "A user reference.",
                    "properties": {
                        "login": {"type": "string", "description": "Login name."},
                        "email": {"type": "string", "format": "email", "description": "Email address."},
                    },
                    "required": ["login"],
                    "additionalProperties": False,
                })
                return {"$ref": "#/$defs/user", "description": self.fmt(PARAM_DESCRIPTIONS[pname], noun)}
            p = self.object_schema(noun, depth + 1, defs, n_props=rng.randint(0, 4))
            if pname == "metadata" and not p["properties"]:
                p.pop("properties")
                p.pop("additionalProperties", None)
                p["additionalProperties"] = {"type": "string"}
        else:
            p = {"type": "string"}
            if pname == "email":
                p["format"] = "email"
            elif pname in ("due_date",):
                p["format"] = "date"
            elif pname == "start_time":
                p["format"] = "date-time"
            elif pname == "url":
                p["format"] = "uri"
            elif pname in ("query", "body", "content", "sql", "title"):
                if self.chance(0.6):
                    p["maxLength"] = rng.choice([256, 1000, 4096, 65536])
                if pname in ("query", "title") and self.chance(0.4):
                    p["minLength"] = 1
            elif pname in ("path", "branch", "owner", "repo", "id", "region", "language"):
                if self.chance(0.4):
                    p["pattern"] = {
                        "path": "^[^\\0]+$", "branch": "^[A-Za-z0-9._/-]+$", "owner": "^[A-Za-z0-9-]{1,39}$",
                        "repo": "^[A-Za-z0-9._-]{1,100}$", "id": "^[0-9a-f]{8,40}$",
                        "region": "^[a-z]{2}-[a-z]+-\\d$", "language": "^[a-z]{2}$",
                    }[pname]
            if pname == "id" and self.chance(0.2):
                p = {"type": "integer", "minimum": 1}
        if self.sloppy(0.06):
            p.pop("type", None)  # property without type
        if not self.sloppy(0.18):
            p["description"] = self.fmt(PARAM_DESCRIPTIONS.get(pname, "The {noun}."), noun)
        return p

    def object_schema(self, noun: str, depth: int, defs: dict[str, Any], n_props: int) -> dict[str, Any]:
        names = self.rng.sample(PARAM_NAMES, k=n_props)
        props = {n: self.prop(n, noun, depth, defs) for n in names}
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if props and self.chance(0.7):
            req = [n for n in names if self.chance(0.4)] or [names[0]]
            if self.sloppy(0.07):
                req.append(self.rng.choice(["name", "input", "repository", "userId", "text"]))  # unknown prop
            schema["required"] = req
        if not self.sloppy(0.35):
            schema["additionalProperties"] = False
        return schema

    def input_schema(self, verb: str, noun: str) -> dict[str, Any]:
        if self.sloppy(0.015):
            return self.rng.choice([{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {}])
        n = self.rng.choice([0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12])
        defs: dict[str, Any] = {}
        schema = self.object_schema(noun, 0, defs, n)
        if verb in ("list", "search") and n < 12 and "limit" not in schema["properties"] and self.chance(0.5):
            schema["properties"]["limit"] = self.prop("limit", noun, 0, defs)
        if defs:
            schema["$defs"] = defs
        if self.chance(0.1):
            schema = {"$schema": "http://json-schema.org/draft-07/schema#", **schema}
        return schema

    def output_schema(self, noun: str) -> dict[str, Any]:
        item = {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "Identifier."},
                "url": {"type": "string", "format": "uri", "description": "Web URL."},
                "created_at": {"type": "string", "format": "date-time", "description": "Creation time."},
            },
            "required": ["id"],
        }
        if self.chance(0.5):
            return {"type": "object", "properties": {
                "items": {"type": "array", "items": item, "description": f"Matching {_plural(noun)}."},
                "next_cursor": {"type": ["string", "null"], "description": "Cursor for the next page."},
            }, "required": ["items"]}
        return item

    def tool(self) -> dict[str, Any]:
        verb = self.rng.choice(VERBS)
        noun = self.rng.choice(self.nouns)
        name = self.name(verb, noun)
        tool: dict[str, Any] = {"name": name}
        if self.chance(0.25):
            tool["title"] = f"{verb.title()} {noun.replace('_', ' ')}"
        desc = self.description(verb, noun)
        if desc is not None:
            tool["description"] = desc
        tool["inputSchema"] = self.input_schema(verb, noun)
        if self.chance(0.15):
            tool["outputSchema"] = self.output_schema(noun)
        if self.chance(0.3):
            ann: dict[str, Any] = {"readOnlyHint": verb in READ_VERBS}
            if verb not in READ_VERBS:
                ann["destructiveHint"] = verb in DESTRUCTIVE_VERBS
                ann["idempotentHint"] = verb in ("update", "write", "sync")
            ann["openWorldHint"] = self.domain in ("search", "browser", "weather")
            if "title" in tool and self.chance(0.5):
                ann["title"] = tool["title"]
            tool["annotations"] = ann
        return tool


def file_sizes(rng: random.Random, tools: int, files: int) -> list[int]:
    """Split ``tools`` into ``files`` uneven, non-empty parts that add up exactly."""
    if files <= 0:
        raise ValueError("files must be positive")
    if tools < files:
        return [1] * tools + [0] * (files - tools)
    weights = [rng.uniform(0.2, 2.0) for _ in range(files)]
    total = sum(weights)
    spare = tools - files
    sizes = [1 + int(spare * w / total) for w in weights]
    for i in range(tools - sum(sizes)):
        sizes[i % files] += 1
    return sizes


def generate(tools: int, files: int, seed: int = DEFAULT_SEED) -> list[tuple[str, dict[str, Any]]]:
    """Return ``[(file_stem, {"tools": [...]}), ...]`` for the whole corpus."""
    rng = random.Random(seed)
    domains = list(DOMAINS)
    out = []
    for i, size in enumerate(file_sizes(rng, tools, files)):
        domain = domains[i % len(domains)] if i < len(domains) else rng.choice(domains)
        care = rng.choice([0.15, 0.35, 0.5, 0.5, 0.65, 0.8, 0.9, 0.95])
        gen = Gen(random.Random(rng.getrandbits(64)), domain, care, namespaced=rng.random() < 0.45)
        out.append((f"server_{i:04d}_{domain}", {"tools": [gen.tool() for _ in range(size)]}))
    return out


def write_corpus(out: Path, tools: int, files: int, seed: int = DEFAULT_SEED, as_yaml: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    if as_yaml:
        import yaml  # PyYAML only writes here; block style, key order kept

        base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when available: 10x faster

        class _Dumper(base):  # type: ignore[valid-type,misc]
            def ignore_aliases(self, data: Any) -> bool:  # never emit &anchors / *aliases
                return True

    for stem, doc in generate(tools, files, seed):
        if as_yaml:
            path = out / f"{stem}.yaml"
            text = yaml.dump(doc, Dumper=_Dumper, default_flow_style=False, sort_keys=False,
                             allow_unicode=True, width=100)
        else:
            path = out / f"{stem}.json"
            text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tools", type=int, default=10_000, help="total number of tools (default 10000)")
    ap.add_argument("--files", type=int, default=200, help="number of files (default 200)")
    ap.add_argument("--out", type=Path, default=Path("bench/corpus"), help="output directory")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    ap.add_argument("--yaml", action="store_true", help="write YAML (block style) instead of JSON")
    args = ap.parse_args(argv)
    if args.tools < 0 or args.files < 1:
        ap.error("--tools must be >= 0 and --files >= 1")
    paths = write_corpus(args.out, args.tools, args.files, args.seed, args.yaml)
    size = sum(p.stat().st_size for p in paths)
    print(f"wrote {args.tools} tools in {len(paths)} files to {args.out} ({size / 1e6:.1f} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
