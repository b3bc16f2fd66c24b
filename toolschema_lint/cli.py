"""Command line: click only. Options become a `Settings`, `engine.lint` does the work, a reporter
writes it; `run()` is the console script around it all."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import click

from . import __version__
from .engine import RunResult, lint
from .loaders import InputError
from .loaders.dialects import INPUT_FORMATS
from .registry import by_name, catalog, families
from .reporters import REPORTERS, preparer
from .settings import ConfigError, Settings, apply_config, config_table, find_config, resolve

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class OutputError(Exception):
    """The report or listing could not be written (a full disk, a missing folder for `-o`)."""


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def guarded(fn: Callable[..., int]) -> Callable[..., None]:
    """No traceback reaches the user: usage/config errors and internal errors exit 2 with a message."""

    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = fn(*args, **kwargs)
        except (ConfigError, InputError) as e:
            note(f"toolschema-lint: error: {e}")
            code = EXIT_USAGE
        except OutputError as e:
            note(f"toolschema-lint: error: could not write the output: {e}")
            code = EXIT_USAGE
        except click.exceptions.Exit:
            raise
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            note("toolschema-lint: interrupted")
            code = 130
        except Exception as e:  # noqa: BLE001 - last line of defence
            if os.environ.get("TOOLSCHEMA_LINT_DEBUG"):
                import traceback  # only for a crash

                traceback.print_exc()
            note(f"toolschema-lint: internal error: {type(e).__name__}: {e}")
            note("toolschema-lint: set TOOLSCHEMA_LINT_DEBUG=1 for details")
            code = EXIT_USAGE
        sys.exit(code)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="toolschema-lint")
def main() -> None:
    """Lint AI tool definitions: MCP tools/list results, OpenAI, Anthropic and Gemini function schemas."""


def run() -> None:
    """The console script (and `python -m toolschema_lint`): `main`, then a hard exit.

    A run ends holding every finding, document and parsed rule; freeing them one by one as the
    interpreter shuts down took 20 ms after a ten-rule report on the bench corpus and 70-90 ms after
    a default one, all of it after the report was written. Nothing needs that teardown: reports go
    through closed files or the flushed standard streams, and worker pools and live servers are shut
    down by the commands themselves. `main` itself (what tests invoke) exits normally.
    """
    try:
        main()
        code: int = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except KeyboardInterrupt:  # before a command started (the commands report their own)
        code = 130
    except OSError as e:  # click's own output (--help, --version) could not be written
        if not isinstance(e, BrokenPipeError):
            note(f"toolschema-lint: error: could not write the output: {e.strerror or e}")
        code = EXIT_USAGE
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the descriptor was closed when the program started
                stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that went away, a closed stream: nothing to deliver
            pass
        except OSError as e:  # the report could not be written whole (a full disk)
            code = EXIT_USAGE
            try:
                os.write(2, f"toolschema-lint: error: could not write the output: {e}\n".encode())
            except OSError:
                pass
    os._exit(code)


def load_settings(config: str | None, cli_values: dict[str, Any]) -> Settings:
    """Defaults, then the config file (`--config`, else the nearest one above the working directory), then the
    command line."""
    if config:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"{config}: config file not found")
        from .settings import _read_toml

        return _settings_for((path, _read_toml(path)), cli_values)
    return _settings_for(find_config(Path.cwd()), cli_values)


def emit(text: str | Iterable[str], output: str | None) -> None:
    """Write a report (a string, or chunks of one) to `output` or stdout."""
    chunks = [text] if isinstance(text, str) else text
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.writelines(chunks)
        except OSError as e:
            raise OutputError(f"{output}: {e.strerror or e}") from None
    else:
        for chunk in chunks:
            # the reporter decided about colour (--color, a terminal, NO_COLOR): click must not strip it again
            if not _echo(chunk, nl=False, color=True):
                break


def say(text: str, nl: bool = True) -> None:
    """A line of a listing on stdout."""
    _echo(text, nl=nl)


def note(text: str) -> None:
    """A message on stderr."""
    _echo(text, err=True)


def _echo(text: str, nl: bool = True, err: bool = False, color: bool | None = None) -> bool:
    """`click.echo`; False when the reader went away (`| head`, `|& head`): the rest of that stream
    goes nowhere and the command ends with its own exit code. Another failure to write stdout (a
    full disk) is an `OutputError`; on stderr there is nowhere left to say so."""
    try:
        click.echo(text, nl=nl, err=err, color=color)
        return True
    except BrokenPipeError:
        _discard(sys.stderr if err else sys.stdout)
    except OSError as e:
        if not err:
            raise OutputError(e.strerror or str(e)) from None
    return False


def _discard(stream: Any) -> None:
    """Send what is still to be written to `stream` (a closed pipe), the final flush included, nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)


