"""calibration.json's one typed, versioned schema: every field's type and range checked (finite numbers only), judge
names that are names, endpoints without credentials; a bad file is one line naming the file and field, exit 2."""

from __future__ import annotations

import json
import os
import tempfile
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from judges.cascade.slice_schema import Slices, kept_problem
from judges.errors import InputError
from judges.files.checked import read_json_file
from judges.records.judge_identity import JudgeIdentity
from judges.secrets import MASK, is_credential_key, is_credential_param, scrub_text

DEFAULT_CUT = 0.5  # the cut of a probability score into the two classes of binary labels (`--threshold`)

FORMAT_VERSION = 2  # calibration.json's layout (2: each judge's identity); a reader refuses a version it does not know
MAX_NAME = 100  # characters of a judge's name (it names a folder of `evaluate --cascade`)

Share = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]
STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a judge (it names a folder of the cascade's run): None when it can."""
    if not name.strip():
        return "a judge's name cannot be empty"
    if len(name) > MAX_NAME:
        return f"a judge's name has at most {MAX_NAME} characters"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") for c in name):
        return f"a judge's name holds no control characters, got {name.encode('unicode_escape').decode()!r}"
    if "/" in name or "\\" in name or ".." in name or name in (".", "~") or ":" in name:
        return f"a judge's name is a name, not a path (no '/', '\\\\', ':' or '..'), got {name!r}"
    return None


def endpoint_problem(url: str) -> str | None:
    """Why `url` cannot be a calibrated judge's endpoint (it carries credentials, or their mask): None when it can."""
    bare = endpoint_without_credentials(url)
    return None if bare == url else "an endpoint is kept without credentials (no user:password@, no key in the query)"


def endpoint_without_credentials(url: str) -> str:
    """`url` without its userinfo and without the query parameters that carry a credential or its mask (`***`):
    what a calibration keeps, the run adding the credentials from the environment or the flags as any run does."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    rest, hash_sign, fragment = rest.partition("#")
    rest, question, query = rest.partition("?")
    end = min((i for i in (rest.find("/"),) if i >= 0), default=len(rest))
    host, path = rest[:end].rpartition("@")[2], rest[end:]

    def kept(params: str) -> str:
        pairs = [p for p in params.split("&") if p]
        return "&".join(
            p
            for p in pairs
            if MASK not in p and "%2A%2A%2A" not in p.upper() and not is_credential_param(p.split("=")[0])
        )

    shown = (scheme + sep if sep else "") + host + path
    query, fragment = kept(query) if question else "", kept(fragment) if hash_sign else ""
    return shown + ("?" + query if query else "") + ("#" + fragment if fragment else "")


def without_credentials(value: Any) -> Any:
    """A copy of a JSON-like value without the keys that name a credential (headers, api_key, token...), at any
    depth, and without strings holding the mask."""
    if isinstance(value, dict):
        return {k: without_credentials(v) for k, v in value.items() if not is_credential_key(k, v)}
    if isinstance(value, list):
        return [without_credentials(v) for v in value if not (isinstance(v, str) and MASK in v)]
    return value


class CalibratedRun(BaseModel):
    """What a calibrated judge's run folder said of its judge, enough for `evaluate --cascade` to run it again."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)

    judge: Annotated[str, Field(min_length=1)]
    api_base: str | list[str] | None = None
    prompts: dict[str, Any] | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    json_schema: bool | None = None
    draws: Annotated[int, Field(ge=1)] = 1

    @field_validator("api_base")
    @classmethod
    def _no_credentials(cls, value: str | list[str] | None) -> str | list[str] | None:
        for url in [value] if isinstance(value, str) else value or []:
            if problem := endpoint_problem(url):
                raise ValueError(problem)
        return value


class CalibratedJudge(BaseModel):
    """One judge of the cascade: its name, where its verdicts came from, its threshold (None: it keeps nothing)."""

    model_config = STRICT

    name: str
    source: str
    threshold: Share | None
    offered: Count
    kept: Count
    share_of_items: Share | None = None
    agreement: Share | None = None
    disagreement_upper_bound: Share | None = None
    cost_per_item_usd: Annotated[float, Field(ge=0)] | None = None
    run_config: CalibratedRun | None = None
    identity: JudgeIdentity | None = None  # format_version 2: who judged (null fields: a predictions file)

    @field_validator("name")
    @classmethod
    def _a_name(cls, value: str) -> str:
        if problem := name_problem(value):
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> CalibratedJudge:
        sliced = bool(info.context and info.context.get("sliced"))  # each slice has its own threshold, under slices
        if problem := kept_problem(self.threshold, self.offered, self.kept, threshold_elsewhere=sliced):
            raise ValueError(problem)
        return self


class LabelsUsed(BaseModel):
    """The labelled items the cascade was calibrated on."""

    model_config = STRICT

    name: str
    spec: str
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    count: Count


class Calibration(BaseModel):
    """calibration.json of `judgelab cascade calibrate`."""

    model_config = STRICT

    format_version: Literal[1, 2]
    method: str
    target: Annotated[float, Field(gt=0, lt=1)]
    delta: Annotated[float, Field(gt=0, lt=1)]
    min_kept: Annotated[int, Field(ge=1)]
    cut: Share
    label_type: Literal["binary", "ordinal", "preference"]
    metric: Annotated[str, Field(min_length=1)]
    labels: LabelsUsed
    judges: Annotated[list[CalibratedJudge], Field(min_length=1)]
    escalated: Count
    escalated_share: Share | None = None
    slices: Slices | None = None  # a cascade per slice (`--slice`): the judges' thresholds are there, not above

    @model_validator(mode="after")
    def _distinct_names(self) -> Calibration:
        names = [j.name for j in self.judges]
        if repeated := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"the judge name {repeated[0]!r} is given twice")
        if self.slices is not None:
            slice_problem(self, self.slices, names)
        return self


