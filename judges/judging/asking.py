"""The one ask-parse-reask path of every judge: call through the runtime, parse, ask once more if unusable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from judges.calls.backend import CallError, Completion, CompletionRequest
from judges.calls.runtime import CallRuntime
from judges.files.jsonl import KEPT_CHARS, REPLIES_PER_RECORD, cut_text, max_reply_bytes, oversize
from judges.judging.replies import ReplyError
from judges.types import FailureKind

T = TypeVar("T")
Messages = list[dict[str, Any]]
REASK = (
    "Your reply could not be used: {error}. Reply again with only the JSON object, "
    "in exactly the format the instructions give."
)


class StepFailed(Exception):
    """A judging step produced nothing usable; what depends on it fails with `kind`."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def call_record(template: str, sha256: str, completion: Completion, **extra: Any) -> dict[str, Any]:
    """What a record keeps of one call: the template, its hash, the raw reply and the accounting (`extra` adds keys,
    or replaces them: an oversized reply's truncated text)."""
    out = {
        "template": template,
        "prompt_sha256": sha256,
        "reply": completion.text,
        "cached": completion.cached,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cost": completion.cost,  # the reply's price; a cached reply cost it once, when it was made
        "latency_s": round(completion.latency_s, 4),
        **extra,
    }
    if completion.model_version:
        out["model_version"] = completion.model_version
    if completion.served_model:
        out["served_model"] = completion.served_model
    if completion.system_fingerprint:
        out["system_fingerprint"] = completion.system_fingerprint
    return out


def failed_call_record(template: str, sha256: str, err: CallError) -> dict[str, Any]:
    return {"template": template, "prompt_sha256": sha256, "error": err.kind.value, "message": str(err)}


async def call_logged(
    runtime: CallRuntime,
    request: CompletionRequest,
    calls: list[dict[str, Any]],
    *,
    template: str,
    sha256: str,
    priority: int,
) -> Completion:
    """One call, logged in `calls` with the run's call number whether it answers or fails (a failure raises
    StepFailed). A reply over the limit of one reply (`max_reply_bytes`) is kept truncated, with its size, and
    fails as `oversized`: unparsed, not asked again, dropped from the cache."""
    number = runtime.next_call_number()
    try:
        completion = await runtime.call(request, priority)
    except CallError as err:
        calls.append({"call": number, **failed_call_record(template, sha256, err)})
        raise StepFailed(err.kind, f"{template}: {err}") from None
    limit = max_reply_bytes()
    size = oversize(completion.text, limit)
    if size is not None:  # never parsed: the grade would rest on a reply the record cannot keep
        problem = (
            f"the reply of {size:,} bytes is over the {limit:,}-byte limit of one reply (JUDGELAB_MAX_RECORD_BYTES / "
            f"{REPLIES_PER_RECORD}); its first {KEPT_CHARS:,} characters are kept"
        )
        kept = cut_text(completion.text, size, "reply")
        oversized = FailureKind.OVERSIZED.value
        extra = {"reply": kept, "reply_bytes": size, "unusable": oversized, "parse_error": problem}
        calls.append({"call": number, **call_record(template, sha256, completion, **extra)})
        runtime.discard(request)
        runtime.usage.note_failure(FailureKind.OVERSIZED)
        raise StepFailed(FailureKind.OVERSIZED, f"{template}: {problem}")
    calls.append({"call": number, **call_record(template, sha256, completion)})
    return completion


async def ask(
    runtime: CallRuntime,
    build: Callable[[Messages], CompletionRequest],
    prompt: str,
    parse: Callable[[str], T],
    calls: list[dict[str, Any]],
    *,
    template: str,
    sha256: str,
    priority: int = 0,
) -> T:
    """Send `prompt`, parse the reply with `parse` (which raises ReplyError); on an unusable reply ask again once,
    showing the model its reply and the error. A call that fails, a refusal, or a second unusable reply raises
    StepFailed with the failure's kind. An unusable reply is dropped from the cache, so a re-run asks again."""
    messages: Messages = [{"role": "user", "content": prompt}]
    for attempt in (1, 2):
        request = build(messages)
        completion = await call_logged(runtime, request, calls, template=template, sha256=sha256, priority=priority)
        try:
            return parse(completion.text)
        except ReplyError as err:
            calls[-1]["unusable"] = err.kind.value
            calls[-1]["parse_error"] = str(err)
            runtime.discard(request)
            runtime.usage.note_failure(err.kind)
            if err.kind is FailureKind.REFUSED or attempt == 2:
                raise StepFailed(err.kind, f"{template}: {err}") from None
            messages = [
                *messages,
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": REASK.format(error=err)},
            ]
    raise AssertionError("unreachable")  # pragma: no cover
