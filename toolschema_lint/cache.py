"""The result cache: what linting one server group found, kept between runs.

An entry is keyed by everything its findings depend on: the group (its server name and the files
named in it, as shown and as found), the settings that shape findings (rules, severities, options,
ignores, targets, input format, size limit, grouping), the working directory (paths are shown
relative to it), whether the run compares servers, and the code and catalog of this installation
(version, and the size and time of each file of the package and its rules). Inside the entry, the
content hash of every file the group read (its companions too) is checked again before it is used:
a changed file, setting or version is a miss.

An entry is a JSON header line (key, payload hash, files read) and a pickled group output. A payload
whose hash does not match, a header for another key or format, or anything that fails to load is
ignored (and replaced): a corrupt or foreign entry can never stand in for a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

if TYPE_CHECKING:
    from .engine import GroupOutput
    from .loaders import Source
    from .settings import Settings

FORMAT = 1
ENV = "TOOLSCHEMA_LINT_CACHE_DIR"
T = TypeVar("T")
_CHUNK = 1 << 20


# where derived tables (the merged lexicons, the scorer's model) are kept between runs; None: built in each run.
# The command line points it into the result cache's folder; the library leaves it unset.
DERIVED_DIR: Path | None = None


def derived(name: str, build: Callable[[], T]) -> T:
    """`build()`, kept pickled under `DERIVED_DIR`: the next run loads the table instead of parsing and building
    it again. Keyed by the installed code and catalog (`_code_fingerprint`: every file of the package and of its
    rules, lexicons and model, by size and time), so an edited source or another version is a miss; a missing,
    corrupt or foreign file is built anew."""
    root = DERIVED_DIR
    if root is None:
        return build()
    key = hashlib.sha256(f"{FORMAT}\0{name}\0{_code_fingerprint()}".encode()).hexdigest()
    path = root / "derived" / f"{name}-{key[:40]}.pickle"
    try:
        with open(path, "rb") as fh:
            header = json.loads(fh.readline())
            payload = fh.read()
        if isinstance(header, dict) and header.get("key") == key \
                and header.get("sha256") == hashlib.sha256(payload).hexdigest():
            return pickle.loads(payload)
    except Exception:  # noqa: BLE001 - not there, unreadable or corrupt: built anew
        pass
    value = build()
    try:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        _write(path, json.dumps({"key": key, "sha256": hashlib.sha256(payload).hexdigest()}).encode() + b"\n" + payload)
    except Exception:  # noqa: BLE001 - a table that cannot be kept is simply built next time
        pass
    return value


def _write(target: Path, data: bytes) -> None:
    """Write `data` to `target` atomically (a temporary file, then a rename); OSError when it cannot."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def default_dir() -> Path:
    """`TOOLSCHEMA_LINT_CACHE_DIR`, else the user cache directory of the platform."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("toolschema-lint", appauthor=False))


def file_hash(path: str) -> str | None:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def _code_fingerprint() -> str:
    """Version, and the size and modification time of every file of the package and its catalog."""
    from . import __version__

    return _fingerprint(__version__)


@lru_cache(maxsize=4)
def _fingerprint(version: str) -> str:
    from importlib import resources

    h = hashlib.sha256(f"{FORMAT}\0{version}\0".encode())
    roots = [Path(__file__).resolve().parent]
    try:
        catalog = Path(str(resources.files("toolschema_lint.catalog")))
        if catalog.resolve() not in roots:
            roots.append(catalog.resolve())
    except (ModuleNotFoundError, TypeError):
        pass
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")):
                    continue
                p = os.path.join(dirpath, name)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                h.update(f"{os.path.relpath(p, root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _settings_fingerprint(settings: Settings) -> str:
    """The settings that shape findings (not how they are reported)."""
    shaped = {
        "enabled": sorted(settings.enabled),
        "severities": {k: int(v) for k, v in sorted(settings.severities.items())},
        "options": settings.options,
        "file_ignores": [[p, sorted(ids)] for p, ids in settings.file_ignores],
        "tool_ignores": [[p, sorted(ids)] for p, ids in settings.tool_ignores],
        "input_format": settings.input_format,
        "max_file_size": settings.max_file_size,
        "targets": list(settings.targets),
        "servers": settings.servers,
        "fingerprints": settings.fingerprints,
        "cwd": os.getcwd(),
    }
    return hashlib.sha256(json.dumps(shaped, sort_keys=True, default=repr).encode()).hexdigest()


class ResultCache:
    """Group outputs on disk under `root`, for one run's settings."""

    def __init__(self, root: Path, settings: Settings):
        self.root = root / f"v{FORMAT}"
        self.base = hashlib.sha256(f"{_code_fingerprint()}\0{_settings_fingerprint(settings)}".encode()).hexdigest()
        self.hits = self.misses = 0

    def key(self, group: str, srcs: list[Source], cross_server: bool) -> str | None:
        """The entry key of a group, or None when it cannot be cached (text given in the run: a live
        capture, standard input)."""
        parts = [self.base, group, "cross" if cross_server else "alone"]
        for src in srcs:
            if src.text is not None or src.data is not None or src.path is None:
                return None
            parts.append(f"{src.display}\0{src.path.resolve()}\0{src.format}\0{src.explicit}")
        return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.entry"

    def get(self, key: str) -> GroupOutput | None:
        try:
            with open(self._path(key), "rb") as fh:
                header = json.loads(fh.readline())
                payload = fh.read()
            if (not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key
                    or hashlib.sha256(payload).hexdigest() != header.get("sha256")):
                return self._miss()
            for path, digest in header.get("files", []):
                if (file_hash(path) or "") != digest:
                    return self._miss()  # changed, or a companion file that came or went
            out = pickle.loads(payload)
        except Exception:  # noqa: BLE001 - unreadable, corrupt or foreign: a miss, linted again
            return self._miss()
        from .engine import GroupOutput

        if not isinstance(out, GroupOutput):
            return self._miss()
        self.hits += 1
        return out

    def _miss(self) -> None:
        self.misses += 1
        return None

    @staticmethod
    def snapshot(files: list[tuple[str, bool]]) -> list[list[str]] | None:
        """Content hashes of the files a group is about to be linted from (taken before linting, so an
        edit made meanwhile is a miss next time); None when a source cannot be read."""
        hashes = []
        for path, must_exist in files:
            digest = file_hash(path)
            if digest is None and must_exist:
                return None
            hashes.append([path, digest or ""])
        return hashes

    def put(self, key: str, out: GroupOutput, hashes: list[list[str]]) -> None:
        """Store `out` (detached) with the content hashes of the files it was linted from; a cache that
        cannot be written stores nothing."""
        rendered = [f.rendered for f in out.findings]  # a reporter's encoding belongs to this run's format
        for f in out.findings:
            f.rendered = None
        try:
            payload = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - something unpicklable: not cached
            return
        finally:
            for f, r in zip(out.findings, rendered):
                f.rendered = r
        header = {"format": FORMAT, "key": key, "sha256": hashlib.sha256(payload).hexdigest(), "files": hashes}
        try:
            _write(self._path(key), json.dumps(header).encode() + b"\n" + payload)
        except OSError:
            return


def files_read(srcs: list[Source]) -> list[tuple[str, bool]]:
    """Every file a group's findings depend on, and whether it must exist: its sources, and beside a
    registry schema file its policy and examples files, present or not (one that appears is a miss)."""
    from .loaders import EXAMPLES_SUFFIX, POLICY_SUFFIX, SCHEMA_SUFFIX

    out: dict[str, bool] = {}
    for src in srcs:
        if src.path is None:
            continue
        path = src.path.resolve()
        out[str(path)] = True
        if path.name.endswith(SCHEMA_SUFFIX):
            stem = path.name[: -len(SCHEMA_SUFFIX)]
            for suffix in (POLICY_SUFFIX, EXAMPLES_SUFFIX):
                out.setdefault(str(path.with_name(stem + suffix)), False)
    return sorted(out.items())
