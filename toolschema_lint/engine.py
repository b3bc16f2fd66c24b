"""The lint run: load sources, group them into servers, run the enabled checks, build findings.

Checks yield `Hit`s; this module alone turns them into `Finding`s: message, severity from the
catalog and config, suppression, position (resolved only for documents that have findings).
"""

from __future__ import annotations

import fnmatch
import gc
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .loaders import InputError, Source, collect, load_source
from .model import Document, Exchange, Finding, Hit, RuleMeta, Server, Severity, Tool, finding_order
from .registry import CheckSpec, catalog, load_checks
from .settings import Settings, ignored_for
from .text import sanitize


class Context:
    """What a check may look at besides its subject: options, the server, the run."""

    __slots__ = ("meta", "options", "derived", "server", "servers", "memo", "settings", "tools_by_name")

    def __init__(self, meta: RuleMeta, options: dict[str, Any], settings: Settings):
        self.meta = meta
        self.options = options
        self.derived: dict[str, Any] = {}  # what a check works out from its options, once per run
        self.settings = settings
        self.server: Server | None = None
        self.servers: list[Server] = []
        self.memo: dict[str, Any] = {}  # run scope: what one check works out from `servers` for the others
        self.tools_by_name: dict[str, list[Tool]] = {}

    def tools_for(self, exchange: Exchange) -> list[Tool]:
        """Definitions a recorded call may belong to (narrowed by its `server` when it names one)."""
        tools = self.tools_by_name.get(exchange.tool, []) if isinstance(exchange.tool, str) else []
        if exchange.server and len(tools) > 1:
            named = [t for t in tools if t.server is not None and exchange.server in (t.server.name, t.server.key)]
            tools = named or tools
        return tools

    def on(self, exchange: Exchange, field_name: str | None, *tokens: str | int, **args: Any) -> Hit:
        """A hit on a recorded exchange (located in the results file)."""
        return Hit(pointer=exchange.ptr(field_name, *tokens), args=args, document=exchange.document, exchange=exchange)

    def hit(self, pointer: str, **args: Any) -> Hit:
        return Hit(pointer=pointer, args=args)

    def at(self, tool: Tool, field_name: str | None, *tokens: str | int, **args: Any) -> Hit:
        """A hit on `field_name` (plus sub-tokens) of `tool`, in whichever file holds that field."""
        doc = tool.field_docs.get(field_name) if field_name else None
        return Hit(pointer=tool.ptr(field_name, *tokens), args=args, tool=tool, document=doc)


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    servers: list[Server] = field(default_factory=list)
    files: int = 0
    tools: int = 0
    elapsed: float = 0.0
    enabled: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)  # sources that could not be read (exit 2)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why): found in a folder, not linted

    def active(self) -> list[Finding]:
        return [f for f in self.findings if f.suppressed is None]