def exit_code(result: RunResult, settings: Settings) -> int:
    if result.errors:
        return EXIT_USAGE
    if settings.exit_zero:
        return EXIT_OK
    if settings.fail_level is None:  # --fail-on never
        return EXIT_OK
    return EXIT_FINDINGS if any(f.severity >= settings.fail_level for f in result.active()) else EXIT_OK


def _live_options(fn: Callable) -> Callable:
    """--server / --url / --timeout: capture tools/list from running servers (needs toolschema-lint[live])."""
    for option in (
        click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
                     help="Seconds allowed for each live server (start-up included)."),
        click.option("--url", "urls", multiple=True, metavar="URL", help="An MCP server over HTTP: Streamable HTTP, else legacy SSE (repeatable)."),
        click.option("--server", "commands", multiple=True, metavar='"CMD ARGS..."',
                     help="An MCP server to start over stdio, as one shell-style command line (repeatable)."),
    ):
        fn = option(fn)
    return fn


def _capture_options(fn: Callable) -> Callable:
    """`_live_options`, plus how to reach the servers and client configs (toolschema-lint[live])."""
    for option in (
        click.option("--allow-start", is_flag=True, default=False,
                      help="Start the stdio servers listed in --client-config files (starting a program runs code)."),
        click.option("--client-config", "client_configs", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
                     help="Servers listed in a client config: Claude Desktop, .mcp.json, Cursor, VS Code, Gemini CLI (repeatable)."),
        click.option("--header", "headers", multiple=True, metavar='"NAME: VALUE"', help="HTTP header sent to every --url (repeatable)."),
        click.option("--cwd", type=click.Path(file_okay=False), default=None, help="Working directory of every --server."),
        click.option("--env", "env", multiple=True, metavar="KEY=VAL", help="Environment variable for every --server (repeatable)."),
    ):
        fn = option(fn)
    return _live_options(fn)


def _collect_live(opts: dict[str, Any]) -> tuple[list[Any], list[str]]:
    from .live_sources import collect_servers

    return collect_servers(opts["commands"], opts["urls"], opts["env"], opts["cwd"], opts["headers"], opts["client_configs"])


def _gather_live(opts: dict[str, Any], settings: Settings | None = None,
                 collected: tuple[list[Any], list[str]] | None = None) -> Any:
    """Capture the live servers the options ask for (None when none); notes go to stderr.
    `collected`: what `_collect_live` already returned for these options."""
    keys = ("commands", "urls", "client_configs", "env", "headers")
    if not any(opts.get(k) for k in keys) and opts.get("cwd") is None:
        return None
    from .live_sources import gather

    servers, notes = collected or _collect_live(opts)
    live = gather(servers, opts["timeout"], opts["allow_start"], notes)
    if not (settings and settings.quiet):
        for message in live.notes:
            note(f"toolschema-lint: {message}")
    if settings is not None:
        settings.extra_sources.extend(live.sources)
    return live


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rules to enable (id, prefix such as TSL5, name, or ALL). Replaces the default set.")
@click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option("--severity", "severity_opts", multiple=True, metavar="RULE=LEVEL", help="Override a rule's severity (error, warning, info).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info", "never"]), default=None,
              help="Lowest severity that fails the run (default: warning); never: findings never fail it.")
@click.option("--format", "--output-format", "fmt", type=click.Choice(sorted(REPORTERS)), default=None,
              help="Output format (default: text).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Write the report to a file.")
@click.option("--exit-zero", is_flag=True, default=None, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, default=None, help="Print the number of findings per rule.")
@click.option("-q", "--quiet", is_flag=True, default=None, help="Print findings only: no summary, nothing when all is well.")
@click.option("--no-hints", "no_hints", is_flag=True, default=False, help="Leave out the fix hints of the text and github formats.")
@click.option("--config", type=click.Path(dir_okay=False), default=None, help="Config file (default: nearest pyproject.toml [tool.toolschema-lint] or toolschema-lint.toml).")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default=None, help="Force the input dialect instead of detecting it.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--explain", is_flag=True, default=False, help="Print, per file, which format was detected and why (to stderr).")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on for a terminal, off with NO_COLOR).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=None, help="Worker processes (default 0: one per core for large runs; 1: none).")
@click.option("--lock", "lock_file", type=click.Path(dir_okay=False), default=None, help="Report tools that changed, appeared or disappeared since this lock file (TSL8).")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False), default=None, help="Report only findings that are not in this baseline file (the others stay in JSON/SARIF as suppressed).")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False), default=None, help="Record the current findings in this baseline file, then report them as suppressed.")
@click.option("--show-settings", "show_settings", type=click.Path(), default=None, metavar="PATH",
              help="Print the settings that apply to PATH (which config file, which rules) and exit.")
@click.option("--stdin-filename", default=None, metavar="NAME", help="Name to show for `-` (standard input); its extension tells the format.")
@click.option("--max-file-size", "max_file_size", type=str, default=None, metavar="SIZE",
              help="Largest input file read (bytes, or with K, M or G; default 4M); larger ones get TSL007.")
