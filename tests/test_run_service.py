"""The run service's own costs: a short Execution repr."""

from judges.runs.service import Execution


def test_an_execution_repr_names_its_size_not_its_records():
    done = Execution([{"id": str(i), "text": "x" * 1000} for i in range(100)])
    assert repr(done) == "Execution(100 records, stop=None)"
