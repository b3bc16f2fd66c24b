"""Annotations and risk metadata (TSL6xx): behaviour hints and production metadata clients gate tools by.

What a tool does is read from its name: the first verb among its words (`crm.get_customer` ->
get, `slack_post_message` -> post), or, when the name has none, the first word of its description
("Deletes a file" -> delete). A name joining verbs (`get_or_create_user`) counts its strongest verb.
"""

from __future__ import annotations

import difflib
from typing import Any, Iterator

from ..model import Hit, Severity, Tool
from ..registry import check
from .design import words
from ..lazyre import lazy_compile

READ_VERBS = frozenset(
    "get list search read find fetch query lookup look show view describe retrieve browse count inspect "
    "explore preview peek grep analyze analyse summarize summarise explain compare diff".split())
EXEC_VERBS = frozenset("execute exec run invoke trigger eval evaluate call".split())
DESTRUCTIVE_VERBS = frozenset(
    "delete remove drop destroy purge erase wipe truncate clear kill terminate revoke uninstall overwrite "
    "reset rm".split())
# verbs that change state and cannot describe a read-only operation
MUTATING_VERBS = frozenset(
    "create add insert update edit modify set write put patch upsert save store append rename move copy "
    "upload import merge push commit publish post send reply comment invite assign unassign approve reject "
    "close reopen cancel archive unarchive restore enable disable start stop restart deploy install pay "
    "charge transfer refund purchase buy order book schedule submit fork star unstar lock unlock mark "
    "transition link unlink sync apply subscribe unsubscribe mute unmute pin unpin share notify grant "
    "register rollback revert release rotate scale resize reboot shutdown withdraw deposit click fill "
    "press drag".split()) | DESTRUCTIVE_VERBS
WRITE_VERBS = MUTATING_VERBS | EXEC_VERBS
# verbs that say nothing about side effects: a name led by one is not judged (`generate_pin_map`)
NEUTRAL_VERBS = frozenset(
    "generate convert calculate compute format parse render translate validate transform think plan echo sum "
    "resolve sample wait sleep ping test".split())
# verbs no read-only tool is named after (the ones TSL603 trusts enough to contradict a hint)
CLEARLY_MUTATING = frozenset(
    "create insert update edit modify write put patch upsert save append rename move upload merge push commit "
    "publish post send pay charge transfer refund purchase deploy install uninstall archive approve reject "
    "cancel grant invite assign set".split()) | (DESTRUCTIVE_VERBS - {"clear", "reset"})
# read verbs that end a noun-first name (`deploy_status_get`, `merge_request_fetch`) and are hardly ever nouns
# there (`user_list` may be a list of users: left alone)
_TRAILING_READ = frozenset("get fetch read retrieve describe show lookup inspect".split())
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
ANNOTATION_KEYS = ("title",) + HINTS
_FIRST_WORD = lazy_compile(r"\s*([A-Za-z]+)")


def _stem(word: str) -> str:
    """`Deletes` -> delete, `Queries` -> query, `Lists` -> list (only for known verbs)."""
    w = word.lower()
    for cand in (w, w[:-1], w[:-2], w[:-3] + "y"):
        if cand in READ_VERBS or cand in WRITE_VERBS:
            return cand
    return w


def _known(w: str) -> bool:
    return w in READ_VERBS or w in WRITE_VERBS or w in NEUTRAL_VERBS


def verb(tool: Tool) -> str | None:
    """The verb that says what the tool does, or None when neither name nor description tells."""
    found = [w for w in words(tool.name) if _known(w)]
    if found and found[0] in NEUTRAL_VERBS and not ({"or", "and"} & set(words(tool.name))):
        return None
    found = [w for w in found if w not in NEUTRAL_VERBS]
    ws = words(tool.name)
    if len(found) > 1 and ws and ws[-1] in _TRAILING_READ and ws[0] != ws[-1] and not ({"or", "and"} & set(ws)):
        return ws[-1]  # noun first, verb last: `deploy_status_get` reads a deploy's status
    if found:
        if len(found) > 1 and ({"or", "and"} & set(words(tool.name))):
            for group in (DESTRUCTIVE_VERBS, MUTATING_VERBS, EXEC_VERBS):
                strong = [w for w in found if w in group]
                if strong:
                    return strong[0]
        return found[0]
    m = _FIRST_WORD.match(tool.description) if isinstance(tool.description, str) else None
    if m:
        w = _stem(m.group(1))
        if w in READ_VERBS or w in WRITE_VERBS:
            return w
    return None


def effect(tool: Tool) -> str | None:
    """'read', 'write' (incl. execute) or 'destructive' from the tool's verb; None when unknown."""
    v = verb(tool)
    if v is None:
        return None
    if v in DESTRUCTIVE_VERBS:
        return "destructive"
    return "write" if v in WRITE_VERBS else "read"


