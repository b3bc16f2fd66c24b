"""One identity per finding for the reports that track findings across runs (SARIF, GitLab).

A finding is identified by its rule, file, node (JSON Pointer) and tool: not by its line, which
moves when the file is reformatted, nor by its message, which a rule may reword (or which counts
something elsewhere, such as the other servers offering a name). A rule that reports several
problems on one node (one per validation error) numbers the later ones in report order, so that
no two findings of a report share an identity.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from ..model import Finding


def fingerprinted(findings: Iterable[Finding]) -> Iterator[tuple[Finding, str]]:
    """Each finding, in order, with its fingerprint: 32 hex digits of its rule, file, JSON Pointer and
    tool, and of how many findings on that node came before it (when any did)."""
    seen: dict[tuple[str, str, str, str], int] = {}  # findings per node so far
    for f in findings:
        node = (f.rule_id, f.path, f.pointer, f.tool or "")
        occurrence = seen[node] = seen.get(node, -1) + 1
        key = "\x1f".join(node) + (f"\x1f{occurrence}" if occurrence else "")
        yield f, hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
