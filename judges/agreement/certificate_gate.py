"""A certified gate: certification.json read by a strict schema, and the judge now at work checked against the
judge it records (the config before any call, then the model name and fingerprint one fresh call answers with)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from judges.calls.backend import Completion
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError, InputError
from judges.files.checked import read_json_file
from judges.judging.planned_identity import planned_identity, probe_reply
from judges.records.judge_identity import JudgeIdentity, changed_line, for_metric
from judges.secrets import scrub_text

FLAG = "--accept-changed-judge"
READ = ConfigDict(extra="ignore", strict=True, frozen=True)  # the fields the gate reads, each checked; others kept
CERTIFIED = "certified"


class CertifiedPredictions(BaseModel):
    """Where the certified verdicts came from: a run folder or a predictions file, and the metric."""

    model_config = READ

    source: str
    metric: str | None = None


class Certificate(BaseModel):
    """certification.json of `judgelab validate --labels` (fixed-n, --sequential or --slice): the fields the gate
    reads. `verdict` (fixed-n, per slice) or `state` (--sequential) must agree with `certified`."""

    model_config = READ

    certified: bool
    verdict: Literal["certified", "not certified", "undecided"] | None = None
    state: Literal["certified", "not certified", "undecided"] | None = None
    mode: Literal["fixed", "sequential"] = "fixed"
    predictions: CertifiedPredictions
    judge_identity: JudgeIdentity

    @model_validator(mode="after")
    def _consistent(self) -> Certificate:
        said = self.verdict or self.state
        if said is not None and (said == CERTIFIED) != self.certified:
            raise ValueError(f"certified is {str(self.certified).lower()} but the verdict says {said!r}")
        return self

    def outcome(self) -> str:
        """certified, not certified or undecided."""
        return self.verdict or self.state or (CERTIFIED if self.certified else "not certified")


def where(loc: tuple[int | str, ...]) -> str:
    """`judge_identity.decoding.seed` from pydantic's location."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + str(part)
    return text


def read_certificate(path: str | Path) -> Certificate:
    """The certificate, every field the gate reads checked: a bad file is one line naming the file and the field
    (exit 2)."""
    data = read_json_file(path)
    if not isinstance(data, dict) or "certified" not in data:
        raise InputError(
            "not a certification.json of `judgelab validate --labels` (no certified field)", path=str(path)
        )
    try:
        return Certificate.model_validate(data)
    except ValidationError as err:
        problem = err.errors(include_url=False)[0]
        message = "missing field" if problem["type"] == "missing" else str(problem["msg"]).removeprefix("Value error, ")
        shown = repr(problem.get("input"))[:60]
        got = "" if problem["type"] in ("missing", "value_error") else f", got {shown}"
        raise InputError(scrub_text(f"{message}{got}"), path=str(path), field=where(problem["loc"]) or None) from None


@dataclass
class JudgeCheck:
    """The judge now against the certificate's: `notes` (a change let through, or what was compared)."""

    name: str
    served: str
    notes: list[str] = field(default_factory=list)


def recorded(certificate: Certificate, path: str | Path) -> JudgeIdentity:
    """The certificate's judge identity for its metric; one line when it records none (verdicts from a predictions
    file made elsewhere: no judge to compare)."""
    identity = certificate.judge_identity
    if identity.source == "predictions" or identity.model_id is None:
        raise InputError(
            "records no judge (its verdicts came from a predictions file): certify on a judgelab run folder "
            "(--predictions RUN_DIR) to gate on the judge",
            path=str(path),
            field="judge_identity",
        )
    metric = certificate.predictions.metric
    return identity if metric is None else for_metric(identity, metric)


def refuse_or_note(line: str, accept: bool, notes: list[str]) -> None:
    """A change: exit 2 on its one line, or (accepted) a note."""
    if not line:
        return
    if not accept:
        raise ConfigError(line)
    notes.append(f"judge changed since certification, accepted with {FLAG}: {line.split(': re-certify')[0]}")


def check_judge(
    certificate: Certificate,
    path: str | Path,
    config: JudgeConfig,
    *,
    accept: bool,
    probe: Callable[[JudgeConfig], Completion] = probe_reply,
) -> JudgeCheck:
    """The judge `config` runs against the certificate's: the model asked for, the metric's prompt hash and the
    decoding before any call; then one fresh call's model name and fingerprint. A change is one line, exit 2, unless
    `accept`."""
    before = recorded(certificate, path)
    name = before.model_id or config.model
    changed = {"made": "certified", "redo": "re-certify"}
    planned = planned_identity(config, before.decoding.draws or 1)
    if certificate.predictions.metric is not None:
        planned = for_metric(planned, certificate.predictions.metric)
    check = JudgeCheck(name, before.served())
    refuse_or_note(changed_line(name, before, planned, **changed), accept, check.notes)  # no reply known yet
    reply = probe(config)
    now = before.answered_by(reply.served_model, reply.system_fingerprint)
    refuse_or_note(changed_line(name, before, now, **changed), accept, check.notes)
    check.served = now.served()
    return check
