"""Command line: click only. Options become a `Settings`; the work happens in `run()`."""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .engine import RunResult, lint
from .loaders import InputError
from .loaders.dialects import INPUT_FORMATS
from .registry import by_name, catalog, families
from .reporters import REPORTERS
from .settings import ConfigError, Settings, apply_config, config_table, find_config, resolve

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def guarded(fn: Callable[..., int]) -> Callable[..., None]:
    """No traceback reaches the user: usage/config errors and internal errors exit 2 with a message."""

    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = fn(*args, **kwargs)
        except (ConfigError, InputError) as e:
            click.echo(f"toolschema-lint: error: {e}", err=True)
            code = EXIT_USAGE
        except click.exceptions.Exit:
            raise
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            click.echo("toolschema-lint: interrupted", err=True)
            code = 130
        except Exception as e:  # noqa: BLE001 - last line of defence
            if os.environ.get("TOOLSCHEMA_LINT_DEBUG"):
                traceback.print_exc()
            click.echo(f"toolschema-lint: internal error: {type(e).__name__}: {e}", err=True)
            click.echo("toolschema-lint: set TOOLSCHEMA_LINT_DEBUG=1 for details", err=True)
            code = EXIT_USAGE
        sys.exit(code)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="toolschema-lint")
def main() -> None:
    """Lint AI tool definitions: MCP tools/list results, OpenAI, Anthropic and Gemini function schemas."""


def load_settings(config: str | None, cli_values: dict[str, Any]) -> Settings:
    """Defaults, then the config file, then the command line."""
    settings = Settings()
    cli_set = {k for k, v in cli_values.items() if v is not None}
    for k in cli_set:
        setattr(settings, k, cli_values[k])
    if config:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"{config}: config file not found")
        from .settings import _read_toml

        apply_config(settings, config_table(path, _read_toml(path)), str(path), cli_set)
        settings.config_path = str(path)
    else:
        found = find_config(Path.cwd())
        if found:
            path, data = found
            apply_config(settings, config_table(path, data), str(path), cli_set)
            settings.config_path = str(path)
    if settings.format not in REPORTERS:
        raise ConfigError(f"format {settings.format!r} is not one of {', '.join(REPORTERS)}")
    if settings.input_format not in INPUT_FORMATS:
        raise ConfigError(f"input-format {settings.input_format!r} is not one of {', '.join(INPUT_FORMATS)}")
    return resolve(settings)


def emit(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


def exit_code(result: RunResult, settings: Settings) -> int:
    if result.errors:
        return EXIT_USAGE
    if settings.exit_zero:
        return EXIT_OK
    return EXIT_FINDINGS if any(f.severity >= settings.fail_level for f in result.active()) else EXIT_OK


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rules to enable (id, prefix such as TSL5, name, or ALL). Replaces the default set.")
@click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option("--severity", "severity_opts", multiple=True, metavar="RULE=LEVEL", help="Override a rule's severity (error, warning, info).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default=None, help="Lowest severity that fails the run (default: warning).")
@click.option("--format", "fmt", type=click.Choice(sorted(REPORTERS)), default=None, help="Output format (default: text).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Write the report to a file.")
@click.option("--exit-zero", is_flag=True, default=None, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, default=None, help="Print the number of findings per rule.")
@click.option("-q", "--quiet", is_flag=True, default=None, help="Print findings only: no summary, nothing when all is well.")
@click.option("--config", type=click.Path(dir_okay=False), default=None, help="Config file (default: nearest pyproject.toml [tool.toolschema-lint] or toolschema-lint.toml).")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default=None, help="Force the input dialect instead of detecting it.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--explain", is_flag=True, default=False, help="Print, per file, which format was detected and why (to stderr).")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on for a terminal, off with NO_COLOR).")
@guarded
def check(paths: tuple[str, ...], select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
          severity_opts: tuple[str, ...], fail_on: str | None, fmt: str | None, output: str | None, exit_zero: bool | None,
          statistics: bool | None, quiet: bool | None, config: str | None, input_format: str | None,
          exclude: tuple[str, ...], explain: bool, color: bool | None) -> int:
    """Lint tool definition files and folders."""
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
        "input_format": input_format,
        "exclude": list(exclude) or None,
    }
    settings = load_settings(config, cli_values)
    settings.severity.update(severity)
    if severity:
        settings = resolve(settings)
    settings.paths = list(paths)
    if not settings.paths and not settings.extra_sources:
        raise ConfigError("no paths given (try `toolschema-lint check tools.json`)")
    settings.color = color if color is not None else _auto_color(settings)
    result = lint(settings)
    if explain:
        for doc in result.documents:
            click.echo(f"{doc.path}: {doc.format}, {doc.dialect or 'no tools'}: {doc.detection}", err=True)
    emit(REPORTERS[settings.format](result, settings), settings.output)
    if result.errors and settings.format != "text":
        for err in result.errors:
            click.echo(f"toolschema-lint: error: {err}", err=True)
    return exit_code(result, settings)


def _auto_color(settings: Settings) -> bool:
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
        click.echo(json.dumps([
            {"id": m.id, "name": m.name, "severity": str(m.severity), "tags": m.tags, "summary": m.summary,
             "default": m.default, "security_severity": m.security_severity}
            for m in rows
        ], indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(rule_table_markdown(), nl=False)
    else:
        for m in rows:
            mark = " " if m.default else "*"
            click.echo(f"{m.id}{mark} {m.name:40} {str(m.severity):8} {m.summary}")
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
        "Fix: " + " ".join(meta.fix.split()),
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
    click.echo("\n".join(lines))
    return EXIT_OK


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


if __name__ == "__main__":  # pragma: no cover
    main()
