"""The typed run header: what run.json's config records of a run, whatever its kind, built once and read back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from judges.errors import InputError
from judges.secrets import mask_url
from judges.version import __version__

if TYPE_CHECKING:  # a run read back never needs the judge's config types (nor pydantic)
    from judges.calls.model_spec import JudgeModel
    from judges.config.judge import JudgeConfig
    from judges.judging.prompts import PromptSet

Settings = TypeVar("Settings")
# the keys every kind may write; the rest of a config are the kind's own settings (`details`)
_TEXT = ("judgelab_version", "judge", "litellm_model", "data", "split", "model_version")
_OBJECTS = ("prompts", "params", "cache", "judge_identity", "metric_info")
_OWN = frozenset({"details", "keys"})  # the type's own fields, not run.json keys


@dataclass(frozen=True)
class RunConfig:
    """A run's config, built once when the judge is open and never changed after. `to_json` is run.json's `config`
    dict; `from_json` reads one back, old folders included: the same keys, in the same order, with the same values
    (a folder written by any judgelab re-writes byte for byte). A key a run did not record reads as None."""

    judge: str | None = None
    """The judge's model name as the user gave it (a baseline's or a jury's name)."""
    api_base: str | list[str] | None = None
    """The API base (or the list of bases), each with its credentials masked."""
    prompts: dict[str, Any] | None = None
    """The prompt set: its name, folder and each template's sha256; None when no judge prompt is used."""
    params: dict[str, Any] | None = None
    """The judge's public decoding parameters."""
    cache: dict[str, Any] | None = None
    """The reply cache: its path and mode."""
    max_cost: float | None = None
    """The budget in USD, or None."""
    fail_on_error: Any = None
    """When a run with failed verdicts counts as degraded."""
    data: str | None = None
    """The data file (or source) the run read."""
    split: str | None = None
    """The split a suite run graded (train or test)."""
    draws: int | None = None
    """How often each item was judged."""
    metrics: Any = None
    """The metrics the run asked for."""
    embeddings: Any = None
    """The embedding model of the metrics that use one."""
    litellm_model: str | None = None
    """The model id the backend calls."""
    json_schema: bool | None = None
    """Whether replies are constrained by a JSON schema."""
    rag_prompts_sha256: Any = None
    """The hashes of the RAG-suite templates the metrics used."""
    metric_info: dict[str, Any] | None = None
    """Per metric: its family, direction and range (the metrics kind)."""
    model_version: str | None = None
    """The model version the provider reported first."""
    judge_identity: dict[str, Any] | None = None
    """Who judged (`judges.records.judge_identity.JudgeIdentity`'s record)."""
    judgelab_version: str | None = None
    """The judgelab version that made the run."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """The kind's own settings (counts, baselines, probe plan...): read typed with `settings(...)`."""
    keys: tuple[str, ...] = ()
    """The keys run.json's config holds, in their order."""

    def __post_init__(self) -> None:
        if not self.keys:  # built by field (not read back): the keys it has values for, in field order
            named = tuple(f.name for f in fields(self) if f.name not in _OWN and getattr(self, f.name) is not None)
            object.__setattr__(self, "keys", named + tuple(self.details))

    @classmethod
    def of(
        cls, options: JudgeConfig, prompts: PromptSet | None, model: JudgeModel, details: Mapping[str, Any]
    ) -> RunConfig:
        """The header of a run of `options`' judge (`model`, as opened) with `prompts` and the kind's `details`."""
        bases = [mask_url(url) for url in options.api_bases()]
        return cls.from_json(
            {
                "judgelab_version": __version__,
                "judge": options.model,
                "api_base": bases[0] if isinstance(options.api_base, str) else bases or None,
                "prompts": None
                if prompts is None
                else {"name": prompts.name, "folder": str(prompts.folder), "sha256": prompts.hashes()},
                "params": options.public_params(),
                "cache": {"path": options.cache, "mode": options.cache_mode},
                "max_cost": options.max_cost,
                "fail_on_error": options.fail_on_error,
                **details,
                "litellm_model": model.litellm_model,
                "json_schema": model.json_schema,
            }
        )

    @classmethod
    def from_json(cls, raw: Mapping[str, Any], path: str = "run.json") -> RunConfig:
        """run.json's `config` typed; a common key of the wrong type is one InputError naming it."""
        typed = {f.name for f in fields(cls)} - _OWN
        values = {key: _checked(key, value, path) for key, value in raw.items() if key in typed}
        details = {key: value for key, value in raw.items() if key not in typed}
        return cls(**values, details=MappingProxyType(details), keys=tuple(raw))

    def to_json(self) -> dict[str, Any]:
        """run.json's `config` (a fresh dict: the header itself never changes)."""
        return {key: self.details[key] if key in self.details else getattr(self, key) for key in self.keys}

    def extended(self, more: Mapping[str, Any]) -> RunConfig:
        """This header with `more` keys (a key it holds keeps its place and takes the new value)."""
        return RunConfig.from_json({**self.to_json(), **more})

    def settings(self, of: Callable[[Mapping[str, Any]], Settings]) -> Settings:
        """The kind's own settings, typed by the kind's reader `of` (given `details`)."""
        return of(self.details)

    @property
    def prompts_name(self) -> str | None:
        """The prompt set's name, if the run used one."""
        name = (self.prompts or {}).get("name")
        return str(name) if name is not None else None

    @property
    def prompts_folder(self) -> str | None:
        """The prompt set's folder, if the run used one."""
        folder = (self.prompts or {}).get("folder")
        return str(folder) if folder else None

    @property
    def prompts_sha256(self) -> dict[str, str]:
        """Each template's sha256 (empty when the run used no prompt set)."""
        hashes = (self.prompts or {}).get("sha256")
        return dict(hashes) if isinstance(hashes, dict) else {}


def _checked(key: str, value: Any, path: str) -> Any:
    """A common key's value, or one InputError naming `config.<key>` when its type is wrong."""
    expected: tuple[tuple[type, ...], str] | None = None
    if key in _TEXT:
        expected = (str,), "a string"
    elif key in _OBJECTS:
        expected = (dict,), "an object"
    elif key == "max_cost":
        expected = (int, float), "a number"
    elif key == "draws":
        expected = (int,), "an integer"
    elif key == "json_schema":
        expected = (bool,), "true or false"
    if value is None or expected is None:
        return value
    types, name = expected
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
        return value
    raise InputError(f"expected {name} or null", path=path, field=f"config.{key}")
