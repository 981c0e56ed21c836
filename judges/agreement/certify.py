"""Certifying a judge's outputs on labels: its agreement at the bounds' level, each bar's check settled by the labels
per class, the verdict and its line, and the certification record (`judgelab validate --labels`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.errors import ConfigError
from judges.labels.schema import LabelledSet, LabelType

if TYPE_CHECKING:
    from judges.agreement.agreement_settings import AgreementSettings
    from judges.agreement.result import MetricAgreement


def class_counts(errors: Any, subset: LabelledSet, binary: bool) -> dict[str, int]:
    """Label rows per class of binary labels (those the judge's outputs were compared on, else all), else the items."""
    if not binary:
        return {"items": len({item.id for item in subset.items})}
    if errors is not None:
        (judge0_human0, judge0_human1), (judge1_human0, judge1_human1) = errors.matrix
        return {"1": judge0_human1 + judge1_human1, "0": judge0_human0 + judge1_human0}
    labels = [item.label for item in subset.items]
    return {"1": labels.count(1.0), "0": labels.count(0.0)}


def labels_hash_in(data: dict[str, Any]) -> str | None:
    """The labels' hash a calibration.json or a manifest.json records (`labels.sha256`, or `labels_hash`)."""
    described = data.get("labels")
    found = data.get("labels_hash") or (described.get("sha256") if isinstance(described, dict) else None)
    return found if isinstance(found, str) else None


def same_labels(described: Any, spec: str, labels: LabelledSet) -> str | None:
    """What a record's `labels` entry matches these labels on (its spec, or the same source file), else None."""
    if not isinstance(described, dict):
        return None
    if described.get("spec") == spec:
        return "spec"
    source = described.get("source")
    if source and labels.source and Path(str(source)).resolve() == Path(labels.source).resolve():
        return "source"
    return None


def measured(subset: LabelledSet, predictions: Any, settings: AgreementSettings) -> MetricAgreement:
    """The judge's agreement with the labels as `settings` measure it, its bootstrap intervals at the level of a
    one-sided 95% bound."""
    from judges.agreement import certification as bounds  # defers numpy
    from judges.agreement.measure import measure  # defers numpy

    return measure(subset, predictions, settings.model_copy(update={"confidence": bounds.TWO_SIDED_FOR_BOOTSTRAP}))


def bound_checks(result: Any, subset: LabelledSet, bars: dict[str, float], min_recall: float | None) -> list[Any]:
    """Every bar's check on these labels (the recalls' exact bounds at `min_recall`, the statistics' bootstrap
    bounds), settled by the labels per class."""
    from judges.agreement import certification as bounds  # defers numpy

    checks = []
    if min_recall is not None:
        if result.errors is None:
            raise ConfigError("the judge's scores are not 0/1 grades: give --threshold T to cut them")
        checks += bounds.recall_checks(result.errors, min_recall)
    checks += bounds.statistic_checks(result.figures(), bars)
    classes = class_counts(result.errors, subset, subset.items[0].label_type is LabelType.BINARY)
    return [bounds.settle(check, classes) for check in checks]


def verdict(checks: list[Any]) -> str:
    """Certified (every bound reaches its bar), "not certified" (a bar is missed), else "undecided" (a bar these
    labels cannot decide: too few of a class, or a statistic undefined on them)."""
    if all(check.passed for check in checks):
        return "certified"
    return "undecided" if all(check.passed or check.undecided for check in checks) else "not certified"


def verdict_line(checks: list[Any], written: str) -> str:
    """The last line: certified, not or undecided, and the labels that would decide every missed bar (or that none
    would)."""
    missed = [check for check in checks if not check.passed]
    head = f"{verdict(checks).upper()}: {len(checks) - len(missed)}/{len(checks)} bounds reach their bars"
    more = [check.more_labels() for check in missed]
    if missed and None in more:
        head += "; no number of labels would decide every bar at the observed rates"
    elif missed and max(m for m in more if m is not None) == 0:
        head += "; decided now: more labels would not change it"
    elif missed:
        head += f"; about {max(m for m in more if m is not None)} more labels, at the observed rates, would decide them"
    return f"{head}; wrote {written}"


def certification_record(
    checks: list[Any], result: Any, described: dict[str, Any], order: dict[str, Any]
) -> dict[str, Any]:
    """certification.json of a fixed-size certification: the verdict, each check, the labels, predictions, judge and
    reuse `described` (in that order), the agreement, and the labels seen in `order`."""
    from judges.agreement import certification as bounds  # defers numpy

    record = {
        "certified": all(check.passed for check in checks),
        "verdict": verdict(checks),
        "fewest_labels_per_class": bounds.FEWEST_PER_CLASS,
        "level": f"one-sided {bounds.LEVEL:.0%} lower bounds",
        "checks": [check.to_dict() for check in checks],
        **described,
        "agreement": result.to_dict(),
    }
    rows = 0 if result.rows is None else int(result.rows.human.size)
    return record | {"mode": "fixed", "labels_seen": rows, "decided_at": rows, "labels_order": order}