@click.option("--fix", "fix", is_flag=True, default=False, help="Apply the safe fixes, then report what remains.")
@click.option("--unsafe-fixes", "unsafe_fixes", is_flag=True, default=False, help="With --fix or --diff: apply the unsafe fixes as well.")
@click.option("--diff", "show_diff", is_flag=True, default=False, help="Show the fixes as a unified diff; change no file.")
@click.option("--target", "targets", multiple=True, metavar="PROFILE",
              help="Check compatibility with a provider or MCP revision (repeatable; see `toolschema-lint profiles`). "
                   "Default: each tool's own format, newest revision.")
@click.option("--no-cache", "no_cache", is_flag=True, default=False, help="Read and write no result cache.")
@click.option("--cache-dir", "cache_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Folder of the result cache (default: $TOOLSCHEMA_LINT_CACHE_DIR, else the user cache folder).")
@_capture_options
@guarded
def check(paths: tuple[str, ...], select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
          severity_opts: tuple[str, ...], fail_on: str | None, fmt: str | None, output: str | None, exit_zero: bool | None,
          statistics: bool | None, quiet: bool | None, no_hints: bool, config: str | None, input_format: str | None,
          exclude: tuple[str, ...], explain: bool, color: bool | None, jobs: int | None = None, lock_file: str | None = None,
          baseline_file: str | None = None, write_baseline: str | None = None, stdin_filename: str | None = None,
          max_file_size: str | None = None, show_settings: str | None = None, targets: tuple[str, ...] = (),
          fix: bool = False, unsafe_fixes: bool = False, show_diff: bool = False, no_cache: bool = False,
          cache_dir: str | None = None, **live_opts: Any) -> int:
    """Lint tool definition files and folders (`-` reads standard input), and live MCP servers (--server, --url,
    --client-config)."""
    severity: dict[str, str] = {}
    for item in severity_opts:
        rule, sep, level = item.partition("=")
        if not sep:
            raise ConfigError(f"--severity {item!r}: expected RULE=LEVEL")
        severity[rule.strip()] = level.strip()
    cli_values = {
        "select": _split(select) if select else None,
        "extend_select": _split(extend_select) or None,
        "ignore": _split(ignore) or None,
        "fail_on": fail_on,
        "format": fmt,
        "output": output,
        "exit_zero": exit_zero,
        "statistics": statistics,
        "quiet": quiet,
        "hints": False if no_hints else None,
        "input_format": input_format,
        "exclude": list(exclude) or None,
        "jobs": jobs,
        "lock_path": lock_file,
        "stdin_filename": stdin_filename,
        "max_file_size": _size(max_file_size) if max_file_size is not None else None,
        "targets": _split(targets) or None,
        "cache_dir": None if no_cache else _cache_dir(cache_dir),
    }
    if cli_values["cache_dir"]:
        from . import cache

        # the parsed catalog, the merged lexicons and the scorer's model are kept there too
        cache.DERIVED_DIR = Path(cli_values["cache_dir"])
    settings = load_settings(config, cli_values)
    settings.severity.update(severity)
    if severity:
        settings = resolve(settings)
    if show_settings is not None:
        target = Path(show_settings)
        if not config:
            where = target if target.is_dir() else target.parent
            nearest = _nearest_config(where, {})
            if nearest is not None:  # else the run's own config (or the defaults) applies, as for linting
                settings = _settings_for(nearest, cli_values, severity)
        say(_describe_settings(settings, show_settings))
        return EXIT_OK
    settings.paths = list(paths)
    settings.fingerprints = bool(baseline_file or write_baseline)
    live = _gather_live(live_opts, settings)
    live_problems = live.problems if live is not None else []
    if not settings.paths and not settings.extra_sources and live is None:
        raise ConfigError("no paths given (try `toolschema-lint check tools.json`)")
    settings.color = color if color is not None else _auto_color(settings)
    groups = None if config or not settings.paths else _config_groups(settings, cli_values, severity)
    if groups is None:
        result = lint(settings, prepare=preparer(settings.format))
    else:
        result = _lint_groups(settings, groups, preparer(settings.format))
    if fix or show_diff:
        fixed = _apply_fixes(result, unsafe_fixes, show_diff)
        if show_diff:
            return EXIT_OK if not fixed else EXIT_FINDINGS
        if fixed:  # the files changed: what remains is what the run reports
            result = lint(settings, prepare=preparer(settings.format)) if groups is None else \
                _lint_groups(settings, groups, preparer(settings.format))
            note(f"toolschema-lint: fixed {fixed} finding{'s' if fixed != 1 else ''}")
    if baseline_file or write_baseline:
        _baseline(result, settings, baseline_file, write_baseline)
    if explain:
        for doc in result.documents:
            note(f"{doc.path}: {doc.format}, {doc.dialect or 'no tools'}: {doc.detection}")
        for path, why in result.skipped:
            note(f"{path}: skipped (found in a folder): {why}")
    result.errors.extend(live_problems)  # servers not read count as sources that could not be read
    emit(REPORTERS[settings.format](result, settings), settings.output)
    if settings.output and not settings.quiet:
        # the report went to a file (the SARIF pre-commit hook): say where, and what it holds
        from .reporters import summary_line

        note(f"toolschema-lint: wrote the {settings.format} report to {settings.output}. {summary_line(result)}")
    for err in result.errors:
        note(f"toolschema-lint: error: {err}")
    if (settings.paths and live is None and not settings.extra_sources and not result.files and not result.tools
            and not result.errors and not settings.exit_zero):
        if _only_working_directory(settings.paths):
            # `check .` (the Action's default) in a repository whose tools live in code, not in files: the
            # repository is clean as far as this linter can see, so the gate passes and says so
            note("toolschema-lint: nothing was checked: no tool definition files under the working directory")
            return exit_code(result, settings)
        # a mistyped CI path or a folder without tool files must not read as a passing gate
        note("toolschema-lint: nothing was checked: no tool definitions in the paths given")
        return EXIT_USAGE
    return exit_code(result, settings)


