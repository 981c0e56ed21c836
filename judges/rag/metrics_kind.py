"""The metrics run kind's traits (`judgelab.kinds` entry `metrics`): RAG-suite scores of a dataset's samples,
which labelling may draw items from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from judges.rag.dataset import HF_PREFIX, load_rag_samples
from judges.runs.data_file import data_file
from judges.runs.kinds import KindTraits

if TYPE_CHECKING:
    from judges.runs.run import Run
    from judges.types import Sample

METRICS = "metrics"  # the kind's name, as run.json gives it


class MetricsKind(KindTraits):
    """Metrics runs: mean scores per metric (a score may come from no judge), samples re-read for labelling."""

    labelling = True

    def samples(self, run: Run) -> Mapping[str, Sample]:
        """The samples the run scored, re-read from its dataset (a file, or an hf: source as given)."""
        data = run.config.data or ""
        spec = data if data.startswith(HF_PREFIX) else str(data_file(run))
        return {sample.id: sample for sample in load_rag_samples(spec)}


METRICS_KIND = MetricsKind()
