"""The grading run kind: a user's samples graded by a GroUSE judge (`judgelab evaluate`)."""