def _cache_dir(given: str | None) -> str | None:
    """The result cache's folder: `--cache-dir`, else `TOOLSCHEMA_LINT_CACHE_DIR`, else the user cache folder."""
    if given:
        return given
    from .cache import default_dir

    try:
        return str(default_dir())
    except Exception:  # noqa: BLE001 - no home or cache folder to be had: run without a cache
        return None


def _only_working_directory(paths: list[str]) -> bool:
    """Every path given is the working directory itself (`.`, `./`, its absolute path)."""
    here = Path.cwd().resolve()
    return all(p != "-" and Path(p).resolve() == here for p in paths)


def _baseline(result: RunResult, settings: Settings, read_from: str | None, write_to: str | None) -> None:
    """Apply a baseline (findings in it become suppressed) and/or write one; notes go to stderr."""
    from . import baseline

    try:
        if read_from:
            result.baseline = baseline.apply(result.findings, baseline.read(read_from), read_from)  # type: ignore[attr-defined]
        if write_to:
            current = [f for f in result.findings if f.suppressed in (None, baseline.SUPPRESSED_BY)]
            for f in current:
                f.suppressed = None
            n = baseline.write(current, write_to)
            result.baseline = baseline.apply(result.findings, baseline.read(write_to), write_to)  # type: ignore[attr-defined]
            note(f"toolschema-lint: wrote {n} finding{'s' if n != 1 else ''} to baseline {write_to}")
    except baseline.BaselineError as e:
        raise ConfigError(str(e)) from None
    except OSError as e:
        raise ConfigError(f"{write_to}: cannot write baseline ({e.strerror or e})") from None
    res = result.baseline  # type: ignore[attr-defined]
    if res.stale or (settings.format == "text" and not settings.quiet and read_from and not write_to):
        for line in baseline.stale_note(res):
            note(f"toolschema-lint: {line}")


def _settings_for(found: "_Found | None", cli_values: dict[str, Any],
                  severity: dict[str, str] | None = None) -> Settings:
    """Settings from the defaults, a config file already read (`found`: its path and contents; None: no config
    applies), the command line and `--severity`: validated and resolved."""
    settings = Settings()
    cli_set = {k for k, v in cli_values.items() if v is not None}
    for k in cli_set:
        setattr(settings, k, cli_values[k])
    if found is not None:
        path, data = found
        apply_config(settings, config_table(path, data), str(path), cli_set)
        settings.config_path = str(path)
    settings.severity.update(severity or {})
    if settings.format not in REPORTERS:
        raise ConfigError(f"format {settings.format!r} is not one of {', '.join(REPORTERS)}")
    if settings.input_format not in INPUT_FORMATS:
        raise ConfigError(f"input-format {settings.input_format!r} is not one of {', '.join(INPUT_FORMATS)}")
    return resolve(settings)


_Found = tuple[Path, dict[str, Any]]  # a config file: its path and contents


def _nearest_config(directory: Path, cache: dict[Path, _Found | None]) -> _Found | None:
    """The config nearest above `directory` (path and contents), each directory looked up and each file read once."""
    d = directory.resolve()
    if d not in cache:
        found = find_config(d)
        cache[d] = (found[0].resolve(), found[1]) if found else None
    return cache[d]


