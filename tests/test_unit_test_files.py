"""Loading unit tests: clear errors naming file/line/field, folder splits, the hub path on a local folder."""

import pytest
from conftest import ROOT, record, write_jsonl

from judges.errors import ConditionError, InputError
from judges.suite.conditions import Condition
from judges.suite.loading import load_unit_tests


def test_loads_conditions_as_types(tmp_path):
    [test] = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record()]))
    assert str(test.conditions["answer_relevancy"]) == "==5" and test.conditions["usefulness"].expects_null
    assert test.source.endswith("u.jsonl:1") and test.test_type == "Highest marks 1"


def test_bad_json_line_names_file_and_line(tmp_path):
    path = write_jsonl(tmp_path / "u.jsonl", [record()])
    path.write_text(path.read_text() + "{oops\n")
    with pytest.raises(InputError, match=r"u\.jsonl:2: not valid JSON"):
        load_unit_tests(path)


@pytest.mark.parametrize(
    "broken, problem",
    [
        ({"input": 3}, "input: expected a string, got a number"),
        ({"references": "one"}, "references: expected a list, got a string"),
        (
            {"references": ["a", 2]},
            'references.1: expected a text, an image part {"image": ...} or a list of text and image parts',
        ),
        ({"metadata": {}}, "metadata.test_type: missing field"),
        ({"actual_output": " "}, "actual_output: must not be empty"),
        ({"references": []}, "references: must not be empty"),
    ],
)
def test_bad_fields_are_named(tmp_path, broken, problem):
    path = write_jsonl(tmp_path / "u.jsonl", [record(id="ok"), record(id="bad", **broken)])
    with pytest.raises(InputError) as err:
        load_unit_tests(path)
    assert str(err.value) == f"{path}:2:{problem}"


def test_every_problem_of_a_file_is_reported_at_once(tmp_path):
    conditions = {
        **record()["conditions"],
        "answer_relevancy_condition": "==6",
        "faithfulness_condition": "==3",
        "completeness_condition": "<1",
    }
    path = write_jsonl(
        tmp_path / "u.jsonl",
        [
            record(input="", references=[]),
            record(id="t2", conditions=conditions),
            record(),
            record(id="t4", expected_output=None),
        ],
    )
    path.write_bytes(path.read_bytes() + b'{"id": "caf\xe9"}\n[1, 2]\n{oops\n')
    with pytest.raises(InputError) as err:
        load_unit_tests(path)
    assert str(err.value).splitlines() == [
        f"{path}:1:references: must not be empty",
        f"{path}:1:input: must not be empty",
        f"{path}:2:conditions.answer_relevancy_condition: no answer_relevancy grade can meet '==6': grades are 1-5 or null",
        f"{path}:2:conditions.completeness_condition: no completeness grade can meet '<1': grades are 1-5 or null",
        f"{path}:2:conditions.faithfulness_condition: no faithfulness grade can meet '==3': grades are 0 or 1, or null",
        f"{path}:3:id: duplicate id 't1' (first on line 1)",
        f"{path}:4:expected_output: expected a string, got null",
        f"{path}:5: not UTF-8 text (byte 0xe9 at column 12); save the file as UTF-8",
        f"{path}:6: each line must be a JSON object, got a list",
        f"{path}:7: not valid JSON (Expecting property name enclosed in double quotes, column 2)",
    ]


def test_empty_and_oversized_files_are_named(tmp_path, monkeypatch):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(InputError) as err:
        load_unit_tests(empty)
    assert str(err.value) == f"{empty}: the file holds no records (one JSON object per line expected)"
    monkeypatch.setenv("JUDGELAB_MAX_RECORD_BYTES", "100")
    path = write_jsonl(tmp_path / "u.jsonl", [record()])
    size = len(path.read_bytes())
    with pytest.raises(InputError) as err:
        load_unit_tests(path)
    assert str(err.value) == (
        f"{path}:1: record of {size:,} bytes is over the 100-byte limit (set JUDGELAB_MAX_RECORD_BYTES to raise it)"
    )


def test_bad_condition_fails_at_load(tmp_path):
    bad = record(conditions={**record()["conditions"], "faithfulness_condition": "=>1"})
    path = write_jsonl(tmp_path / "u.jsonl", [bad])
    with pytest.raises(InputError) as err:
        load_unit_tests(path)
    assert str(err.value) == (
        f"{path}:1:conditions.faithfulness_condition: test t1: bad condition '=>1'; "
        "expected e.g. '==5', '<5', '>=4', '==None'"
    )
    with pytest.raises(ConditionError):  # the parser alone still raises its own kind
        Condition.parse("=>1")


def test_missing_condition_is_named(tmp_path):
    conditions = dict(record()["conditions"])
    del conditions["usefulness_condition"]
    with pytest.raises(InputError, match="conditions.usefulness_condition"):
        load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record(conditions=conditions)]))


def test_duplicate_ids_are_rejected(tmp_path):
    with pytest.raises(InputError, match=r"u\.jsonl:2:id: duplicate id 't1' \(first on line 1\)"):
        load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record(), record()]))


def test_folder_split_and_missing_file(tmp_path):
    write_jsonl(tmp_path / "train.jsonl", [record(id="tr")])
    assert [t.id for t in load_unit_tests(tmp_path, "train")] == ["tr"]
    with pytest.raises(InputError, match="test.jsonl"):
        load_unit_tests(tmp_path, "test")
    with pytest.raises(InputError, match="not found"):
        load_unit_tests(tmp_path / "nope.jsonl")


def test_hub_loader_reads_a_local_folder_through_datasets(tmp_path):
    """`--tests <repo>` goes through datasets.load_dataset; a local folder in the hub layout takes the same path."""
    from judges.suite.loading import load_hub_unit_tests

    hub_like = [{k: v for k, v in record(id=None).items() if k != "id"} for _ in range(3)]
    write_jsonl(tmp_path / "train.jsonl", hub_like[:1])
    write_jsonl(tmp_path / "test.jsonl", hub_like)
    tests = load_hub_unit_tests(str(tmp_path), "test")
    assert [t.id for t in tests] == ["test:1", "test:2", "test:3"]
    assert tests[0].sample.references == tuple(record()["references"])


def test_hub_loader_offline_gives_one_clear_error(monkeypatch, tmp_path):
    import datasets
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # never reach the network: offline mode, set where it is read
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="cannot load 'test' of 'illuin/grouse'"):
        load_unit_tests("grouse", "test")


def test_shipped_suite_loads_both_splits():
    assert len(load_unit_tests(ROOT / "unit_tests", "train")) == 32
    assert len(load_unit_tests(ROOT / "unit_tests", "test")) >= 192
