"""The grading run kind: a user's samples graded by a GroUSE judge (`judgelab evaluate`)."""

# the run kind this package defines, registered as a package's `judgelab.kinds` entry point is (judges.plugins)
KINDS = {"grade": "judges.grading.grade_kind:GRADE_KIND"}