def _config_groups(settings: Settings, cli_values: dict[str, Any],
                   severity: dict[str, str]) -> list[tuple[Settings, list[Any]]]:
    """Sources grouped by the config file nearest to each (as ruff looks it up), each group with its settings
    (standard input and live servers go with the run's own config)."""
    import fnmatch

    from .loaders import collect

    missing: list[str] = []
    sources = collect(settings.paths, settings.exclude, missing, settings.stdin_filename)
    cache: dict[Path, _Found | None] = {}
    base = Path(settings.config_path).resolve() if settings.config_path else None
    by: dict[Path | None, list[Any]] = {}
    read: dict[Path, _Found] = {}
    for src in sources:
        found = _nearest_config(src.path.parent, cache) if src.path is not None else None
        # a file with no config above it (outside the working tree) keeps the run's own config
        cfg = found[0] if found else base
        if found:
            read[found[0]] = found
        by.setdefault(cfg, []).append(src)
    settings.missing = missing  # type: ignore[attr-defined]
    if set(by) <= {base}:  # every file under the run's own config: one run, as before
        return [(settings, sources + list(settings.extra_sources))]
    groups: list[tuple[Settings, list[Any]]] = []
    for cfg, srcs in by.items():
        own = settings if cfg == base else _settings_for(read.get(cfg) if cfg else None, cli_values, severity)
        if own is not settings:
            own.paths, own.color, own.fingerprints = settings.paths, settings.color, settings.fingerprints
            if own.exclude:  # the group's own config may skip more of what the walk found
                srcs = [s for s in srcs if s.path is None or not any(
                    fnmatch.fnmatch(s.display, g) or fnmatch.fnmatch(s.path.name, g) for g in own.exclude)]
        groups.append((own, srcs))
    if settings.extra_sources:  # live servers: the run's own config
        home = next((srcs for g, srcs in groups if g is settings), None)
        if home is None:
            groups.append((settings, list(settings.extra_sources)))
        else:
            home.extend(settings.extra_sources)
    return groups


def _describe_settings(settings: Settings, path: str) -> str:
    """`--show-settings PATH`: what applies to PATH, one `key: value` per line."""
    import fnmatch

    display = Path(path).as_posix()
    ignored = sorted({sel for glob, sels in settings.per_file_ignores.items()
                      if fnmatch.fnmatch(display, glob) or fnmatch.fnmatch(Path(path).name, glob) for sel in sels})
    lines = [
        f"path: {display}",
        f"config: {settings.config_path or '(none: defaults)'}",
        f"select: {', '.join(settings.select) if settings.select is not None else '(default set)'}",
        f"extend-select: {', '.join(settings.extend_select) or '-'}",
        f"ignore: {', '.join(settings.ignore) or '-'}",
        f"per-file-ignores for this path: {', '.join(ignored) or '-'}",
        f"severity overrides: {', '.join(f'{k}={v}' for k, v in sorted(settings.severity.items())) or '-'}",
        f"fail-on: {settings.fail_on}",
        f"format: {settings.format}",
        f"input-format: {settings.input_format}",
        f"max-file-size: {settings.max_file_size}",
        f"target: {', '.join(settings.targets) if settings.targets else '(each tool: its own format, newest revision)'}",
        f"exclude: {', '.join(settings.exclude) or '-'}",
        f"rule options: {json.dumps(settings.rules, sort_keys=True) if settings.rules else '-'}",
        f"enabled rules ({len(settings.enabled)}): {', '.join(sorted(settings.enabled))}",
    ]
    return "\n".join(lines)


def _lint_groups(settings: Settings, groups: list[tuple[Settings, list[Any]]], prepare: Any) -> Any:
    from .engine import Engine, merge_results

    results = [Engine(g, prepare).run(srcs) for g, srcs in groups if srcs]
    result = merge_results(results) if results else Engine(settings, prepare).run([])
    result.errors[:0] = getattr(settings, "missing", [])
    return result


