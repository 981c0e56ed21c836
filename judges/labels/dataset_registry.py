"""The public labelled sets judgelab reads, by name: where each file comes from (pinned), its sha256 and licence."""

from __future__ import annotations

import functools
from dataclasses import dataclass

RAW = "https://raw.githubusercontent.com"  # a pinned GitHub file: RAW/owner/name/commit/path
HUB = "https://huggingface.co"  # a hub dataset: HUB/datasets/owner/name at a revision


@dataclass(frozen=True)
class DataFile:
    """One file: where the adapter reads it (under the datasets folder), its path upstream, its sha256."""

    path: str
    upstream: str
    sha256: str


@dataclass(frozen=True)
class DataSet:
    """One set judgelab can fetch: a GitHub repository at a commit (its files checked by sha256) or a hub dataset."""

    name: str
    repo: str  # GitHub owner/name, or the hub dataset id when `hub`
    revision: str  # a commit sha; "main" for a hub dataset whose commit judgelab has not verified (said in `pin`)
    files: tuple[DataFile, ...]
    licence: str
    citation: str
    labels: tuple[str, ...]  # the `--labels` names read from it (none: files for your own scripts)
    expects: str  # what the adapter reads where
    hub: bool = False
    pin: str = "the files are the ones at this commit (sha256 checked)"

    @property
    def folder(self) -> str:
        """The folder under the datasets folder (begin/, topical_chat/, ...); a hub set's is its name."""
        return self.files[0].path.split("/")[0] if self.files else self.name

    def url(self, file: DataFile, mirror: str | None = None) -> str:
        """The file's pinned URL; a mirror serves the same path on another host (RAW's path after its host)."""
        return f"{(mirror or RAW).rstrip('/')}/{self.repo}/{self.revision}/{file.upstream}"

    def source(self) -> str:
        """Where the set comes from, as a link."""
        return f"{HUB}/datasets/{self.repo}" if self.hub else f"https://github.com/{self.repo}/tree/{self.revision}"


def _files(folder: str, upstream_prefix: str, sums: str) -> tuple[DataFile, ...]:
    """Files from `sha256  path` lines (sha256sum's output), the path relative to both folders."""
    pairs = (line.split(maxsplit=1) for line in sums.strip().splitlines())
    return tuple(DataFile(f"{folder}/{path}", f"{upstream_prefix}{path}", digest) for digest, path in pairs)