def annotated(tool: Tool) -> bool:
    """Whether the tool declares its side effect: an MCP hint, or the risk metadata of a registry tool
    (`risk.effect` in NAME.policy.yaml says the same as the hints, so both forms get one verdict)."""
    ann = tool.annotation_map
    return "readOnlyHint" in ann or "destructiveHint" in ann or _declares_effect(tool)


def _declares_effect(tool: Tool) -> bool:
    e = risk_effect(tool)
    return isinstance(e, str) and bool(e.strip())


def where_annotations(tool: Tool, ctx: Any, **args: Any) -> Hit:
    """On the annotations when the tool has them, else on its name."""
    return ctx.at(tool, "annotations" if tool.annotations is not None else "name", **args)


@check("TSL601")
def write_tool_without_annotations(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.dialect != "mcp" or annotated(tool):
        return
    if effect(tool) in ("write", "destructive"):
        yield where_annotations(tool, ctx, verb=verb(tool))


@check("TSL602")
def contradictory_annotations(tool: Tool, ctx: Any) -> Iterator[Hit]:
    ann = tool.annotation_map
    if ann.get("readOnlyHint") is not True:
        return
    if ann.get("destructiveHint") is True:
        yield ctx.at(tool, "annotations", "destructiveHint", hint="destructiveHint: true")
    if ann.get("idempotentHint") is False:  # read-only implies idempotent; the pair is only odd
        yield ctx.at(tool, "annotations", "idempotentHint", hint="idempotentHint: false", _severity=Severity.INFO)


@check("TSL603")
def annotation_contradicts_tool_name(tool: Tool, ctx: Any) -> Iterator[Hit]:
    ann = tool.annotation_map
    names_verb = [w for w in words(tool.name) if _known(w)]
    v = verb(tool) if names_verb else None  # only the name is trusted here, not the description
    if v is None:
        return
    if ann.get("readOnlyHint") is True and v in CLEARLY_MUTATING:
        key, hint = "readOnlyHint", "readOnlyHint: true"
    elif ann.get("destructiveHint") is False and ann.get("readOnlyHint") is not True and v in DESTRUCTIVE_VERBS:
        key, hint = "destructiveHint", "destructiveHint: false"
    else:
        return
    # the same false hint reported by TSL565 (same severity, and a security-severity) is its to report
    yield ctx.at(tool, "annotations", key, hint=hint, verb=v, _unless=("TSL565", True))


@check("TSL604")
def annotation_hint_wrong_type(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.annotations is None:
        return
    if not isinstance(tool.annotations, dict):
        yield ctx.at(tool, "annotations", key="annotations", expected="an object")
        return
    for key, value in tool.annotations.items():
        if key in HINTS and not isinstance(value, bool):
            yield ctx.at(tool, "annotations", key, key=key, expected="true or false")
        elif key == "title" and not isinstance(value, str):
            yield ctx.at(tool, "annotations", key, key=key, expected="a string")


@check("TSL605")
def unknown_annotation_key(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.dialect != "mcp":
        return
    lowered = {k.lower(): k for k in ANNOTATION_KEYS}
    for key in tool.annotation_map:
        if not isinstance(key, str) or key in ANNOTATION_KEYS:
            continue
        guess = lowered.get(key.lower()) or next(iter(difflib.get_close_matches(key[:64], ANNOTATION_KEYS, 1, 0.75)), None)
        hint = f" (did you mean '{guess}'?)" if guess else ""
        yield ctx.at(tool, "annotations", key, key=key, suggestion=hint,
                     **({} if guess else {"_severity": Severity.INFO}))


@check("TSL606")
def read_tool_without_read_only_hint(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.dialect == "mcp" and "readOnlyHint" not in tool.annotation_map and effect(tool) == "read" \
            and not _declares_effect(tool):  # a registry tool's `risk.effect` says it as well
        yield where_annotations(tool, ctx, verb=verb(tool))


# -- production metadata (opt-in: tools with version/risk/runtime or a NAME.policy.yaml) -------
SEMVER = lazy_compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]{1,64})?(\+[0-9A-Za-z.-]{1,64})?")
READ_EFFECTS = frozenset(("read", "read-only", "read_only", "readonly", "none"))
HIGH_RISK_EFFECTS = frozenset(("delete", "destructive", "irreversible", "payment", "pay", "external", "send",
                               "execute", "admin"))
APPROVAL_KEYS = ("approval_required", "requires_approval")
TIMEOUT_KEYS = ("timeout_ms", "timeout", "timeout_s", "timeout_seconds")


def block(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def risk_effect(tool: Tool) -> Any:
    risk = block(tool.risk)
    return risk.get("effect", risk.get("side_effect"))


def metadata_hit(tool: Tool, ctx: Any, field: str, *tokens: str, **args: Any) -> Hit:
    """On `field` when the tool has it, else on the policy file, else on the tool's name."""
    if getattr(tool, field) is not None:
        return ctx.at(tool, field, *tokens, **args)
    return ctx.at(tool, "policy" if tool.policy is not None else "name", **args)


def is_write(tool: Tool) -> bool:
    """Declared effect first, then the read-only hint, then the verb of the name."""
    eff = risk_effect(tool)
    if isinstance(eff, str):
        return eff.strip().lower() not in READ_EFFECTS
    if isinstance(eff, bool):  # `side_effect: true`
        return eff
    if tool.annotation_map.get("readOnlyHint") is True:
        return False
    return effect(tool) in ("write", "destructive")


def is_high_risk(tool: Tool) -> bool:
    eff = risk_effect(tool)
    if isinstance(eff, str) and eff.strip().lower() in HIGH_RISK_EFFECTS:
        return True
    ann = tool.annotation_map
    if ann.get("readOnlyHint") is True or (isinstance(eff, str) and eff.strip().lower() in READ_EFFECTS):
        return False
    return ann.get("destructiveHint") is True or effect(tool) == "destructive"


def risk_or_policy_has(tool: Tool, keys: tuple[str, ...]) -> bool:
    return any(k in block(tool.risk) or k in block(tool.policy) for k in keys)


@check("TSL610")
def missing_tool_version(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.has_production_metadata and tool.version is None:
        yield metadata_hit(tool, ctx, "version")


@check("TSL611")
def non_semver_tool_version(tool: Tool, ctx: Any) -> Iterator[Hit]:
    v = tool.version
    if tool.has_production_metadata and v is not None and not (isinstance(v, str) and SEMVER.fullmatch(v)):
        yield ctx.at(tool, "version", version=str(v)[:40])


@check("TSL612")
def missing_risk_effect(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.has_production_metadata and risk_effect(tool) is None:
        yield metadata_hit(tool, ctx, "risk")


@check("TSL613")
def write_tool_without_approval_policy(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.has_production_metadata and is_write(tool) and not risk_or_policy_has(tool, APPROVAL_KEYS):
        yield metadata_hit(tool, ctx, "risk")


@check("TSL614")
def risk_effect_contradicts_annotations(tool: Tool, ctx: Any) -> Iterator[Hit]:
    eff, ann = risk_effect(tool), tool.annotation_map
    if not tool.has_production_metadata or not isinstance(eff, str):
        return
    key = "effect" if "effect" in block(tool.risk) else "side_effect"
    read = eff.strip().lower() in READ_EFFECTS
    if read and (ann.get("readOnlyHint") is False or ann.get("destructiveHint") is True):
        hint = "readOnlyHint: false" if ann.get("readOnlyHint") is False else "destructiveHint: true"
        yield ctx.at(tool, "risk", key, effect=eff[:40], hint=hint)
    elif not read and ann.get("readOnlyHint") is True:
        yield ctx.at(tool, "risk", key, effect=eff[:40], hint="readOnlyHint: true")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def retries(runtime: dict) -> bool:
    """Whether the runtime block asks for more than one attempt."""
    retry = runtime.get("retry")
    if isinstance(retry, dict):
        if retry.get("enabled") is False:
            return False
        attempts = retry.get("max_attempts", retry.get("attempts"))
        if _number(attempts):
            return attempts > 1
        extra = retry.get("max_retries", retry.get("retries"))
        return extra > 0 if _number(extra) else True  # a retry policy without counts retries
    for key in ("retries", "max_retries"):
        if _number(runtime.get(key)):
            return runtime[key] > 0
    return retry is True or (_number(retry) and retry > 0)


def is_idempotent(tool: Tool) -> bool:
    ann = tool.annotation_map
    if ann.get("readOnlyHint") is True or ann.get("idempotentHint") is True:
        return True
    if any(block(b).get("idempotent") is True for b in (tool.runtime, tool.risk, tool.policy)):
        return True
    return not is_write(tool)


@check("TSL615")
def retry_on_non_idempotent_tool(tool: Tool, ctx: Any) -> Iterator[Hit]:
    runtime = block(tool.runtime)
    if tool.has_production_metadata and retries(runtime) and not is_idempotent(tool):
        key = "retry" if "retry" in runtime else next((k for k in ("retries", "max_retries") if k in runtime), "retry")
        yield ctx.at(tool, "runtime", key)


@check("TSL616")
def missing_timeout(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if not tool.has_production_metadata:
        return
    runtime = block(tool.runtime)
    key = next((k for k in TIMEOUT_KEYS if k in runtime), None)
    if key is None:
        yield metadata_hit(tool, ctx, "runtime", detail="runtime.timeout_ms is not set")
        return
    value = runtime[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        yield ctx.at(tool, "runtime", key, detail=f"{key} is not a positive number")


@check("TSL617")
def high_risk_tool_without_resource_scope(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.has_production_metadata and is_high_risk(tool) and not risk_or_policy_has(tool, ("resource_scope",)):
        yield metadata_hit(tool, ctx, "risk")


@check("TSL618")
def missing_data_classification(tool: Tool, ctx: Any) -> Iterator[Hit]:
    if tool.has_production_metadata and not risk_or_policy_has(tool, ("data_classification",)):
        yield metadata_hit(tool, ctx, "risk")