def _size(text: str) -> int:
    """`--max-file-size`: bytes, or a number with K, M or G (powers of 1024)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(t[-1:], 1)
    try:
        n = float(t[:-1] if mult > 1 else t) * mult
    except ValueError:
        raise ConfigError(f"--max-file-size {text!r}: expected a size such as 4194304, 512K or 8M") from None
    if n <= 0:
        raise ConfigError(f"--max-file-size {text!r}: must be positive")
    return int(n)


def _auto_color(settings: Settings) -> bool:
    if settings.format != "text":
        return False  # only the text reporter colours; the others need not import rich
    from .reporters.text import use_color

    return use_color(settings, sys.stdout)


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
@click.option("--all", "show_all", is_flag=True, help="Include rules that are off by default (marked with *).")
@guarded
def rules_cmd(fmt: str, show_all: bool) -> int:
    """List the rules."""
    rules = catalog()
    rows = [m for m in rules.values()]
    if fmt == "json":
        say(json.dumps([
            {"id": m.id, "name": m.name, "severity": str(m.severity), "tags": m.tags, "summary": m.summary,
             "fix": m.hint, "autofix": m.autofix, "default": m.default, "security_severity": m.security_severity}
            for m in rows
        ], indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        say(rule_table_markdown(), nl=False)
    else:
        for m in rows:
            mark = " " if m.default else "*"
            say(f"{m.id}{mark} {m.name:40} {str(m.severity):8} {m.summary}")
    return EXIT_OK


def _apply_fixes(result: RunResult, unsafe: bool, diff_only: bool) -> int:
    """Apply (or, with `diff_only`, print as a diff) the fixes of the run's active findings; returns how many
    findings were fixed. Files with parse errors, standard input and live captures are left alone."""
    from .fixes import apply_json, apply_yaml, edits_for, unified_diff

    allowed = {"safe", "unsafe"} if unsafe else {"safe"}
    rules = catalog()
    by_doc: dict[str, list[Any]] = {}
    for f in result.active():
        if rules[f.rule_id].autofix in allowed:
            by_doc.setdefault(f.path, []).append(f)
    broken = {f.path for f in result.findings if f.rule_id in ("TSL001", "TSL002", "TSL007", "TSL008")}
    fixed = 0
    for doc in result.documents:
        findings = by_doc.get(doc.path)
        path = Path(doc.path)
        if not findings or doc.path in broken or not path.is_file() or doc.format not in ("json", "yaml"):
            continue  # a file that could not be parsed (or is no file) is never touched
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
        crlf = "\r\n" in text
        body = text.replace("\r\n", "\n")
        try:
            if doc.format == "json":
                data = json.loads(body)
            else:
                import yaml

                data = yaml.safe_load(body)
        except Exception:  # noqa: BLE001 - JSON's or PyYAML's errors: the file changed since it was linted; leave it
            continue
        edits, count = [], 0
        for f in findings:
            got = edits_for(f, data)
            if got:
                count += 1
                edits.extend(e for e in got if e not in edits)
        if not edits:
            continue
        ordered = sorted(edits, key=lambda e: _pointer_key(e.pointer), reverse=True)  # later items first
        new = (apply_json if doc.format == "json" else apply_yaml)(body, ordered)
        if new == body:
            continue
        if crlf:
            new = new.replace("\n", "\r\n")
        if raw.startswith(b"\xef\xbb\xbf"):
            new = "\ufeff" + new
        if diff_only:
            say(unified_diff(doc.path, text, new), nl=False)
        else:
            path.write_bytes(new.encode("utf-8"))
        fixed += count
    return fixed


def _pointer_key(pointer: str) -> list[Any]:
    return [(0, int(t)) if t.isdigit() else (1, t) for t in pointer.split("/")]


@main.command("convert")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--to", "to", required=True, metavar="PROFILE", help="Target profile (see `toolschema-lint profiles`).")
@click.option("--shape", type=click.Choice(["chat", "responses"]), default="chat",
              help="OpenAI tool objects for Chat Completions (default) or the Responses API.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="File to write (default: standard output); a .yaml or .yml name writes YAML.")
@click.option("--yaml", "as_yaml", is_flag=True, default=False, help="Write YAML (default: JSON, or as -o's extension says).")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default=None, help="Force the input dialect instead of detecting it.")
@guarded
def convert_cmd(paths: tuple[str, ...], to: str, shape: str, output: str | None, as_yaml: bool,
                input_format: str | None) -> int:
    """Write the tool set of PATHS in another provider's shape (MCP, OpenAI, Anthropic, Gemini). What the target
    cannot keep is reported on standard error, one line per change."""
    from .convert import convert
    from .loaders import collect, load_source
    from .profiles import names
    from .text import sanitize

    if to not in names():
        raise ConfigError(f"--to {to!r}: no such profile (profiles: {', '.join(names())})")
    tools = []
    for src in collect(list(paths)):
        doc = load_source(src, None if input_format in (None, "auto") else input_format)
        bad = [p for p in doc.problems if p.args.get("_rule") in ("TSL001", "TSL002", "TSL007", "TSL008")]
        if bad or doc.data is None:  # a file with parse errors is never converted
            raise ConfigError(f"{src.display}: cannot be read as tool definitions (run `toolschema-lint check` on it)")
        tools.extend(doc.tools)
    if not tools:
        raise ConfigError("no tool definitions in the paths given")
    result = convert(tools, to, shape)
    yaml_out = as_yaml or bool(output and output.lower().endswith((".yaml", ".yml")))
    if yaml_out:
        import yaml

        text = yaml.safe_dump(result.data, sort_keys=False, allow_unicode=True, width=120)
    else:
        text = json.dumps(result.data, indent=2, ensure_ascii=False) + "\n"
    emit(text, output)
    for name, what in result.notes:
        note(f"toolschema-lint: {sanitize(name)}: {what}")
    if output:
        n = len(tools)
        note(f"toolschema-lint: wrote {n} tool{'s' if n != 1 else ''} for {to} to {output}"
             + (f"; {len(result.notes)} change{'s' if len(result.notes) != 1 else ''} reported above" if result.notes else ""))
    return EXIT_OK


@main.command("profiles")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@guarded
def profiles_cmd(fmt: str) -> int:
    """List the compatibility profiles `check --target` accepts."""
    from .profiles import profiles

    table = profiles()
    if fmt == "json":
        say(json.dumps([{"id": pid, "family": p["family"], "strict": bool(p.get("strict")), "source": p["source"]}
                        for pid, p in table.items()], indent=2, ensure_ascii=False))
    else:
        for pid, p in table.items():
            say(f"{pid:18} {p['family']:10} {p['source']}")
    return EXIT_OK


def rule_table_markdown() -> str:
    fams = families()
    out = []
    current = None
    for m in catalog().values():
        fam = m.id[:4]
        if fam != current:
            current = fam
            info = fams.get(fam, {})
            out += ["", f"#### {fam}xx {info.get('name', '')}", "", "| id | name | severity | default | summary |", "|---|---|---|---|---|"]
        default = "yes" if m.default else "opt-in"
        summary = m.summary.replace("|", "\\|")
        out.append(f"| {m.id} | `{m.name}` | {m.severity} | {default} | {summary} |")
    return "\n".join(out).lstrip("\n") + "\n"


@main.command("rule")
@click.argument("rule")
@guarded
def rule_cmd(rule: str) -> int:
    """Show one rule's documentation (by id or name)."""
    from .reporters.sarif import _yaml_block

    rules = catalog()
    meta = rules.get(rule.upper()) or by_name().get(rule)
    if meta is None:
        raise ConfigError(f"no rule {rule!r} (see `toolschema-lint rules`)")
    lines = [
        f"{meta.id} {meta.name} ({meta.severity}{'' if meta.default else ', opt-in'})",
        "",
        meta.summary,
        "",
        "Why: " + " ".join(meta.rationale.split()),
        "",
        "Fix: " + meta.hint,
        "Autofix: " + {"safe": "safe (check --fix)", "unsafe": "unsafe (check --fix --unsafe-fixes)",
                       "none": "none"}[meta.autofix],
    ]
    for kind in ("bad", "good"):
        if kind in meta.examples:
            lines += ["", f"{kind.capitalize()}:", _indent(_yaml_block(meta.examples[kind]))]
    if meta.options.get("properties"):
        lines += ["", "Options:"]
        for k, v in meta.options["properties"].items():
            lines.append(f"  {k}: {v.get('description', '')} (default: {json.dumps(v.get('default'))})")
    if meta.tags:
        lines += ["", "Tags: " + ", ".join(meta.tags)]
    if meta.security_severity is not None:
        lines.append(f"Security severity: {meta.security_severity}")
    if meta.references:
        lines += ["", "References:"] + [f"  - {r}" for r in meta.references]
    say("\n".join(lines))
    return EXIT_OK


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _load_side(paths: list[str], sources: list[Any], what: str, input_format: str, exclude: list[str],
               select: list[str] | None = None) -> tuple[RunResult, list[Any]]:
    """Files and captures -> snapshots; unreadable or unparsable inputs are usage errors (exit 2)."""
    from .lock import load_snapshots
    from .model import Severity

    result, snaps = load_snapshots(paths, sources, ["TSL0", *(select or [])], input_format, exclude)
    fatal = [f for f in result.findings if f.rule_id.startswith("TSL0") and f.severity >= Severity.ERROR]
    problems = list(result.errors) + [f"{f.path}:{f.line}:{f.column}: {f.message}" for f in fatal]
    if problems:
        raise InputError(f"{what}: " + "; ".join(problems[:5]))
    return result, snaps