BEGIN_SUMS = """
2ebfc95a1ff267e12dcce3250da4d158e1811c62e9e1a0d56f110efc9ace0178  wow/begin_dev_wow.tsv
9482294df23cf08a976773ca73203b84f7178534ecab1a206eaade365e97071c  cmu-dog/begin_dev_cmu.tsv
d799a8cb3635de41b7f284dcfc872544ddeadcbae0c2ffd684270cce671f7711  topicalchat/begin_dev_tc.tsv
"""
RAGCHECKER_SUMS = """
42651629afc007396a709c89e89ada3b587e0bcc26246c951225866715e265ce  human_labeled_data.json
1fce14cc54bf276c3ed2bb48976ba42e85159651b64c181bc19795152db6e3d6  baseline_ragchecker.json
"""
# LLMBar's Natural set and both evaluators' results for every strategy (Dataset/LLMBar/Natural/ upstream)
LLMBAR_SUMS = """
f7127b7aa78104cb8e03a2b1b3ac0077e95b125714dd441a8ee63666145a3375  dataset.json
9c53218af18bf18eb73a4d1e87fcd5c7faefa864370a596b2e96921c8625ecec  evaluators/ChatGPT/CoT/result.json
cb8e7c99eb6b70306ebe178a88cfce5e691c4ccfcee2dfa0aec9959714ee1967  evaluators/ChatGPT/CoT/statistics.json
e35e162e7c6a815369ecc6b52fd0f228c4326aca85ba361703f04328bc1b7a7d  evaluators/ChatGPT/Metrics/result.json
4f24b54b476b6733cf109d4519c777242f4d6177eba0d1dd280fa5bff08b6245  evaluators/ChatGPT/Metrics/statistics.json
3f50d07ba2770a761a1e855fcc5d23d474bb95c75dfb0925db25d04aed040e1b  evaluators/ChatGPT/Metrics_Reference/result.json
8321e82fbf82f141ecfc0b4f5ddf265638624fe781aed41fd7e07065751b1cbf  evaluators/ChatGPT/Metrics_Reference/statistics.json
4721bb83d3f575a636b1914c6554bbc297df04cd3f84bf1dc934eb41722f3400  evaluators/ChatGPT/Rating/result.json
7f708a78e531da2c896102d178a6e9abe00864941d2ffa9bef1d8a2f9390a480  evaluators/ChatGPT/Rating/statistics.json
2a024705c9881ee56a247171032bbefd617cbcf7cb19599d406d40cb5b7b43ca  evaluators/ChatGPT/Rating_NoRules/result.json
730fe302dfbbf8f400af73e949affb25f4f62eadc519165adabd5f89bbde3821  evaluators/ChatGPT/Rating_NoRules/statistics.json
9cacd5b4ec36f5a6d1937e0536a81e3aa5835f7becf2c47badcc6dbe246a806a  evaluators/ChatGPT/Reference/result.json
34344628defab5fbe41f21dc9909eaba90462c602182e59b6a4916d5ea061e46  evaluators/ChatGPT/Reference/statistics.json
99fde242f1eca6d6ff23487a49ca60c13b05620db3330a92e009216ff9dd7647  evaluators/ChatGPT/Swap/result.json
9d94933348df1d8581f0967997ae60d9a54af7c771e6ce9d0a0d133cc3b21a09  evaluators/ChatGPT/Swap/statistics.json
c4ddebd0e7c9672ff5a9ff306e711103a8fc1f4e4a8708ed7ebf6c0248e8b742  evaluators/ChatGPT/Swap_CoT/result.json
086d16e208867d98c8a1ccd885772845fc1c6b49a8ba5b4c7a1ec2ec24887e59  evaluators/ChatGPT/Swap_CoT/statistics.json
94062f9b5c4b4be7fc74ce8d23315b53b97c97bdcbe613be089a0ffa188e686c  evaluators/ChatGPT/Vanilla/result.json
331c364aa1b198102a8e9d876929e7624860b9e46a27d5334a41fd53f7e7836d  evaluators/ChatGPT/Vanilla/statistics.json
d477d3b5a89aaaba4b28dc489ff66ddfa32240f3159e7bbaa3072b52aa73a515  evaluators/ChatGPT/Vanilla_1shot/result.json
4e1c2babf54ef17062647ef49ea622e49a4a0f48c229b384863e3abb8aa6d743  evaluators/ChatGPT/Vanilla_1shot/statistics.json
021e8bad87ed5842ce041b78a7bf1a59309a13ae12d4eb296a62c9b2a3561376  evaluators/ChatGPT/Vanilla_2shot/result.json
bcbd20f9891bc376231aa39c50274c2eb8219d3a6a38f5986b2a7c2de4908e4f  evaluators/ChatGPT/Vanilla_2shot/statistics.json
6a057e7e6e10729f54baf371830806eb370910165a4863edd953f931db9cf785  evaluators/ChatGPT/Vanilla_NoRules/result.json
65f25c92edc86def279193e0bd50422bd439aa687807f27993e3844e4ee3c63d  evaluators/ChatGPT/Vanilla_NoRules/statistics.json
8a4a58a05ac40a700f12d0802f7820297b9c4d7bc1d5f987358e8326c1bd66ec  evaluators/GPT-4/CoT/result.json
0f5577ccf08e2e8b7a88b058551c233bba7e7ddc8490332f32c7a0b1eb40f18c  evaluators/GPT-4/CoT/statistics.json
f712c360bbb7241dab67741ddcff079fbb8a0a5770c92d96ab6302099ced90d3  evaluators/GPT-4/Metrics/result.json
937c5523b88297c281c07349369838fead2e1cdf5eeb5b2faa2b3016ffe08f1c  evaluators/GPT-4/Metrics/statistics.json
a9cefc9a3835ea5c785136470832c3956b3734f0fb2a2f45ad5582a8680e28d8  evaluators/GPT-4/Metrics_Reference/result.json
466344b9ff7ca75f8c7b901d3b778d14edd7092b70f39e50a3878706c637ebd9  evaluators/GPT-4/Metrics_Reference/statistics.json
7ce9526b646c1657df1776f752d6fff702254f50f958718b6c13a00e51034fa9  evaluators/GPT-4/Rating/result.json
eea5466a878a2f1a8a85cc5c05a170abe36f28e29136bfa39a49d896e2b3d3f5  evaluators/GPT-4/Rating/statistics.json
bb0a1f6f69bc555ebaef9afe154e9ffd0b37484e5d41c397508e7934923db354  evaluators/GPT-4/Rating_Metrics/result.json
e2eb143cf16e1ece78c6a8ef81ddba9f8af8161c7e91c0c2f08043b6c4753ce2  evaluators/GPT-4/Rating_Metrics/statistics.json
c162158ed87d44a85541e124b31c159d6433a6efaa0f18ca508e1e1266bb7230  evaluators/GPT-4/Rating_Metrics_Reference/result.json
3e26bd0df9e2c5978a129c06b5450fe55e6083435985615784de4b3b647b5f3f  evaluators/GPT-4/Rating_Metrics_Reference/statistics.json
b9f3183c466127cd7bbd739858b6d6dcf985daf9fffa56d3492b6fdf619ffa24  evaluators/GPT-4/Rating_NoRules/result.json
9aa9865f7a40ae7734ebb1c7b5074bd541d84fc2f8f7691d909b2d752156e01c  evaluators/GPT-4/Rating_NoRules/statistics.json
965dcb55f957f89138de348d583016ea6fa33087fb23c6a257b80f929f09ac59  evaluators/GPT-4/Rating_Reference/result.json
714383cad604b20eef9730d37b3f0301a331980bf146b51235b043a675fa4034  evaluators/GPT-4/Rating_Reference/statistics.json
c8ec5575d1d282fdab77ea4353887ba70bb51516ce69a4add4eea9e876e2b315  evaluators/GPT-4/Reference/result.json
0e8d02eb223856c8c99bf91a64f88cecc9881236896bc3db2e99664f5accc42a  evaluators/GPT-4/Reference/statistics.json
eb4e78b2e8b6f68d196918f5aa88f23343c74ba07330cc290d7b1ed89aa0e9b8  evaluators/GPT-4/Swap/result.json
95f5b8ce6e5790bd09ab3895a83844713d3e27b192fe26c9a43ef46ffd41249e  evaluators/GPT-4/Swap/statistics.json
0577890a0090267da33cf037c863e3a5d36080968d7f361b0638a58584b5763a  evaluators/GPT-4/Swap_CoT/result.json
18f2560cbf3cbe342c12bbf56f453276dfec8bf3f7bd342f810b854278f65baa  evaluators/GPT-4/Swap_CoT/statistics.json
4e3f72a6490e2cbac3243c0a144105a1b1c34baec2a82964bf181e9bbf8d5b4b  evaluators/GPT-4/Vanilla/result.json
0c8641360fa8363feee2fc3e27ea50123211325afcad7d44dff0731821862ac5  evaluators/GPT-4/Vanilla/statistics.json
8824629fc1edb507974bdadb206fd2bcb7a9d5730a5b1ec7bc643529da36d5f4  evaluators/GPT-4/Vanilla_1shot/result.json
50990030e7f19dcf34b0c2fa0bcb6a3eb19fad550930da92126ad95685e3a080  evaluators/GPT-4/Vanilla_1shot/statistics.json
a4615029190a6d7a604e9b7c56e79367b8583e9b7548c7bbd0b14b0a6cbe0765  evaluators/GPT-4/Vanilla_2shot/result.json
f3de4dd0262072599e1cfe332f454988458e182438f1ee63eddff9d737aedc79  evaluators/GPT-4/Vanilla_2shot/statistics.json
3189ad93242182e742994a67e5d94410cde5be5b01bce7c3df31c6113b141aef  evaluators/GPT-4/Vanilla_NoRules/result.json
ea9119976991cfdd2c2b24761ac6fafd313c711272d050695b117a9a696471ea  evaluators/GPT-4/Vanilla_NoRules/statistics.json
"""


