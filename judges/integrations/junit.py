"""The gate's JUnit XML: one test case per bar, and one per unit test naming what it did not pass."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from judges.suite.misses import by_test, misses

if TYPE_CHECKING:
    from judges.records import ItemRecord


class Named(Protocol):
    """A bar as its test case names it."""

    @property
    def name(self) -> str: ...


class BarOutcome(Protocol):
    """A bar checked on a run, as the gate reports it (`judges.integrations.gate.BarResult`, a layer above)."""

    @property
    def bar(self) -> Named: ...

    @property
    def passed(self) -> bool: ...

    def describe(self) -> str: ...


def junit_xml(results: Sequence[BarOutcome], records: Sequence[ItemRecord], suite: str, path: Path) -> None:
    """Two suites: `<suite>.bars` (a missed bar is a <failure> with the measured value) and `<suite>.unit_tests` (a
    unit test not passed is a <failure> whose message names each metric, the condition, the grade given and the
    judge's justification). The bars decide the gate; the unit-test cases say which tests to look at."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites")
    bars = ET.SubElement(
        root,
        "testsuite",
        name=f"{suite}.bars",
        tests=str(len(results)),
        failures=str(sum(not r.passed for r in results)),
    )
    for result in results:
        case = ET.SubElement(bars, "testcase", classname=f"{suite}.bars", name=result.bar.name)
        if not result.passed:
            ET.SubElement(case, "failure", message=result.describe()).text = result.describe()
    first = [r for r in records if r.draw == 0]
    missed = by_test(misses(first))
    tests = ET.SubElement(
        root, "testsuite", name=f"{suite}.unit_tests", tests=str(len(first)), failures=str(len(missed))
    )
    for record in first:
        case = ET.SubElement(tests, "testcase", classname=f"{suite}.unit_tests", name=record.id)
        found = missed.get(record.id)
        if found:
            message = "; ".join(m.describe() for m in found)
            failure = ET.SubElement(
                case, "failure", message=message, type=", ".join(sorted({m.outcome for m in found}))
            )
            failure.text = "\n".join(m.describe(width=2000) for m in found)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