@main.command("dump")
@_capture_options
@click.option("-o", "--output", default=None, type=click.Path(allow_dash=True),
              help="File to write (default: standard output), or a folder for one NAME.json per server: "
                   "a path ending in /, an existing folder, or any path when several servers are listed.")
@guarded
def dump_cmd(output: str | None, **live_opts: Any) -> int:
    """Save what live servers answer to tools/list (with serverInfo) as JSON, to lint it later with real lines."""
    from .live_sources import dump_paths, name_servers

    servers, notes = collected = _collect_live(live_opts)
    # what will be captured: a server listed twice once, disabled ones not at all
    wanted = [s for s in name_servers(list(servers))[0] if not s.disabled]
    if not wanted:
        raise ConfigError("nothing to dump: " + "; ".join(notes) if notes else "nothing to dump (give --server, --url or --client-config)")
    to_stdout = output in (None, "-")
    folder = None if to_stdout else Path(output)  # type: ignore[arg-type]
    if folder is not None and not (output.endswith(("/", os.sep)) or folder.is_dir() or len(wanted) > 1):  # type: ignore[union-attr]
        folder = None
    if to_stdout and len(wanted) > 1:
        raise ConfigError(f"{len(wanted)} servers to dump: give -o DIR/ to write one file each")
    if folder is not None and folder.exists() and not folder.is_dir():
        raise ConfigError(f"{output}: not a folder (several servers are written as one file each)")
    live = _gather_live(live_opts, collected=collected)
    if folder is not None and live.captures:
        folder.mkdir(parents=True, exist_ok=True)
        targets = dump_paths([d for d, _ in live.captures], folder)
    else:
        targets = [None if to_stdout else Path(output) for _ in live.captures]  # type: ignore[arg-type]
    for (display, text), target in zip(live.captures, targets):
        if target is None:
            say(text, nl=False)
            continue
        target.write_text(text, encoding="utf-8")
        n = len(json.loads(text).get("tools", []))
        note(f"toolschema-lint: wrote {n} tool{'s' if n != 1 else ''} of {display} to {target}")
    for err in live.problems:
        note(f"toolschema-lint: error: {err}")
    return EXIT_USAGE if live.problems else EXIT_OK


