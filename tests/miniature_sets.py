"""Miniature labelled sets, hand-written for these tests in the formats of the shared ones (BEGIN TSV, UniEval's
Topical-Chat JSON, RAGChecker's meta-evaluation JSON and its baseline, ALCE's human-eval utility JSON). Every sentence
was written for judgelab's tests; none is taken from the sources (licence: the project's, MIT). `write_miniature_sets`
lays them out as the shared folder is, so the same loaders read them in any clone."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

# BEGIN: header row, then one row per response
TSV_SETS: dict[str, list[tuple[str, ...]]] = {
    "begin/begin_dev_cmu.tsv": [
        ("model_name", "data_source", "knowledge", "message", "response", "begin_label"),
        (
            "gpt2",
            "cmu",
            "In the film, the robot is left alone on Earth to clean up waste.",
            "what is the movie about?",
            "a robot is left alone on earth to clean up waste .",
            "Fully attributable",
        ),
        (
            "t5",
            "cmu",
            "In the film, the robot is left alone on Earth to clean up waste.",
            "who is the hero?",
            "the hero is a robot cleaning up the earth .",
            "Fully attributable",
        ),
        (
            "doha",
            "cmu",
            "The film won the award for best animated feature.",
            "did it win anything?",
            "it won best actor and best director .",
            "Not fully attributable",
        ),
        (
            "gpt2",
            "cmu",
            "The film won the award for best animated feature.",
            "was it popular?",
            "it was made in france in 1950 .",
            "Not fully attributable",
        ),
        (
            "t5",
            "cmu",
            "The story is set seven hundred years in the future.",
            "when is it set?",
            "that sounds interesting .",
            "Generic",
        ),
        (
            "doha",
            "cmu",
            "The story is set seven hundred years in the future.",
            "is it set far ahead?",
            "it is set seven hundred years from now .",
            "Fully attributable",
        ),
    ],
    "begin/begin_dev_tc.tsv": [
        ("model_name", "data_source", "knowledge", "message", "response", "begin_label"),
        (
            "gpt2",
            "tc",
            "Jupiter has at least 95 known moons.",
            "i like astronomy",
            "jupiter has at least 95 known moons .",
            "Fully attributable",
        ),
        (
            "t5",
            "tc",
            "Jupiter has at least 95 known moons.",
            "what about saturn?",
            "saturn has exactly two moons .",
            "Not fully attributable",
        ),
        ("doha", "tc", "Jupiter has at least 95 known moons.", "cool", "yeah that is cool .", "Generic"),
    ],
    "begin/begin_dev_wow.tsv": [
        ("model_name", "data_source", "knowledge", "message", "response", "begin_label"),
        (
            "gpt2",
            "wow",
            "The Eiffel Tower is 330 metres tall and was finished in 1889.",
            "have you been to paris?",
            "the eiffel tower there is 330 metres tall .",
            "Fully attributable",
        ),
        (
            "t5",
            "wow",
            "The Eiffel Tower is 330 metres tall and was finished in 1889.",
            "is it old?",
            "yes , it was finished in 1889 for a world fair .",
            "Fully attributable",
        ),
        (
            "gpt2",
            "wow",
            "Basil is a herb of the mint family.",
            "i grow basil at home",
            "basil is a kind of tree that grows in deserts .",
            "Not fully attributable",
        ),
        ("doha", "wow", "Basil is a herb of the mint family.", "do you cook with it?", "i love cooking !", "Generic"),
    ],
}

JSON_SETS: dict[str, Any] = {
    "alce/human_eval_utility.json": {
        "asqa": {
            "asqa-small-model.json": {
                "q1": {"id": "q1", "question": "Who wrote Hamlet?", "output": "Shakespeare.", "utility_score": 5},
                "q2": {"id": "q2", "question": "Where is Lima?", "output": "Lima.", "utility_score": 2},
                "overall_results": {"length": 10.0, "str_em": 50.0},
            },
            "asqa-large-model.json": {
                "q1": {
                    "id": "q1",
                    "question": "Who wrote Hamlet?",
                    "output": "Shakespeare wrote Hamlet around 1600.",
                    "utility_score": 4,
                },
                "q2": {
                    "id": "q2",
                    "question": "Where is Lima?",
                    "output": "Lima is the capital of Peru.",
                    "utility_score": 1,
                },
                "overall_results": {"length": 10.0, "str_em": 50.0},
            },
        },
        "eli5": {
            "eli5-small-model.json": {
                "e1": {"id": "e1", "question": "Why is the sky blue?", "output": "Air.", "utility_score": 5},
                "e2": {"id": "e2", "question": "Why do cats purr?", "output": "Nobody.", "utility_score": 2},
                "overall_results": {"length": 10.0, "str_em": 50.0},
            },
            "eli5-large-model.json": {
                "e1": {
                    "id": "e1",
                    "question": "Why is the sky blue?",
                    "output": "Air scatters blue light more than red light.",
                    "utility_score": 4,
                },
                "e2": {"id": "e2", "question": "Why do cats purr?", "output": "Nobody knows.", "utility_score": 1},
                "overall_results": {"length": 10.0, "str_em": 50.0},
            },
        },
    },
    "ragchecker/baseline_ragchecker.json": [
        {
            "instance_id": 0,
            "dataset": "mini",
            "query_id": "0",
            "query": "What is the boiling point of water at sea level?",
            "gt_answer": "Water boils at 100 degrees Celsius at sea level [1].",
            "model1": {
                "model_name": "bm25_small",
                "response": "It boils at 90 degrees.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 0.0, "completeness_label": 0.0, "overall_label": 0.0},
            },
            "model2": {
                "model_name": "e5_large",
                "response": "It boils at 100 degrees Celsius at sea level.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 1.0, "completeness_label": 1.0, "overall_label": 1.0},
            },
        },
        {
            "instance_id": 1,
            "dataset": "mini",
            "query_id": "1",
            "query": "Who painted the Mona Lisa?",
            "gt_answer": "Leonardo da Vinci painted the Mona Lisa [1].",
            "model1": {
                "model_name": "bm25_small",
                "response": "Leonardo da Vinci painted it.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 1.0, "completeness_label": 1.0, "overall_label": 1.0},
            },
            "model2": {
                "model_name": "e5_large",
                "response": "Michelangelo painted it in Rome.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 0.0, "completeness_label": 0.0, "overall_label": 0.0},
            },
        },
        {
            "instance_id": 2,
            "dataset": "mini",
            "query_id": "2",
            "query": "How many legs does a spider have?",
            "gt_answer": "A spider has eight legs [2].",
            "model1": {
                "model_name": "bm25_small",
                "response": "Eight legs.",
                "critiques": "-",
                "ragchecker": {
                    "correctness_label": 1.0,
                    "completeness_label": 0.5,
                    "overall_label": 0.6666666666666666,
                },
            },
            "model2": {
                "model_name": "e5_large",
                "response": "Spiders have eight legs, and insects six.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 1.0, "completeness_label": 1.0, "overall_label": 1.0},
            },
        },
        {
            "instance_id": 3,
            "dataset": "mini",
            "query_id": "3",
            "query": "What gas do plants take in?",
            "gt_answer": "Plants take in carbon dioxide for photosynthesis [1].",
            "model1": {
                "model_name": "bm25_small",
                "response": "They take in oxygen and carbon dioxide.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 0.5, "completeness_label": 0.5, "overall_label": 0.5},
            },
            "model2": {
                "model_name": "e5_large",
                "response": "Carbon dioxide, used in photosynthesis.",
                "critiques": "-",
                "ragchecker": {"correctness_label": 1.0, "completeness_label": 0.8, "overall_label": 0.888888888888889},
            },
        },
    ],
    "ragchecker/human_labeled_data.json": [
        {
            "instance_id": "0",
            "dataset": "mini",
            "query_id": "0",
            "query": "What is the boiling point of water at sea level?",
            "gt_answer": "Water boils at 100 degrees Celsius at sea level [1].",
            "model1": {"model_name": "bm25_small", "response": "It boils at 90 degrees.", "critiques": "-"},
            "model2": {
                "model_name": "e5_large",
                "response": "It boils at 100 degrees Celsius at sea level.",
                "critiques": "-",
            },
            "correctness_label": 2,
            "completeness_label": 2,
            "overall_label": 2,
        },
        {
            "instance_id": "0",
            "dataset": "mini",
            "query_id": "0",
            "query": "What is the boiling point of water at sea level?",
            "gt_answer": "Water boils at 100 degrees Celsius at sea level [1].",
            "model1": {"model_name": "bm25_small", "response": "It boils at 90 degrees.", "critiques": "-"},
            "model2": {
                "model_name": "e5_large",
                "response": "It boils at 100 degrees Celsius at sea level.",
                "critiques": "-",
            },
            "correctness_label": 1,
            "completeness_label": 2,
            "overall_label": 2,
        },
        {
            "instance_id": "1",
            "dataset": "mini",
            "query_id": "1",
            "query": "Who painted the Mona Lisa?",
            "gt_answer": "Leonardo da Vinci painted the Mona Lisa [1].",
            "model1": {"model_name": "bm25_small", "response": "Leonardo da Vinci painted it.", "critiques": "-"},
            "model2": {"model_name": "e5_large", "response": "Michelangelo painted it in Rome.", "critiques": "-"},
            "correctness_label": -2,
            "completeness_label": -2,
            "overall_label": -2,
        },
        {
            "instance_id": "1",
            "dataset": "mini",
            "query_id": "1",
            "query": "Who painted the Mona Lisa?",
            "gt_answer": "Leonardo da Vinci painted the Mona Lisa [1].",
            "model1": {"model_name": "bm25_small", "response": "Leonardo da Vinci painted it.", "critiques": "-"},
            "model2": {"model_name": "e5_large", "response": "Michelangelo painted it in Rome.", "critiques": "-"},
            "correctness_label": -2,
            "completeness_label": -1,
            "overall_label": -2,
        },
        {
            "instance_id": "2",
            "dataset": "mini",
            "query_id": "2",
            "query": "How many legs does a spider have?",
            "gt_answer": "A spider has eight legs [2].",
            "model1": {"model_name": "bm25_small", "response": "Eight legs.", "critiques": "-"},
            "model2": {
                "model_name": "e5_large",
                "response": "Spiders have eight legs, and insects six.",
                "critiques": "-",
            },
            "correctness_label": 0,
            "completeness_label": 1,
            "overall_label": 1,
        },
        {
            "instance_id": "2",
            "dataset": "mini",
            "query_id": "2",
            "query": "How many legs does a spider have?",
            "gt_answer": "A spider has eight legs [2].",
            "model1": {"model_name": "bm25_small", "response": "Eight legs.", "critiques": "-"},
            "model2": {
                "model_name": "e5_large",
                "response": "Spiders have eight legs, and insects six.",
                "critiques": "-",
            },
            "correctness_label": 0,
            "completeness_label": 0,
            "overall_label": 0,
        },
        {
            "instance_id": "3",
            "dataset": "mini",
            "query_id": "3",
            "query": "What gas do plants take in?",
            "gt_answer": "Plants take in carbon dioxide for photosynthesis [1].",
            "model1": {
                "model_name": "bm25_small",
                "response": "They take in oxygen and carbon dioxide.",
                "critiques": "-",
            },
            "model2": {
                "model_name": "e5_large",
                "response": "Carbon dioxide, used in photosynthesis.",
                "critiques": "-",
            },
            "correctness_label": 1,
            "completeness_label": 1,
            "overall_label": 1,
        },
        {
            "instance_id": "3",
            "dataset": "mini",
            "query_id": "3",
            "query": "What gas do plants take in?",
            "gt_answer": "Plants take in carbon dioxide for photosynthesis [1].",
            "model1": {
                "model_name": "bm25_small",
                "response": "They take in oxygen and carbon dioxide.",
                "critiques": "-",
            },
            "model2": {
                "model_name": "e5_large",
                "response": "Carbon dioxide, used in photosynthesis.",
                "critiques": "-",
            },
            "correctness_label": 2,
            "completeness_label": 0,
            "overall_label": 1,
        },
    ],
    "topical_chat/topical_chat.json": [
        {
            "source": "do you play video games ? \n yes , mostly old ones 0 . \n\n",
            "context": "the first ever video game console was released in 1972 . some "
            "people collect vintage consoles .\n",
            "system_output": "the first console came out in 1972 , did you know ? ",
            "system_id": "Original Ground Truth",
            "scores": {
                "understandability": 1.0,
                "naturalness": 3.0,
                "coherence": 2.0,
                "engagingness": 2.0,
                "groundedness": 1.0,
                "overall": 3.0,
            },
        },
        {
            "source": "do you play video games ? \n yes , mostly old ones 1 . \n\n",
            "context": "the first ever video game console was released in 1972 . some "
            "people collect vintage consoles .\n",
            "system_output": "i collect vintage consoles too ! ",
            "system_id": "Nucleus Sampling",
            "scores": {
                "understandability": 1.0,
                "naturalness": 3.0,
                "coherence": 2.0,
                "engagingness": 2.0,
                "groundedness": 0.6666666667,
                "overall": 3.0,
            },
        },
        {
            "source": "do you play video games ? \n yes , mostly old ones 2 . \n\n",
            "context": "the first ever video game console was released in 1972 . some "
            "people collect vintage consoles .\n",
            "system_output": "the first console came out in 1990 . ",
            "system_id": "Argmax Decoding",
            "scores": {
                "understandability": 1.0,
                "naturalness": 3.0,
                "coherence": 2.0,
                "engagingness": 2.0,
                "groundedness": 0.0,
                "overall": 3.0,
            },
        },
        {
            "source": "do you play video games ? \n yes , mostly old ones 3 . \n\n",
            "context": "the first ever video game console was released in 1972 . some "
            "people collect vintage consoles .\n",
            "system_output": "do you like games ? ",
            "system_id": "New Human Generated",
            "scores": {
                "understandability": 1.0,
                "naturalness": 3.0,
                "coherence": 2.0,
                "engagingness": 2.0,
                "groundedness": 0.3333333333,
                "overall": 3.0,
            },
        },
        {
            "source": "do you play video games ? \n yes , mostly old ones 4 . \n\n",
            "context": "the first ever video game console was released in 1972 . some "
            "people collect vintage consoles .\n",
            "system_output": "some people collect old consoles , which came out first in 1972 . ",
            "system_id": "Nucleus Sampling",
            "scores": {
                "understandability": 1.0,
                "naturalness": 3.0,
                "coherence": 2.0,
                "engagingness": 2.0,
                "groundedness": 1.0,
                "overall": 3.0,
            },
        },
        {
            "source": "do you play video games ? \n yes , mostly old ones 5 . \n\n",
            "context": "the first ever video game console was released in 1972 . some "
            "people collect vintage consoles .\n",
            "system_output": "games are fun . ",
            "system_id": "Argmax Decoding",
            "scores": {
                "understandability": 1.0,
                "naturalness": 3.0,
                "coherence": 2.0,
                "engagingness": 2.0,
                "groundedness": 0.0,
                "overall": 3.0,
            },
        },
    ],
}


def write_miniature_sets(root: Path) -> Path:
    """Write the sets under `root/datasets/` as the shared folder holds them; returns `root`."""
    for name, rows in TSV_SETS.items():
        path = root / "datasets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(rows)
    for name, value in JSON_SETS.items():
        path = root / "datasets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return root