def _dialogue_sets() -> list[DataSet]:
    """BEGIN and the USR Topical-Chat annotations (faithfulness of dialogue turns)."""
    begin = tuple(
        DataFile(f"begin/{path.split('/')[1]}", path, digest)
        for digest, path in (line.split() for line in BEGIN_SUMS.strip().splitlines())
    )
    return [
        DataSet(
            "begin",
            "google/BEGIN-dataset",
            "6e65f0d5a1ed1b9574643a7640ff1678d4e979b5",
            begin,
            "CC BY 4.0 (WoW, CMU-DoG); CDLA-Sharing-1.0 (TopicalChat)",
            "Dziri et al., Evaluating Attribution in Dialogue Systems: The BEGIN Benchmark, TACL 2022",
            ("begin", "begin-wow", "begin-cmu", "begin-tc"),
            "begin/begin_dev_{wow,cmu,tc}.tsv: the dev TSVs (knowledge, message, response, begin_label); "
            "upstream's test TSVs placed beside them make the `:test` split",
        ),
        DataSet(
            "topical-chat",
            "maszhongming/UniEval",
            "d33e7b6cfebe97b2bafe435adbd818230d5a416a",
            (
                DataFile(
                    "topical_chat/topical_chat.json",
                    "reproduce/data/dialogue/topical_chat.json",
                    "f6361daa6fe162f636d2071a60322a784acd770be0bf3a6920ac949d751b978a",
                ),
            ),
            "MIT (UniEval's copy of the USR annotations)",
            "Mehri and Eskenazi, USR: An Unsupervised and Reference Free Evaluation Metric for Dialog Generation, "
            "ACL 2020; Zhong et al., Towards a Unified Multi-Dimensional Evaluator for Text Generation, EMNLP 2022",
            ("topical-chat",),
            "topical_chat/topical_chat.json: a list of {source, context, system_output, system_id, scores}",
        ),
    ]


