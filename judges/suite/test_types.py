"""The 16 unit-test types of judgelab's suite: conditions, and the grades a perfect judge gives each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestType:
    """A test type's conditions (AR, C, F, U) and one set of grades that satisfies them (the oracle)."""

    name: str
    conditions: tuple[str, str, str, str]
    oracle: tuple[float | None, float | None, float | None, float | None]
    abstains: bool = False  # the actual output begins with the abstention sentence
    abstains_only: bool = False  # the actual output is the abstention sentence and nothing else
    references_answer: bool = True  # False: the references hold nothing that answers


TEST_TYPES: tuple[TestType, ...] = (
    TestType("Highest marks 1", ("==5", "==5", "==1", "==None"), (5, 5, 1, None)),
    TestType(
        "Highest marks 2",
        ("==None", "==None", "==None", "==None"),
        (None, None, None, None),
        abstains=True,
        abstains_only=True,
        references_answer=False,
    ),
    TestType(
        "Highest marks 3",
        ("==None", "==None", "==1", "==1"),
        (None, None, 1, 1),
        abstains=True,
        references_answer=False,
    ),
    TestType("Highest marks 4", ("==5", "==5", "==1", "==None"), (5, 5, 1, None)),
    TestType("Highest marks 5", ("==5", "==5", "==1", "==None"), (5, 5, 1, None)),
    TestType("Highest marks 6", ("==5", "==5", "==1", "==None"), (5, 5, 1, None)),
    TestType("Highest marks 7", ("==5", "==5", "==1", "==None"), (5, 5, 1, None)),
    TestType("Low answer relevancy 1", ("<5", "==5", "==1", "==None"), (3, 5, 1, None)),
    TestType("Low answer relevancy 2", ("<5", "==None", "==1", "==None"), (2, None, 1, None), references_answer=False),
    TestType("Low completeness 1", (">=4", "<5", "==1", "==None"), (5, 3, 1, None)),
    TestType(
        "Low completeness 2",
        ("==None", "<5", "==None", "==None"),
        (None, 1, None, None),
        abstains=True,
        abstains_only=True,
    ),
    TestType("Low completeness 3", ("==None", "<5", "==1", "==1"), (None, 2, 1, 1), abstains=True),
    TestType(
        "Low usefulness 1",
        ("==None", "==None", "==1", "==0"),
        (None, None, 1, 0),
        abstains=True,
        references_answer=False,
    ),
    TestType("Low faithfulness 1", ("==5", "==5", "==0", "==None"), (5, 5, 0, None)),
    TestType("Low faithfulness 2", ("==5", "<5", "==0", "==None"), (5, 3, 0, None)),
    TestType("Low faithfulness 3", ("==5", "==5", "==0", "==None"), (5, 5, 0, None)),
)
BY_NAME = {t.name: t for t in TEST_TYPES}
ENDS_WITH_CITATION = {"Highest marks 1", "Highest marks 5", "Highest marks 6", "Highest marks 7", "Low faithfulness 1"}
MULTI_CITATION = {"Highest marks 6"}


def slug(test_type: str) -> str:
    return test_type.lower().replace(" ", "-")