class _Formatter(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _message(meta: RuleMeta, args: dict[str, Any], tool: Tool | None, exchange: Exchange | None = None) -> str:
    fields = _Formatter()
    subject = tool or exchange
    if subject is not None:
        fields["tool"] = sanitize(subject.display_name)
    for k, v in args.items():
        if not k.startswith("_"):
            fields[k] = sanitize(v) if isinstance(v, str) else v
    try:
        return meta.message.format_map(fields)
    except (ValueError, IndexError, AttributeError):
        return meta.summary


# tool fields whose positions are kept past their document's index: what cross-server rules point at
ANCHORED = ("name", "description")


class Engine:
    def __init__(self, settings: Settings, prepare: Callable[[list[Finding]], None] | None = None):
        self.settings = settings
        self.rules = catalog()
        self._tags = {rid: tuple(meta.tags) for rid, meta in self.rules.items()}  # shared by each rule's findings
        checks = load_checks(settings.enabled)  # only the modules of the enabled rules are imported
        self.contexts: dict[str, Context] = {}
        self._cross_server = False  # set per run: several servers, and a cross-server rule enabled
        self._cache: Any = None  # the result cache (`cache.ResultCache`), made on first use
        self.prepare = prepare  # a reporter's, run on the findings of each server linted in a worker process
        self.by_scope: dict[str, list[tuple[CheckSpec, Context]]] = {"tool": [], "server": [], "run": [], "result": []}
        for rid in sorted(settings.enabled):
            spec = checks.get(rid)
            if spec is None:
                continue  # input problems are raised by the loaders, not by a check
            ctx = Context(self.rules[rid], settings.options.get(rid, {}), settings)
            self.contexts[rid] = ctx
            self.by_scope[spec.scope].append((spec, ctx))

    # -- building findings --------------------------------------------------------------------
    def finding(self, rule_id: str, hit: Hit, doc: Document, tool: Tool | None) -> Finding | None:
        if rule_id not in self.settings.enabled:
            return None
        meta = self.rules[rule_id]
        tool = hit.tool or tool
        target = hit.document or doc
        sev = self.settings.severities.get(rule_id) or hit.args.get("_severity") or meta.severity
        f = Finding(
            rule_id=rule_id,
            name=meta.name,
            message=_message(meta, hit.args, tool, hit.exchange),
            path=target.path,
            pointer=hit.pointer,
            tool=tool.display_name if tool is not None else (hit.exchange.display_name if hit.exchange is not None
                                                             else hit.args.get("_tool_name")),
            severity=sev if type(sev) is Severity else Severity(sev),
            tags=self._tags[rule_id] if "_profile" not in hit.args else (*self._tags[rule_id], f"profile:{hit.args['_profile']}"),
            document=target,
            tool_pointer=tool.pointer if tool is not None and target is (tool.document or target) else None,
        )
        if "_line" in hit.args:
            f.line, f.column = hit.args["_line"], hit.args["_column"]
            f.end_line, f.end_column = f.line, f.column + 1
        elif tool is not None and tool.anchors and target is tool.document and hit.pointer in tool.anchors:
            f.line, f.column, f.end_line, f.end_column = tool.anchors[hit.pointer]
        else:
            try:
                f.line, f.column, f.end_line, f.end_column = target.locate(hit.pointer)
            except (ValueError, IndexError, RecursionError):
                f.line = f.column = f.end_line = f.end_column = 1
        return f

    def _suppressed(self, f: Finding) -> bool:
        if f.rule_id in ignored_for(f.path, f.tool, self.settings):
            return True
        doc = f.document
        if doc is not None and doc.suppressions:
            ids = doc.suppressions.get(f.line, set())
            if "*" in ids:
                return True
            for sel in ids:
                if sel.upper() == f.rule_id or self.rules[f.rule_id].name == sel or sel in self.rules[f.rule_id].aliases:
                    return True
        return False

    def _emit(self, out: list[Finding], rule_id: str, hits: Iterable[Hit], doc: Document, tool: Tool | None,
              deferred: list[tuple[tuple[str, bool], Finding]] | None = None) -> None:
        """Build, suppress and collect the findings of `hits`. A tool check's hit with `_unless` goes to
        `deferred`, for `_settle` once the tool's checks have run; other scopes report it plainly."""
        try:
            for hit in hits:
                f = self.finding(rule_id, hit, doc, tool)
                if f is not None and not self._suppressed(f):
                    unless = hit.args.get("_unless") if deferred is not None else None
                    if unless is None:
                        out.append(f)
                    else:
                        deferred.append((unless, f))
        except RecursionError:
            self._gave_up(out, rule_id, doc, tool)

    @staticmethod
    def _settle(out: list[Finding], start: int, deferred: list[tuple[tuple[str, bool], Finding]]) -> None:
        """Findings a tool check left to a more fitting rule (hit arg `_unless`: (rule id, same node)):
        each is kept only if that rule reported nothing on the tool (with same node: nothing at the
        finding's node or inside it), among the tool's findings from `start` on. A finding suppressed
        inline or ignored in config is not reported, so the defect then stays with the first rule;
        a baselined one is. Empties `deferred`."""
        reported: dict[str, list[str]] = {}
        for f in out[start:]:
            reported.setdefault(f.rule_id, []).append(f.pointer)
        for (rule_id, same_node), f in deferred:
            pointers = reported.get(rule_id)
            if pointers and same_node:
                inside = f.pointer + "/"
                pointers = [p for p in pointers if p == f.pointer or p.startswith(inside)]
            if not pointers:
                out.append(f)
        deferred.clear()

    def _gave_up(self, out: list[Finding], rule_id: str, doc: Document, tool: Tool | None) -> None:
        f = self.finding("TSL008", Hit(pointer=tool.pointer if tool else "", args={"detail": f"{rule_id} gave up on nesting"}), doc, tool)
        if f is not None:
            out.append(f)

    # -- the run ------------------------------------------------------------------------------
    def server_key(self, src: Source) -> str:
        for glob, name in self.settings.servers.items():
            if fnmatch.fnmatch(src.display, glob):
                return name
        return src.server_key or src.display

    def process_group(self, key: str, srcs: list[Source]) -> GroupOutput:
        """Load one server's sources and run the tool- and server-scope checks on it."""
        out = GroupOutput(server=Server(key=key))
        server, findings = out.server, out.findings
        tool_checks = self.by_scope["tool"]
        deferred: list[tuple[tuple[str, bool], Finding]] = []  # one tool's findings left to another rule
        for src in srcs:
            try:
                doc = load_source(src, self.settings.input_format, self.settings.max_file_size)
            except InputError as e:
                out.errors.append(str(e))
                continue
            doc.origin = src
            if not src.explicit and _holds_no_tools(doc):
                # a folder holds more than tool files (package.json, tsconfig.json, workflows): a file found
                # there that is not a tool definition is skipped quietly; named on the command line, it is TSL003
                out.skipped.append((doc.path, "no tool definitions in any known format"))
                continue
            out.documents.append(doc)
            server.documents.append(doc)
            for d in (doc, *doc.companions):
                for hit in d.problems:
                    self._emit(findings, hit.args["_rule"], [hit], d, None)
            if doc.server_info:
                server.name = doc.server_info.get("name")
                server.version = doc.server_info.get("version")
            for _spec, ctx in tool_checks:
                ctx.server = server
            for tool in doc.tools:
                tool.server = server
                server.tools.append(tool)
                start = len(findings)
                for spec, ctx in tool_checks:
                    self._emit(findings, spec.rule_id, spec.fn(tool, ctx), doc, tool, deferred)
                if deferred:
                    self._settle(findings, start, deferred)
        for spec, ctx in self.by_scope["server"]:
            ctx.server = server
            if server.documents:
                self._emit_multi(findings, spec.rule_id, spec.fn(server, ctx), server.documents[0])
        for tool in server.tools:
            tool.memo.clear()  # shared analyses (`per_tool`) serve this server's checks only
        if self._cross_server:
            self._anchor(server)
        for doc in server.documents:
            doc.release()  # the index is rebuilt on demand if a cross-server finding needs it
        out.tools = len(server.tools)
        if self.settings.fingerprints:  # baselines hash the flagged node: before `_shed` drops the data
            for f in findings:
                f.fingerprint_content  # noqa: B018 - computed and kept on the finding
        self._shed(server)
        return out

    def _anchor(self, server: Server) -> None:
        """Keep the positions cross-server findings point at (`ANCHORED` fields) on each tool, for
        files whose index findings have already built: the index is released next, and rebuilding
        it for a late finding means parsing the file again."""
        for tool in server.tools:
            doc = tool.document
            if doc is None or doc.positions is None:
                continue
            for field_name in ANCHORED:
                ptr = tool.fields.get(field_name)
                if ptr is not None and field_name not in tool.field_docs:
                    try:
                        tool.anchors[ptr] = doc.locate(ptr)
                    except (ValueError, IndexError, RecursionError):
                        pass

    def _shed(self, server: Server) -> None:
        """Let go of what no later check reads, so memory stays flat on large runs.

        Cross-server (run-scope) checks read only names and texts, so they get slim tools; the
        result checks, which need whole definitions, reload them (`_full_tools`) if the run has
        recorded results at all. Lock and diff keep everything (`keep_tools`), and so do the lock
        rules when a lock is given; baselines only need each finding's content hash, taken before.
        """
        if self.settings.keep_tools or self.settings.lock is not None:
            return
        server.tools = [t.slim() for t in server.tools] if self._cross_server else []
        server.slim = True
        for doc in server.documents:
            doc.tools, doc.data = [], None

    def _full_tools(self, server: Server) -> list[Tool]:
        """A server's tools with everything they define, loading its documents again if they were shed."""
        if not server.slim:
            return server.tools
        tools: list[Tool] = []
        for doc in server.documents:
            if doc.origin is None:
                continue
            try:
                fresh = load_source(doc.origin, self.settings.input_format, self.settings.max_file_size)
            except InputError:
                continue
            for tool in fresh.tools:
                tool.server = server
                tools.append(tool)
        return tools

    def run(self, sources: list[Source]) -> RunResult:
        # A run allocates millions of short-lived, acyclic objects (parse trees, decoded values).
        # With the default thresholds the cyclic collector walks the whole growing heap dozens of
        # times for them (a third of the run time on a 10,000-tool corpus); reference counting frees
        # them anyway, so collect rarely while linting.
        previous = gc.get_threshold()
        gc.set_threshold(100_000, 50, 100)
        try:
            return self._run(sources)
        finally:
            gc.set_threshold(*previous)

    def _run(self, sources: list[Source]) -> RunResult:
        start = time.perf_counter()
        result = RunResult(enabled=set(self.settings.enabled))
        groups: dict[str, list[Source]] = {}
        for src in sources:
            groups.setdefault(self.server_key(src), []).append(src)
        # cross-server rules compare servers: with one, no name or text is needed after its checks
        # (the lock rules, the other run-scope ones, keep every tool anyway: `_shed`)
        self._cross_server = bool(self.by_scope["run"]) and len(groups) > 1
        for out in self._process_all(groups):
            result.errors.extend(out.errors)
            result.skipped.extend(out.skipped)
            result.files += len(out.documents)
            result.documents.extend(out.documents)
            result.findings.extend(out.findings)
            result.tools += out.tools
            result.servers.append(out.server)
        self._run_checks(result)
        self._run_results(result)
        result.findings.sort(key=finding_order)
        result.elapsed = time.perf_counter() - start
        return result

    def _process_all(self, groups: dict[str, list[Source]]) -> Iterable[GroupOutput]:
        """Server groups in order, from the result cache where it has them (`cache.py`); the others are
        linted, and stored in the cache when one is in use."""
        cache = self._result_cache()
        if cache is None:
            yield from self._lint_all(groups)
            return
        from .cache import files_read

        cached: dict[str, GroupOutput] = {}
        pending: dict[str, tuple[str, list[list[str]]]] = {}
        for key, srcs in groups.items():
            ck = cache.key(key, srcs, self._cross_server)
            if ck is None:
                continue
            hit = cache.get(ck)
            if hit is not None:
                if self.prepare is not None:
                    self.prepare(hit.findings)
                cached[key] = hit
                continue
            hashes = cache.snapshot(files_read(srcs))
            if hashes is not None:
                pending[key] = (ck, hashes)
        fresh = iter(self._lint_all({k: v for k, v in groups.items() if k not in cached}))
        for key in groups:
            if key in cached:
                yield cached[key]
                continue
            out = next(fresh)
            _detach(out)  # as a worker's output: what the cache keeps, and what the run then reads
            if key in pending and not any(d.exchanges for d in out.documents):
                ck, hashes = pending[key]
                cache.put(ck, out, hashes)
            yield out

    def _result_cache(self) -> Any:
        """The result cache of this run, or None: no cache directory set, or a run that keeps every tool
        (lock, diff) or compares with a lock file, whose checks read more than a group's output."""
        if not self.settings.cache_dir or self.settings.keep_tools or self.settings.lock is not None:
            return None
        from pathlib import Path

        from .cache import ResultCache

        if self._cache is None:
            self._cache = ResultCache(Path(self.settings.cache_dir), self.settings)
        return self._cache

    def _lint_all(self, groups: dict[str, list[Source]]) -> Iterable[GroupOutput]:
        """Server groups in order; with several jobs, groups of files are linted in worker processes.

        Workers are forked, so they share the loaded catalog and checks; what they send back is the
        findings (positions already resolved) and the tools, detached from their documents' text.
        """
        jobs = self.jobs(len(groups))
        items = list(groups.items())
        if jobs <= 1:
            yield from (self.process_group(k, srcs) for k, srcs in items)
            return
        parallel = [(k, srcs) for k, srcs in items if all(s.text is None for s in srcs)]
        local = {k for k, srcs in items if any(s.text is not None for s in srcs)}
        global _WORKER_ENGINE
        _WORKER_ENGINE = self
        import multiprocessing  # only a run with workers needs them (about 9 ms of start-up otherwise)
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork")
        # largest groups first, in small batches: the workers then run out of work within a few
        # milliseconds of each other (batches of a quarter of each worker's share ended up to a
        # sixth of the run apart); results are put back in order by key
        parallel.sort(key=_group_size, reverse=True)
        chunk = max(1, len(parallel) // (jobs * 16))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            remote = pool.map(_worker_group, parallel, chunksize=chunk)
            by_key = dict(zip((k for k, _ in parallel), remote, strict=True))
            for key, srcs in items:
                yield self.process_group(key, srcs) if key in local else by_key[key]

    def jobs(self, groups: int) -> int:
        requested = self.settings.jobs
        if requested == 1 or groups < 2:
            return 1
        import multiprocessing

        if "fork" not in multiprocessing.get_all_start_methods():
            return 1
        if requested and requested > 1:
            return min(requested, groups)
        # automatic: worth it only when there is enough work to spread
        return min(os.cpu_count() or 1, 8, groups) if groups >= 16 else 1

    def _run_results(self, result: RunResult) -> None:
        """Result-scope checks: every recorded call against the definitions loaded in this run."""
        docs = [d for d in result.documents if d.exchanges]
        if not docs or not self.by_scope["result"]:
            return
        by_name: dict[str, list[Tool]] = {}
        for server in result.servers:
            for tool in self._full_tools(server):
                if isinstance(tool.name, str):
                    by_name.setdefault(tool.name, []).append(tool)
        for doc in docs:
            for ex in doc.exchanges:
                for spec, ctx in self.by_scope["result"]:
                    ctx.tools_by_name = by_name
                    self._emit(result.findings, spec.rule_id, spec.fn(ex, ctx), doc, None)

    def _run_checks(self, result: RunResult) -> None:
        """Run-scope (cross-server) checks. Their hits are located one document at a time, and each
        document's position index is let go once its hits are, so the run never holds them all."""
        docs = [s.documents[0] for s in result.servers if s.documents]
        if not docs or not self.by_scope["run"]:
            return
        by_doc: dict[int, tuple[Document, list[tuple[str, Hit]]]] = {}
        shared: dict[str, Any] = {}
        for spec, ctx in self.by_scope["run"]:
            ctx.servers, ctx.memo = result.servers, shared
            hits: list[Hit] = []
            try:
                hits.extend(spec.fn(result.servers, ctx))
            except RecursionError:
                self._gave_up(result.findings, spec.rule_id, docs[0], None)  # the hits before it still count
            finally:
                ctx.servers, ctx.memo = [], {}  # the servers are the run result's, not the engine's
            for hit in hits:
                doc = _hit_document(hit, docs[0])
                by_doc.setdefault(id(doc), (doc, []))[1].append((spec.rule_id, hit))
        for doc, items in by_doc.values():
            for rule_id, hit in items:
                self._emit(result.findings, rule_id, [hit], doc, hit.tool)
                if hit.document is not None:
                    hit.document.release()
            doc.release()

    def _emit_multi(self, out: list[Finding], rule_id: str, hits: Iterable[Hit], fallback: Document) -> None:
        """Server/run-scope hits: each names its tool; its document is the tool's own."""
        for hit in hits:
            self._emit(out, rule_id, [hit], _hit_document(hit, fallback), hit.tool)


def _hit_document(hit: Hit, fallback: Document) -> Document:
    """The document a server- or run-scope hit is reported in: its tool's own, else `fallback`."""
    return hit.tool.document if hit.tool is not None and hit.tool.document is not None else fallback


@dataclass
class GroupOutput:
    server: Server
    tools: int = 0
    findings: list[Finding] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


_QUIET_NOTES = {"TSL003", "TSL006", "TSL010"}  # "no tools here", and notes about how the file was read


def _holds_no_tools(doc: Document) -> bool:
    """Parsed, no tool found, and nothing to say but that (a file that fails to parse is still reported)."""
    rules = {h.args.get("_rule") for h in doc.problems}
    return not doc.tools and "TSL003" in rules and rules <= _QUIET_NOTES and not doc.companions


_WORKER_ENGINE: Engine | None = None


def _group_size(item: tuple[str, list[Source]]) -> int:
    """Bytes to read for a server group: how long its linting takes, near enough to schedule by.
    Only groups of files go to workers (sources given as text are linted in the parent)."""
    size = 0
    for src in item[1]:
        try:
            size += src.path.stat().st_size if src.path is not None else 0
        except OSError:
            pass
    return size


def _worker_group(item: tuple[str, list[Source]]) -> GroupOutput:
    """In a forked worker: lint one server group and detach it for the trip back."""
    assert _WORKER_ENGINE is not None
    out = _WORKER_ENGINE.process_group(*item)
    _detach(out)
    if _WORKER_ENGINE.prepare is not None:
        _WORKER_ENGINE.prepare(out.findings)
    return out


def _detach(out: GroupOutput) -> None:
    """Make a group's output independent of its files' text: findings sorted (the parent's sort then
    merges sorted runs) and without their documents, documents detached. Idempotent."""
    out.findings.sort(key=finding_order)
    for f in out.findings:
        f.document = None
    for doc in out.documents:
        doc.detach()


def merge_results(results: list[RunResult]) -> RunResult:
    """One run result from runs over disjoint sources (files under different config files)."""
    if len(results) == 1:
        return results[0]
    out = RunResult()
    for r in results:
        out.findings.extend(r.findings)
        out.documents.extend(r.documents)
        out.servers.extend(r.servers)
        out.files += r.files
        out.tools += r.tools
        out.elapsed += r.elapsed
        out.enabled |= r.enabled
        out.errors.extend(r.errors)
        out.skipped.extend(r.skipped)
    out.findings.sort(key=finding_order)
    return out


def lint(settings: Settings, prepare: Callable[[list[Finding]], None] | None = None) -> RunResult:
    """Collect the settings' paths plus extra sources and run the engine over them.

    `prepare` (a reporter's) is applied to the findings of each server linted in a worker process.
    """
    missing: list[str] = []
    sources = collect(settings.paths, settings.exclude, missing, settings.stdin_filename) if settings.paths else []
    sources.extend(settings.extra_sources)
    result = Engine(settings, prepare).run(sources)
    result.errors[:0] = missing
    return result
