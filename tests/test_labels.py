"""Labelled data: adapters on the real shared files, the JSONL schema, column mappings, hub loaders offline."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import MINI_SHARED, ROOT, write_jsonl

from judges.errors import ConfigError, InputError
from judges.labels.io import read_labels, write_labels
from judges.labels.label_sets import SETS, load_set, open_labels
from judges.labels.mapping import ColumnMapping, load_mapped, parse_label_map
from judges.labels.schema import LabelType
from judges.labels.shared import shared_datasets_dir

DATA = ROOT / "tests" / "data"


# --- the shared sets, read in place from ../shared/datasets ------------------------------------------------


@pytest.mark.parametrize(
    "name, count, positives",
    [("begin-wow", 430, 180), ("begin-cmu", 416, 59), ("begin-tc", 383, 74), ("begin", 1229, 313)],
)
def test_begin_counts_and_binary_labels(name, count, positives, shared_datasets):
    labels = load_set(name)
    assert len(labels.items) == count and labels.metrics() == ["faithfulness"]
    assert sum(item.label for item in labels.items) == positives  # "Fully attributable" only
    assert {item.label_type for item in labels.items} == {LabelType.BINARY}


def test_begin_maps_knowledge_message_response_and_keeps_the_original_label(shared_datasets):
    first = load_set("begin-wow").items[0]
    assert first.id == "wow/0" and first.label == 1.0 and first.extra["begin_label"] == "Fully attributable"
    assert first.sample.references[0].startswith("originally an industrial pigment supply company")
    assert first.sample.input.startswith("strange name, but it makes sense")
    assert first.sample.actual_output.startswith("crayola shifted its focus to art products")
    generic = Counter(item.extra["begin_label"] for item in load_set("begin-cmu").items)["Generic"]
    assert generic == 79


def test_begin_can_drop_generic_responses(shared_datasets):
    from judges.labels.begin import load_begin

    assert len(load_begin(("cmu",), generic="drop").items) == 416 - 79


def test_topical_chat_groundedness_is_continuous_in_0_1(shared_datasets):
    labels = load_set("topical-chat")
    assert len(labels.items) == 360
    counts = Counter(round(item.label, 4) for item in labels.items)
    assert counts == {1.0: 153, 0.0: 129, 0.6667: 52, 0.3333: 26}
    assert {item.scale for item in labels.items} == {(0.0, 1.0)}
    assert Counter(item.extra["system"] for item in labels.items)["Original Ground Truth"] == 60


def test_ragchecker_has_both_annotators_for_every_pair_on_three_metrics(shared_datasets):
    labels = load_set("ragchecker")
    assert labels.metrics() == ["completeness", "correctness", "overall"]
    correctness = labels.for_metric("correctness")
    assert len(correctness.items) == 560 and correctness.annotators() == ["a1", "a2"]
    by_id = Counter(item.id for item in correctness.items)
    assert len(by_id) == 280 and set(by_id.values()) == {2}
    assert Counter(item.label for item in correctness.items) == {0: 234, -1: 124, 1: 112, -2: 50, 2: 40}
    first = correctness.items[0]
    assert first.answer_b and first.sample.expected_output.startswith("Pre-training corpora for language models")
    assert first.extra["system"] == "bm25_llama3_8b" and first.extra["system_b"] == "e5_mistral_gpt_4"


def test_alce_utility_has_800_answers_from_4_systems_per_dataset(shared_datasets):
    labels = load_set("alce")
    assert len(labels.items) == 800 and labels.metrics() == ["usefulness"]
    assert Counter(item.extra["dataset"] for item in labels.items) == {"asqa": 400, "eli5": 400}
    assert len({item.extra["system"] for item in labels.items}) == 8
    assert Counter(item.label for item in labels.items) == {5: 303, 4: 233, 1: 102, 3: 88, 2: 74}
    assert len(load_set("alce-eli5").items) == 400


def test_shared_dir_follows_the_env_var(monkeypatch, tmp_path):
    monkeypatch.setenv("JUDGELAB_SHARED", str(MINI_SHARED))
    assert shared_datasets_dir() == MINI_SHARED / "datasets"
    monkeypatch.setenv("JUDGELAB_SHARED", str(MINI_SHARED / "datasets"))
    assert shared_datasets_dir() == MINI_SHARED / "datasets"
    monkeypatch.setenv("JUDGELAB_SHARED", str(tmp_path))
    with pytest.raises(InputError, match="set JUDGELAB_SHARED"):
        load_set("alce")


# --- the same loaders on the miniature sets of tests/miniature_sets.py (every clone runs these) --------------------


@pytest.mark.parametrize(
    "name, count, positives", [("begin-wow", 4, 2), ("begin-cmu", 6, 3), ("begin-tc", 3, 1), ("begin", 13, 6)]
)
def test_begin_loader_on_the_miniature_set(mini_shared, name, count, positives):
    labels = load_set(name)
    assert len(labels.items) == count and labels.metrics() == ["faithfulness"]
    assert sum(item.label for item in labels.items) == positives
    first = load_set("begin-cmu").items[0]
    assert first.id == "cmu/0" and first.extra["source"] == "begin_dev_cmu.tsv:2"
    assert first.sample.actual_output == "a robot is left alone on earth to clean up waste ."
    from judges.labels.begin import load_begin

    assert len(load_begin(("cmu",), generic="drop").items) == 5


def test_topical_chat_ragchecker_and_alce_loaders_on_the_miniature_sets(mini_shared, tmp_path):
    topical = load_set("topical-chat")
    assert Counter(round(item.label, 4) for item in topical.items) == {1.0: 2, 0.0: 2, 0.6667: 1, 0.3333: 1}
    ragchecker = load_set("ragchecker")
    correctness = ragchecker.for_metric("correctness")
    assert len(correctness.items) == 8 and correctness.annotators() == ["a1", "a2"]
    assert Counter(item.label for item in correctness.items) == {2: 2, 1: 2, -2: 2, 0: 2}
    assert correctness.items[0].answer_b == "It boils at 100 degrees Celsius at sea level."
    alce = load_set("alce")
    assert len(alce.items) == 8 and Counter(item.label for item in alce.items) == {5: 2, 4: 2, 2: 2, 1: 2}
    assert len(load_set("alce-eli5").items) == 4
    for labels in (topical, ragchecker):
        assert read_labels(write_labels(tmp_path / f"{labels.name}.jsonl", labels.items)).items == labels.items


def test_unknown_set_suggests_the_closest_name():
    with pytest.raises(ConfigError, match="did you mean ragchecker"):
        load_set("ragcheker")
    with pytest.raises(InputError, match="did you mean topical-chat"):
        open_labels("topical_chat")


# --- the labelled-item JSONL schema ------------------------------------------------------------------------


def labelled(**overrides):
    base = {
        "id": "q1",
        "metric": "usefulness",
        "label": 4,
        "label_type": "ordinal",
        "scale": [1, 5],
        "annotator": "ann1",
        "input": "Who wrote it?",
        "references": ["It was written by Ada."],
        "expected_output": "Ada [1].",
        "actual_output": "Ada wrote it [1].",
    }
    base.update(overrides)
    return base


def test_schema_round_trips_every_field(tmp_path):
    pair = labelled(
        id="p1",
        metric="overall",
        label=-2,
        label_type="preference",
        scale=[-2, 2],
        actual_output_b="Someone else.",
        extra={"system": "s1"},
    )
    path = write_jsonl(tmp_path / "labels.jsonl", [labelled(), labelled(annotator="ann2", label=5), pair])
    labels = read_labels(path)
    assert labels.name == "labels" and labels.annotators() == ["ann1", "ann2"]
    assert [item.label for item in labels.items] == [4.0, 5.0, -2.0]
    again = read_labels(write_labels(tmp_path / "again.jsonl", labels.items))
    assert again.items == labels.items and again.items[2].extra == {"system": "s1"}
    assert json.loads((tmp_path / "again.jsonl").read_text().splitlines()[2])["actual_output_b"] == "Someone else."


def test_the_shared_sets_write_as_valid_schema_files(tmp_path, shared_datasets):
    for name in ("begin-tc", "ragchecker"):
        items = load_set(name).items
        assert read_labels(write_labels(tmp_path / f"{name}.jsonl", items)).items == items


@pytest.mark.parametrize(
    "record, line_field",
    [
        ({"label": None}, "'label'"),
        ({"label_type": "stars"}, "'label_type'"),
        ({"label": 7}, "'label'"),
        ({"label": 2.5}, "'label'"),
        ({"scale": [5, 1]}, "'scale'"),
        ({"label_type": "preference", "scale": [1, 5], "actual_output_b": "b"}, "'scale'"),
        ({"label_type": "binary", "label": 1, "scale": [1, 2]}, "'scale'"),
        ({"references": "one text", "input": 3}, "'input'"),
        ({"label_type": "preference", "scale": [-2, 2], "label": 1}, "'actual_output_b'"),
    ],
)
def test_schema_errors_name_file_line_and_field(tmp_path, record, line_field):
    path = write_jsonl(tmp_path / "bad.jsonl", [labelled(), labelled(id="q2", **record)])
    with pytest.raises(InputError) as caught:
        read_labels(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2: ") and message.endswith(f"(field {line_field})") and "\n" not in message


def test_schema_rejects_a_second_label_from_the_same_annotator_and_mixed_scales(tmp_path):
    with pytest.raises(InputError, match=r"bad.jsonl:2: .*second usefulness label from annotator 'ann1'"):
        read_labels(write_jsonl(tmp_path / "bad.jsonl", [labelled(), labelled()]))
    with pytest.raises(InputError, match=r"mixes label types or scales"):
        read_labels(write_jsonl(tmp_path / "bad.jsonl", [labelled(), labelled(id="q2", scale=[0, 10])]))


# --- a user's own data through a column mapping ------------------------------------------------------------


def test_csv_with_text_labels_through_a_mapping(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        "qid,question,answer,docs,verdict\n"
        'a,Who?,Ada.,"[""Ada wrote it.""]",yes\n'
        "b,When?,In 1900.,Written in 1843.,no\n",
        encoding="utf-8",
    )
    mapping = ColumnMapping.parse(
        "id=qid,input=question,actual_output=answer,references=docs,label=verdict", label_values={"yes": 1, "no": 0}
    )
    labels = load_mapped(str(path), mapping, metric="faithfulness", label_type=LabelType.BINARY)
    assert [(i.id, i.label, i.sample.references) for i in labels.items] == [
        ("a", 1.0, ("Ada wrote it.",)),
        ("b", 0.0, ("Written in 1843.",)),
    ]
    bad = ColumnMapping.parse("input=question,actual_output=answer,label=verdict")
    with pytest.raises(
        InputError,
        match=r"mine.csv:2: expected a number, got 'yes'; map text labels with --label-map TEXT=NUMBER,\.\.\. "
        r"\(field 'verdict'\)",
    ):
        load_mapped(str(path), bad, metric="faithfulness", label_type=LabelType.BINARY)


def test_jsonl_with_nested_fields_and_an_observed_continuous_scale(tmp_path):
    rows = [
        {"q": "Q1", "out": {"text": "A1"}, "human": {"score": 0.2}, "rater": "r1"},
        {"q": "Q1", "out": {"text": "A1"}, "human": {"score": 0.8}, "rater": "r2"},
    ]
    path = write_jsonl(tmp_path / "mine.jsonl", rows)
    mapping = ColumnMapping.parse("input=q,actual_output=out.text,label=human.score,annotator=rater,id=q")
    labels = load_mapped(str(path), mapping, metric="faithfulness", label_type=LabelType.CONTINUOUS)
    assert labels.annotators() == ["r1", "r2"] and {i.scale for i in labels.items} == {(0.2, 0.8)}
    with pytest.raises(InputError, match=r"mine.jsonl:1: missing column \(field 'nope'\)"):
        load_mapped(
            str(path),
            ColumnMapping.parse("input=nope,actual_output=q,label=human.score"),
            metric="m",
            label_type=LabelType.CONTINUOUS,
        )


def test_mapping_errors_are_config_errors():
    assert ColumnMapping.parse("input=q,actual_output=a").column("label") == ("label", True)  # the default name
    with pytest.raises(ConfigError, match="unknown field 'answer'"):
        ColumnMapping.parse("input=q,answer=a,label=l")
    with pytest.raises(ConfigError, match="0 \\(a tie\\) inside it"):
        load_mapped(
            str(DATA / "wikieval" / "train.jsonl"),
            ColumnMapping.parse("input=question,actual_output=answer,label=question,actual_output_b=poor_answer"),
            metric="m",
            label_type=LabelType.PREFERENCE,
            scale=(1, 5),
        )
    with pytest.raises(ConfigError, match="need a scale"):
        load_mapped(
            str(DATA / "wikieval" / "train.jsonl"),
            ColumnMapping.parse("input=question,actual_output=answer,label=question"),
            metric="m",
            label_type=LabelType.ORDINAL,
        )


def test_a_partial_mapping_keeps_the_default_column_names(tmp_path):
    """Fields not mapped are read from their own names when the row has them (`id`, `input`, `system`, ...); a
    mapped column must be there, a default one may be absent; a plain file needs no mapping at all."""
    rows = [
        {"id": "a", "input": "Who?", "answer": "Ada.", "label": 1, "system": "rag-v1"},
        {"id": "b", "input": "When?", "answer": "1843.", "label": 0, "system": "rag-v2"},
    ]
    path = write_jsonl(tmp_path / "mine.jsonl", rows)
    labels = load_mapped(
        str(path), ColumnMapping.parse("actual_output=answer"), metric="faithfulness", label_type=LabelType.BINARY
    )
    assert [(i.id, i.metric, i.sample.input, i.sample.actual_output, i.label, i.system) for i in labels.items] == [
        ("a", "faithfulness", "Who?", "Ada.", 1.0, "rag-v1"),
        ("b", "faithfulness", "When?", "1843.", 0.0, "rag-v2"),
    ]
    assert [i.annotator for i in labels.items] == ["human", "human"] and labels.items[0].sample.references == ()
    with pytest.raises(InputError, match=r"mine.jsonl:1: missing column \(field 'answer_text'\)"):
        load_mapped(
            str(path), ColumnMapping.parse("actual_output=answer_text"), metric="m", label_type=LabelType.BINARY
        )
    with pytest.raises(InputError, match=r"mine.jsonl:1: no metric: name it with --metric"):
        load_mapped(str(path), ColumnMapping.parse(""), metric=None, label_type=LabelType.BINARY)

    plain = write_jsonl(tmp_path / "plain.jsonl", [{**r, "actual_output": r["answer"]} for r in rows])
    read = open_labels(str(plain), label_type="binary", metric="faithfulness")
    assert [(i.id, i.sample.actual_output, i.label) for i in read.items] == [("a", "Ada.", 1.0), ("b", "1843.", 0.0)]
    named = open_labels(str(plain), columns="metric=const:completeness", label_type="binary")
    assert named.metrics() == ["completeness"] and [i.id for i in named.items] == ["a", "b"]


# --- hub loaders, offline on small local files in the hub's format -----------------------------------------


@pytest.fixture
def offline(monkeypatch, tmp_path):
    import datasets
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)


def test_wikieval_loader_reads_the_hub_columns_as_preferences(offline):
    from judges.labels.hub_sets import load_wikieval

    labels = load_wikieval(str(DATA / "wikieval"))
    assert labels.metrics() == ["answer_relevancy", "faithfulness"] and len(labels.items) == 6
    faithful = labels.for_metric("faithfulness").items[0]
    assert faithful.label == -1.0 and faithful.label_type is LabelType.PREFERENCE  # answer a (grounded) is better
    assert faithful.answer_b == "The Harbour Line tram opened in the spring of 2019."
    assert faithful.sample.references[0].startswith("The Harbour Line tram opened on 4 May 2023")
    assert labels.for_metric("answer_relevancy").items[1].answer_b == "Sensors help farmers in many ways."


def test_wikieval_loader_reads_the_parquet_layout_of_the_hub(offline, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from judges.labels.hub_sets import load_wikieval

    rows = [json.loads(line) for line in (DATA / "wikieval" / "train.jsonl").read_text().splitlines()]
    (tmp_path / "data").mkdir()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "data" / "train-00000-of-00001.parquet")
    assert len(load_wikieval(str(tmp_path)).items) == 6


def test_ragtruth_loader_labels_a_response_with_any_span_unfaithful(offline):
    labels = open_labels(f"ragtruth:{DATA / 'ragtruth'}", split="test")
    assert [(i.id, i.label) for i in labels.items] == [("rt-1", 1.0), ("rt-2", 0.0), ("rt-3", 0.0), ("rt-4", 1.0)]
    assert labels.items[2].extra["task_type"] == "Summary"


def test_hub_sets_offline_give_one_clear_error(offline, tmp_path, monkeypatch):
    from judges.labels.hub_sets import load_ragtruth

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="cannot load split 'train' of 'explodinggradients/WikiEval'"):
        load_set("wikieval")
    with pytest.raises(InputError, match="cannot load split 'train' of .*ragtruth.*Unknown split"):
        load_ragtruth(str(DATA / "ragtruth"), split="train")


def test_every_registered_set_names_an_importable_loader():
    import importlib

    for target, _, _ in SETS.values():
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr))


# --- public shapes mapped on the command line only (issue 14) ------------------------------------------------

OWN = DATA / "own_labels"


def test_field_paths_nest_index_fan_out_and_take_constants():
    from judges.labels.field_paths import get_field

    row = {
        "doc": {"sentences": ["First.", "Second."]},
        "annotations": [{"label": "yes"}, {"label": "no"}],
        "a.b": 1,
        "scores": {"x": {"v": 2}, "y": {"v": 3}},
    }
    assert get_field(row, "doc.sentences[1]") == "Second." and get_field(row, "doc.sentences.0") == "First."
    assert get_field(row, "annotations.*.label") == ["yes", "no"] and get_field(row, "annotations[*].label") == [
        "yes",
        "no",
    ]
    assert get_field(row, "scores.*.v") == [2, 3]  # over an object's values too
    assert get_field(row, "const:faithfulness") == "faithfulness" and get_field(row, "a.b") == 1
    with pytest.raises(KeyError):
        get_field(row, "doc.sentences[2]")
    with pytest.raises(ConfigError, match="field path"):
        ColumnMapping.parse("actual_output=a,label=b]x[")


def test_a_nested_json_with_three_annotators_and_no_question():
    mapping = ColumnMapping.parse(
        "id=id+model_id,actual_output=decoded,references=text,"
        "label=expert_annotations.*.consistency,metric=const:faithfulness"
    )
    labels = load_mapped(
        str(OWN / "summeval_like.json"), mapping, metric=None, label_type=LabelType.ORDINAL, scale=(1, 5)
    )
    assert len(labels.items) == 48 and labels.metrics() == ["faithfulness"]
    assert labels.annotators() == ["annotator-1", "annotator-2", "annotator-3"]
    first = labels.items[0]
    assert (first.id, first.label, first.sample.input) == ("doc0/M0", 5.0, "")
    assert first.sample.references[0].startswith("The council approved")


def test_a_tsv_with_text_labels_and_no_question_column():
    mapping = ColumnMapping.parse(
        "references=knowledge,actual_output=response,label=begin_label",
        label_values=parse_label_map("Fully attributable=1,Not fully attributable=0,Generic=0"),
    )
    labels = load_mapped(
        str(OWN / "begin_like_no_question.tsv"), mapping, metric="faithfulness", label_type=LabelType.BINARY
    )
    assert [(i.id, i.label) for i in labels.items] == [
        ("2", 1.0),
        ("3", 0.0),
        ("4", 0.0),
        ("5", 1.0),
        ("6", 0.0),
        ("7", 0.0),
        ("8", 1.0),
        ("9", 0.0),
    ]
    assert {i.sample.input for i in labels.items} == {""}
    with pytest.raises(ConfigError, match="--label-map: expected TEXT=NUMBER, got 'yes'"):
        parse_label_map("yes,no=0")


def test_a_parquet_file_and_a_saved_dataset_folder(tmp_path):
    import datasets
    import pyarrow.parquet as pq

    mapping = ColumnMapping.parse(
        "id=id,input=question,references=passage,actual_output=answer,label=label", label_values={"PASS": 1, "FAIL": 0}
    )
    labels = load_mapped(
        str(OWN / "halubench_like.parquet"), mapping, metric="faithfulness", label_type=LabelType.BINARY
    )
    assert [i.label for i in labels.items] == [1.0, 0.0] * 6 and labels.items[1].sample.actual_output == "The Rhine."
    rows = pq.read_table(OWN / "halubench_like.parquet").to_pylist()
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "saved"))
    saved = load_mapped(str(tmp_path / "saved"), mapping, metric="faithfulness", label_type=LabelType.BINARY)
    assert [(i.id, i.label) for i in saved.items] == [(i.id, i.label) for i in labels.items]


def test_a_shipped_set_reads_another_split_by_name(mini_shared):
    assert len(open_labels("begin-wow:dev").items) == 4
    with pytest.raises(InputError, match=r"begin_test_wow.tsv"):
        open_labels("begin-wow:test")
    with pytest.raises(ConfigError, match="'alce' has one split; splits apply to begin"):
        load_set("alce:test")
