"""Core value types: samples, unit tests, verdicts (grade / null / failure) and outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

GROUSE_METRICS: tuple[str, ...] = ("answer_relevancy", "completeness", "faithfulness", "usefulness")
DERIVED_METRICS: tuple[str, ...] = ("positive_acceptance", "negative_rejection")
ALL_METRICS: tuple[str, ...] = GROUSE_METRICS + DERIVED_METRICS
ABSTENTION_SENTENCE = "No document seems to precisely answer your question."


@dataclass(frozen=True)
class Image:
    """An image a sample refers to: a local file, an http(s) URL or a data URL. `source` is what the data file
    says (a path relative to it, the URL, or "data URL"); `location` is where the bytes are (an absolute path, the
    URL, or the data URL itself) and is never written to results; `sha256` hashes the bytes (of a URL: its text).
    In the sample's texts an image stands as its `marker`, which prompts turn into an image part."""

    kind: str  # "file", "url" or "data"
    source: str
    location: str
    sha256: str
    mime: str

    @property
    def marker(self) -> str:
        return f"[image sha256:{self.sha256} {self.source.replace(']', '%5D')}]"

    def to_dict(self) -> dict[str, Any]:
        """What results and reports keep: where it came from and its hash, never its bytes."""
        out = {"kind": self.kind, "source": self.source, "sha256": self.sha256, "mime": self.mime}
        if self.kind == "file":
            out["path"] = self.location
        elif self.kind == "url":
            out["url"] = self.location
        return out


@dataclass(frozen=True)
class Sample:
    """The one sample type: the question (`input`), the numbered references (ranked contexts), a reference answer
    (`expected_output`) and the answer judged (`actual_output`); retrieval ids and guidelines where a metric needs
    them; a second answer (`alternative_output`) where a pairwise judge compares two. A field is None when the data has none (a summary has no question); files may say `question`, `answer`,
    `contexts` and `ground_truth` (see judges.rag.sample.ALIASES). An image in the question or a reference stands
    in its text as the image's marker (`[image sha256:... chart.png]`); `images` lists those images."""

    input: str | None = None
    references: tuple[str, ...] | None = None
    expected_output: str | None = None
    actual_output: str | None = None
    retrieved_ids: tuple[str, ...] | None = None
    expected_ids: tuple[str, ...] | None = None
    guidelines: str | None = None
    id: str = ""
    images: tuple[Image, ...] = ()
    alternative_output: str | None = None  # a second answer to the same question, for pairwise judges

    def missing(self, needs: tuple[str, ...]) -> list[str]:
        """The needed fields this sample lacks. Empty references and retrieved ids are present (a retriever may
        return nothing); an empty expected_ids list or a blank text is missing."""
        absent = []
        for name in needs:
            value = getattr(self, name)
            blank = isinstance(value, str) and not value.strip()
            if value is None or blank or (name == "expected_ids" and not value):
                absent.append(name)
        return absent


@dataclass(frozen=True)
class UnitTest:
    """A sample plus the conditions a correct judge's grades satisfy."""

    id: str
    sample: Sample
    conditions: dict[str, Any]  # metric -> judges.suite.conditions.Condition
    test_type: str
    goal: str
    set_id: str | None = None
    source: str | None = None  # "file:line" it was read from


class FailureKind(str, Enum):
    """Why a judge call produced no usable verdict."""

    API_ERROR = "api_error"
    TIMEOUT = "timeout"
    UNPARSEABLE = "unparseable"
    REFUSED = "refused"
    UPSTREAM_FAILED = "upstream_failed"  # not asked: a step it depends on failed
    OVERSIZED = "oversized"  # a reply too large for a record: kept truncated, never parsed


class VerdictState(str, Enum):
    GRADE = "grade"
    NULL = "null"  # legitimately not applicable
    FAILURE = "failure"


@dataclass(frozen=True)
class Verdict:
    """One judge output for one sample and metric: a grade, a legitimate null, or a failure."""

    state: VerdictState
    grade: float | None = None
    failure_kind: FailureKind | None = None
    message: str | None = None
    justification: str | None = None

    @classmethod
    def graded(cls, grade: float, justification: str | None = None) -> Verdict:
        return cls(VerdictState.GRADE, grade=grade, justification=justification)

    @classmethod
    def null(cls, reason: str | None = None, justification: str | None = None) -> Verdict:
        return cls(VerdictState.NULL, message=reason, justification=justification)

    @classmethod
    def failed(cls, kind: FailureKind, message: str) -> Verdict:
        return cls(VerdictState.FAILURE, failure_kind=kind, message=message)

    @property
    def is_failure(self) -> bool:
        return self.state is VerdictState.FAILURE

    @property
    def value(self) -> float | None:
        """The grade, or None for a null. Asking a failure for its value is a bug."""
        if self.is_failure:
            raise ValueError("a failed verdict has no value")
        return self.grade

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state.value}
        if self.state is VerdictState.GRADE:
            out["grade"] = self.grade
        if self.failure_kind is not None:
            out["failure_kind"] = self.failure_kind.value
        if self.message:
            out["message"] = self.message
        if self.justification:
            out["justification"] = self.justification
        return out


class Outcome(str, Enum):
    """Result of checking one verdict against one condition: the judge was right, the judge was wrong, or the run
    failed to get a verdict (a call or parse failure, or a step upstream of it failed); the last is never counted
    as the judge's wrong grade."""

    PASS = "pass"
    WRONG_GRADE = "wrong_grade"
    FAILURE = "failure"
