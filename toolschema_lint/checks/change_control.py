"""TSL8: change control against a lock file (`check --lock`, or `lock = "..."` in the config).

The command line or config loader reads the lock into `settings.lock`; these run-scope checks only
compare. Without a lock they yield nothing. A locked server that is not among the inputs is left
alone (the run may cover part of a repository); a server of the run that matches no locked server
is unapproved, so all of its tools are reported as new.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..lock import (ATTR, Snapshot, changed_fields, digest, lock_snapshots, locked_entries, pair, snapshot,
                    tools_list_pointer)
from ..model import Hit, Server, Tool
from ..registry import check


def _pairs(servers: list[Server], ctx: Any) -> Iterator[tuple[Snapshot | None, Snapshot]]:
    lock = getattr(ctx.settings, "lock", None)
    if not isinstance(lock, dict):
        return
    for locked, current in pair(lock_snapshots(lock), [snapshot(s) for s in servers]):
        if current is not None and current.server is not None:
            yield locked, current


@check("TSL801", scope="run")
def locked_tool_changed(servers: list[Server], ctx: Any) -> Iterator[Hit]:
    for locked, current in _pairs(servers, ctx):
        entries = locked_entries(ctx.settings.lock, locked.key) if locked else {}
        for t in current.tools:
            entry = entries.get(t.name)
            if entry is None or t.tool is None:
                continue
            fields = changed_fields(t, entry)
            if fields:
                yield ctx.at(t.tool, ATTR.get(fields[0]), fields=", ".join(fields))


@check("TSL802", scope="run")
def tool_not_in_lock(servers: list[Server], ctx: Any) -> Iterator[Hit]:
    for locked, current in _pairs(servers, ctx):
        entries = locked_entries(ctx.settings.lock, locked.key) if locked else {}
        gone = {}  # body hash -> name of a locked tool that is no longer offered (renames)
        for name, entry in entries.items():
            defn = entry.get("definition")
            if name not in {t.name for t in current.tools} and isinstance(defn, dict):
                gone.setdefault(digest({k: v for k, v in defn.items() if k != "name"}), name)
        for t in current.tools:
            if t.name in entries or t.tool is None:
                continue
            was = gone.get(t.body_hash())
            note = f" (the locked tool '{was}' under a new name)" if was else ""
            yield ctx.at(t.tool, "name", note=note)


@check("TSL803", scope="run")
def locked_tool_missing(servers: list[Server], ctx: Any) -> Iterator[Hit]:
    for locked, current in _pairs(servers, ctx):
        if locked is None or current.server is None or not current.server.documents:
            continue
        names = {t.name for t in current.tools}
        doc, where = current.server.documents[0], tools_list_pointer(current.server)
        for name in sorted(locked_entries(ctx.settings.lock, locked.key)):
            if name not in names:
                # a stand-in for the tool that is gone: the finding names it and points at the list
                ghost = Tool(name=name, pointer=where, document=doc, server=current.server)
                yield ctx.at(ghost, None)