def slice_problem(calibration: Calibration, block: Slices, names: list[str]) -> None:
    """A ValueError when a calibration's slices do not fit its judges: the same judges in the same order on every
    slice, no threshold for all slices at once, each judge's kept items the sum over the slices, delta split evenly."""
    for name, part in block.by_slice.items():
        if [j.name for j in part.judges] != names:
            raise ValueError(f"slice {name!r} names other judges than the calibration's ({', '.join(names)})")
    for place, judge in enumerate(calibration.judges):
        if judge.threshold is not None:
            raise ValueError(f"judge {judge.name!r} has a threshold for every slice; a calibration by slice has none")
        if judge.kept != sum(part.judges[place].kept for part in block.by_slice.values()):
            raise ValueError(f"judge {judge.name!r} keeps {judge.kept} items, not the sum over its slices")
    if abs(block.delta_each * len(block.by_slice) - calibration.delta) > 1e-9:
        raise ValueError(f"slices.delta_each is not delta split over the {len(block.by_slice)} slices")


def where(loc: tuple[int | str, ...]) -> str:
    """`judges[0].threshold` from pydantic's location."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + str(part)
    return text


def one_line(err: ValidationError, path: str) -> InputError:
    """The first problem pydantic found, as one line naming the file and the field."""
    problem = err.errors(include_url=False)[0]
    loc = tuple(p for p in problem["loc"] if not str(p).startswith(("function-", "constrained-")))
    message = {
        "missing": "missing field",
        "extra_forbidden": f"unknown field (not of format_version {FORMAT_VERSION})",
    }.get(problem["type"], str(problem["msg"]).removeprefix("Value error, "))
    given = repr(problem.get("input"))
    shown = given if len(given) <= 60 else given[:57] + "..."
    got = "" if problem["type"] in ("missing", "value_error", "extra_forbidden") else f", got {shown}"
    return InputError(scrub_text(f"{message[:1].lower()}{message[1:]}{got}"), path=path, field=where(loc) or None)


def check_version(data: Any, path: str) -> None:
    """A calibration.json object of a format version this judgelab reads."""
    if not isinstance(data, dict) or not isinstance(data.get("judges"), list):
        raise InputError("not a calibration.json of `judgelab cascade calibrate` (no judges list)", path=path)
    version = data.get("format_version")
    if "format_version" not in data:
        raise InputError(
            "no format_version: not written by this judgelab's `cascade calibrate`; calibrate again",
            path=path,
            field="format_version",
        )
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(f"format_version must be a whole number, got {version!r}", path=path, field="format_version")
    if version > FORMAT_VERSION:
        raise InputError(
            f"format_version {version} is newer than this judgelab reads ({FORMAT_VERSION}): upgrade judgelab",
            path=path,
            field="format_version",
        )


def parse_calibration(data: Any, path: str) -> Calibration:
    """A checked Calibration from calibration.json's parsed JSON."""
    check_version(data, path)
    try:
        return Calibration.model_validate(data, context={"sliced": data.get("slices") is not None})
    except ValidationError as err:
        raise one_line(err, path) from None


def read_calibration(path: str | Path) -> Calibration:
    """calibration.json as `cascade calibrate` wrote it, every field checked before anything is called or written."""
    return parse_calibration(read_json_file(Path(path)), str(path))


def write_atomically(path: Path, text: str) -> Path:
    """`text` in `path`, whole or not at all: written beside it, then renamed over it."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def calibration_text(record: dict[str, Any]) -> str:
    """calibration.json's text, checked against the schema it will be read back with."""
    checked = parse_calibration(json.loads(json.dumps(record)), "calibration.json")
    return json.dumps(checked.model_dump(exclude_none=False), indent=2) + "\n"