@main.command("lock")
@click.argument("paths", nargs=-1, type=click.Path())
@_live_options
@click.option("-o", "--output", default="toolschema.lock", show_default=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Lock file to write (- for standard output).")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default="auto", help="Force the input dialect.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@guarded
def lock_cmd(paths: tuple[str, ...], commands: tuple[str, ...], urls: tuple[str, ...], timeout: float, output: str,
             input_format: str, exclude: tuple[str, ...]) -> int:
    """Record what the model sees of each tool (hashes and definitions) for `check --lock` and `diff`."""
    from .lock import build_lock, dump_lock, live_sources

    if not paths and not commands and not urls:
        raise ConfigError("nothing to lock (give files, --server or --url)")
    sources = live_sources(commands, urls, timeout)
    _, snaps = _load_side(list(paths), sources, "lock", input_format, list(exclude))
    empty = [s.key for s in snaps if not s.tools]
    snaps = [s for s in snaps if s.tools]
    if not snaps:
        raise ConfigError("no tool definitions found to lock")
    text = dump_lock(build_lock(snaps))
    if output == "-":
        say(text, nl=False)
    else:
        Path(output).write_text(text, encoding="utf-8")
    n = sum(len(s.tools) for s in snaps)
    for key in empty:
        note(f"toolschema-lint: {key}: no tools, not locked")
    where = "standard output" if output == "-" else output
    note(f"toolschema-lint: locked {n} tool{'s' if n != 1 else ''} of {len(snaps)} server{'s' if len(snaps) != 1 else ''} to {where}")
    return EXIT_OK


@main.command("diff")
@click.argument("old", type=click.Path(exists=True))
@click.argument("new", required=False, type=click.Path(exists=True))
@_live_options
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True, help="Output format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Write the report to a file.")
@click.option("--allow-breaking", is_flag=True, help="Exit 0 on breaking changes (version checks still apply).")
@click.option("--fail-on-risky", is_flag=True, help="Exit 1 on risky changes too (descriptions, annotations, defaults).")
@click.option("--no-relint", is_flag=True, help="Do not run the security rules on new or changed tools.")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default="auto", help="Force the input dialect.")
@guarded
def diff_cmd(old: str, new: str | None, commands: tuple[str, ...], urls: tuple[str, ...], timeout: float, fmt: str,
             output: str | None, allow_breaking: bool, fail_on_risky: bool, no_relint: bool, input_format: str) -> int:
    """Classify the changes from OLD to NEW: breaking, risky or compatible.

    OLD and NEW are tool definition files or folders; OLD may be a lock file; NEW may be a live
    server (--server / --url). Exits 1 on breaking changes (unless --allow-breaking), on a declared
    version that does not fit them, and on security findings in new or changed text.
    """
    from . import diff as d
    from .lock import LockError, live_sources, lock_file_data, lock_snapshots, lock_sources
    from .registry import catalog

    if (new is None) == (not commands and not urls):
        raise ConfigError("give NEW as a path, or --server / --url, not both")
    try:
        lock = lock_file_data(old)
    except LockError as e:
        raise ConfigError(str(e)) from None
    security = [] if no_relint else [r for r, m in catalog().items() if m.is_security and m.family not in ("TSL0", "TSL8")]
    if lock is not None:
        olds = lock_snapshots(lock)
        old_result, _ = _load_side([], lock_sources(lock), "OLD", "mcp", [], security)
    else:
        old_result, olds = _load_side([old], [], "OLD", input_format, [], security)
    sources = live_sources(commands, urls, timeout)
    new_result, news = _load_side([new] if new else [], sources, "NEW", input_format, [], security)
    report = d.diff(olds, news, old, new or ", ".join(s.display for s in sources))
    d.locate(report)
    d.attach_security(report, new_result.findings, old_result.findings)
    code = d.exit_code(report, allow_breaking, fail_on_risky)
    text = {"text": d.render_text, "sarif": d.render_sarif}.get(fmt, lambda r: d.render_json(r, code))(report)
    emit(text, output)
    return code


if __name__ == "__main__":  # pragma: no cover
    main()