def _rag_sets() -> list[DataSet]:
    """RAGChecker's meta-evaluation and ALCE's human utility scores."""
    return [
        DataSet(
            "ragchecker",
            "amazon-science/RAGChecker",
            "6091f08c00e676e87a970f2aeb4a23a484746348",
            _files("ragchecker", "data/meta_evaluation/", RAGCHECKER_SUMS),
            "Apache-2.0",
            "Ru et al., RAGChecker: A Fine-grained Framework for Diagnosing Retrieval-Augmented Generation, "
            "NeurIPS 2024 Datasets and Benchmarks",
            ("ragchecker",),
            "ragchecker/human_labeled_data.json (pairs, two annotators' labels); baseline_ragchecker.json "
            "(RAGChecker's own metric outputs, read by results/ragchecker_leaderboard.toml as shared:ragchecker/...)",
        ),
        DataSet(
            "alce",
            "princeton-nlp/ALCE",
            "246c476a4edfc564266b7346b6e29ef4861ae937",
            (
                DataFile(
                    "alce/human_eval_utility.json",
                    "human_eval/human_eval_utility_completed.json",
                    "1d84b8a96a4ff29dc0678b35e33ea535e9f22d2313a212e41c4ce06d7a58e5ff",
                ),
            ),
            "MIT",
            "Gao et al., Enabling Large Language Models to Generate Text with Citations, EMNLP 2023",
            ("alce", "alce-asqa", "alce-eli5"),
            "alce/human_eval_utility.json: {asqa|eli5: {system file: [items with utility_score 1..5]}}",
        ),
    ]


def _other_sets() -> list[DataSet]:
    """LLMBar (files only) and the two hub sets."""
    return [
        DataSet(
            "llmbar",
            "princeton-nlp/LLMBar",
            "900616bff90b6c6c8e1681f7d079250637c55992",
            (
                DataFile(
                    "llmbar/LICENSE", "LICENSE", "8872dbf8660b00890b5e07ce1ea1f7a44fa7ae4e1857da56caba172b51dab3cb"
                ),
                *_files("llmbar/Natural", "Dataset/LLMBar/Natural/", LLMBAR_SUMS),
            ),
            "MIT",
            "Zeng et al., Evaluating Large Language Models at Evaluating Instruction Following, ICLR 2024",
            (),
            "llmbar/Natural/dataset.json (100 pairs, label 1 or 2) and evaluators/*/*/result.json + statistics.json; "
            "no --labels name reads it yet",
        ),
        DataSet(
            "wikieval",
            "explodinggradients/WikiEval",
            "main",
            (),
            "not recorded by judgelab: read the dataset card",
            "Es et al., RAGAs: Automated Evaluation of Retrieval Augmented Generation, EACL 2024 (demos)",
            ("wikieval",),
            "wikieval/: a snapshot of the hub repository, read with datasets.load_dataset (split train)",
            hub=True,
            pin="not pinned: judgelab has verified no commit of this hub dataset, so it takes main and checks no sha256",
        ),
        DataSet(
            "ragtruth",
            "wandb/RAGTruth-processed",
            "main",
            (),
            "not recorded by judgelab: read the dataset card",
            "Niu et al., RAGTruth: A Hallucination Corpus for Developing Trustworthy Retrieval-Augmented Language "
            "Models, ACL 2024",
            ("ragtruth",),
            "ragtruth/: a snapshot of the hub repository, read with datasets.load_dataset (split test)",
            hub=True,
            pin="not pinned: judgelab has verified no commit of this hub dataset, so it takes main and checks no sha256",
        ),
    ]


@functools.cache
def registry() -> dict[str, DataSet]:
    """Every set by name, in the order `judgelab data list` shows them."""
    return {entry.name: entry for entry in [*_dialogue_sets(), *_rag_sets(), *_other_sets()]}


def set_for_labels(name: str) -> DataSet | None:
    """The set a `--labels` name (`begin-cmu`, `begin-wow:test`) or a datasets folder (`topical_chat`) is read from."""
    base = name.partition(":")[0]
    return next((s for s in registry().values() if base in s.labels or base == s.folder), None)
