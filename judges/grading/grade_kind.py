"""The grading run kind's traits (`judgelab.kinds` entry `grade`): a judge's grades of a user's samples, which
labelling may draw items from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from judges.judging.samples import load_samples
from judges.runs.data_file import data_file
from judges.runs.kinds import KindTraits

if TYPE_CHECKING:
    from judges.runs.run import Run
    from judges.types import Sample

GRADE = "grade"  # the kind's name, as run.json gives it


class GradeKind(KindTraits):
    """Grading runs: mean grades per metric, a near-constant judge named, samples re-read for labelling."""

    judge_grades = True
    labelling = True

    def samples(self, run: Run) -> Mapping[str, Sample]:
        """The samples the run graded, re-read from its data file (records keep verdicts, not the sample text)."""
        return dict(load_samples(data_file(run)))


GRADE_KIND = GradeKind()
