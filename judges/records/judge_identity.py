"""A judge's identity (`JudgeIdentity`): the model asked for, the names and `system_fingerprint`s the endpoint
answered with, the prompts' hashes, the decoding settings and judgelab's version; and how two identities differ."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

FROZEN = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
DECODING_KEYS = ("temperature", "max_tokens", "top_p", "seed", "json_schema", "draws")


class Decoding(BaseModel):
    """The decoding settings of a judge's calls (None: not known, e.g. a predictions file)."""

    model_config = FROZEN

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    json_schema: bool | None = None
    draws: int | None = None


class JudgeIdentity(BaseModel):
    """Who judged: `source` "run" (a judgelab run: every field it knows) or "predictions" (a file made elsewhere:
    null fields). `model_names` and `system_fingerprints` count the replies that named each (None: not known; {}:
    the replies named none); `prompt_sha256` maps each template to the sha256 of its text."""

    model_config = FROZEN

    source: Literal["run", "predictions"] = "run"
    model_id: str | None = None
    model_names: dict[str, int] | None = None
    system_fingerprints: dict[str, int] | None = None
    prompt_sha256: dict[str, str] | None = None
    decoding: Decoding = Decoding()
    judgelab_version: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()

    def served(self) -> str:
        """`gpt-4o-2024-08-06, fp_a` (the names and fingerprints seen), or `an unreported model`."""
        seen = sorted(self.model_names or {}) + sorted(self.system_fingerprints or {})
        return ", ".join(seen) or "an unreported model"

    def answered_by(self, model: str | None, fingerprint: str | None) -> JudgeIdentity:
        """This identity as one reply saw it: the model name and fingerprint it answered with (none: not reported)."""
        return self.model_copy(
            update={
                "model_names": {model: 1} if model else {},
                "system_fingerprints": {fingerprint: 1} if fingerprint else {},
            }
        )


def predictions_identity() -> JudgeIdentity:
    """A predictions file's judge: nothing known of it (every field null)."""
    return JudgeIdentity(source="predictions", decoding=Decoding())


def reply_counts(calls: Iterable[Mapping[str, Any]]) -> tuple[Counter[str], Counter[str]]:
    """The model names and fingerprints the replies of `calls` carried, counted."""
    names: Counter[str] = Counter()
    prints: Counter[str] = Counter()
    for call in calls:
        if call.get("served_model"):
            names[str(call["served_model"])] += 1
        if call.get("system_fingerprint"):
            prints[str(call["system_fingerprint"])] += 1
    return names, prints


def config_identity(
    config: Mapping[str, Any], names: Mapping[str, int] | None = None, prints: Mapping[str, int] | None = None
) -> JudgeIdentity:
    """The identity of the judge of run.json's `config` (its keys as `RunConfig.to_json` writes them), with the
    replies' model names and fingerprints counted (None: not known)."""
    params = config.get("params") or {}
    prompts = config.get("prompts") or {}
    decoding = {k: params.get(k) for k in ("temperature", "max_tokens", "top_p", "seed")}
    decoding |= {"json_schema": config.get("json_schema"), "draws": config.get("draws") or 1}
    return JudgeIdentity(
        model_id=config.get("litellm_model") or config.get("judge"),
        model_names=None if names is None else dict(sorted(names.items())),
        system_fingerprints=None if prints is None else dict(sorted(prints.items())),
        prompt_sha256=prompt_hashes(prompts.get("sha256"), config.get("rag_prompts_sha256")),
        decoding=Decoding.model_validate(decoding),
        judgelab_version=config.get("judgelab_version"),
    )


def prompt_hashes(*tables: object) -> dict[str, str] | None:
    """Each template's sha256 from the metric prompts and the RAG prompts a run used (None: it recorded none)."""
    merged = {str(k): str(v) for table in tables if isinstance(table, dict) for k, v in table.items()}
    return merged or None


def for_metric(identity: JudgeIdentity, metric: str) -> JudgeIdentity:
    """`identity` with only the metric's prompt hash (the other templates of its set are never asked)."""
    hashes = identity.prompt_sha256
    if hashes is None or metric not in hashes:
        return identity
    return identity.model_copy(update={"prompt_sha256": {metric: hashes[metric]}})


def new_seen(before: Mapping[str, int] | None, now: Mapping[str, int] | None) -> list[str]:
    """What `now` saw that `before` never did (nothing when either is unknown, or `before` saw none)."""
    if not before or now is None:
        return []
    return sorted(set(now) - set(before))


def setup_changes(before: JudgeIdentity, now: JudgeIdentity) -> list[str]:
    """What differs before any call: the model asked for, a prompt's hash, a decoding setting (only fields both
    know; judgelab's version is recorded, never compared)."""
    changes = []
    if before.model_id and now.model_id and before.model_id != now.model_id:
        changes.append(f"model {before.model_id} -> {now.model_id}")
    if before.prompt_sha256 is not None and now.prompt_sha256 is not None:
        edited = sorted(
            t
            for t in before.prompt_sha256
            if now.prompt_sha256.get(t, before.prompt_sha256[t]) != before.prompt_sha256[t]
        )
        changes += [
            f"prompt {t} edited (sha256 {before.prompt_sha256[t][:12]} -> {now.prompt_sha256[t][:12]})" for t in edited
        ]
    for key in DECODING_KEYS:
        was, is_now = getattr(before.decoding, key), getattr(now.decoding, key)
        if was is not None and is_now is not None and was != is_now:
            changes.append(f"{key} {was} -> {is_now}")
    return changes


def served_changes(before: JudgeIdentity, now: JudgeIdentity) -> list[str]:
    """A model name or fingerprint the endpoint answered with now that it never did before."""
    return new_seen(before.model_names, now.model_names) + new_seen(before.system_fingerprints, now.system_fingerprints)


def changed_line(
    name: str,
    before: JudgeIdentity,
    now: JudgeIdentity,
    flag: str = "--accept-changed-judge",
    *,
    made: str = "calibrated",
    redo: str = "re-calibrate",
) -> str:
    """The one line refusing a judge that now differs from its calibration or certification, or "" when it does
    not: `judge cheap: calibrated with gpt-4o-2024-08-06, fp_a; this endpoint serves fp_b: re-calibrate, or ...`
    (a certificate's: `made="certified", redo="re-certify"`)."""
    setup, served = setup_changes(before, now), served_changes(before, now)
    if not setup and not served:
        return ""
    shown = "; ".join(setup) + ("; " if setup and served else "")
    if served:
        shown += f"this endpoint serves {', '.join(served)}"
    return f"judge {name}: {made} with {before.served()}; {shown}: {redo}, or {flag}"


def recorded_identity(config: Mapping[str, Any], calls: Iterable[Mapping[str, Any]]) -> JudgeIdentity:
    """A run's identity as its run.json records it, or (a run older than the record, or one whose record does not
    read) built from its config and its records' `calls`."""
    stored = config.get("judge_identity")
    if isinstance(stored, dict):
        try:
            return JudgeIdentity.model_validate(stored)
        except ValueError:
            pass
    names, prints = reply_counts(calls)
    return config_identity(config, names, prints)
